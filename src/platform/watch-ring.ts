/*! Platform: the owner's side of a tree watch's reader thread (watch-reader.ts). The thread reads the watch's
 * inotify descriptor as soon as events are queued, into a ring of memory shared with the owner; the owner's drain
 * takes what the ring holds and then reads the descriptor itself, both under one lock held only for the copies
 * (never while events are parsed), so events reach the owner in the order the kernel queued them and a drain
 * still reads every event queued before it. The kernel's queue (16,384 events by default) then only overflows
 * when the owner is away longer than the ring lasts: another process reading the whole tree makes 158,818 events
 * in 0.3 s on babel, 13,000 in 25 ms, and a server busy 67 ms (a collection, a call) overflowed it (#36). Under
 * Bun on Linux; elsewhere the owner reads the descriptor alone. */
import { startWorker, workersAvailable } from "./workers.ts";

/** The shared state's slots (Int32, before the ring's bytes). */
export const RING_STOP = 0;
/** 0: free; 1: held (by the thread for its reads, by the owner for its copies). */
export const RING_LOCK = 1;
/** The descriptor the thread reads (-1: none). */
export const RING_FD = 2;
/** How many bytes of the ring hold events (whole events, oldest first, from offset 0). */
export const RING_USED = 3;
/** How many events the thread left out (dirOpenOnly), counted for the owner's counts. */
export const RING_LEFT_OUT = 4;
/** How many closes the thread folded into the open before them (foldInto), counted for the owner's counts. */
export const RING_FOLDED = 5;
/** Where the ring's bytes begin in the shared memory. */
export const RING_HEAD = 64;
/** The ring's size: about 100,000 events (32-48 bytes each for a file's name), 170 ms of rg reading babel. */
export const RING_BYTES = 4 * 1024 * 1024;

// inotify(7): the bits of an event's mask that the reader thread and the watch both read (tree-watch.ts has the
// others), and the size of struct inotify_event before its name.
export const IN_CLOSE_WRITE = 0x8;
export const IN_CLOSE_NOWRITE = 0x10;
export const IN_OPEN = 0x20;
export const IN_ISDIR = 0x40000000;
/** Opens and closes: counted per file (a directory's are not read further: the walks list directories). */
export const OPENS = IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE;
/** Both bits: an open and its close folded into one event (foldInto). */
export const OPEN_CLOSED = IN_OPEN | IN_CLOSE_NOWRITE;
export const EVENT_HEAD = 16;

/**
 * Whether an event is only a directory opened or closed (every listing makes two on the directory and two on its
 * parent's watch: 104,084 of the 158,818 events of rg over babel): nothing for the watch, which lists directories
 * itself; the thread leaves them out of the ring.
 */
export function dirOpenOnly(mask: number): boolean {
  return (mask & IN_ISDIR) !== 0 && (mask & ~(OPENS | IN_ISDIR)) === 0;
}

/**
 * Whether an event is the close (after reading) of the file the event just before it opened (one not a
 * directory: same watch, same name), and if so folds it into that open (both bits set on it): the owner takes such
 * an event as the two in turn. rg reading a file is an open and its close, one after the other (27,367 pairs over
 * babel): half the events for the owner to parse.
 * @param view the events' bytes
 * @param prev where the event before begins (-1: none)
 * @param at where this one begins
 * @returns whether it was folded (and is to be left out)
 */
export function foldInto(view: DataView, prev: number, at: number): boolean {
  if (prev < 0 || view.getUint32(at + 4, true) !== IN_CLOSE_NOWRITE) return false;
  if (view.getUint32(prev + 4, true) !== IN_OPEN || view.getInt32(prev, true) !== view.getInt32(at, true))
    return false;
  const len = view.getUint32(at + 12, true);
  if (len === 0 || view.getUint32(prev + 12, true) !== len) return false;
  for (let i = EVENT_HEAD; i < EVENT_HEAD + len; i++)
    if (view.getUint8(prev + i) !== view.getUint8(at + i)) return false;
  view.setUint32(prev + 4, OPEN_CLOSED, true);
  return true;
}

/** A reader thread as its owner drives it. */
export interface EventRing {
  /**
   * With the thread held off: `copy` is given the bytes it read (whole events, oldest first; a view valid during
   * the call only), how many it left out (dirOpenOnly) and folded (foldInto) since, and reads the descriptor
   * itself; the ring is emptied. Nothing slow belongs in `copy`.
   */
  locked(copy: (bytes: Uint8Array, leftOut: number, folded: number) => void): void;
  /** The watch moved to another descriptor (or none: -1): what was read from the old one is dropped. */
  setFd(fd: number): void;
  /** Stops the thread (it ends within a poll's timeout, holding the descriptor until then). */
  stop(): void;
}

/**
 * Starts a reader thread for an inotify descriptor.
 * @param fd the descriptor (non-blocking)
 * @returns the ring, or null where no thread can read it (not Bun, not Linux, a worker that cannot start)
 */
export function startEventRing(fd: number): EventRing | null {
  if (!workersAvailable || process.platform !== "linux") return null;
  let worker: Worker;
  try {
    worker = startWorker("platform/watch-reader");
  } catch {
    return null;
  }
  const shared = new SharedArrayBuffer(RING_HEAD + RING_BYTES);
  const state = new Int32Array(shared, 0, RING_HEAD / 4);
  const bytes = new Uint8Array(shared, RING_HEAD);
  let stopped = false;
  worker.unref();
  Atomics.store(state, RING_FD, fd);
  worker.postMessage(shared);
  const lock = (): void => {
    // The thread holds the lock for a few reads of 64 KiB at most; waited for asleep (spun for, the core it spun
    // on was the one the thread needed to finish, on two cores under load).
    while (Atomics.compareExchange(state, RING_LOCK, 0, 1) !== 0) Atomics.wait(state, RING_LOCK, 1, 1);
  };
  const unlock = (): void => {
    Atomics.store(state, RING_LOCK, 0);
    Atomics.notify(state, RING_LOCK);
  };
  return {
    locked(copy) {
      lock();
      try {
        copy(
          bytes.subarray(0, Atomics.load(state, RING_USED)),
          Atomics.exchange(state, RING_LEFT_OUT, 0),
          Atomics.exchange(state, RING_FOLDED, 0),
        );
      } finally {
        Atomics.store(state, RING_USED, 0);
        unlock();
        Atomics.notify(state, RING_USED);
      }
    },
    setFd(next) {
      if (stopped) return;
      lock();
      Atomics.store(state, RING_FD, next);
      Atomics.store(state, RING_USED, 0);
      unlock();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      lock();
      Atomics.store(state, RING_FD, -1);
      Atomics.store(state, RING_STOP, 1);
      unlock();
      Atomics.notify(state, RING_USED);
      worker.terminate();
    },
  };
}
