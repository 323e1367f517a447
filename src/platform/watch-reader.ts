/*! Platform: a worker thread that reads a tree watch's inotify descriptor as soon as events are queued (poll(2)),
 * into memory shared with the thread that owns the watch (watch-ring.ts says how the two share it). It never
 * looks at what it reads: the owner parses the events, in order, at its next drain. Without events it sleeps in
 * poll. */
import { openLibc } from "./libc.ts";
import { waitReadable } from "./poll.ts";
import {
  dirOpenOnly,
  EVENT_HEAD,
  foldInto,
  RING_FD,
  RING_FOLDED,
  RING_HEAD,
  RING_LEFT_OUT,
  RING_LOCK,
  RING_STOP,
  RING_USED,
} from "./watch-ring.ts";

declare const self: Worker;

/** How long a poll waits before it looks whether the watch stopped (ms). */
const POLL_MS = 1000;
/** How much one read(2) takes at most (the owner's own reads take as much). */
const READ_BYTES = 64 * 1024;
/** How many reads it makes while it holds the lock before it lets the owner in. */
const READS_HELD = 4;
/** The least room a read is made into: an event with the longest name (struct inotify_event, NAME_MAX + 1). */
const MIN_ROOM = 16 + 256;
/**
 * How long it waits after a read before it polls again (ms): the kernel's queue holds 16,384 events, 25 ms of
 * the fastest reader measured (rg over babel, about 600,000 events a second).
 */
const GATHER_MS = 3;
/** How long it waits for the owner to empty a full ring before it looks again (ms). */
const FULL_WAIT_MS = 5;

self.onmessage = (ev: MessageEvent<SharedArrayBuffer>) => {
  const libc = openLibc((t) => ({ read: { args: [t.i32, t.ptr, t.u64], returns: t.i64_fast } }));
  if (libc === null) return; // the owner reads the descriptor alone
  const shared = ev.data;
  const state = new Int32Array(shared, 0, RING_HEAD / 4);
  const bytes = new Uint8Array(shared, RING_HEAD);
  const words = new DataView(shared, RING_HEAD);
  const ring = libc.ffi.ptr(bytes);
  const capacity = shared.byteLength - RING_HEAD;
  const read = (fd: number, at: number, n: number): number => Number(libc.lib.symbols.read(fd, at, n));
  /**
   * The events just read (whole ones, from `from` to `to`) without those that are only a directory opened or
   * closed (dirOpenOnly), and with each close after reading folded into the open just before it (foldInto), moved
   * down in place; how many were left out and folded is added up for the owner.
   * @returns where the kept ones end
   */
  const keep = (from: number, to: number): number => {
    let at = from;
    let prev = -1;
    let leftOut = 0;
    let folded = 0;
    for (let off = from; off + EVENT_HEAD <= to; ) {
      const size = EVENT_HEAD + words.getUint32(off + 12, true);
      if (dirOpenOnly(words.getUint32(off + 4, true))) leftOut++;
      else if (foldInto(words, prev, off)) folded++;
      else {
        if (at !== off) bytes.copyWithin(at, off, off + size);
        prev = at;
        at += size;
      }
      off += size;
    }
    if (leftOut > 0) Atomics.add(state, RING_LEFT_OUT, leftOut);
    if (folded > 0) Atomics.add(state, RING_FOLDED, folded);
    return at;
  };
  while (Atomics.load(state, RING_STOP) === 0) {
    const fd = Atomics.load(state, RING_FD);
    if (fd < 0) {
      Atomics.wait(state, RING_FD, fd, POLL_MS);
      continue;
    }
    if (!waitReadable(fd, POLL_MS)) continue;
    // The owner holds the lock while it copies what was read: wait for it.
    while (Atomics.compareExchange(state, RING_LOCK, 0, 1) !== 0) Atomics.wait(state, RING_LOCK, 1, POLL_MS);
    let full = false;
    let more = false;
    try {
      // The descriptor as of now (the one polled may have been closed and its number taken again), and nothing
      // once stopped.
      const now = Atomics.load(state, RING_FD);
      let used = Atomics.load(state, RING_USED);
      // What is queued, a read at a time, while there is room: a few reads at most (the owner waits meanwhile).
      for (let reads = 0; now >= 0 && Atomics.load(state, RING_STOP) === 0; reads++) {
        if (reads === READS_HELD) {
          more = true;
          break;
        }
        const room = capacity - used;
        if (room < MIN_ROOM) {
          full = true;
          break;
        }
        const n = read(now, ring + used, Math.min(room, READ_BYTES));
        if (n <= 0) break;
        used = keep(used, used + n);
        Atomics.store(state, RING_USED, used);
      }
    } finally {
      Atomics.store(state, RING_LOCK, 0);
      Atomics.notify(state, RING_LOCK);
    }
    // A full ring waits for the owner's drain (the kernel's queue holds what comes meanwhile).
    if (full) Atomics.wait(state, RING_USED, Atomics.load(state, RING_USED), FULL_WAIT_MS);
    else if (more) continue;
    // Then what comes is left to gather for a while: a read per event woke this thread tens of thousands of
    // times for one rg over babel, each a switch away from the reader on two cores. (Nothing read: EAGAIN, the
    // owner read it first, or POLLNVAL on a closed descriptor; not polled again at once either.)
    else Atomics.wait(state, RING_STOP, 0, GATHER_MS);
  }
};
