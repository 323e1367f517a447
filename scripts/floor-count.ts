/*! The floor of `rglob count` (#23): the smallest Bun program that counts lines as rglob does, in one thread:
 * floor-walk.ts's walk, each regular file opened and read in blocks of 256 KiB into one reused buffer, skipped
 * when a NUL is in its first 8 KiB (binary, as rglob skips it), its lines counted as rglob counts them (newline
 * bytes found with Buffer.indexOf, plus one for a last line without a newline), and `LINES PATH` written per
 * file (the path relative to the current directory), then a line of totals: `total: F files, L lines, B bytes`.
 * rglob also tells blank, comment and code lines apart (per language, a byte scan of each line's start) and
 * writes a record per file; this floor does neither, so it is the floor of the line count that `wc -l` does,
 * not of the classification. A UTF-16 file is counted by rglob and skipped here as binary.
 * With --classify it does the classification too, with rglob's own counter (engine/lines.ts, the language from
 * the file name as count takes it), and writes `LINES,CODE,COMMENT PATH` per file: the floor of the same work
 * as `rglob count`, as floor-walk.ts is rglob's walk without its layers.
 * With --python it counts only Python's files (*.py, *.pyi, *.pyw, as `--lang py` selects them), each read whole
 * and classified by floor-python.ts (one pass over its bytes: blank, code, comment and docstring lines by
 * rglob's rules), and writes the same `LINES,CODE,COMMENT PATH` lines: the floor of `rglob count --lang py`
 * (`--python --classify`: the same files through rglob's own counter).
 * bench-targets.ts compiles it with the binary's build flags and compares each file's counts with rglob's.
 * Usage: floor-count [--no-ignore] [--hidden] [--classify] [--python] */
import * as fs from "node:fs";
import { languageOf } from "../src/engine/languages.ts";
import { LineCounter } from "../src/engine/lines.ts";
import { pythonLines } from "./floor-python.ts";
import { floorWalk } from "./floor-walk.ts";

const classify = process.argv.includes("--classify");
const python = process.argv.includes("--python");
/** A whole file's bytes (--python), grown for a larger file. */
let whole = Buffer.allocUnsafe(1 << 20);

/** Reads a whole file into `whole`; returns its length, or -1 when it cannot be read. */
function readWhole(abs: string): number {
  try {
    const fdNum = fs.openSync(abs, "r");
    try {
      let len = 0;
      for (;;) {
        if (len === whole.length) {
          const bigger = Buffer.allocUnsafe(whole.length * 2);
          whole.copy(bigger, 0, 0, len);
          whole = bigger;
        }
        const got = fs.readSync(fdNum, whole, len, whole.length - len, null);
        if (got === 0) return len;
        len += got;
      }
    } finally {
      fs.closeSync(fdNum);
    }
  } catch {
    return -1;
  }
}
const counter = classify ? new LineCounter({ binaryProbe: 8192, width: "bytes", confine: null }) : null;

const buf = Buffer.allocUnsafe(1 << 18);
const out = Buffer.allocUnsafe(1 << 17);
let used = 0;
let files = 0;
let lines = 0;
let bytes = 0;
floorWalk(
  (abs, rel) => {
    if (python && !/\.py[iw]?$/.test(rel)) return;
    if (python && counter === null) {
      const len = readWhole(abs);
      if (len < 0 || whole.subarray(0, Math.min(len, 8192)).indexOf(0) >= 0) return;
      const from = len >= 3 && whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf ? 3 : 0;
      const c = pythonLines(whole, from, len);
      files++;
      lines += c.lines;
      bytes += len;
      if (used + rel.length * 3 + 48 > out.length) {
        fs.writeSync(1, out, 0, used);
        used = 0;
      }
      used += out.write(`${c.lines},${c.code},${c.lines - c.blank - c.code} `, used, "latin1");
      used += out.write(rel, used);
      out[used++] = 10;
      return;
    }
    if (counter !== null) {
      const got = counter.count(abs, languageOf(rel.slice(rel.lastIndexOf("/") + 1)));
      if (got.kind !== "counted") return;
      const c = got.counts;
      files++;
      lines += c.lines;
      bytes += c.bytes;
      if (used + rel.length * 3 + 48 > out.length) {
        fs.writeSync(1, out, 0, used);
        used = 0;
      }
      used += out.write(`${c.lines},${c.code},${c.nonBlank - c.code} `, used, "latin1");
      used += out.write(rel, used);
      out[used++] = 10;
      return;
    }
    let n = 0;
    let size = 0;
    let last = 10;
    try {
      const fdNum = fs.openSync(abs, "r");
      try {
        for (;;) {
          const got = fs.readSync(fdNum, buf, 0, buf.length, null);
          if (got === 0) break;
          const view = got < buf.length ? buf.subarray(0, got) : buf;
          if (size === 0 && view.subarray(0, 8192).indexOf(0) >= 0) return;
          for (let i = view.indexOf(10); i >= 0; i = view.indexOf(10, i + 1)) n++;
          size += got;
          last = buf[got - 1] as number;
          if (got < buf.length) break; // a short read of a regular file is its end
        }
      } finally {
        fs.closeSync(fdNum);
      }
    } catch {
      return;
    }
    if (last !== 10) n++;
    files++;
    lines += n;
    bytes += size;
    if (used + rel.length * 3 + 24 > out.length) {
      fs.writeSync(1, out, 0, used);
      used = 0;
    }
    used += out.write(String(n), used, "latin1");
    out[used++] = 32;
    used += out.write(rel, used);
    out[used++] = 10;
  },
  !process.argv.includes("--no-ignore"),
  process.argv.includes("--hidden"),
);
fs.writeSync(1, out, 0, used);
fs.writeSync(1, `total: ${files} files, ${lines} lines, ${bytes} bytes\n`);
