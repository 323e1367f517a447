/*! Engine, persisted index: what the stat worker (stat-worker.ts) and the caller (persist.ts's checkStats)
 * share. The paths the recorded walk depends on and the indexed files are checked in chunks of items (the
 * witnessed paths first, then the files by id) that either thread takes from one shared counter, so the two
 * finish together whatever the caller has to do first (read the index) and however fast each thread runs. Both
 * open the index file the same way (openIndexFile). */

import { platform, typeOfStats, typeWord } from "../../platform/platform.ts";
import type { Routes } from "../../platform/routes.ts";
import { pathsChecker, STAT_WORDS } from "../../platform/stat-words.ts";
import { stillWitnessed } from "../witness.ts";

/** What the caller sends. */
export interface StatJob {
  /** The index file. */
  readonly file: string;
  /** Its body's hash as its prefix holds it (format.ts's prefixHash): the worker checks it read that file. */
  readonly hash: string;
  /** The tree's real path; the relative paths are below it. */
  readonly root: string;
  /** Whether the worker maps the file (a server, ADR 0052) or reads copies of its sections (a CLI grep, ADR 0028). */
  readonly map: boolean;
  /** Where the facts (STAT_WORDS words per file) and the NUL-separated relative paths lie in the file (offsets
   * from format.ts's table of contents). */
  readonly factsAt: number;
  readonly pathsAt: number;
  readonly pathBytes: number;
  readonly files: number;
  /** The recorded walk's witnessed paths: how many, and where their words, flags and names lie. */
  readonly witnessed: number;
  readonly seenAt: number;
  readonly witnessFlagsAt: number;
  readonly witnessAt: number;
  readonly witnessBytes: number;
  /** The control words and the answers (jobMemory). */
  readonly out: SharedArrayBuffer;
  /** The calling thread's routes to the kernel (src/platform/routes.ts), set before the worker stats. */
  readonly routes: Routes;
}

/** Control words (Int32): the next id to take, and the worker's state. */
const NEXT = 0;
export const STATE = 1;
/** The worker's states: not started, taking chunks (it may hold one), ended (done or given up). */
export const NOT_STARTED = 0;
export const TAKING = 1;
export const ENDED = 2;
/** Answers: a byte per item after the control words (the witnessed paths, then the files by id): not
 * checked, unchanged, changed (or gone). */
export const UNCHECKED = 0;
export const SAME = 1;
const CHANGED = 2;
/** Ids taken at a time (about a millisecond of stat calls). */
const CHUNK = 256;
const CONTROL_BYTES = 8;

/**
 * Makes the shared memory of a job over `items` items.
 * @param items how many witnessed paths and files there are
 * @returns the memory
 */
export function jobMemory(items: number): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + items);
}

/**
 * The views of a job's memory.
 * @param out the memory
 * @returns the control words and the answers
 */
export function viewsOf(out: SharedArrayBuffer): { control: Int32Array; answers: Uint8Array } {
  return { control: new Int32Array(out, 0, 2), answers: new Uint8Array(out, CONTROL_BYTES) };
}

/**
 * Takes chunks of items from the shared counter until there are none, and answers each item `check` checks.
 * @param control the control words
 * @param answers the answers
 * @param items how many items there are
 * @param check whether an item's stats are unchanged, or null for an item not to check
 */
export function takeChunks(
  control: Int32Array,
  answers: Uint8Array,
  items: number,
  check: (item: number) => boolean | null,
): void {
  for (;;) {
    const from = Atomics.add(control, NEXT, CHUNK);
    if (from >= items) return;
    const to = Math.min(items, from + CHUNK);
    for (let item = from; item < to; item++) {
      const same = check(item);
      if (same !== null) answers[item] = same ? SAME : CHANGED;
    }
  }
}

/** The checks of one section's items against what was recorded of them (close them when done). */
export interface ItemChecks {
  /** Whether item i still stats as it did. */
  unchanged(i: number): boolean;
  close(): void;
}

/**
 * The indexed files' checks, as both sides make them from the sections each holds: file id i's relative path
 * has the facts it was indexed with (a final symlink not followed), its bytes going to the stat call as they lie.
 * @param root the tree's real path
 * @param paths the section of relative paths
 * @param starts where each path starts in it (pathStarts)
 * @param facts STAT_WORDS words per file
 * @returns the checks
 */
export function fileChecksOf(
  root: string,
  paths: Uint8Array,
  starts: Int32Array,
  facts: Uint32Array,
): ItemChecks {
  const checker = pathsChecker(root, paths);
  return {
    unchanged: (id) =>
      checker.same(starts[id] as number, (starts[id + 1] as number) - 1, false, facts, id * STAT_WORDS),
    close: () => checker.close(),
  };
}

