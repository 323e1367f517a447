/*! grep: the scheduling of file searches, behind one interface (FileSource) with two implementations. In the
 * calling thread each file is searched when its turn comes, window by window, so a file's hits never pile up in
 * memory; with workers the walk feeds batches of files to the search pool while it walks, outcomes come back in
 * any order, and they are handed out again in walk order. Waiting on workers polls the deadline. */

import { type RunContext, tick, yielder } from "../../engine/run.ts";
import type { SearchPool } from "../../engine/search/pool.ts";
import type { createSearcher, FileOutcome } from "../../engine/search/search-file.ts";
import type { HitChunk } from "../../engine/search/search-text.ts";
import type { Entry } from "../../engine/walk.ts";

const BATCH = 32;
const MAX_IN_FLIGHT = 512;
/** Files at least this large (as the warm index knows them) are searched in a batch of their own. */
const LARGE_ALONE = 256 * 1024;
const POLL_MS = 50;

/** Hits of a file given out before its outcome; `taken` (workers only) says they were consumed. */
export interface PooledChunk {
  readonly chunk: HitChunk;
  readonly taken: (() => void) | null;
}

/** What comes of a file, piece by piece: chunks of hits, then its outcome. */
export type Piece = PooledChunk | FileOutcome;

/** A file of the walk on its way through the search. */
export interface Item {
  readonly entry: Entry;
  /** Chunks a worker gave out that are not consumed yet. */
  readonly chunks: PooledChunk[];
  /** Its outcome once known (at once for a file ruled out before it is read). */
  outcome: FileOutcome | null;
  /** The in-thread search of the file, once its turn came. */
  steps: Generator<HitChunk, FileOutcome> | null;
}

/**
 * The files of a grep run in walk order, and the pieces of each. In the calling thread neither is a promise
 * unless a pause for the event loop is due (an await per file cost about a microsecond of the search of a small
 * file).
 */
export interface FileSource {
  /** The next file in walk order (with workers: once it has a chunk or its outcome); null at the end or on a stop. */
  next(): Item | null | Promise<Item | null>;
  /** The next piece of a file: hits given out before its end, or its outcome; null when the run must stop. */
  piece(item: Item): Piece | null | Promise<Piece | null>;
  /** The outcome of a file, with the bytes of any chunks before it (modes that list files give out no hits). */
  outcome(item: Item): Promise<FileOutcome | null>;
}

/**
 * Returns the outcome of a file from its pieces.
 * @param source where the pieces come from
 * @param item the file
 * @returns its outcome with the bytes of the chunks before it, or null when the run must stop
 */
async function outcomeOf(source: FileSource, item: Item): Promise<FileOutcome | null> {
  let early = 0;
  for (let p = await source.piece(item); p !== null; p = await source.piece(item)) {
    if (!("chunk" in p)) return { ...p, bytes: p.bytes + early };
    early += p.chunk.bytes;
    p.taken?.();
  }
  return null;
}

/**
 * Creates the source of an in-thread search: each file searched when its turn comes.
 * @param entries the walk
 * @param itemOf makes a walk entry's item
 * @param ctx the run context (stops, pacing)
 * @param searcher the searcher
 * @param onFile hears each file as its search starts (the events' fileStart), or null
 * @returns the source
 */
export function localSource(
  entries: Iterator<Entry>,
  itemOf: (e: Entry) => Item,
  ctx: RunContext,
  searcher: ReturnType<typeof createSearcher>,
  onFile: ((abs: string) => void) | null,
): FileSource {
  const due = yielder(BATCH * 4);
  const pull = (): Item | null => {
    const r = entries.next();
    return r.done ? null : itemOf(r.value);
  };
  const source: FileSource = {
    next() {
      if (ctx.shouldStop()) return null;
      if (due()) return tick().then(pull);
      return pull();
    },
    piece(item) {
      if (item.outcome !== null) return item.outcome; // ruled out before it is read
      // Between two windows of a file too, a deadline or a cancellation stops the run.
      if (item.steps !== null && ctx.shouldStop()) return null;
      if (item.steps === null) {
        onFile?.(item.entry.abs);
        item.steps = searcher.steps(item.entry.abs, item.entry);
      }
      const r = item.steps.next();
      return r.done ? r.value : { chunk: r.value, taken: null };
    },
    outcome: (item) => outcomeOf(source, item),
  };
  return source;
}

