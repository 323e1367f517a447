/*! Search: the worker pool. Sends batches of paths to N workers (Bun Web Workers in the binary, worker_threads
 * under Node) and calls back once per file as outcomes arrive; the caller keeps walk order. Workers outlive a
 * search: once it ends, they drop what is left of its jobs and wait, unreferenced, for the next search of the
 * process (an MCP server or a library caller runs many), which then pays neither their start nor their
 * compilation again. close() terminates them instead when they may be stuck (a deadline or a cancellation), so
 * a deadline holds even against a regex that never returns. When a worker cannot start or fails, its files are
 * searched in the calling thread (then a deadline is checked between files only); grep without workers does
 * not use a pool. It never walks and never writes output. */
import { routes } from "../../platform/routes.ts";
import { startWorkerPort, type WorkerPort } from "../../platform/workers.ts";
import { decodeOutcomes, type FromWorker, type ToWorker } from "./protocol.ts";
import { createSearcher, type FileOutcome, type Searcher, type SearchSpec } from "./search-file.ts";
import type { HitChunk } from "./search-text.ts";

/** Called with hits of a large file before its outcome; `taken` must be called once they are consumed. */
type OnChunk = (index: number, chunk: HitChunk, taken: () => void) => void;

/** A pool of searchers. */
export interface SearchPool {
  /**
   * Searches a batch of files, calling back once per file (in order) as each is done, and before that with
   * the hits of a large file window by window.
   */
  submit(paths: readonly string[], done: (index: number, outcome: FileOutcome) => void, chunk: OnChunk): void;
  /**
   * Ends the search: pending batches never resolve. With `keep` its workers wait for the next search of the
   * process; without it (a deadline passed, or the search was cancelled) they are terminated.
   */
  close(keep: boolean): void;
}

type Port = WorkerPort<ToWorker>;

/** How workers give the plain listing's lines (see createPool). */
interface PackLines {
  readonly batched: boolean;
}

interface Job {
  readonly paths: readonly string[];
  readonly done: (index: number, outcome: FileOutcome) => void;
  readonly chunk: OnChunk;
  /** Files already answered. */
  next: number;
  /** A file whose hits were partly given out, whose outcome has not come yet (-1 for none). */
  partial: number;
}

/** A worker, lent to one search at a time. */
interface Slot {
  readonly port: Port;
  dead: boolean;
  /** [hits given out and not taken, generation], shared with the worker (see ToWorker "init"). */
  readonly shared: Int32Array;
  /** What the search using it does with its messages and its failure; null while it waits. */
  owner: Owner | null;
  /** Waiting, and every job of earlier searches is done or dropped (it answered "drained"). */
  ready: boolean;
  /** When it began to wait (performance.now()). */
  since: number;
}

interface Owner {
  message(m: FromWorker): void;
  fail(why: string): void;
}

/** Workers waiting for the next search of this process (at most MAX_IDLE). */
const idle: Slot[] = [];
const MAX_IDLE = 4;
/** A waiting worker that has not dropped its last search's jobs by then is stuck (a regex that never ends). */
const DRAIN_MS = 1000;

function spawn(onMessage: (m: FromWorker) => void, onError: (message: string) => void): Port {
  return startWorkerPort<ToWorker, FromWorker>("engine/search/worker", onMessage, onError);
}

function terminate(slot: Slot): void {
  slot.dead = true;
  slot.port.terminate();
  const at = idle.indexOf(slot);
  if (at >= 0) idle.splice(at, 1);
}

function newSlot(): Slot | null {
  const shared = new Int32Array(new SharedArrayBuffer(8));
  let slot: Slot | null = null;
  const fail = (why: string) => {
    if (slot === null) return;
    terminate(slot);
    slot.owner?.fail(why);
  };
  let port: Port;
  try {
    // Messages and errors come later, from the event loop: `slot` is set by then.
    port = spawn((m) => {
      if (slot === null) return;
      if (m.type === "fatal") fail(m.message);
      else if (m.type === "drained") slot.ready = m.generation === Atomics.load(shared, 1);
      else slot.owner?.message(m);
    }, fail);
  } catch {
    return null;
  }
  slot = { port, dead: false, shared, owner: null, ready: false, since: 0 };
  return slot;
}

/** A waiting worker that has finished its earlier searches' jobs, or a new one (null: none can start). */
function lend(): Slot | null {
  const now = performance.now();
  for (const s of [...idle]) if (!s.ready && now - s.since > DRAIN_MS) terminate(s);
  const at = idle.findIndex((s) => s.ready);
  if (at >= 0) return idle.splice(at, 1)[0] as Slot;
  return newSlot();
}

/**
 * Creates a search pool.
 * @param spec the search spec (sent to each worker the pool uses)
 * @param threads the number of workers, at least 1
 * @param debug a worker that fails is told on stderr with why (RGLOB_DEBUG, through the run context)
 * @param pack whether workers pack the lines of the plain listing (packed-lines.ts) instead of giving hits (a
 *   file searched in this thread when a worker fails gives hits all the same), and whether they may gather the
 *   outcomes of several files with lines before sending them (not under a deadline: a worker terminated there
 *   loses what it holds), or null
 * @returns the pool
 */
