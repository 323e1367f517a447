// The persisted index's file format (src/engine/index/format.ts, docs/decisions/0038-walk-columns-and-index-
// sections.md), through the compiled binary on real temp trees: the header's table of sections is the one
// SECTIONS describes, a file whose table disagrees is not used, and an index written by the previous format
// (fixtures/index/format-5.rgi, written by `rglob index` of rglob 0.2.0 before the 4-gram bitsets were in the
// file; or, with RGLOB_PREV_BIN, by that binary here) is refused with its format named, grep answers cold, and
// `rglob index` builds it again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { INDEX_FORMAT, PREFIX, SECTIONS } from "../../src/engine/index/format.ts";
import { ROOT, rglobJson } from "../helpers.ts";

let dir: string;
let cache: string;
const env = () => ({ RGLOB_CACHE_DIR: cache });
const PREV_BIN = process.env.RGLOB_PREV_BIN;

function status(): Record<string, unknown> {
  return rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--status", "--json"], {
    cwd: dir,
    env: env(),
  }).json.results[0] as Record<string, unknown>;
}

function build(bin?: string): Record<string, unknown> {
  const { json, run } = rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--json"], {
    cwd: dir,
    env: env(),
    ...(bin === undefined ? {} : { bin }),
  });
  expect(run.code).toBe(0);
  return json.results[0] as Record<string, unknown>;
}

/** A grep with the index and without: the same answer; the source the indexed one says. */
function grepSource(pattern: string): unknown {
  const args = ["grep", "--json", pattern];
  const { json: cold } = rglobJson(args, { cwd: dir, env: { ...env(), RGLOB_INDEX: "0" } });
  const { json: hot } = rglobJson(args, { cwd: dir, env: env() });
  const source = hot.source;
  delete hot.source;
  hot.bytes_read = cold.bytes_read;
  expect(hot).toEqual(cold);
  return source;
}

/** The header of an index file, and its JSON's length. */
function headerOf(bytes: Buffer): { h: Record<string, unknown>; jsonLen: number } {
  const jsonLen = bytes.readUInt32LE(12);
  return { h: JSON.parse(bytes.toString("utf8", PREFIX, PREFIX + jsonLen)), jsonLen };
}

