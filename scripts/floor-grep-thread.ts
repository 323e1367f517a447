/*! The search of floor-grep.ts (see there), shared by its two threads: `grepper` turns the arguments and a
 * writer into a function that searches one file's bytes, and, run as the worker of `floor-grep --threads`, this
 * module walks its part of the split (floor-split.ts) and posts its output. */
import * as fs from "node:fs";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { splitOf } from "./floor-split.ts";
import { floorWalk } from "./floor-walk.ts";

/** What one run searches with: the file's search and the last flush of its output. */
export interface Grepper {
  readonly onFile: (abs: string, rel: string) => void;
  readonly flush: () => void;
}

/**
 * Makes the search of floor-grep's arguments.
 * @param argv the arguments (flags and the pattern)
 * @param pattern the pattern
 * @param write where full output buffers go
 * @returns the per-file search and the final flush
 */
export function grepper(
  argv: readonly string[],
  pattern: string,
  write: (bytes: Uint8Array) => void,
): Grepper {
  const ignoreCase = argv.includes("-i");
  const word = argv.includes("-w");
  const fixed = argv.includes("-F");
  const out = Buffer.allocUnsafe(1 << 17);
  const first = Buffer.allocUnsafe(1 << 16);
  let used = 0;
  const flush = () => {
    write(out.subarray(0, used));
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
        write(
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
      if (s.length * 3 > out.length) write(Buffer.from(s));
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
          write(Buffer.from(`${rel}:${digits}:${text}\n`));
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
  return {
    onFile: (abs, rel) => {
      const buf = readText(abs);
      if (buf !== null) onFile(buf, rel);
    },
    flush,
  };
}

if (!isMainThread && parentPort !== null) {
  const { argv, pattern } = workerData as { argv: string[]; pattern: string };
  const chunks: Uint8Array[] = [];
  // Output is copied: the search reuses its buffer after each flush.
  const g = grepper(argv, pattern, (b) => chunks.push(Uint8Array.from(b)));
  const split = splitOf(process.cwd());
  if (split !== null) {
    const inside = (rel: string) => rel === split.dir || split.theirs(rel);
    floorWalk(g.onFile, !argv.includes("--no-ignore"), argv.includes("--hidden"), (rel) => !inside(rel));
  }
  g.flush();
  const all = Buffer.concat(chunks);
  parentPort.postMessage(all, [all.buffer as ArrayBuffer]);
}