/**
 * The checks of the paths a recorded walk depends on (absolute paths, so no directory is held open): each
 * stats as it did, as its flags say it counts (stillWitnessed).
 * @param names the section of their paths
 * @param starts where each starts in it (pathStarts)
 * @param flags per path (witnessFlags)
 * @param seen STAT_WORDS words per path
 * @returns the checks
 */
export function witnessChecksOf(
  names: Buffer,
  starts: Int32Array,
  flags: Uint8Array,
  seen: Uint32Array,
): ItemChecks {
  const checker = pathsChecker(null, names);
  return {
    unchanged: (i) =>
      stillWitnessed(
        checker,
        names,
        starts[i] as number,
        (starts[i + 1] as number) - 1,
        flags[i] as number,
        seen,
        i * STAT_WORDS,
      ),
    close: () => checker.close(),
  };
}

/** An index file opened for reading, or why it is not read (null reason: there is none). */
export type OpenedIndex =
  | { readonly fd: number; readonly size: number }
  | { readonly fd: -1; readonly reason: string | null };

/**
 * Opens an index file for reading only when it is a regular file owned by this user: a final symlink is not
 * followed (O_NOFOLLOW), a FIFO or a device put at its path does not block the open (O_NONBLOCK), and what was
 * opened is checked on its descriptor (fstat), so a link to /dev/zero or a FIFO is never read.
 * @param file the index file
 * @returns the descriptor and size (close it when done), or why the file is not read
 */
export function openIndexFile(file: string): OpenedIndex {
  let fd: number;
  try {
    fd = platform.open(file, null, true);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { fd: -1, reason: null };
    if (code === "ELOOP") return { fd: -1, reason: "not an index file (a symlink)" };
    return { fd: -1, reason: `unreadable: ${(err as Error).message}` };
  }
  let why: string;
  try {
    const st = platform.fstat(fd);
    const uid = process.getuid?.();
    if (!st.isFile()) why = `not an index file (a ${typeWord(typeOfStats(st))})`;
    else if (uid !== undefined && st.uid !== uid)
      why = `not an index file (owned by uid ${st.uid}, not ${uid})`;
    else if (!Number.isSafeInteger(st.size)) why = "not an index file (too large)";
    else return { fd, size: st.size };
  } catch (err) {
    why = `unreadable: ${(err as Error).message}`;
  }
  platform.close(fd);
  return { fd: -1, reason: why };
}

/**
 * What a restarted server sends the stat worker while its watch is set up from the directories of the walk
 * written with the index (warm/stored-dirs.ts's StatsBeside): the indexed files, each to be stat'ed only once the directory
 * holding it is watched (a change after the watch is an event, one before it shows in the stat), in the order
 * the set-up watches their directories. The worker reads the sections it needs from the index file itself, as
 * an indexed grep's does: the thread that sets the watch up copies nothing.
 */
export interface WatchedStatJob {
  readonly kind: "watched";
  /** The index file and its body's hash (the worker reads its sections and checks it read that file). */
  readonly file: string;
  readonly hash: string;
  /** Whether the worker maps the file (a server's: always, ADR 0052). */
  readonly map: boolean;
  /** The tree's real path; the relative paths are below it. */
  readonly root: string;
  /** Where the facts (STAT_WORDS words per file) and the NUL-separated relative paths lie in the file. */
  readonly factsAt: number;
  readonly pathsAt: number;
  readonly pathBytes: number;
  readonly files: number;
  /** The directories the set-up watches, in its order, relative to the root ("" the root), NUL-separated. */
  readonly dirs: string;
  /** The control words, the order and the answers (watchedMemory). */
  readonly out: SharedArrayBuffer;
  /** The calling thread's routes to the kernel (src/platform/routes.ts), set before the worker stats. */
  readonly routes: Routes;
}

/**
 * Control words of a watched job (Int32), after NEXT and STATE: how many of the set-up's directories are watched
 * (FRONTIER_ALL: every one, and the set-up is whole; FRONTIER_STOP: stop), and whether the order is made.
 */
const FRONTIER = 2;
const ORDERED = 3;
export const FRONTIER_ALL = 0x7fffffff;
export const FRONTIER_STOP = -1;
const WATCHED_CONTROL = 4;

/**
 * Makes the shared memory of a watched job over `files` files: the control words, the order (an Int32 per
 * file: the ids by the order their directories are watched in) and the answers (a byte per file id).
 * @param files how many files
 * @returns the memory
 */
export function watchedMemory(files: number): SharedArrayBuffer {
  return new SharedArrayBuffer(WATCHED_CONTROL * 4 + files * 5);
}

/**
 * The views of a watched job's memory.
 * @param out the memory
 * @param files how many files
 * @returns the control words, the order and the answers
 */
