/*! Platform: what tells that a path changed (its size, mtime, ctime and inode) as ten 32-bit words, read and
 * compared without an object per call: the persisted index checks tens of thousands of paths per grep
 * (docs/decisions/0028-warm-index.md). On Linux under Bun through statx in libc (bun:ffi); elsewhere, or when
 * that is not there, from Node's bigint stats. Both give the kernel's values, so words written by one compare
 * equal with words read by the other. The words: size (low, high), mtime seconds (low, high), mtime
 * nanoseconds, ctime seconds (low, high), ctime nanoseconds, inode (low, high). */

import * as fs from "node:fs";
import { openLibc } from "./libc.ts";
import { C_NAME_MAX, decodeName, encodeName, fsPath, writeCName } from "./names.ts";
import { routes } from "./routes.ts";

/** Words per path. */
export const STAT_WORDS = 10;

/** What a stat gave: the words were written, the path is absent (ENOENT, ENOTDIR), another error. */
export const STAT_OK = 0;
export const STAT_ABSENT = 1;
const STAT_ERROR = 2;
export type StatOutcome = typeof STAT_OK | typeof STAT_ABSENT | typeof STAT_ERROR;

const NS = 1_000_000_000n;
const U32 = 0xffff_ffffn;

/**
 * Writes Node's bigint stats as words.
 * @param st the stats
 * @param out where to write them
 * @param at the first word
 */
export function wordsOfStats(st: fs.BigIntStats, out: Uint32Array, at: number): void {
  const put = (v: bigint, i: number) => {
    const u = BigInt.asUintN(64, v);
    out[at + i] = Number(u & U32);
    out[at + i + 1] = Number(u >> 32n);
  };
  // Seconds rounded down and nanoseconds in [0, 1e9), as the kernel's timespec holds a time before 1970.
  const time = (ns: bigint, i: number) => {
    let sec = ns / NS;
    let nsec = ns - sec * NS;
    if (nsec < 0n) {
      sec -= 1n;
      nsec += NS;
    }
    put(sec, i);
    out[at + i + 2] = Number(nsec);
  };
  put(st.size, 0);
  time(st.mtimeNs, 2);
  time(st.ctimeNs, 5);
  put(st.ino, 8);
}

/**
 * Tells what a failed stat means here: the path is absent (ENOENT, ENOTDIR), or another error.
 * @param err what the stat threw
 * @returns STAT_ABSENT or STAT_ERROR
 */
function statFailure(err: unknown): StatOutcome {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" ? STAT_ABSENT : STAT_ERROR;
}

function nodeStat(p: string, follow: boolean, out: Uint32Array, at: number, kind = false): StatOutcome {
  try {
    // An absent path answers undefined, not an error: a thrown error cost about 25 us, and most paths a witness
    // looked for are absent (an ignore file above a root, a `.git` in each directory up to the repository).
    const how = { bigint: true, throwIfNoEntry: false } as const;
    const st = follow ? fs.statSync(fsPath(p), how) : fs.lstatSync(fsPath(p), how);
    if (st === undefined) return STAT_ABSENT;
    wordsOfStats(st, out, at);
    if (kind) out[at] = kindOfMode(Number(st.mode));
    return STAT_OK;
  } catch (err) {
    return statFailure(err);
  }
}

/** S_IFMT and the two file types a kind tells apart. */
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/** A mode's kind as statKindInto writes it: 1 a directory, 2 a regular file, 3 anything else. */
function kindOfMode(mode: number): number {
  const type = mode & S_IFMT;
  return type === S_IFDIR ? 1 : type === S_IFREG ? 2 : 3;
}

/** Reads a path's words. */
type StatInto = (path: string, follow: boolean, out: Uint32Array, at: number) => StatOutcome;

/**
 * Reads the words of the path made of a prefix's bytes and a slice of other bytes (no string is made).
 * @param prefix the first bytes of the path
 * @param src the bytes the rest is taken from
 * @param from where the rest starts in src
 * @param to where it ends
 */
type StatBytesInto = (
  prefix: Uint8Array,
  src: Uint8Array,
  from: number,
  to: number,
  follow: boolean,
  out: Uint32Array,
  at: number,
) => StatOutcome;

