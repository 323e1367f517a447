/*! Waiting until a descriptor takes more bytes: poll(2) through bun:ffi on Linux. A writer to a non-blocking
 * pipe or socket (a host that spawned rglob with one: Bun's, an MCP host's) gets EAGAIN whenever the reader is
 * behind; it then waits exactly until the reader has taken some, where a fixed sleep waited up to 2 ms per full
 * pipe (64 KiB). Elsewhere (another system, Node without bun:ffi) the caller sleeps briefly instead. And whether
 * /proc/self/mountinfo changed since the last ask (changesOf: a mount sends no inotify event, but raises POLLPRI).
 * And waiting until a watch's inotify descriptor has events (waitReadable: its reader thread, watch-reader.ts). */
import { openSync } from "node:fs";
import { openLibc } from "./libc.ts";

/** poll's "readable" and "writable" events (the same values on Linux and the BSDs). */
const POLLIN = 1;
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

/**
 * Waits until a descriptor can be read (or is closed, or fails: the read says so) or the time is up.
 * @param fd the descriptor
 * @param timeoutMs the longest wait
 * @returns whether poll reported it ready; false when the time was up, or it could not wait (no poll here)
 */
export function waitReadable(fd: number, timeoutMs: number): boolean {
  if (loaded === undefined) loaded = load();
  if (loaded === null) return false;
  const { poll, view, ptr } = loaded;
  view.setInt32(0, fd, true);
  view.setInt16(4, POLLIN, true);
  view.setInt16(6, 0, true);
  return poll(ptr, 1, timeoutMs) > 0;
}

/** poll's events for a file whose contents changed under a reader: POLLPRI | POLLERR (proc(5), mountinfo). */
const POLLPRI_ERR = 2 | 8;

/**
 * Tells whether a proc file that raises POLLPRI and POLLERR when it changes (/proc/self/mountinfo: a mount or an
 * unmount in this process's namespace, proc(5)) changed since the last ask. The descriptor is held open for the
 * process's life; each poll takes the change it reports, so a change is told once, to the next ask after it.
 * @param path the file
 * @returns the check, or null where it cannot be made (no poll here, the file does not open): read it each time
 */
export function changesOf(path: string): (() => boolean) | null {
  if (loaded === undefined) loaded = load();
  if (loaded === null) return null;
  const { poll, view, ptr } = loaded;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  return () => {
    view.setInt32(0, fd, true);
    view.setInt16(4, POLLPRI_ERR, true);
    view.setInt16(6, 0, true);
    // A failed poll says nothing: taken as a change (the file is read again).
    if (poll(ptr, 1, 0) < 0) return true;
    return (view.getInt16(6, true) & POLLPRI_ERR) !== 0;
  };
}
