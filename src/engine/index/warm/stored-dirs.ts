/*! Engine, warm index: a restarted server's watch set up from the directories of the walk written with its
 * index (storedDirsOf), and the stat worker's part of that restart (StatsBeside). Never reads the index's text. */
import { STAT_OK, STAT_WORDS } from "../../../platform/stat-words.ts";
import type { KnownDirs, TreeWatch } from "../../../platform/tree-watch.ts";
import { type LoadedIndex, type StoredWalk, startWatchedStats, type WatchedStats } from "../persist.ts";
import {
  ENDED,
  FRONTIER_ALL,
  FRONTIER_STOP,
  ordered,
  STATE,
  setFrontier,
  takeOrdered,
  watchedViews,
} from "../stat-job.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The directories a walk written with an index listed, for a restarted watch (KnownDirs), and which of its
 * witnessed paths each is. */
export interface StoredDirs extends KnownDirs {
  /** Per witnessed path of the walk: 1 when it is one of these directories. */
  readonly witnessed: Uint8Array;
}

/**
 * The directories below the root (and the root) that a walk written with an index listed, with the stats it saw:
 * a restarted server's watch is set up from them without listing each (tree-watch.ts's `known`). Decoded a slice
 * at a time (0.36-0.45 s in one block at 277k files): `pause` between slices lets a call in.
 * @param root the root's real path
 * @param walk the walk written with the index
 * @param pause awaited every WITNESS_SLICE paths; false: stop (null is returned)
 * @returns the directories, or null when it recorded none (or its witnessed paths cannot be read)
 */
export async function storedDirsOf(
  root: string,
  walk: StoredWalk,
  pause: () => Promise<boolean>,
): Promise<StoredDirs | null> {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const rels: string[] = [];
  const words: Uint32Array[] = [];
  const witnessed = new Uint8Array(walk.witnessed);
  for (let i = 0; i < walk.witnessed; i++) {
    if (i % WITNESS_SLICE === WITNESS_SLICE - 1 && !(await pause())) return null;
    const w = walk.witness(i);
    if (w === null) return null;
    // A directory is witnessed as it is listed, its symlink followed (walk.ts's openDir); an ignore file in the
    // tree is not followed, a `.git` entry's kind alone counts.
    if (!w.follow || w.kindOnly || w.outcome !== STAT_OK) continue;
    if (w.path !== root && !w.path.startsWith(prefix)) continue;
    rels.push(w.path === root ? "" : w.path.slice(prefix.length));
    words.push(w.words);
    witnessed[i] = 1;
  }
  if (rels.length === 0) return null;
  const all = new Uint32Array(rels.length * STAT_WORDS);
  for (let k = 0; k < words.length; k++) all.set(words[k] as Uint32Array, k * STAT_WORDS);
  return { rels, words: all, witnessed };
}

/** Witnessed paths of a loaded walk decoded between two turns (storedDirsOf). */
const WITNESS_SLICE = 8192;

/**
 * The stat worker's part of a restart (persist.ts's startWatchedStats): while this thread sets the watch up from
 * the directories of the walk written with the index, the worker stats each indexed file once the set-up has
 * added the watch of the directory holding it (told between slices: `progress`), so the one stat of every file
 * a restart needs overlaps the set-up instead of following it. A file whose stat comes after its directory's
 * watch is what the stat after the whole watch was (a change after the watch is an event, one before it shows
 * in the stat); the set-up starting again (its queue overflowed, dropping the watches) or an event that forgets
 * everything voids the answers, and this thread stats every file as before.
 */
export class StatsBeside {
  private readonly control: Int32Array;
  private readonly order: Int32Array;
  private readonly answers: Uint8Array;
  private stopped = false;

  private constructor(
    private readonly job: WatchedStats,
    /** The state's `forgets` when the job began. */
    private readonly forgets: number,
  ) {
    const views = watchedViews(job.out, job.files);
    this.control = views.control;
    this.order = views.order;
    this.answers = views.answers;
  }

  /**
   * Starts the job, or returns null (no worker: the files are stat'ed after the set-up, on this thread).
   * @param loaded the loaded index
   * @param file the index file it was read from
   * @param root the tree's real path
   * @param dirs the directories the set-up watches (its `known`), in its order
   * @param forgets the state's `forgets` now
   */
  static start(
    loaded: LoadedIndex,
    file: string,
    root: string,
    dirs: StoredDirs,
    forgets: number,
  ): StatsBeside | null {
    const job = startWatchedStats(loaded, file, root, dirs.rels);
    return job === null ? null : new StatsBeside(job, forgets);
  }

  /** Between slices of the set-up: the worker may stat the files of the directories watched so far. */
  progress(w: TreeWatch | null): void {
    if (this.stopped || w === null) return;
    const p = w.knownProgress();
    if (p.restarts > 0) this.stop();
    else setFrontier(this.control, p.watched);
  }

  /**
   * Once the watch is whole: the worker may stat every file left; this thread takes chunks of them too, waits for
   * the worker's last chunk, and gives the answers by file id (UNCHECKED: stat it), or null when none may be used.
   * @param forgets the state's `forgets` now
   * @param w the watch set up
   * @param checks the index's file checks (this thread's)
   * @param sliceMs how long this thread works between turns
   * @param stale whether the restart was given up
   * @param turn a turn of the event loop (calls are answered meanwhile)
   */
  async finish(
    forgets: number,
    w: TreeWatch,
    checks: { unchanged(id: number): boolean },
    sliceMs: number,
    stale: () => boolean,
    turn: () => Promise<void>,
  ): Promise<Uint8Array | null> {
    if (
      this.stopped ||
      forgets !== this.forgets ||
      w.knownProgress().restarts > 0 ||
      !ordered(this.control)
    ) {
      this.stop();
      return null;
    }
    setFrontier(this.control, FRONTIER_ALL);
    for (;;) {
      const until = performance.now() + sliceMs;
      const check = (id: number) => checks.unchanged(id);
      if (takeOrdered(this.control, this.order, this.answers, check, null, () => performance.now() > until))
        break;
      await turn();
      if (stale()) return null;
    }
    // The worker's chunk in hand: about a millisecond of stat calls (given up after 10 s: stat'ed here).
    for (const end = performance.now() + 10_000; Atomics.load(this.control, STATE) !== ENDED; ) {
      if (performance.now() > end) break;
      await sleep(1);
      if (stale()) return null;
    }
    this.stop();
    return this.answers;
  }

  /** Stops the worker (what it answered stays readable). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    setFrontier(this.control, FRONTIER_STOP);
    this.job.worker.terminate();
  }
}
