/*! Platform: the file calls the rest of rglob makes outside the walk's listing and reading (platform.ts): the
 * cache directory's files, the warm server's socket files, a CLI operand's stats, stdin and stdout descriptors.
 * Each is one small named function over node:fs (which Bun implements natively), so that no file outside
 * src/platform/ imports node:fs (scripts/check-layers.ts). Errors are node:fs's, thrown as they come: the caller
 * decides what an error means. It never decides policy. */
import * as fs from "node:fs";

/** A path's stats as node:fs gives them. */
export type PathStats = fs.Stats;

/** A path's stats with 64-bit fields (nanosecond times, large inode numbers). */
export type BigPathStats = fs.BigIntStats;

/** A recursive watch started by watchRecursive. */
export type PathWatcher = fs.FSWatcher;

/**
 * Tells whether a path exists (following a final symlink), as fs.existsSync.
 * @param p the path
 * @returns true when it exists
 */
export function pathExists(p: string): boolean {
  return fs.existsSync(p);
}

/**
 * Returns the stats of a path's target (a final symlink followed).
 * @param p the path (names.ts's fsPath gives the bytes of a name that is not valid UTF-8)
 * @returns its stats
 * @throws the node:fs error (ENOENT, EACCES, …)
 */
export function statPath(p: string | Buffer): PathStats {
  return fs.statSync(p);
}

/**
 * Returns the stats of a path itself (a final symlink not followed).
 * @param p the path (names.ts's fsPath gives the bytes of a name that is not valid UTF-8)
 * @returns its stats
 * @throws the node:fs error
 */
export function lstatPath(p: string | Buffer): PathStats {
  return fs.lstatSync(p);
}

/**
 * Returns the stats of an open descriptor (what was opened, not what its path names now).
 * @param fd the descriptor (0 for stdin)
 * @returns its stats
 * @throws the node:fs error
 */
export function statDescriptor(fd: number): PathStats {
  return fs.fstatSync(fd);
}

/**
 * Returns the stats of an open descriptor with 64-bit fields.
 * @param fd the descriptor
 * @returns its stats
 * @throws the node:fs error
 */
export function statDescriptorBig(fd: number): BigPathStats {
  return fs.fstatSync(fd, { bigint: true });
}

/**
 * Returns a path's real path (every symlink resolved), as fs.realpathSync.
 * @param p the path
 * @returns the real path
 * @throws the node:fs error
 */
export function realPath(p: string): string {
  return fs.realpathSync(p);
}

/**
 * Returns a symlink's target text, as readlink(2) gives it.
 * @param p the symlink
 * @returns its target
 * @throws the node:fs error
 */
export function readLink(p: string): string {
  return fs.readlinkSync(p);
}

/**
 * Reads a whole file (or an open descriptor, 0 for stdin) as text.
 * @param p the path, a file: URL, or a descriptor
 * @param encoding the text's encoding
 * @returns the text
 * @throws the node:fs error
 */
export function readText(p: string | URL | number, encoding: BufferEncoding = "utf8"): string {
  return fs.readFileSync(p, encoding);
}

/**
 * Reads a whole file (or an open descriptor, 0 for stdin) as bytes.
 * @param p the path or descriptor
 * @returns the bytes
 * @throws the node:fs error
 */
export function readBytes(p: string | number): Buffer {
  return fs.readFileSync(p);
}

/**
 * Lists the names of a directory (not . and ..), in no particular order.
 * @param dir the directory
 * @returns its names
 * @throws the node:fs error
 */
export function listNames(dir: string): string[] {
  return fs.readdirSync(dir);
}

/**
 * Lists every path below a directory, relative to it, as raw bytes (a name that is not valid UTF-8 kept as is).
 * @param dir the directory
 * @returns the relative paths
 * @throws the node:fs error
 */
export function listTreeBytes(dir: string | Buffer): Buffer[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "buffer" }) as Buffer[];
}

/**
 * Makes a directory and the ones above it that are missing, readable by this user only when made.
 * @param dir the directory
 * @throws the node:fs error
 */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Makes a new directory with a unique name (mkdtemp(3)).
 * @param prefix the path up to the unique part
 * @returns the directory made
 * @throws the node:fs error
 */
export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(prefix);
}

/**
 * Writes a new file readable by this user only; fails (EEXIST) when something is at the path, so a symlink put
 * there is never written through.
 * @param file the path
 * @param body the bytes or text
 * @throws the node:fs error
 */
export function writeNewPrivateFile(file: string, body: Uint8Array | string): void {
  fs.writeFileSync(file, body, { flag: "wx", mode: 0o600 });
}

