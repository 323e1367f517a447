/*! Engine, persisted index: what the stat worker (stat-worker.ts) and the caller (persist.ts's checkStats)
 * share. The paths the recorded walk depends on and the indexed files are checked in chunks of items (the
 * witnessed paths first, then the files by id) that either thread takes from one shared counter, so the two
 * finish together whatever the caller has to do first (read the index) and however fast each thread runs. */

import { pathsChecker, STAT_WORDS } from "../../platform/stat-words.ts";
import { stillWitnessed } from "../witness.ts";

/** What the caller sends. */
export interface StatJob {
  /** The index file. */
  readonly file: string;
  /** Its body's hash as its prefix holds it (bytes 16-32, latin1): the worker checks it read that file. */
  readonly hash: string;
  /** The tree's real path; the relative paths are below it. */
  readonly root: string;
  /** Where the facts (STAT_WORDS words per file) and the NUL-separated relative paths lie in the file. */
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
}

/** Control words (Int32): the next id to take, and the worker's state. */
export const NEXT = 0;
export const STATE = 1;
/** The worker's states: not started, taking chunks (it may hold one), ended (done or given up). */
export const NOT_STARTED = 0;
export const TAKING = 1;
export const ENDED = 2;
/** Answers: a byte per item after the control words (the witnessed paths, then the files by id): not
 * checked, unchanged, changed (or gone). */
export const UNCHECKED = 0;
export const SAME = 1;
export const CHANGED = 2;
/** Ids taken at a time (about a millisecond of stat calls). */
export const CHUNK = 256;
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
