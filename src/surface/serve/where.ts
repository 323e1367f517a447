/*! Warm server: where servers listen, and what a client checks before it connects. Loaded by every CLI call that
 * could be served (src/main.ts), so it imports small platform modules only (files.ts, runtime.ts): no
 * engine, no registry, no valibot.
 * One Unix socket per tree, named by a hash of the tree's real path, in a directory only its user can reach
 * (docs/decisions/0033-warm-server.md); where that directory is, is the Config's `socketDir` (src/config.ts). */
import { listNames, lstatPath, type PathStats, statPath } from "../../platform/files.ts";
import { bunSha256Hex, sourceScript } from "../../platform/runtime.ts";

/** The wire protocol's version: a client and a server of different versions never talk (the server declines). */
export const PROTOCOL = 1;

/** The longest path a Unix socket's address holds on Linux (sun_path is 108 bytes with its NUL). */
export const SOCKET_PATH_MAX = 107;

/** SHA-256 of a string as hex: Bun's native hasher in the binary (no module to load); the library under Node
 * passes node:crypto's (src/agent/served.ts). Both give the same name for a tree. */
type Sha256Hex = (text: string) => string;

const bunSha256: Sha256Hex = bunSha256Hex;

/**
 * Returns the file name (without extension) of a tree's socket: the first 64 bits of the SHA-256 of its real
 * path, so that a client finds the server of a directory by hashing it and its parents (the CLI under Bun and
 * the library under Node alike).
 * @param root a real path
 * @param sha256 the hasher (default: Bun's)
 */
export function socketName(root: string, sha256: Sha256Hex = bunSha256): string {
  return sha256(root).slice(0, 16);
}

/** The user id of this process, asked once (a system call each time it is asked). */
let ownUid: { readonly id: number | undefined } | null = null;

/** The user id of this process (undefined where there is none). */
export function uid(): number | undefined {
  ownUid ??= { id: typeof process.getuid === "function" ? process.getuid() : undefined };
  return ownUid.id;
}

/**
 * Says whether a directory is one only this user can reach: a real directory (not a symlink), owned by the
 * user, with no permission for group or others.
 * @param dir the directory
 * @returns null when it is, else why not (it may not exist)
 */
export function privateDirProblem(dir: string): string | null {
  let st: PathStats;
  try {
    st = lstatPath(dir);
  } catch {
    return "missing";
  }
  if (!st.isDirectory()) return `${dir} is not a directory`;
  if (st.uid !== uid()) return `${dir} belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o077) !== 0)
    return `${dir} can be reached by other users (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/**
 * Says whether a socket file may be connected to: a socket, owned by this user.
 * @param file its path
 */
export function ownSocket(file: string): boolean {
  try {
    const st = lstatPath(file);
    return st.isSocket() && st.uid === uid();
  } catch {
    return false;
  }
}

/**
 * The sockets a call in `dir` may be served by: the sockets of dir and of each directory above it, innermost
 * first, that exist in the socket directory, belong to this user and are sockets. The socket directory is read
 * once (a call in a tree no server keeps costs that readdir and a hash per directory above it).
 * @param dir the call's working directory (a real path)
 * @param sockets the socket directory, already checked by privateDirProblem
 * @param sha256 the hasher of socketName
 * @returns [tree, socket path] pairs
 */
export function socketsFor(
  dir: string,
  sockets: string,
  sha256: Sha256Hex = bunSha256,
): Array<[string, string]> {
  let names: Set<string>;
  try {
    names = new Set(listNames(sockets));
  } catch {
    return [];
  }
  if (names.size === 0) return [];
  const out: Array<[string, string]> = [];
  for (let at = dir; ; ) {
    const name = `${socketName(at, sha256)}.sock`;
    if (names.has(name) && ownSocket(`${sockets}/${name}`)) out.push([at, `${sockets}/${name}`]);
    if (at === "/") break;
    const up = at.slice(0, at.lastIndexOf("/")) || "/";
    at = up;
  }
  return out;
}

/**
 * This build's identity: a server answers only clients of the same protocol, version and binary (a rebuilt or
 * upgraded binary at the same path has another inode, size or mtime).
 * @param version the version line
 */
export function buildId(version: string): string {
  let exe = process.execPath;
  try {
    const st = statPath(exe);
    exe = `${exe}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {}
  const script = sourceScript();
  const main = script !== null ? `:${script}` : "";
  return `${PROTOCOL}|${version}|${exe}${main}`;
}

/**
 * What a client says on stderr, with RGLOB_DEBUG set, when a server was found for its call but did not answer it:
 * the CLI's client (client.ts) and the library's (src/agent/served.ts) say it in the same words.
 * @param root the tree of the server found
 * @param why what the server said when it declined, or why the client gave up; null: the server did not take the
 *   call in time
 * @param waitMs how long the client waited for it to take the call
 */
export function notServedNote(root: string, why: string | null, waitMs: number): string {
  return `rglob: not served by the server of ${root}, run in this process: ${why ?? `not taken within ${waitMs} ms`}\n`;
}

/** Frame types, server → client: one byte, then a 4-byte big-endian length, then the payload. */
export const FRAME = {
  /** The server took the call: output follows. */
  accepted: 0x41, // A
  /** The server will not answer this call (the client runs it cold); only before any output. */
  declined: 0x44, // D
  /** Bytes for the client's stdout. */
  stdout: 0x4f, // O
  /** Bytes for the client's stderr. */
  stderr: 0x45, // E
  /** The exit code (payload: decimal). */
  exit: 0x58, // X
  /** The run was stopped by the client's signal (payload: SIGINT or SIGTERM): the client dies of it. */
  signal: 0x53, // S
  /** A JSON answer to a status or stop request. */
  json: 0x4a, // J
  /**
   * The output is large: the client sends its stdout and stderr descriptors (a `fds` line carrying them), and the
   * server writes the rest of the answer there itself (docs/decisions/0043-served-output-written-by-the-server.md).
   */
  pass: 0x50, // P
} as const;