const nodeStatBytes: StatBytesInto = (prefix, src, from, to, follow, out, at) =>
  nodeStat(decodeName(Buffer.concat([prefix, src.subarray(from, to)])), follow, out, at);

/** statx's struct offsets in 32-bit words (the same on every architecture). */
const SX_MASK = 0;
/** stx_nlink. */
const SX_NLINK = 4;
const SX_INO = 8;
const SX_SIZE = 10;
const SX_CTIME = 24;
const SX_MTIME = 28;
/** stx_uid, stx_gid, stx_mode (low half), stx_dev_major, stx_dev_minor. */
const SX_UID = 5;
const SX_GID = 6;
const SX_MODE = 7;
const SX_DEV_MAJOR = 34;
const SX_DEV_MINOR = 35;
/** STATX_TYPE | STATX_MODE | STATX_UID | STATX_GID | STATX_MTIME | STATX_INO | STATX_SIZE: an entry's fields. */
const SX_ENTRY = 0x1 | 0x2 | 0x8 | 0x10 | 0x40 | 0x100 | 0x200;
/** STATX_MTIME | STATX_CTIME | STATX_INO | STATX_SIZE: what must have been filled in. */
const SX_NEEDED = 0x40 | 0x80 | 0x100 | 0x200;
/** STATX_NLINK. */
const SX_NLINK_BIT = 0x4;
/** STATX_TYPE. */
const SX_TYPE_BIT = 0x1;
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_NO_AUTOMOUNT = 0x800;
const STATX_BASIC_STATS = 0x7ff;

/** What the statx reader gives: by string, by prefix and slice, and for many paths lying in one byte array. */
interface Statx {
  readonly str: StatInto;
  readonly bytes: StatBytesInto;
  readonly checker: (dir: string | null, bytes: Uint8Array) => PathsChecker | null;
  readonly at: (dirFd: number, name: string, follow: boolean) => StatFields | null;
  /** The link count of the path last stat'ed by `str` (0: not given). */
  readonly lastLinks: () => number;
  /** `str`, also keeping the link count for lastLinks. */
  readonly linked: StatInto;
  /** `str` with the kind of file in the first word (statKindInto). */
  readonly kind: StatInto;
}

/** The fields of a file's own stats that the walk's consumers read, as Node's Stats names and computes them. */
interface StatFields {
  readonly size: number;
  readonly mtimeMs: number;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly dev: number;
  readonly ino: number;
}