export function watchedViews(
  out: SharedArrayBuffer,
  files: number,
): { control: Int32Array; order: Int32Array; answers: Uint8Array } {
  return {
    control: new Int32Array(out, 0, WATCHED_CONTROL),
    order: new Int32Array(out, WATCHED_CONTROL * 4, files),
    answers: new Uint8Array(out, WATCHED_CONTROL * 4 + files * 4, files),
  };
}

/**
 * Says how many of the set-up's directories are watched (every one added before any of them after), or that
 * every one is (FRONTIER_ALL), or that the job is to stop (FRONTIER_STOP), and wakes the worker.
 * @param control the control words
 * @param frontier the count, FRONTIER_ALL or FRONTIER_STOP
 */
export function setFrontier(control: Int32Array, frontier: number): void {
  Atomics.store(control, FRONTIER, frontier);
  Atomics.notify(control, FRONTIER);
}

/** Whether the worker has made the order (the caller may then take chunks of it). */
export function ordered(control: Int32Array): boolean {
  return Atomics.load(control, ORDERED) === 1;
}

/**
 * Takes chunks of the order from the shared counter until there are none, answering each file: the caller's
 * part once the watch is whole (FRONTIER_ALL), or the worker's, which stats a file only once the frontier is
 * past its directory.
 * @param control the control words
 * @param order the ids in order
 * @param answers the answers by id
 * @param check whether a file id's stats are unchanged
 * @param need per place in the order, how many directories must be watched first (null: the caller's, with
 *   the watch whole)
 * @returns false when stopped (FRONTIER_STOP) or, for the caller, when `enough` said so
 */
export function takeOrdered(
  control: Int32Array,
  order: Int32Array,
  answers: Uint8Array,
  check: (id: number) => boolean,
  need: Int32Array | null,
  enough: () => boolean = () => false,
): boolean {
  const items = order.length;
  for (;;) {
    if (need === null && enough()) return false;
    const from = Atomics.add(control, NEXT, CHUNK);
    if (from >= items) return true;
    const to = Math.min(items, from + CHUNK);
    for (let k = from; k < to; k++) {
      if (need !== null) {
        const want = need[k] as number;
        for (;;) {
          const f = Atomics.load(control, FRONTIER);
          if (f === FRONTIER_STOP) return false;
          if (f >= want) break;
          Atomics.wait(control, FRONTIER, f, 200);
        }
      }
      const id = order[k] as number;
      answers[id] = check(id) ? SAME : CHANGED;
    }
  }
}

/**
 * The worker's part of a watched job: the order of the files by their directory's place among the set-up's
 * directories (a file whose directory is not among them last, once every one is watched), then chunks of it.
 * @param job the job
 * @param paths the files' relative paths (the index file's section)
 * @param starts where each starts in it (pathStarts)
 * @param check whether a file id's stats are unchanged
 */
export function workWatched(
  job: WatchedStatJob,
  paths: Uint8Array,
  starts: Int32Array,
  check: (id: number) => boolean,
): void {
  const { control, order, answers } = watchedViews(job.out, job.files);
  const dirs = job.dirs.split("\0");
  const place = new Map<string, number>();
  for (let k = 0; k < dirs.length; k++) place.set(dirs[k] as string, k);
  const { files } = job;
  const text = Buffer.from(paths.buffer, paths.byteOffset, paths.byteLength);
  // Per file, the place of its directory (dirs.length: none of them); consecutive files mostly share one.
  const at = new Int32Array(files);
  let lastFrom = -1;
  let lastTo = -1;
  let lastPlace = dirs.length;
  for (let id = 0; id < files; id++) {
    const from = starts[id] as number;
    let slash = (starts[id + 1] as number) - 2;
    while (slash >= from && paths[slash] !== 0x2f) slash--;
    const to = slash < from ? from : slash;
    const same =
      lastFrom >= 0 &&
      to - from === lastTo - lastFrom &&
      text.compare(text, lastFrom, lastTo, from, to) === 0;
    if (!same) {
      lastPlace = place.get(text.toString("utf8", from, to)) ?? dirs.length;
      lastFrom = from;
      lastTo = to;
    }
    at[id] = lastPlace;
  }
  // Counting sort by place; a file may be stat'ed once the directories up to its own are watched.
  const next = new Int32Array(dirs.length + 2);
  for (let id = 0; id < files; id++) {
    const p = (at[id] as number) + 1;
    next[p] = (next[p] as number) + 1;
  }
  for (let k = 1; k < next.length; k++) next[k] = (next[k] as number) + (next[k - 1] as number);
  const need = new Int32Array(files);
  for (let id = 0; id < files; id++) {
    const p = at[id] as number;
    const k = next[p] as number;
    next[p] = k + 1;
    order[k] = id;
    need[k] = p >= dirs.length ? FRONTIER_ALL : p + 1;
  }
  Atomics.store(control, ORDERED, 1);
  Atomics.store(control, STATE, TAKING);
  takeOrdered(control, order, answers, check, need);
}
