// #36: grep's plain listing searched by workers (`-j N`, the default on four cores or more) writes the lines the
// workers packed (docs/decisions/0049-served-grep-on-one-thread.md): the same bytes, in the same order, with the
// same exit code and notes as the search in the calling thread. The tree holds many small files, a line that is
// not valid UTF-8, CR LF lines, a UTF-16 file, a binary file, a line longer than the output's chunk and a large
// file whose matching lines go out a megabyte at a time, in the middle of the file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BIN, tempTree } from "../helpers.ts";

const files: Record<string, string | Uint8Array> = {};
for (let d = 0; d < 12; d++)
  for (let f = 0; f < 25; f++)
    files[`src/d${d}/f${f}.js`] =
      f % 3 === 0
        ? "const a = 1;\n"
        : `// header ${d}.${f}\nfunction needle${f}() {}\nlet x = "no";\nreturn NEEDLE; // needle again needle\n`;
files["latin1.txt"] = Buffer.concat([
  Buffer.from("plain line\nneedle in Z"),
  Buffer.from([0xfc]),
  Buffer.from("rich\n"),
]);
files["crlf.txt"] = "first needle\r\nsecond\r\nthird needle\r\n";
files["utf16.txt"] = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a needle\nnone\n", "utf16le")]);
files["data.bin"] = Buffer.concat([Buffer.from("needle"), Buffer.alloc(16), Buffer.from("needle\n")]);
files["long.txt"] = `${"x".repeat(100_000)} needle ${"y".repeat(100_000)}\nshort needle\n`;
// 3.2 MB of matching lines: searched window by window, its lines given out in the middle of the file.
files["big.log"] = "needle: something happened here, code=42\n".repeat(80_000);

let tree: ReturnType<typeof tempTree>;
beforeAll(() => {
  tree = tempTree(files);
});
afterAll(() => tree.cleanup());

/** Runs the binary cold in the tree; stdout and stderr as bytes. */
function run(args: readonly string[]): { code: number; out: Buffer; err: Buffer } {
  const r = Bun.spawnSync([BIN, "grep", ...args], {
    cwd: tree.dir,
    env: { ...process.env, NO_COLOR: "1", RGLOB_SERVE: "0" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode ?? -1, out: r.stdout, err: r.stderr };
}

describe("grep's plain listing by workers", () => {
  const queries: ReadonlyArray<readonly string[]> = [
    ["needle"],
    ["-i", "NEEDLE"],
    ["need[a-z]e"],
    ["-w", "needle"],
    ["-n", "--timeout", "60", "need[a-z]e"],
    ["needle", "src/d3", "big.log", "latin1.txt"],
    ["nowhere-at-all"],
  ];
  test.each(queries.map((q) => [q.join(" "), q]))("%s: the same bytes as in one thread", (_name, q) => {
    const one = run([...(q as string[]), "-j", "0"]);
    for (const threads of ["1", "2"]) {
      const many = run([...(q as string[]), "-j", threads]);
      expect(many.code).toBe(one.code);
      expect(many.err.toString()).toBe(one.err.toString());
      expect(many.out.length).toBe(one.out.length);
      expect(many.out.equals(one.out)).toBe(true);
    }
    if (q[0] === "needle" && q.length === 1) {
      // What is compared holds every kind of line: big.log's 80,000, the line of bytes that are not UTF-8,
      // the CR LF lines without their CR, the UTF-16 file's line and the long line whole.
      const text = one.out.toString("latin1");
      expect(text.split("\n").filter((l) => l.startsWith("big.log:")).length).toBe(80_000);
      expect(one.out.includes(Buffer.from("latin1.txt:2:needle in Z\ufffdrich\n"))).toBe(true);
      expect(text).toContain("crlf.txt:1:first needle\ncrlf.txt:3:third needle\n");
      expect(text).toContain("utf16.txt:1:a needle\n");
      expect(text).toContain(`long.txt:1:${"x".repeat(100_000)} needle`);
      expect(text).not.toContain("data.bin");
    }
  });
});