function loadStatx(): Statx | null {
  if (!routes().dirFd) return null; // the paths-only reference (dir-fd.ts)
  const libc = openLibc((t) => ({ statx: { args: [t.i32, t.ptr, t.i32, t.u32, t.ptr], returns: t.i32 } }));
  if (libc === null) return null; // (or a glibc without statx) Node's stats serve
  const { ffi } = libc;
  const statx = libc.lib.symbols.statx as unknown as (
    dirfd: number,
    path: number,
    flags: number,
    mask: number,
    buf: number,
  ) => number;
  // Storage of its own, fixed before its address is taken: a small typed array's storage may move (JSC moves
  // it the first time its .buffer is asked for), and statx would then write where nothing reads.
  const storage = new ArrayBuffer(256);
  const bufPtr = ffi.ptr(new Uint8Array(storage));
  const pathBuf = Buffer.from(new ArrayBuffer(C_NAME_MAX * 3 + 1));
  const pathPtr = ffi.ptr(pathBuf);
  /** statx of the NUL-terminated path in pathBuf; false when Node's stat must answer. */
  const call = (follow: boolean, out: Uint32Array, at: number): boolean => {
    const flags = AT_NO_AUTOMOUNT | (follow ? 0 : AT_SYMLINK_NOFOLLOW);
    // An error (its kind from Node's stat, which reports the same), or fields the file system did not give.
    if (statx(AT_FDCWD, pathPtr, flags, STATX_BASIC_STATS, bufPtr) !== 0) return false;
    // A view made after the call: the optimising JIT may keep an element read before a native call wrote it.
    const w = new Uint32Array(storage, 0, 64);
    if (((w[SX_MASK] as number) & SX_NEEDED) !== SX_NEEDED) return false;
    out[at] = w[SX_SIZE] as number;
    out[at + 1] = w[SX_SIZE + 1] as number;
    out[at + 2] = w[SX_MTIME] as number;
    out[at + 3] = w[SX_MTIME + 1] as number;
    out[at + 4] = w[SX_MTIME + 2] as number;
    out[at + 5] = w[SX_CTIME] as number;
    out[at + 6] = w[SX_CTIME + 1] as number;
    out[at + 7] = w[SX_CTIME + 2] as number;
    out[at + 8] = w[SX_INO] as number;
    out[at + 9] = w[SX_INO + 1] as number;
    return true;
  };
  const str: StatInto = (p, follow, out, at) =>
    writeCName(p, pathBuf) && call(follow, out, at) ? STAT_OK : nodeStat(p, follow, out, at);
  const bytes: StatBytesInto = (prefix, src, from, to, follow, out, at) => {
    const n = prefix.length + to - from;
    if (n > C_NAME_MAX * 3) return nodeStatBytes(prefix, src, from, to, follow, out, at);
    pathBuf.set(prefix, 0);
    pathBuf.set(src.subarray(from, to), prefix.length);
    pathBuf[n] = 0;
    return call(follow, out, at) ? STAT_OK : nodeStatBytes(prefix, src, from, to, follow, out, at);
  };
  const checker = (dir: string | null, src: Uint8Array): PathsChecker | null => {
    // No memory to point at (bun:ffi gives no pointer to an empty array): no path to check either.
    if (src.length === 0) return null;
    const prefix = prefixOf(dir);
    let dirfd = AT_FDCWD;
    if (dir !== null) {
      try {
        dirfd = fs.openSync(fsPath(dir), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      } catch {
        return null;
      }
    }
    // The address through its ArrayBuffer, whose storage does not move (a small typed array's may, until its
    // buffer is asked for).
    const base = ffi.ptr(src.buffer, src.byteOffset);
    return {
      same(from, to, follow, words, at) {
        // A path ended by a NUL goes to statx where it lies (relative to the directory's descriptor).
        if (to < src.length && src[to] === 0) {
          const flags = AT_NO_AUTOMOUNT | (follow ? 0 : AT_SYMLINK_NOFOLLOW);
          const ok = statx(dirfd, base + from, flags, STATX_BASIC_STATS, bufPtr) === 0;
          // A view made after the call: the optimising JIT may keep an element read before a native call wrote
          // it (as in `call` above).
          const view = new Uint32Array(storage, 0, 64);
          if (ok && ((view[SX_MASK] as number) & SX_NEEDED) === SX_NEEDED)
            return (
              view[SX_SIZE] === words[at] &&
              view[SX_SIZE + 1] === words[at + 1] &&
              view[SX_MTIME] === words[at + 2] &&
              view[SX_MTIME + 1] === words[at + 3] &&
              view[SX_MTIME + 2] === words[at + 4] &&
              view[SX_CTIME] === words[at + 5] &&
              view[SX_CTIME + 1] === words[at + 6] &&
              view[SX_CTIME + 2] === words[at + 7] &&
              view[SX_INO] === words[at + 8] &&
              view[SX_INO + 1] === words[at + 9]
            );
        }
        // The last path (no NUL after it), an error, or fields not given: the path is made whole and stat'ed.
        return sameWordsOfBytes(prefix, src, from, to, follow, words, at);
      },
      close() {
        if (dirfd !== AT_FDCWD) fs.closeSync(dirfd);
        dirfd = AT_FDCWD;
      },
    };
  };
  const at = (dirFd: number, name: string, follow: boolean): StatFields | null => {
    if (!writeCName(name, pathBuf)) return null;
    const flags = AT_NO_AUTOMOUNT | (follow ? 0 : AT_SYMLINK_NOFOLLOW);
    if (statx(dirFd, pathPtr, flags, STATX_BASIC_STATS, bufPtr) !== 0) return null;
    // A view made after the call (as in `call` above).
    const w = new Uint32Array(storage, 0, 64);
    if (((w[SX_MASK] as number) & SX_ENTRY) !== SX_ENTRY) return null;
    const major = w[SX_DEV_MAJOR] as number;
    const minor = w[SX_DEV_MINOR] as number;
    return {
      size: (w[SX_SIZE + 1] as number) * 2 ** 32 + (w[SX_SIZE] as number),
      // Seconds are signed (the high word), nanoseconds added as Node adds them (sec * 1000 + nsec / 1e6).
      mtimeMs:
        (((w[SX_MTIME + 1] as number) | 0) * 2 ** 32 + (w[SX_MTIME] as number)) * 1000 +
        (w[SX_MTIME + 2] as number) / 1e6,
      mode: (w[SX_MODE] as number) & 0xffff,
      uid: w[SX_UID] as number,
      gid: w[SX_GID] as number,
      // The kernel's encoding of a device number in stat(2)'s st_dev (glibc's makedev).
      dev:
        (minor & 0xff) +
        (major & 0xfff) * 2 ** 8 +
        Math.floor(minor / 2 ** 8) * 2 ** 20 +
        Math.floor(major / 2 ** 12) * 2 ** 32,
      ino: (w[SX_INO + 1] as number) * 2 ** 32 + (w[SX_INO] as number),
    };
  };
  let links = 0;
  const counted: StatInto = (p, follow, out, at) => {
    links = 0;
    if (!writeCName(p, pathBuf) || !call(follow, out, at)) return nodeStat(p, follow, out, at);
    const w = new Uint32Array(storage, 0, 64);
    if (((w[SX_MASK] as number) & SX_NLINK_BIT) !== 0) links = w[SX_NLINK] as number;
    return STAT_OK;
  };
  const kind: StatInto = (p, follow, out, at) => {
    if (!writeCName(p, pathBuf) || !call(follow, out, at)) return nodeStat(p, follow, out, at, true);
    const w = new Uint32Array(storage, 0, 64);
    if (((w[SX_MASK] as number) & SX_TYPE_BIT) === 0) return nodeStat(p, follow, out, at, true);
    out[at] = kindOfMode((w[SX_MODE] as number) & 0xffff);
    return STAT_OK;
  };
  return { str, bytes, checker, at, linked: counted, lastLinks: () => links, kind };
}

function prefixOf(dir: string | null): Uint8Array {
  return dir === null ? new Uint8Array(0) : encodeName(dir.endsWith("/") ? dir : `${dir}/`);
}

/** Checks of many paths that lie in one byte array (pathsChecker). */
export interface PathsChecker {
  /**
   * Tells whether the path at bytes [from, to) has the words given (an absent path or an error never has).
   * @param from where it starts
   * @param to where it ends (a NUL or the array's end)
   * @param follow whether a final symlink is followed
   * @param words the expected words
   * @param at the first of them
   */
  same(from: number, to: number, follow: boolean, words: Uint32Array, at: number): boolean;
  /** Lets the directory go. */
  close(): void;
}

/**
 * Returns a checker of paths lying in one byte array: relative to a directory, or absolute (dir null). Under
 * Bun on Linux a path ended by a NUL goes to statx where it lies, relative to the directory's descriptor (no
 * copy of the path per call); elsewhere each path is made whole first (sameWordsOfBytes).
 * @param dir the directory the paths are relative to, or null
 * @param bytes the paths' bytes
 * @returns the checker (close it when done)
 */
export function pathsChecker(dir: string | null, bytes: Uint8Array): PathsChecker {
  const fast = reader().checker(dir, bytes);
  if (fast !== null) return fast;
  const prefix = prefixOf(dir);
  return {
    same: (from, to, follow, words, at) => sameWordsOfBytes(prefix, bytes, from, to, follow, words, at),
    close() {},
  };
}

let loaded: Statx | undefined;

function reader(): Statx {
  loaded ??= loadStatx() ?? {
    str: nodeStat,
    bytes: nodeStatBytes,
    checker: () => null,
    at: () => null,
    linked: nodeStat,
    lastLinks: () => 0,
    kind: (p, follow, out, at) => nodeStat(p, follow, out, at, true),
  };
  return loaded;
}

/**
 * Reads a directory's words (its own: a final symlink is not followed) and its link count, in one statx: on the
 * file systems that count them (ext4, xfs, tmpfs) a directory has two links and one more per subdirectory, so
 * a directory whose words are as recorded (no entry added, removed or renamed in it since) and whose known
 * subdirectories are as many as its links less two has no other (the restarted watch's set-up lists only the
 * directories where that does not hold: tree-watch.ts).
 * @param p the directory's path
 * @param out where the words go
 * @param at the first of them
 * @returns the link count (0 when the stat failed or the file system gave none: the caller lists the directory)
 */
export function wordsAndLinks(p: string, out: Uint32Array, at: number): number {
  const r = reader();
  if (r.linked === nodeStat) {
    try {
      const st = fs.lstatSync(fsPath(p), { bigint: true });
      wordsOfStats(st, out, at);
      return Number(st.nlink);
    } catch {
      return 0;
    }
  }
  return r.linked(p, false, out, at) === STAT_OK ? r.lastLinks() : 0;
}

/**
 * Reads an entry's own stats (a symlink's, not its target's) relative to the directory it was listed in: one
 * path component for the kernel to resolve instead of the whole path, and nothing on the way that a swapped
 * parent could lead elsewhere. Null when this platform has no statx here or the call failed: the caller then
 * stats the path (and reports what that says).
 * @param dirFd the open directory
 * @param name the entry's name in it
 * @returns the fields, or null
 */
export function lstatAt(dirFd: number, name: string): StatFields | null {
  return reader().at(dirFd, name, false);
}

/**
 * Reads a path's stats (a final symlink followed or not) as fields, without the object Node's stat makes: the
 * check of each duplicate after it was read. Null when this platform has no statx here or the call failed:
 * the caller then stats the path with Node (and reports what that says).
 * @param p the absolute path
 * @param follow whether a final symlink is followed
 * @returns the fields, or null
 */
export function statFields(p: string, follow: boolean): StatFields | null {
  return reader().at(AT_FDCWD, p, follow);
}

/**
 * Returns the fastest way here to read a path's words (statx through bun:ffi on Linux, else Node's stats).
 * @returns the reader
 */
export function statInto(): StatInto {
  return reader().str;
}

/**
 * Reads a path's words, a final symlink followed, with its kind in the first word instead of the size's low word:
 * 1 a directory, 2 a regular file, 3 anything else (from the mode the same stat gave).
 * @param p the path
 * @param out where the words go
 * @returns what the stat gave
 */
export function statKindInto(p: string, out: Uint32Array): StatOutcome {
  return reader().kind(p, true, out, 0);
}

/**
 * Returns the same for a path given as bytes (a prefix and a slice).
 * @returns the reader
 */
export function statBytesInto(): StatBytesInto {
  return reader().bytes;
}

const scratch = new Uint32Array(STAT_WORDS);

/**
 * Tells whether a path's words are those given (an absent path or an error never is).
 * @param p the path
 * @param follow whether a final symlink is followed
 * @param words the expected words
 * @param at the first of them
 * @returns whether they are the same
 */
export function sameWords(p: string, follow: boolean, words: Uint32Array, at: number): boolean {
  return statInto()(p, follow, scratch, 0) === STAT_OK && sameAsScratch(words, at);
}

/**
 * The same for the path made of a prefix's bytes and a slice of other bytes (statBytesInto).
 * @param prefix the first bytes of the path
 * @param src the bytes the rest is taken from
 * @param from where the rest starts in src
 * @param to where it ends
 * @param follow whether a final symlink is followed
 * @param words the expected words
 * @param at the first of them
 * @returns whether they are the same
 */
function sameWordsOfBytes(
  prefix: Uint8Array,
  src: Uint8Array,
  from: number,
  to: number,
  follow: boolean,
  words: Uint32Array,
  at: number,
): boolean {
  return statBytesInto()(prefix, src, from, to, follow, scratch, 0) === STAT_OK && sameAsScratch(words, at);
}

function sameAsScratch(words: Uint32Array, at: number): boolean {
  for (let i = 0; i < STAT_WORDS; i++) if (scratch[i] !== words[at + i]) return false;
  return true;
}

/**
 * Returns the newer of the mtime and ctime in words, in seconds (for the racy-stats test).
 * @param words the words
 * @param at the first of them
 * @returns the time in seconds since 1970
 */
export function newestTime(words: Uint32Array, at: number): number {
  const secs = (i: number) => {
    const hi = words[at + i + 1] as number;
    return (hi | 0) * 4294967296 + (words[at + i] as number) + (words[at + i + 2] as number) / 1e9;
  };
  return Math.max(secs(2), secs(5));
}
