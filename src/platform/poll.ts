/*! Waiting until a descriptor takes more bytes: poll(2) through bun:ffi on Linux. A writer to a non-blocking
 * pipe or socket (a host that spawned rglob with one: Bun's, an MCP host's) gets EAGAIN whenever the reader is
 * behind; it then waits exactly until the reader has taken some, where a fixed sleep waited up to 2 ms per full
 * pipe (64 KiB). Elsewhere (another system, Node without bun:ffi) the caller sleeps briefly instead. */
import { openLibc } from "./libc.ts";

/** poll's "writable" event (the same value on Linux and the BSDs). */
const POLLOUT = 4;

type Poll = (fds: number, nfds: number, timeout: number) => number;

interface Poller {
  readonly poll: Poll;
  readonly view: DataView;
  readonly ptr: number;
}

let loaded: Poller | null | undefined;

function load(): Poller | null {
  const libc = openLibc((t) => ({ poll: { args: [t.ptr, t.u64, t.i32], returns: t.i32 } }));
  if (libc === null) return null; // the caller sleeps
  // struct pollfd { int fd; short events; short revents; }, in memory of its own (a small typed array's storage
  // may move: stat-words.ts).
  const storage = new ArrayBuffer(8);
  const ptr = libc.ffi.ptr(new Uint8Array(storage));
  return { poll: libc.lib.symbols.poll as unknown as Poll, view: new DataView(storage), ptr };
}

/**
 * Waits until a descriptor can be written, the reader went away (the next write says so) or the time is up.
 * @param fd the descriptor
 * @param timeoutMs the longest wait
 * @returns false when it could not wait (no poll here, or poll failed): the caller sleeps instead
 */
export function waitWritable(fd: number, timeoutMs: number): boolean {
  if (loaded === undefined) loaded = load();
  if (loaded === null) return false;
  const { poll, view, ptr } = loaded;
  view.setInt32(0, fd, true);
  view.setInt16(4, POLLOUT, true);
  view.setInt16(6, 0, true);
  return poll(ptr, 1, timeoutMs) >= 0;
}
