/*! Names that are not valid UTF-8. The walk keeps every path as a string; a byte that is not part of valid
 * UTF-8 is held as the lone surrogate U+DC80 + byte (as Python's surrogateescape does), which no valid name can
 * hold, so the string is lossless: the platform turns it back into the raw bytes for every system call, the
 * records give the lossy form (U+FFFD, as Buffer#toString) plus the raw bytes in base64, and human output
 * writes the raw bytes. Globs, ignore rules and the walk order see each such byte as one character. */
import { isUtf8 } from "node:buffer";
import { readFileSync } from "node:fs";
import * as nodePath from "node:path";

/**
 * The names of version-control metadata directories: never listed or searched, whatever `hidden` says (an
 * explicit root is still walked). Entries of that name are left out whatever their type (a `.git` file points
 * at a worktree's git directory). The tree watch names no file in them (tree-watch.ts).
 */
export const VCS_DIRS: ReadonlySet<string> = new Set([".git", ".hg", ".svn", ".bzr", ".jj", ".sl"]);

/** Built from a string: a bundler may write a lone surrogate in a regex literal as U+FFFD. */
const RAW = /[\udc80-\udcff]/u;

/**
 * Whether a path holds bytes that are not valid UTF-8 (escaped as lone surrogates).
 * @param s a path or name
 * @returns true when it must be turned back into bytes before a system call
 */
export function hasRawBytes(s: string): boolean {
  // A well-formed string holds no lone surrogate, so no raw byte: one native scan, several times cheaper than
  // the regex, which runs only for the rare string that is not (it is asked of every path written or opened).
  return !isWellFormed(s) && RAW.test(s);
}

/**
 * Whether a string holds no lone surrogate (String#isWellFormed: one native scan). A string that holds one (a raw
 * byte of a name, or a broken one) is no text that UTF-8 bytes decode to: its UTF-8 encoding is lossy.
 * @param s a path or name
 * @returns true when it encodes to UTF-8 and back unchanged
 */
export function isWellFormed(s: string): boolean {
  return (s as WellFormed).isWellFormed();
}

/** String#isWellFormed (ES2024; in every Bun and in Node 20). */
type WellFormed = string & { isWellFormed(): boolean };

/**
 * Decodes a name or path read as bytes: valid UTF-8 as such, every other byte as U+DC80 + byte.
 * @param b the raw bytes
 * @returns the lossless string
 */
export function decodeName(b: Uint8Array): string {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (isUtf8(buf)) return buf.toString("utf8");
  let out = "";
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const c = buf[i] as number;
    let len = 0;
    if (c < 0x80) len = 1;
    else if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) len = 3;
    else if (c >= 0xf0 && c <= 0xf4) len = 4;
    if (len > 0 && i + len <= n && isUtf8(buf.subarray(i, i + len))) {
      out += buf.toString("utf8", i, i + len);
      i += len;
    } else {
      out += String.fromCharCode(0xdc00 + c);
      i++;
    }
  }
  return out;
}

/**
 * decodeName of the bytes from `start` to `end` of a buffer, a name that is ASCII (nearly all) taken as it is:
 * a third of the time (about 100 ns a name; a watch decodes the name of every file another process opens).
 * @param buf the buffer
 * @param start where the name begins
 * @param end where it ends (exclusive)
 * @returns the lossless string
 */
export function decodeNameIn(buf: Buffer, start: number, end: number): string {
  for (let i = start; i < end; i++)
    if ((buf[i] as number) >= 0x80) return decodeName(buf.subarray(start, end));
  return buf.toString("latin1", start, end);
}

/**
 * Encodes a lossless string back into the raw bytes it stands for.
 * @param s the string (lone surrogates U+DC80..U+DCFF stand for single bytes)
 * @returns the bytes
 */
export function encodeName(s: string): Buffer {
  let start = 0;
  const chunks: Buffer[] = [];
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      continue;
    }
    if (u >= 0xdc80 && u <= 0xdcff) {
      if (i > start) chunks.push(Buffer.from(s.slice(start, i), "utf8"));
      chunks.push(Buffer.of(u - 0xdc00));
      start = i + 1;
    }
  }
  if (start < s.length) chunks.push(Buffer.from(s.slice(start), "utf8"));
  return Buffer.concat(chunks);
}

