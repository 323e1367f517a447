/*! The floor of `rglob grep -F LITERAL` (#23): the smallest Bun program that does the same work in one
 * thread: floor-walk.ts's walk, each file read (a first block of 64 KiB, then the rest), skipped when a NUL
 * is in its first 8 KiB (binary), the
 * literal found with Buffer.indexOf on the bytes, line numbers counted with indexOf, and `path:line:text`
 * lines copied as bytes straight to stdout (a CR before the LF dropped). It does not decode, so a line with
 * invalid UTF-8 keeps its bytes where rglob shows U+FFFD: bench-targets.ts compares line sets, not bytes.
 * Usage: floor-grep LITERAL [--no-ignore] [--hidden] */
import * as fs from "node:fs";
import { floorWalk } from "./floor-walk.ts";

const literal = process.argv.slice(2).find((a) => !a.startsWith("--"));
if (literal === undefined || literal === "") {
  console.error("usage: floor-grep LITERAL [--no-ignore] [--hidden]");
  process.exit(2);
}
const needle = Buffer.from(literal);
const out = Buffer.allocUnsafe(1 << 17);
const first = Buffer.allocUnsafe(1 << 16);
let used = 0;
const flush = () => {
  fs.writeSync(1, out, 0, used);
  used = 0;
};
floorWalk(
  (abs, rel) => {
    // As rglob reads: a first block (a file shorter than it is whole), binary if a NUL is in its first 8 KiB.
    let buf: Buffer;
    try {
      const fdNum = fs.openSync(abs, "r");
      try {
        const n = fs.readSync(fdNum, first, 0, first.length, 0);
        const nul = first.indexOf(0);
        if (nul >= 0 && nul < Math.min(n, 8192)) return;
        buf = n < first.length ? first.subarray(0, n) : fs.readFileSync(abs);
      } finally {
        fs.closeSync(fdNum);
      }
    } catch {
      return;
    }
    let hit = buf.indexOf(needle);
    if (hit < 0) return;
    const name = Buffer.from(`${rel}:`);
    let line = 1;
    let counted = 0; // newlines are counted up to here
    while (hit >= 0) {
      const start = buf.lastIndexOf(10, hit) + 1;
      for (let i = buf.indexOf(10, counted); i >= 0 && i < start; i = buf.indexOf(10, i + 1)) {
        line++;
        counted = i + 1;
      }
      counted = start;
      let end = buf.indexOf(10, hit);
      if (end < 0) end = buf.length;
      const textEnd = end > start && buf[end - 1] === 13 ? end - 1 : end;
      const digits = String(line);
      if (used + name.length + digits.length + 2 + (textEnd - start) > out.length) flush();
      if (name.length + digits.length + 2 + (textEnd - start) > out.length) {
        fs.writeSync(
          1,
          Buffer.concat([name, Buffer.from(`${digits}:`), buf.subarray(start, textEnd), Buffer.from("\n")]),
        );
      } else {
        used += name.copy(out, used);
        used += out.write(digits, used, "latin1");
        out[used++] = 58;
        used += buf.copy(out, used, start, textEnd);
        out[used++] = 10;
      }
      hit = end < buf.length ? buf.indexOf(needle, end + 1) : -1;
    }
  },
  !process.argv.includes("--no-ignore"),
  process.argv.includes("--hidden"),
);
flush();
