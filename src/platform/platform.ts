/*! Platform adapter: the only door from the engine to the file system and hashing. One small interface,
 * two implementations: Bun's native APIs in the binary, node:fs/node:crypto under plain Node.
 * It never decides policy (ignore rules, bounds); the engine does. */
import type * as NodeCrypto from "node:crypto";
import * as fs from "node:fs";
import { dirFds } from "./dir-fd.ts";
import type { DirListing, EntryType } from "./listing.ts";
import { decodeName, fsPath, hasRawBytes } from "./names.ts";

/**
 * Returns the listed type of one name of a listing.
 * @param listing the listing
 * @param name one of its names
 * @returns its type ("file" unless the listing says otherwise)
 */
export function typeIn(listing: DirListing, name: string): EntryType {
  return listing.others?.get(name) ?? "file";
}

/** An incremental hash of a byte stream. */
interface Hasher {
  update(data: Uint8Array): void;
  /** Returns the digest as lowercase hex. */
  digest(): string;
}

/**
 * What an opened file or directory must be, checked on the object opened, not on the path (a symlink swapped in
 * after the listing must not take a read out of the roots). Plain data: it crosses to worker threads.
 */
export interface Confinement {
  /** Each root as walked and its real path: below a root, an object opened without following symlinks must be
   * at the root's real path plus the same relative path. */
  readonly roots: readonly (readonly [string, string])[];
  /** The real base under strict_base (whatever is opened must be inside it), else null. */
  readonly inside: string | null;
  /** Symlinks below the roots are followed: the real path may differ, only `inside` is checked. */
  readonly follow: boolean;
}

/** Where the walk listed a file (a walk Entry): its directory's descriptor while the walk is in it (-1 once
 * closed), or null. */
export interface ListedFile {
  readonly listedDir: { readonly fd: number } | null;
}

/** The error thrown when what was opened is not what was listed (code ECONFINE; reported as PERM). */
class ConfinementError extends Error {
  readonly code = "ECONFINE";
}

/** A file's stats as the platform gives them (Node's shape, which Bun's implements too). */
export type FileStats = fs.Stats;

/** The file system and hashing primitives the engine needs. */
interface Platform {
  readonly name: "bun" | "node";
  /**
   * Lists a directory with entry types, in no particular order. With a confinement, the directory is opened
   * (not following a final symlink) and checked before it is read, and what is listed is the directory opened.
   */
  listDir(path: string, confine?: Confinement | null): DirListing;
  /**
   * Opens a directory for listing as listDir opens it (checked under a confinement), returning a descriptor; the
   * caller lists it through dir-fd.ts and closes it.
   */
  openDir(path: string, confine: Confinement): number;
  lstat(path: string): fs.Stats;
  stat(path: string): fs.Stats;
  realpath(path: string): string;
  /** Returns a symlink's target text, as readlink(2) gives it (not resolved). */
  readlink(path: string): string;
  /**
   * Opens a file for reading (non-blocking), returning a descriptor. With a confinement the final component is
   * not followed (except for a root named as such) and the object opened is checked (ConfinementError); with
   * noFollow a final symlink is never followed (ELOOP).
   */
  open(path: string, confine?: Confinement | null, noFollow?: boolean): number;
  /**
   * Opens a file the walk listed, as open does, knowing where it was listed: while its directory is still open
   * (the walk is in it) the file is opened from that descriptor without following a symlink, so it is the
   * entry of the checked directory and its real path is not read back. Otherwise (a closed directory, a
   * failure, which then reports as open does) it is opened and checked as open does.
   */
  openListed(path: string, confine: Confinement | null, listed: ListedFile): number;
  /** Returns the stats of an open descriptor (what was opened, not what the path names now). */
  fstat(fd: number): fs.Stats;
  /** Reads into buf at offset 0 from file position pos (null = current); returns bytes read. */
  read(fd: number, buf: Uint8Array, length: number, pos: number | null): number;
  close(fd: number): void;
  /** A fast 64-bit non-cryptographic hash, as 16 hex digits. */
  hash64(data: Uint8Array): string;
  /** A streaming content hash (the digest reported by dupes). */
  createHasher(): Hasher;
  /** The name of the createHasher algorithm, as reported in records. */
  readonly hashAlgorithm: string;
}