export function createPool(
  spec: SearchSpec,
  threads: number,
  debug = false,
  pack: PackLines | null = null,
): SearchPool {
  let local: Searcher | null = null;
  const inThread = (job: Job): void => {
    local ??= createSearcher(spec);
    for (; job.next < job.paths.length; job.next++) {
      if (job.next === job.partial) {
        // Its worker failed after giving out some of its hits: searching it again would repeat them.
        job.done(job.next, failedMidFile());
        continue;
      }
      job.done(job.next, local.search(job.paths[job.next] as string));
    }
  };
  /** A worker this search uses, with the jobs it sent it. */
  interface Lent {
    readonly slot: Slot | null;
    readonly jobs: Map<number, Job>;
    dead: boolean;
  }
  const lent: Lent[] = [];
  let nextId = 0;
  let closed = false;
  const adopt = (slot: Slot | null): Lent => {
    const use: Lent = { slot, jobs: new Map(), dead: slot === null };
    if (slot === null) return use;
    const owner: Owner = {
      fail: (why) => {
        if (debug) process.stderr.write(`rglob: search worker failed: ${why}\n`);
        // A worker that cannot start or crashed: its batches are searched here instead.
        use.dead = true;
        const jobs = [...use.jobs.values()];
        use.jobs.clear();
        for (const j of jobs) if (!closed) inThread(j);
      },
      message: (m) => {
        if (m.type !== "files" && m.type !== "part") return;
        const job = use.jobs.get(m.id);
        if (!job) return;
        if (m.type === "part") {
          const { bytes, hits, lines, packed } = decodeOutcomes(m.data)[0] as FileOutcome;
          const chunk = packed === undefined ? { bytes, hits } : { bytes, hits, packed };
          // A part's `lines` counts its packed lines: what the worker added to the count of lines held.
          const held = hits.length + lines;
          job.partial = m.index;
          job.chunk(m.index, chunk, () => {
            if (slot.owner !== owner) return; // the search has ended: the count was reset
            Atomics.sub(slot.shared, 0, held);
            Atomics.notify(slot.shared, 0);
          });
          return;
        }
        const outcomes = decodeOutcomes(m.data);
        job.next = m.start + outcomes.length;
        if (job.partial < job.next) job.partial = -1;
        if (job.next >= job.paths.length) use.jobs.delete(m.id);
        for (let k = 0; k < outcomes.length; k++) job.done(m.start + k, outcomes[k] as FileOutcome);
      },
    };
    slot.owner = owner;
    slot.ready = false;
    slot.port.ref();
    Atomics.store(slot.shared, 0, 0);
    slot.port.post({
      type: "init",
      spec,
      shared: slot.shared.buffer as SharedArrayBuffer,
      routes: routes(),
      pack,
    });
    return use;
  };
  const useFor = (): Lent => {
    // The least loaded worker; take one more while there are fewer than asked for.
    let best: Lent | undefined;
    for (const u of lent) if (!u.dead && (best === undefined || u.jobs.size < best.jobs.size)) best = u;
    if (best !== undefined && (best.jobs.size === 0 || lent.length >= threads)) return best;
    if (lent.length >= threads) return lent[0] as Lent; // every worker failed: in-thread from now on
    const use = adopt(lend());
    lent.push(use);
    return use;
  };
  return {
    submit(paths, done, chunk) {
      const job: Job = { paths, done, chunk, next: 0, partial: -1 };
      const use = useFor();
      if (use.dead || use.slot === null) {
        inThread(job);
        return;
      }
      const id = nextId++;
      use.jobs.set(id, job);
      use.slot.port.post({ type: "job", id, generation: Atomics.load(use.slot.shared, 1), paths });
    },
    close(keep) {
      closed = true;
      local?.release();
      local = null;
      for (const use of lent) {
        use.jobs.clear();
        const slot = use.slot;
        if (slot === null || slot.dead) continue;
        slot.owner = null;
        if (!keep || use.dead || idle.length >= MAX_IDLE) {
          terminate(slot);
          continue;
        }
        // Its remaining jobs are dropped (a worker waiting for its hits to be taken wakes up), and once it has
        // answered the drain it is lent again.
        const generation = Atomics.add(slot.shared, 1, 1) + 1;
        Atomics.store(slot.shared, 0, 0);
        Atomics.notify(slot.shared, 0);
        slot.port.post({ type: "drain", generation });
        slot.port.unref();
        slot.since = performance.now();
        idle.push(slot);
      }
    },
  };
}

/** The outcome of a file whose worker failed after giving out part of its hits. */
function failedMidFile(): FileOutcome {
  return {
    bytes: 0,
    skip: "unreadable",
    error: {
      code: "UNREADABLE",
      message: "the search worker failed in this file; later matches are missing",
    },
    lines: 0,
    matches: 0,
    hits: [],
    encoding: "utf-8",
  };
}