/**
 * Writes a file, replacing what is there.
 * @param file the path
 * @param body the bytes or text
 * @throws the node:fs error
 */
export function writeFile(file: string, body: Uint8Array | string): void {
  fs.writeFileSync(file, body);
}

/**
 * Renames a path over another (rename(2): atomic on one file system).
 * @param from the path renamed
 * @param to its new path
 * @throws the node:fs error
 */
export function renamePath(from: string, to: string): void {
  fs.renameSync(from, to);
}

/**
 * Removes a file (unlink(2)).
 * @param file the path
 * @throws the node:fs error (ENOENT when there is none)
 */
export function removeFile(file: string): void {
  fs.unlinkSync(file);
}

/**
 * Removes a path and, for a directory, everything below it; nothing to remove is no error.
 * @param p the path
 * @throws the node:fs error
 */
export function removeTree(p: string): void {
  fs.rmSync(p, { recursive: true, force: true });
}

/**
 * Removes a file (not a directory's contents); nothing to remove is no error.
 * @param p the path
 * @throws the node:fs error
 */
export function removeIfThere(p: string): void {
  fs.rmSync(p, { force: true });
}

/**
 * Sets a path's permission bits.
 * @param p the path
 * @param mode the bits
 * @throws the node:fs error
 */
export function setMode(p: string, mode: number): void {
  fs.chmodSync(p, mode);
}

/**
 * Writes bytes to a descriptor, once (a pipe may take fewer).
 * @param fd the descriptor
 * @param buf the bytes
 * @returns how many were written
 * @throws the node:fs error (EAGAIN on a full non-blocking pipe, EPIPE, …)
 */
export function writeSome(fd: number, buf: Uint8Array): number {
  return fs.writeSync(fd, buf);
}

/**
 * Reads from a descriptor into a buffer.
 * @param fd the descriptor
 * @param buf the buffer
 * @param offset where in the buffer the bytes go
 * @param length how many bytes at most
 * @param pos the file position to read from
 * @returns how many bytes were read (0 at the end)
 * @throws the node:fs error
 */
export function readInto(fd: number, buf: Uint8Array, offset: number, length: number, pos: number): number {
  return fs.readSync(fd, buf, offset, length, pos);
}

/**
 * Reads a range of a file whole, into a buffer of its own (a fresh ArrayBuffer, so that typed views of it start
 * aligned): the index file's reads (the CLI's whole file, the stat worker's sections).
 * @param fd the descriptor
 * @param length how many bytes
 * @param pos the file position of the first
 * @returns the bytes, or null when the file ends before them (truncated since it was checked)
 * @throws the node:fs error
 */
export function readWhole(fd: number, length: number, pos: number): Buffer | null {
  const buf = Buffer.from(new ArrayBuffer(length));
  for (let got = 0; got < length; ) {
    const n = fs.readSync(fd, buf, got, length - got, pos + got);
    if (n <= 0) return null;
    got += n;
  }
  return buf;
}

/**
 * Maps a regular file opened for reading into memory, private and copy-on-write (a write to the bytes changes
 * this process's copy, never the file): its pages are read as they are first touched, none copied up front. The
 * file mapped is the one the descriptor holds (Linux's /proc/self/fd link), whatever its path names since.
 * @param fd the descriptor (of a regular file, checked by the caller)
 * @param size the file's size when it was checked
 * @returns the file's bytes, or null where there is no such mapping (Node, not Linux) or the size differs now
 */
export function mapOpenedFile(fd: number, size: number): Buffer | null {
  if (typeof Bun === "undefined" || process.platform !== "linux" || size === 0) return null;
  try {
    const m = Bun.mmap(`/proc/self/fd/${fd}`, { shared: false });
    return m.length === size ? Buffer.from(m.buffer, m.byteOffset, m.length) : null;
  } catch {
    return null;
  }
}

/**
 * Closes a descriptor.
 * @param fd the descriptor
 * @throws the node:fs error
 */
export function closeDescriptor(fd: number): void {
  fs.closeSync(fd);
}

/**
 * Watches a directory and everything below it with the runtime's fs.watch (Bun's: inotify on Linux).
 * @param root the directory
 * @param listener called with the event and the name (relative to root) it names, when it names one
 * @returns the watcher (close it when done)
 * @throws the node:fs error
 */
export function watchRecursive(
  root: string,
  listener: (event: fs.WatchEventType, name: string | Buffer | null) => void,
): PathWatcher {
  return fs.watch(root, { recursive: true }, listener);
}
