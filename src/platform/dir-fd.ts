/*! Platform: directories read through their descriptors (Linux under Bun; #21, #23). A directory below one
 * already open is opened with openat(parent, name, O_NOFOLLOW | O_DIRECTORY), so it is the entry of the
 * directory object opened before, never reached through a symlink, and it is listed with getdents64 on its own
 * descriptor: the object opened is the object listed, with no path resolved again and no /proc/self/fd lookup
 * per directory. Calls go to libc through bun:ffi. A name that is not valid UTF-8 is held losslessly
 * (names.ts). Anything unusual (an error, no libc, Node) answers "not here" (-1 or null): the caller then takes platform.listDir, which reports errors
 * and odd names as it always did. It never decides policy. */

import { isUtf8 } from "node:buffer";
import * as fs from "node:fs";
import { openLibc } from "./libc.ts";
import type { DirListing, EntryType } from "./listing.ts";
import { C_NAME_MAX, decodeName, writeCName } from "./names.ts";
import { routes } from "./routes.ts";

/** Descriptor-based directory access (see the file header). */
interface DirFds {
  /**
   * Opens the directory `name` inside the directory open as `parent`, not following a symlink.
   * @returns the descriptor, or -1 (an error, or not a directory: the caller takes the path route)
   */
  openAt(parent: number, name: string): number;
  /**
   * Opens the file `name` inside the directory open as `parent` for reading, not following a symlink (O_NONBLOCK:
   * a FIFO put in its place does not block).
   * @returns the descriptor, or -1 (the caller takes the path route, which reports the error)
   */
  openFileAt(parent: number, name: string): number;
  /**
   * Lists an open directory: every name but . and .., and the types of the entries that are not regular files.
   * @returns the listing, or null when the path route must list it (an error, a name not valid UTF-8)
   */
  list(fd: number): DirListing | null;
  /**
   * Opens a file by its absolute path with openat2 and RESOLVE_NO_SYMLINKS: no component of the path may be a
   * symlink, so the object opened has that real path (when the path holds no `.` or `..` component).
   * @returns the descriptor, or -1 (an error, a symlink met, or a kernel without openat2: the caller takes the
   * path route, which reports the error as it is)
   */
  openNoSymlinks(abs: string, flags: number): number;
  close(fd: number): void;
}

/** The getdents64 types (dirent.h DT_*) of the entries that are not regular files. */
const DT: Record<number, EntryType> = {
  0: "unknown",
  1: "fifo",
  2: "char",
  4: "dir",
  6: "block",
  10: "symlink",
  12: "socket",
};
const DT_REG = 8;
/** O_CLOEXEC has the same value on every Linux architecture Bun builds for (x64, arm64). */
const O_CLOEXEC = 0o2000000;
/** openat2's number (the same on x64 and arm64, Linux 5.6 and later) and its resolve flag. */
const SYS_OPENAT2 = 437;
const RESOLVE_NO_SYMLINKS = 0x04;
const AT_FDCWD = -100;

function load(): DirFds | null {
  // RGLOB_DIR_FD=0: paths only (the reference the descriptor route is tested against, test/diff/dir-fd.test.ts).
  if (!routes().dirFd) return null;
  if (process.arch !== "x64" && process.arch !== "arm64") return null; // getdents64 records read little-endian
  const libc = openLibc((t) => ({
    openat: { args: [t.i32, t.ptr, t.i32], returns: t.i32 },
    close: { args: [t.i32], returns: t.i32 },
    getdents64: { args: [t.i32, t.ptr, t.u64], returns: t.i64_fast },
    // openat2 has no glibc wrapper here: syscall(2), whose arguments are all integers and pointers.
    syscall: {
      args: [t.i64, t.i64, t.ptr, t.ptr, t.u64],
      // A number (no BigInt to make and convert per call): the results are small.
      returns: t.i64_fast,
    },
  }));
  if (libc === null) return null; // the path route serves
  const { ffi } = libc;
  const { openat, close, getdents64, syscall } = libc.lib.symbols;
  // struct open_how { u64 flags; u64 mode; u64 resolve; }, in memory of its own (a small typed array's
  // storage may move, stat-words.ts).
  const howStorage = new ArrayBuffer(24);
  // Written as little-endian 32-bit halves (no BigInt per call): flags and resolve fit in the low halves.
  const how = new Uint32Array(howStorage);
  how[4] = RESOLVE_NO_SYMLINKS;
  const howPtr = ffi.ptr(new Uint8Array(howStorage));
  const C = fs.constants;
  const flags = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW | C.O_NONBLOCK | O_CLOEXEC;
  const fileFlags = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | O_CLOEXEC;
  const records = Buffer.alloc(1 << 16);
  const recordsPtr = ffi.ptr(records);
  const nameBuf = Buffer.alloc(C_NAME_MAX * 3 + 1);
  const namePtr = ffi.ptr(nameBuf);
  /** Writes a name NUL-terminated into nameBuf (its raw bytes when it holds any, names.ts). */
  const writeName = (name: string): boolean => writeCName(name, nameBuf);
  return {
    openAt(parent: number, name: string): number {
      if (!writeName(name)) return -1;
      return openat(parent, namePtr, flags);
    },
    openFileAt(parent: number, name: string): number {
      if (!writeName(name)) return -1;
      return openat(parent, namePtr, fileFlags);
    },
    list(fd: number): DirListing | null {
      const names: string[] = [];
      let others: Map<string, EntryType> | null = null;
      for (;;) {
        const got = Number(getdents64(fd, recordsPtr, records.length));
        if (got === 0) break;
        if (got < 0) return null;
        // A new view after each call: the optimising JIT may keep an element of a typed array from before a
        // native call that wrote it (seen with fstat's buffer in a hot loop), and a view made after the call
        // has no such element.
        const rec = Buffer.from(records.buffer, records.byteOffset, got);
        let off = 0;
        while (off < got) {
          const reclen = (rec[off + 16] as number) | ((rec[off + 17] as number) << 8);
          const type = rec[off + 18] as number;
          const start = off + 19;
          let end = start;
          let high = 0;
          for (let b = rec[end] as number; b !== 0; b = rec[++end] as number) high |= b;
          off += reclen;
          let name: string;
          if (high < 0x80) {
            name = rec.toString("latin1", start, end);
            if (name === "." || name === "..") continue;
          } else {
            const raw = rec.subarray(start, end);
            // A name that is not valid UTF-8 is held losslessly (names.ts).
            name = isUtf8(raw) ? rec.toString("utf8", start, end) : decodeName(raw);
          }
          names.push(name);
          if (type !== DT_REG) {
            others ??= new Map();
            others.set(name, DT[type] ?? "unknown");
          }
        }
      }
      return { names, others };
    },
    openNoSymlinks(abs: string, openFlags: number): number {
      if (!writeName(abs)) return -1;
      how[0] = openFlags | O_CLOEXEC;
      const fd = Number(syscall(SYS_OPENAT2, AT_FDCWD, namePtr, howPtr, 24));
      return fd >= 0 ? fd : -1;
    },
    close(fd: number): void {
      close(fd);
    },
  };
}

let loaded: DirFds | null | undefined;

/**
 * Returns descriptor-based directory access in this process (libc is opened on the first call), or null where
 * only paths serve (not Linux, not Bun, no glibc).
 * @returns the access, or null
 */
export function dirFds(): DirFds | null {
  if (loaded === undefined) loaded = load();
  return loaded;
}