function typeOf(d: fs.Dirent): EntryType {
  if (d.isFile()) return "file";
  if (d.isDirectory()) return "dir";
  if (d.isSymbolicLink()) return "symlink";
  if (d.isFIFO()) return "fifo";
  if (d.isSocket()) return "socket";
  if (d.isBlockDevice()) return "block";
  if (d.isCharacterDevice()) return "char";
  return "unknown";
}

/**
 * Returns the type of a stat result.
 * @param st a Stats object
 * @returns the entry type
 */
export function typeOfStats(st: fs.Stats): EntryType {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "dir";
  if (st.isSymbolicLink()) return "symlink";
  if (st.isFIFO()) return "fifo";
  if (st.isSocket()) return "socket";
  if (st.isBlockDevice()) return "block";
  if (st.isCharacterDevice()) return "char";
  return "unknown";
}

/**
 * Names an entry type in words, for messages.
 * @param t the type
 * @returns e.g. "FIFO", "character device"
 */
export function typeWord(t: EntryType): string {
  const words: Record<EntryType, string> = {
    file: "regular file",
    dir: "directory",
    symlink: "symlink",
    fifo: "FIFO",
    socket: "socket",
    block: "block device",
    char: "character device",
    unknown: "file of unknown type",
  };
  return words[t];
}

const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const sep = process.platform === "win32" ? "\\" : "/";
/** Where the real path of an open descriptor can be read (Linux: /proc/self/fd/N names the object itself, and
 * listing it lists the directory opened), else null. */
const procFd: string | null = (() => {
  if (process.platform !== "linux") return null;
  try {
    fs.accessSync("/proc/self/fd");
    return "/proc/self/fd/";
  } catch {
    return null;
  }
})();

/**
 * Whether a path is a directory's own path or below it (by its components, not a bare prefix).
 * @param real the path
 * @param dir the directory
 * @returns true when real is dir or inside it
 */
