// count and UTF-16 text without a byte order mark (#37): grep searches such a file and find's {encoding} /
// --saved-as call it utf-16le or utf-16be (ADR 0041); count skipped it as binary for its NUL bytes. One sniff
// decides for all three: count counts its lines as `wc -l` counts those of the decoded text, in the calling
// thread and with count's workers, and a file with NUL bytes that is not UTF-16 text stays binary.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

const t = tempTree({ "plain.txt": "one\ntwo\n" });
const cwd = t.dir;
const le = "first line\nsecond\n\nfourth, Zürich\n";
const be = "big endian\nline two\n";
const py = "# a comment\nx = 1\n\n";
writeFileSync(join(cwd, "le.txt"), Buffer.from(le, "utf16le"));
writeFileSync(join(cwd, "be.txt"), Buffer.from(be, "utf16le").swap16());
writeFileSync(join(cwd, "bom.txt"), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(le, "utf16le")]));
writeFileSync(join(cwd, "tool.py"), Buffer.from(py, "utf16le"));
writeFileSync(join(cwd, "data.bin"), Buffer.from([0, 1, 2, 3, 0, 0, 5, 6, 7, 0, 0, 0, 1, 2, 3, 4]));
afterAll(() => t.cleanup());

interface Row {
  relative_path: string;
  lines: number;
  code: number;
  comment: number;
  blank: number;
}
interface CountResult {
  results: Row[];
  totals: { files: number; lines: number; binary_files: number };
}

const lines = (s: string) => s.split("\n").length - 1;

describe("count: UTF-16 text without a byte order mark", () => {
  test.each(["0", "3"])(
    "is counted, not skipped as binary (RGLOB_WALK_SPLIT=%s, two count threads)",
    (split) => {
      const { json } = rglobJson<CountResult>(["count", "--by", "file", "--threads", "2", "--json"], {
        cwd,
        env: { RGLOB_SERVE: "0", RGLOB_WALK_SPLIT: split },
      });
      const row = (k: string) => json.results.find((r) => r.relative_path === k);
      expect(row("le.txt")?.lines).toBe(lines(le));
      expect(row("le.txt")?.blank).toBe(1);
      expect(row("be.txt")?.lines).toBe(lines(be));
      expect(row("bom.txt")?.lines).toBe(lines(le));
      expect(row("tool.py")).toMatchObject({ lines: 3, code: 1, comment: 1, blank: 1 });
      // data.bin has NUL bytes and is not UTF-16 text: binary, as grep and find say.
      expect(row("data.bin")).toBeUndefined();
      expect(json.totals.binary_files).toBe(1);
      expect(json.totals.files).toBe(5);
    },
  );

  test("the files count counts are those grep searches and find names as UTF-16", () => {
    const enc = rglob(["find", "-t", "f", "--format", "{encoding} {rel}"], {
      cwd,
      env: { RGLOB_SERVE: "0" },
    });
    expect(enc.stdout.split("\n").sort().filter(Boolean)).toEqual([
      "binary data.bin",
      "utf-16be be.txt",
      "utf-16le le.txt",
      "utf-16le tool.py",
      "utf-16le+bom bom.txt",
      "utf-8 plain.txt",
    ]);
    const grep = rglob(["grep", "-c", "", "--include-zero"], { cwd, env: { RGLOB_SERVE: "0" } });
    expect(grep.stdout.split("\n").sort().filter(Boolean)).toEqual([
      "be.txt:2",
      "bom.txt:4",
      "le.txt:4",
      "plain.txt:2",
      "tool.py:3",
    ]);
    const lc = rglob(["lcount", "*.txt"], { cwd, env: { RGLOB_SERVE: "0" } });
    expect(lc.stdout).toContain(`Total lines: ${lines(le) * 2 + lines(be) + 2}`);
  });
});