/** The same file with its header replaced (its length kept, the hash made right): only the header tells. */
function withHeader(bytes: Buffer, edit: (h: Record<string, unknown>) => void): Buffer {
  const { h, jsonLen } = headerOf(bytes);
  edit(h);
  const json = Buffer.from(JSON.stringify(h), "utf8");
  expect(json.length).toBe(jsonLen);
  const out = Buffer.from(bytes);
  json.copy(out, PREFIX);
  out.write(Bun.hash.xxHash3(out.subarray(PREFIX)).toString(16).padStart(16, "0"), 16, "latin1");
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-iformat-"));
  cache = mkdtempSync(join(tmpdir(), "rglob-iformat-cache-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "a.txt"), "needle in a haystack\n");
  writeFileSync(join(dir, "src", "b.ts"), "export const needle = 1;\n");
  writeFileSync(join(dir, "src", "c.md"), "nothing here\n");
  writeFileSync(join(dir, ".gitignore"), "*.log\n");
  // A file modified in the last moments is not indexed (racy stats).
  const past = new Date(Date.now() - 3600_000);
  for (const f of ["a.txt", "src/b.ts", "src/c.md", ".gitignore"]) utimesSync(join(dir, f), past, past);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

describe("the persisted index's format", () => {
  test("the header's table of sections is SECTIONS: name, kind, version, offset and length of each", () => {
    const built = build();
    const bytes = readFileSync(built.index_path as string);
    expect(bytes.toString("latin1", 0, 8)).toBe("RGLOBIDX");
    expect(bytes.readUInt32LE(8)).toBe(INDEX_FORMAT);
    const { h, jsonLen } = headerOf(bytes);
    expect(h.format).toBe(INDEX_FORMAT);
    const rows = h.sections as Array<[string, string, number, number, number]>;
    expect(rows.map((r) => [r[0], r[1], r[2]])).toEqual(SECTIONS.map((s) => [s.name, s.kind, s.version]));
    // In order after the header, each on its boundary, the last ending at the end of the file.
    let end = PREFIX + jsonLen;
    for (const [i, [name, , , offset, length]] of rows.entries()) {
      expect({ name, aligned: offset % (SECTIONS[i] as { align: number }).align }).toEqual({
        name,
        aligned: 0,
      });
      expect(offset).toBeGreaterThanOrEqual(end);
      end = offset + length;
    }
    expect(end).toBe(bytes.length);
    const byName = new Map(rows.map((r) => [r[0], r]));
    // The paths section holds the indexed files' relative paths; the walk's types one code per entry.
    const paths = byName.get("paths") as [string, string, number, number, number];
    expect(
      bytes
        .toString("utf8", paths[3], paths[3] + paths[4])
        .split("\0")
        .sort(),
    ).toEqual([".gitignore", "a.txt", "src/b.ts", "src/c.md"].sort());
    expect((byName.get("types") as number[])[4]).toBe((h.walk as { entries: number }).entries);
    expect(grepSource("needle")).toBe("index");
  }, 120_000);

  test("a file whose table of sections disagrees with SECTIONS is not used, and says which section", () => {
    const file = build().index_path as string;
    const good = readFileSync(file);
    const check = (bytes: Buffer, why: RegExp) => {
      writeFileSync(file, bytes);
      const s = status();
      expect(s.state).toBe("unusable");
      expect(String(s.reason)).toMatch(why);
      expect(grepSource("needle")).toBeUndefined();
    };
    type Row = [string, string, number, number, number];
    const rowsOf = (h: Record<string, unknown>) => h.sections as Row[];
    // Another version of one section (a single digit: the header keeps its length).
    check(
      withHeader(good, (h) => {
        (rowsOf(h).find((r) => r[0] === "keys") as Row)[2] = 7;
      }),
      /section keys version 7, not 1/,
    );
    // Another kind for a section.
    check(
      withHeader(good, (h) => {
        (rowsOf(h).find((r) => r[0] === "ops") as Row)[1] = "i8";
      }),
      /section ops of kind i8, not u8/,
    );
    // Two sections swapped.
    check(
      withHeader(good, (h) => {
        const rows = rowsOf(h);
        [rows[0], rows[1]] = [rows[1] as Row, rows[0] as Row];
      }),
      /corrupt table of sections/,
    );
    writeFileSync(file, good);
    expect(status().state).toBe("present");
    expect(grepSource("needle")).toBe("index");
  }, 120_000);

  test("a file whose 4-gram table does not hold (a bitset's length not a power of two) is not used", () => {
    const big = join(dir, "big.txt");
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) lines.push(`line ${i}: word${(i * 7919) % 10007} and more words`);
    writeFileSync(big, lines.join("\n"));
    const past = new Date(Date.now() - 3600_000);
    utimesSync(big, past, past);
    try {
      const file = build().index_path as string;
      const good = readFileSync(file);
      const { h } = headerOf(good);
      expect(h.quad_files).toBe(1);
      const row = (h.sections as Array<[string, string, number, number, number]>).find(
        (r) => r[0] === "quadids",
      );
      const at = (row as [string, string, number, number, number])[3] + 4;
      const len = good.readUInt32LE(at);
      // A bitset of a power of two bytes, an eighth of the file's or less (quads.ts).
      expect(len).toBeGreaterThan(2);
      expect(len & (len - 1)).toBe(0);
      // The bitset's length one less, the file's hash made right: only the table tells.
      const bad = Buffer.from(good);
      bad.writeUInt32LE(len - 1, at);
      bad.write(Bun.hash.xxHash3(bad.subarray(PREFIX)).toString(16).padStart(16, "0"), 16, "latin1");
      writeFileSync(file, bad);
      expect(status()).toMatchObject({ state: "unusable", reason: "corrupt sections" });
      expect(grepSource("needle")).toBeUndefined();
    } finally {
      rmSync(big);
    }
  }, 120_000);

  /** Puts an index file of the previous format at this tree's index path, then expects it refused and rebuilt. */
  const refusedThenRebuilt = (write: (file: string) => void) => {
    const file = build().index_path as string;
    write(file);
    expect(readFileSync(file).readUInt32LE(8)).toBe(INDEX_FORMAT - 1);
    const s = status();
    expect(s.state).toBe("unusable");
    expect(s.reason).toBe(`format ${INDEX_FORMAT - 1}, not ${INDEX_FORMAT}`);
    // grep answers cold (the answer the index would give, without it), and says nothing of an index.
    expect(grepSource("needle")).toBeUndefined();
    const again = build();
    expect(again.state).toBe("built");
    expect(readFileSync(file).readUInt32LE(8)).toBe(INDEX_FORMAT);
    expect(status().state).toBe("present");
    expect(grepSource("needle")).toBe("index");
  };

  test("an index of the previous format (5) is refused, grep answers cold, and index builds it again", () => {
    refusedThenRebuilt((file) => copyFileSync(join(ROOT, "fixtures", "index", "format-5.rgi"), file));
  }, 120_000);

  test.skipIf(PREV_BIN === undefined)(
    "an index written by the previous binary (RGLOB_PREV_BIN; skipped when it is not set) is refused and built again",
    () => {
      refusedThenRebuilt((file) => {
        const prev = build(PREV_BIN);
        expect(prev.index_path).toBe(file);
        expect(statSync(dirname(file)).isDirectory()).toBe(true);
      });
    },
    120_000,
  );
});
