/*! The floor of `rglob grep` (#23): the smallest Bun program that does the same work in one thread:
 * floor-walk.ts's walk, each file read (a first block of 64 KiB, then the rest), skipped when a NUL is in its
 * first 8 KiB (binary), and `path:line:text` written for each matching line, line numbers counted with indexOf.
 * - An exact literal (`-F`, neither -i nor -w): found with Buffer.indexOf on the bytes and each matching line
 *   copied as bytes straight to stdout (a CR before the LF dropped). It does not decode, so a line with invalid
 *   UTF-8 keeps its bytes where rglob shows U+FFFD.
 * - Anything else (`-i`, `-w`, a regex): the pattern is the JavaScript RegExp rglob compiles for it (-w wraps it
 *   in rglob's lookarounds for Unicode word characters, flags `u` and, for -i, `i`), run with the `g` flag over
 *   each file decoded whole as UTF-8; after a match the search goes on at the next line. With `--literal=TEXT`
 *   (a literal every match holds, which rglob derives from the pattern and the caller names here) the literal
 *   is found in the bytes as above and only the lines holding it are decoded and matched, as rglob's prefilter
 *   does where the literal is rare. -i has no such prefilter here (no native case-insensitive byte search).
 *   A pattern that can match a newline, a UTF-16 file, a BOM and a regex JavaScriptCore gives up on are not
 *   handled (rglob handles them).
 * bench-targets.ts compiles it with the binary's build flags and compares line sets, not bytes.
 * Usage: floor-grep [-i] [-w] [-F] PATTERN [--literal=TEXT] [--no-ignore] [--hidden] */
import * as fs from "node:fs";
import { floorWalk } from "./floor-walk.ts";

const argv = process.argv.slice(2);
const pattern = argv.find((a) => !a.startsWith("-"));
if (pattern === undefined || pattern === "") {
  console.error("usage: floor-grep [-i] [-w] [-F] PATTERN [--literal=TEXT] [--no-ignore] [--hidden]");
  process.exit(2);
}
const ignoreCase = argv.includes("-i");
const word = argv.includes("-w");
const fixed = argv.includes("-F");
const out = Buffer.allocUnsafe(1 << 17);
const first = Buffer.allocUnsafe(1 << 16);
let used = 0;
const flush = () => {
  fs.writeSync(1, out, 0, used);
  used = 0;
};

/** Reads a file as rglob does: a first block (a file shorter than it is whole); null when binary or unreadable. */
function readText(abs: string): Buffer | null {
  try {
    const fdNum = fs.openSync(abs, "r");
    try {
      const n = fs.readSync(fdNum, first, 0, first.length, 0);
      const nul = first.indexOf(0);
      if (nul >= 0 && nul < Math.min(n, 8192)) return null;
      return n < first.length ? first.subarray(0, n) : fs.readFileSync(abs);
    } finally {
      fs.closeSync(fdNum);
    }
  } catch {
    return null;
  }
}

/** The exact literal: bytes in, bytes out. */
function literalFile(needle: Buffer, buf: Buffer, rel: string): void {
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
}

/** A regex over the file's decoded text. */
function regexFile(re: RegExp, buf: Buffer, rel: string): void {
  const text = buf.toString("utf8");
  re.lastIndex = 0;
  let m = re.exec(text);
  if (m === null) return;
  const name = `${rel}:`;
  let line = 1;
  let counted = 0;
  while (m !== null) {
    const start = text.lastIndexOf("\n", m.index) + 1;
    for (let i = text.indexOf("\n", counted); i >= 0 && i < start; i = text.indexOf("\n", i + 1)) line++;
    counted = start;
    let end = text.indexOf("\n", m.index);
    if (end < 0) end = text.length;
    const textEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const s = `${name}${line}:${text.slice(start, textEnd)}\n`;
    if (used + s.length * 3 > out.length) flush();
    if (s.length * 3 > out.length) fs.writeSync(1, s);
    else used += out.write(s, used);
    if (end >= text.length) break;
    re.lastIndex = end + 1;
    m = re.exec(text);
  }
}

/** A regex through its required literal: only the lines holding the literal are decoded and matched. */
function literalLines(needle: Buffer, re: RegExp, buf: Buffer, rel: string): void {
  let hit = buf.indexOf(needle);
  if (hit < 0) return;
  let name: Buffer | null = null;
  let line = 1;
  let counted = 0;
  while (hit >= 0) {
    const start = buf.lastIndexOf(10, hit) + 1;
    let end = buf.indexOf(10, hit);
    if (end < 0) end = buf.length;
    const textEnd = end > start && buf[end - 1] === 13 ? end - 1 : end;
    const text = buf.toString("utf8", start, textEnd);
    re.lastIndex = 0;
    if (re.test(text)) {
      for (let i = buf.indexOf(10, counted); i >= 0 && i < start; i = buf.indexOf(10, i + 1)) line++;
      counted = start;
      name ??= Buffer.from(`${rel}:`);
      const digits = String(line);
      if (used + name.length + digits.length + 2 + text.length * 3 > out.length) flush();
      if (name.length + digits.length + 2 + text.length * 3 > out.length)
        fs.writeSync(1, `${rel}:${digits}:${text}\n`);
      else {
        used += name.copy(out, used);
        used += out.write(digits, used, "latin1");
        out[used++] = 58;
        used += out.write(text, used);
        out[used++] = 10;
      }
    }
    hit = end < buf.length ? buf.indexOf(needle, end + 1) : -1;
  }
}

let onFile: (buf: Buffer, rel: string) => void;
if (fixed && !ignoreCase && !word) {
  const needle = Buffer.from(pattern);
  onFile = (buf, rel) => literalFile(needle, buf, rel);
} else {
  // rglob's compiled source (src/engine/search/matcher.ts: compileMatcher) for these flags.
  let source = fixed ? pattern.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&") : pattern;
  if (word) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const re = new RegExp(source, `g${ignoreCase ? "i" : ""}u`);
  const lit = argv.find((a) => a.startsWith("--literal="))?.slice("--literal=".length);
  const pre = lit ? Buffer.from(lit) : null;
  onFile =
    pre === null ? (buf, rel) => regexFile(re, buf, rel) : (buf, rel) => literalLines(pre, re, buf, rel);
}
floorWalk(
  (abs, rel) => {
    const buf = readText(abs);
    if (buf !== null) onFile(buf, rel);
  },
  !argv.includes("--no-ignore"),
  argv.includes("--hidden"),
);
flush();