export function insideDir(real: string, dir: string): boolean {
  return real === dir || real.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * Returns the real path a walked path must have under a confinement, or null when only containment applies.
 * @param p the path as walked
 * @param c the confinement
 * @returns the expected real path, or null
 */
function expectedReal(p: string, c: Confinement): string | null {
  if (c.follow) return null;
  for (const [abs, real] of c.roots) {
    if (p === abs) return real;
    if (p.length > abs.length && p.startsWith(abs) && (abs.endsWith(sep) || p[abs.length] === sep)) {
      const rest = abs.endsWith(sep) ? p.slice(abs.length) : p.slice(abs.length + 1);
      return real.endsWith(sep) ? real + rest : real + sep + rest;
    }
  }
  return null;
}

/** Whether a walked path is a root itself (opened following a final symlink: a root named as a link is its target). */
function isRoot(p: string, c: Confinement): boolean {
  for (const [abs] of c.roots) if (p === abs) return true;
  return false;
}

/**
 * Checks the object behind an open descriptor against a confinement; throws ConfinementError (the caller closes).
 * @param fd the descriptor
 * @param p the path it was opened by
 * @param c the confinement
 */
function checkOpened(fd: number, p: string, c: Confinement): void {
  const want = expectedReal(p, c);
  if (want === null && c.inside === null) return;
  let real: string;
  if (procFd !== null) {
    real = fs.readlinkSync(procFd + fd);
    if (real.includes("\ufffd")) real = decodeName(fs.readlinkSync(procFd + fd, { encoding: "buffer" }));
  } else {
    // No way to ask what a descriptor is: the path's real path now must be the object opened (same device and
    // inode), and inside.
    real = realpathOf(p);
    const a = fs.fstatSync(fd);
    const b = fs.statSync(fsPath(real));
    if (a.dev !== b.dev || a.ino !== b.ino) {
      throw new ConfinementError("changed since it was listed (a symlink swapped in?); not read");
    }
  }
  if (want !== null ? real !== want : !insideDir(real, c.inside as string)) {
    throw new ConfinementError("changed since it was listed: it now leads outside the root; not read");
  }
}

/** The real path of a path, lossless (names.ts). */
function realpathOf(p: string): string {
  const fp = fsPath(p);
  return typeof fp === "string" && !fp.includes("\ufffd")
    ? fs.realpathSync.native(fp)
    : decodeName(fs.realpathSync.native(fp, { encoding: "buffer" }));
}

function readlinkOf(p: string): string {
  const fp = fsPath(p);
  const raw = fs.readlinkSync(fp, { encoding: "buffer" });
  return decodeName(raw);
}

/** A `.` or `..` component (a walk never gives one; a path it did not give is not opened this way). */
const DOT_COMPONENT = /(?:^|[\\/])\.\.?(?:[\\/]|$)/;

/**
 * Opens a walked path below a root (not a root itself) without a read-back of what was opened: by the real path
 * it must have (the root's real path and the path walked below it), with openat2 refusing any symlink on the
 * way, so the object opened has that real path (what checkOpened compares). -1 when it does not apply or
 * fails: the path route then opens and checks it, and reports any error.
 */
function openWithoutSymlinks(p: string, flags: number, c: Confinement): number {
  if (procFd === null) return -1;
  const want = expectedReal(p, c);
  // The root itself may be a symlink named by the user (followed); `.` and `..` would not name their path.
  if (want === null || isRoot(p, c) || DOT_COMPONENT.test(want)) return -1;
  const fds = dirFds();
  return fds === null ? -1 : fds.openNoSymlinks(want, flags | O_NOFOLLOW);
}

function openChecked(p: string, flags: number, c: Confinement | null | undefined, noFollow = false): number {
  if (noFollow) {
    flags |= O_NOFOLLOW;
    if (O_NOFOLLOW === 0 && fs.lstatSync(fsPath(p)).isSymbolicLink()) {
      throw Object.assign(new Error("ELOOP: a symlink"), { code: "ELOOP" });
    }
  }
  if (!c) return fs.openSync(fsPath(p), flags);
  if (!c.follow) {
    const fd = openWithoutSymlinks(p, flags, c);
    if (fd >= 0) return fd;
  }
  const fd = fs.openSync(fsPath(p), c.follow || isRoot(p, c) ? flags : flags | O_NOFOLLOW);
  try {
    checkOpened(fd, p, c);
  } catch (err) {
    try {
      fs.closeSync(fd);
    } catch {}
    throw err;
  }
  return fd;
}

/** Lists a directory's names again as bytes (only when some listed name holds U+FFFD): a name that is not
 * valid UTF-8 is held losslessly (names.ts), its type left for the walk to read (Bun's Dirent has none for a
 * name read as bytes). A valid name is kept with its listed type. */
function rawNames(names: string[], others: Map<string, EntryType> | null, dir: string): DirListing {
  const raw = fs.readdirSync(fsPath(dir), { encoding: "buffer" });
  const lossyOfBad = new Set<string>();
  const out: string[] = [];
  for (const b of raw) {
    const name = decodeName(b);
    out.push(name);
    if (name !== b.toString("utf8")) lossyOfBad.add(b.toString("utf8"));
  }
  if (lossyOfBad.size === 0) return { names, others };
  const types = new Map<string, EntryType>();
  for (const name of out) {
    const listed = others?.get(name);
    // A bad name, or a valid one that a bad name's lossy form shadowed in the typed listing: read its type.
    if (lossyOfBad.has(name) || hasRawBytes(name)) types.set(name, "unknown");
    else if (listed !== undefined) types.set(name, listed);
  }
  return { names: out, others: types.size > 0 ? types : null };
}

function listing(dirents: fs.Dirent[], dir: string): DirListing {
  const n = dirents.length;
  const names = new Array<string>(n);
  let others: Map<string, EntryType> | null = null;
  let odd = false;
  for (let i = 0; i < n; i++) {
    const d = dirents[i] as fs.Dirent;
    const name = d.name;
    names[i] = name;
    if (!odd && name.includes("\ufffd")) odd = true;
    if (d.isFile()) continue;
    others ??= new Map();
    others.set(name, typeOf(d));
  }
  return odd ? rawNames(names, others, dir) : { names, others };
}

const common = {
  listDir(path: string, confine?: Confinement | null): DirListing {
    if (!confine || (confine.follow && confine.inside === null)) {
      return listing(fs.readdirSync(fsPath(path), { withFileTypes: true }), path);
    }
    const fd = openChecked(path, C.O_RDONLY | O_DIRECTORY | O_NONBLOCK, confine);
    try {
      if (procFd !== null) return listing(fs.readdirSync(procFd + fd, { withFileTypes: true }), procFd + fd);
      // Without /proc the directory is listed by path: it must still be the one opened after the listing.
      const out = listing(fs.readdirSync(fsPath(path), { withFileTypes: true }), path);
      const a = fs.fstatSync(fd);
      const b = fs.statSync(fsPath(path));
      if (a.dev !== b.dev || a.ino !== b.ino) {
        throw new ConfinementError("changed while it was listed (a symlink swapped in?); not read");
      }
      return out;
    } finally {
      try {
        fs.closeSync(fd);
      } catch {}
    }
  },
  openDir: (path: string, confine: Confinement) =>
    openChecked(path, C.O_RDONLY | O_DIRECTORY | O_NONBLOCK, confine),
  lstat: (path: string) => fs.lstatSync(fsPath(path)),
  stat: (path: string) => fs.statSync(fsPath(path)),
  realpath: (path: string) => realpathOf(path),
  readlink: (path: string) => readlinkOf(path),
  open: (path: string, confine?: Confinement | null, noFollow?: boolean) =>
    openChecked(path, C.O_RDONLY | O_NONBLOCK, confine, noFollow),
  openListed(path: string, confine: Confinement | null, listed: ListedFile): number {
    const fds = dirFds();
    const dir = listed.listedDir;
    if (fds !== null && dir !== null && dir.fd >= 0 && confine && !confine.follow && !isRoot(path, confine)) {
      const at = fds.openFileAt(dir.fd, path.slice(path.lastIndexOf(sep) + 1));
      if (at >= 0) return at;
    }
    return openChecked(path, C.O_RDONLY | O_NONBLOCK, confine);
  },
  read: (fd: number, buf: Uint8Array, length: number, pos: number | null) =>
    fs.readSync(fd, buf, 0, length, pos),
  close: (fd: number) => fs.closeSync(fd),
  fstat: (fd: number) => fs.fstatSync(fd),
};

/** node:crypto, loaded on first use under Node: importing it costs Bun's start-up about 4 ms. */
function nodeCrypto(): typeof NodeCrypto {
  const mod = process.getBuiltinModule?.("node:crypto") as typeof NodeCrypto | undefined;
  if (!mod) throw new Error("node:crypto is not available");
  return mod;
}

function sha256Hasher(): Hasher {
  if (typeof Bun !== "undefined") {
    const h = new Bun.CryptoHasher("sha256");
    return {
      update: (data) => {
        h.update(data);
      },
      digest: () => h.digest("hex"),
    };
  }
  const h = nodeCrypto().createHash("sha256");
  return {
    update: (data) => {
      h.update(data);
    },
    digest: () => h.digest("hex"),
  };
}

/** The Bun implementation: native listing/stat through Bun's node:fs, Bun.hash for the fast hash. */
const bunPlatform: Platform = {
  name: "bun",
  ...common,
  hash64: (data) => Bun.hash.xxHash3(data).toString(16).padStart(16, "0"),
  createHasher: sha256Hasher,
  hashAlgorithm: "sha256",
};

/** The Node implementation: node:fs and node:crypto only. */
const nodePlatform: Platform = {
  name: "node",
  ...common,
  hash64: (data) => nodeCrypto().createHash("sha1").update(data).digest("hex").slice(0, 16),
  createHasher: sha256Hasher,
  hashAlgorithm: "sha256",
};

/** The platform of this process. */
export const platform: Platform = typeof Bun !== "undefined" ? bunPlatform : nodePlatform;
