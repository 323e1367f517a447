/*! The floor of a large served answer (#36, ADR 0043): the smallest Bun program that writes what a served
 * `rglob grep PATTERN` writes, given the files that hold a match (a perfect index: no other file is read). It
 * reads each file whole (from the page cache, as a warm server does), finds the matching lines with the
 * JavaScript RegExp of the pattern, and writes `path:line:text` lines to stdout in 64 KiB writes. No process
 * but this one, no walk, index, freshness check, protocol or printer: what a served call costs over it is theirs.
 * Compile it with the binary's flags (scripts/build.ts buildArgs) and time it as a process (`hyperfine -N`).
 * Usage: floor-serve-answer LIST PATTERN (LIST: a file of relative paths, one a line, as `rg -l PATTERN | sort`
 * gives them; PATTERN: a JavaScript regular expression). */
import { readFileSync, writeSync } from "node:fs";

const [list, pattern] = process.argv.slice(2) as [string, string];
const files = readFileSync(list, "utf8")
  .split("\n")
  .filter((l) => l !== "");
const re = new RegExp(pattern);
const CHUNK = 65536;
const out = Buffer.allocUnsafe(4 * CHUNK);
let pos = 0;

/** Writes what is gathered. */
function flush(): void {
  for (let at = 0; at < pos; ) at += writeSync(1, out, at, pos - at);
  pos = 0;
}

/** Appends bytes, flushing first when they would not fit; a line longer than the buffer goes out alone. */
function put(bytes: Uint8Array): void {
  if (pos + bytes.length > out.length) flush();
  if (bytes.length > out.length) {
    for (let at = 0; at < bytes.length; ) at += writeSync(1, bytes, at, bytes.length - at);
    return;
  }
  out.set(bytes, pos);
  pos += bytes.length;
}

const NL = Buffer.from("\n");
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const name = Buffer.from(`${file}:`);
  let n = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    n++;
    const line = text.slice(start, end);
    if (re.test(line)) {
      put(name);
      put(Buffer.from(`${n}:${line}`));
      put(NL);
    }
    if (end === text.length) break;
    start = end + 1;
  }
  if (pos >= CHUNK) flush();
}
flush();