/** The longest name or path written for a system call (characters, or bytes of a name held raw). */
export const C_NAME_MAX = 4096;

/**
 * Writes a name or path NUL-terminated into a buffer for a system call (bun:ffi): its raw bytes when it holds any
 * (a name that is not valid UTF-8, held as names.ts holds it), else its UTF-8.
 * @param s the name or path
 * @param buf where it goes: at least C_NAME_MAX * 3 + 1 bytes
 * @returns false when it is too long (over 4096 characters or raw bytes): the caller takes another route
 */
export function writeCName(s: string, buf: Buffer): boolean {
  if (s.length > C_NAME_MAX) return false;
  let n: number;
  if (hasRawBytes(s)) {
    const raw = encodeName(s);
    if (raw.length > C_NAME_MAX) return false;
    n = raw.copy(buf, 0);
  } else n = buf.write(s, 0, "utf8");
  buf[n] = 0;
  return true;
}

/**
 * The argument a system call takes for a path: the string itself, or its raw bytes when it holds any.
 * @param s the path
 * @returns the string or a Buffer
 */
export function fsPath(s: string): string | Buffer {
  return hasRawBytes(s) ? encodeName(s) : s;
}

/**
 * The lossy form of a path for records: U+FFFD for the bytes that are not valid UTF-8.
 * @param s the lossless path
 * @returns the lossy string (s itself when it holds no raw bytes)
 */
function lossyName(s: string): string {
  return hasRawBytes(s) ? encodeName(s).toString("utf8") : s;
}

/**
 * Returns the command-line arguments losslessly: the runtime decodes them as UTF-8 with U+FFFD, so when one holds
 * U+FFFD they are read again as bytes from /proc/self/cmdline (Linux), which a name that is not valid UTF-8
 * needs to be named as an operand. Elsewhere, or when the two do not line up, the arguments are kept as given.
 * @param argv the arguments after the program
 * @returns them, lossless where possible
 */
export function losslessArgv(argv: string[]): string[] {
  if (!argv.some((a) => a.includes("\ufffd"))) return argv;
  let raw: Buffer;
  try {
    raw = readFileSync("/proc/self/cmdline");
  } catch {
    return argv;
  }
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = raw.indexOf(0); i >= 0; i = raw.indexOf(0, at)) {
    parts.push(raw.subarray(at, i));
    at = i + 1;
  }
  if (parts.length < argv.length) return argv;
  const tail = parts.slice(parts.length - argv.length).map(decodeName);
  for (let i = 0; i < argv.length; i++) if (lossyName(tail[i] as string) !== argv[i]) return argv;
  return tail;
}

/**
 * path.resolve for lossless paths: Bun's path.resolve writes a lone surrogate as U+FFFD, so a path holding raw
 * bytes is resolved on its bytes (as latin1 text, where `/` and `.` are themselves) and decoded back.
 * @param parts the path segments, as path.resolve takes them
 * @returns the absolute path, lossless
 */
export function resolvePath(...parts: string[]): string {
  if (!parts.some(hasRawBytes)) return nodePath.resolve(...parts);
  const latin = parts.map((p) => encodeName(p).toString("latin1"));
  return decodeName(Buffer.from(nodePath.resolve(...latin), "latin1"));
}

/** Applies a node:path function to lossless paths (on their bytes when they hold raw bytes, see resolvePath). */
function onBytes(fn: (...parts: string[]) => string, parts: string[]): string {
  if (!parts.some(hasRawBytes)) return fn(...parts);
  const latin = parts.map((p) => encodeName(p).toString("latin1"));
  return decodeName(Buffer.from(fn(...latin), "latin1"));
}

/** path.join for lossless paths. */
export const joinPath = (...parts: string[]): string => onBytes(nodePath.join, parts);
/** path.relative for lossless paths. */
export const relativePath = (from: string, to: string): string => onBytes(nodePath.relative, [from, to]);
/** path.basename for lossless paths. */
export const basenamePath = (p: string): string => onBytes(nodePath.basename, [p]);
/** path.dirname for lossless paths. */
export const dirnamePath = (p: string): string => onBytes(nodePath.dirname, [p]);