/** What the pooled source needs besides the walk. */
interface PoolSetup {
  readonly pool: SearchPool;
  /** Whether every file goes to the pool (none is ruled out before it is read). */
  readonly allSearched: boolean;
  /** The size of a file as the warm index knows it (0 when it does not). */
  readonly sizeOf: (e: Entry) => number;
}

/**
 * Creates the source of a search by workers: the walk is fed to the pool in batches while outcomes are
 * consumed, and outcomes already in are still delivered after a stop (they are what was found before it).
 * @param entries the walk
 * @param itemOf makes a walk entry's item
 * @param ctx the run context (stops, pacing)
 * @param setup the pool and what it needs
 * @returns the source
 */
export function pooledSource(
  entries: Iterator<Entry>,
  itemOf: (e: Entry) => Item,
  ctx: RunContext,
  setup: PoolSetup,
): FileSource {
  const { pool, allSearched, sizeOf } = setup;
  // `queue` holds files in walk order until their outcome is consumed.
  const queue: Item[] = [];
  let head = 0;
  let batch: Item[] = [];
  let inFlight = 0;
  /** Files whose outcome the consumer has taken. */
  let consumed = 0;
  let batches = 0;
  let walkDone = false;
  let wake: (() => void) | null = null;
  let woken = false;
  const wakeUp = () => {
    woken = true;
    wake?.();
  };
  const flush = () => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    batches++;
    const toSearch = allSearched ? items : items.filter((i) => i.outcome === null);
    if (toSearch.length === 0) return;
    inFlight += toSearch.length;
    pool.submit(
      toSearch.map((i) => i.entry.abs),
      (k, outcome) => {
        (toSearch[k] as Item).outcome = outcome;
        inFlight--;
        wakeUp();
      },
      (k, chunk, taken) => {
        (toSearch[k] as Item).chunks.push({ chunk, taken });
        wakeUp();
      },
    );
  };
  const due = yielder(BATCH * 4);
  /** Pulls walk entries into batches (a few batches at a time, so outcomes are consumed while walking). */
  const feed = () => {
    let n = 0;
    while (n < BATCH * 4) {
      const r = entries.next();
      if (r.done) {
        walkDone = true;
        break;
      }
      const item = itemOf(r.value);
      queue.push(item);
      // A file the warm index knows to be large is a batch of its own: the next goes to another worker.
      const large = item.outcome === null && sizeOf(item.entry) >= LARGE_ALONE;
      if (large) flush();
      batch.push(item);
      // Batches grow 1, 2, 4 … BATCH, so a search of a few (large) files still uses every worker.
      if (large || batch.length >= Math.min(BATCH, 1 << batches)) flush();
      n++;
    }
    flush();
  };
  /** Sleeps until a worker answers or POLL_MS pass (so the deadline is checked while workers run). */
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, POLL_MS);
      wake = () => {
        woken = false;
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  /** Waits while workers search: feeds the walk to them meanwhile. False when the run must stop. */
  const waitForWorkers = async (): Promise<boolean> => {
    if (ctx.shouldStop()) return false;
    // Files in flight grow with the files consumed, up to MAX_IN_FLIGHT: a search that stops after a few
    // records (a small limit) does not walk and search hundreds of files ahead for nothing.
    if (!walkDone && inFlight < Math.min(MAX_IN_FLIGHT, 2 * BATCH + 2 * consumed)) {
      feed();
      if (due()) await tick();
      return true;
    }
    flush();
    await sleep();
    return true;
  };
  const source: FileSource = {
    async next() {
      while (true) {
        if (head < queue.length) {
          const item = queue[head] as Item;
          if (item.outcome !== null || item.chunks.length > 0) {
            queue[head] = undefined as unknown as Item;
            head++;
            consumed++;
            if (head > 4096 && head * 2 > queue.length) {
              queue.splice(0, head);
              head = 0;
            }
            return item;
          }
        }
        if (walkDone && head >= queue.length) return null;
        if (!(await waitForWorkers())) return null;
      }
    },
    async piece(item) {
      while (true) {
        const c = item.chunks.shift();
        if (c !== undefined) return c;
        if (item.outcome !== null) return item.outcome;
        if (!(await waitForWorkers())) return null;
      }
    },
    outcome: (item) => outcomeOf(source, item),
  };
  return source;
}
