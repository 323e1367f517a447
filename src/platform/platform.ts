/*! Platform adapter: the only door from the engine to the file system and hashing. One small interface,
 * two implementations: Bun's native APIs in the binary, node:fs/node:crypto under plain Node.
 * It never decides policy (ignore rules, bounds); the engine does. */
import type * as NodeCrypto from "node:crypto";
import * as fs from "node:fs";

/** The type of a directory entry, as listed (not followed). */
export type EntryType = "file" | "dir" | "symlink" | "fifo" | "socket" | "block" | "char" | "unknown";

/**
 * A directory's entries: every name, and the types of the entries that are not regular files. Most entries are
 * files, so the walk looks a name up only among the few others, and no object is made per entry.
 */
export interface DirListing {
  /** The names, in no particular order (the walk sorts them in place). */
  readonly names: string[];
  /** Types of the entries that are not regular files (null when there are none). */
  readonly others: ReadonlyMap<string, EntryType> | null;
}

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
export interface Hasher {
  update(data: Uint8Array): void;
  /** Returns the digest as lowercase hex. */
  digest(): string;
}

/** The file system and hashing primitives the engine needs. */
export interface Platform {
  readonly name: "bun" | "node";
  /** Lists a directory with entry types, in no particular order. */
  listDir(path: string): DirListing;
  lstat(path: string): fs.Stats;
  stat(path: string): fs.Stats;
  realpath(path: string): string;
  /** Opens a file for reading, returning a descriptor. */
  open(path: string): number;
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

const common = {
  listDir(path: string): DirListing {
    const dirents = fs.readdirSync(path, { withFileTypes: true });
    const n = dirents.length;
    const names = new Array<string>(n);
    let others: Map<string, EntryType> | null = null;
    for (let i = 0; i < n; i++) {
      const d = dirents[i] as fs.Dirent;
      const name = d.name;
      names[i] = name;
      if (d.isFile()) continue;
      others ??= new Map();
      others.set(name, typeOf(d));
    }
    return { names, others };
  },
  lstat: (path: string) => fs.lstatSync(path),
  stat: (path: string) => fs.statSync(path),
  realpath: (path: string) => fs.realpathSync.native(path),
  open: (path: string) => fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)),
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
