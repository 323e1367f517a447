/*! Search: the worker pool. Sends batches of paths to N workers (Bun Web Workers in the binary, worker_threads
 * under Node) and calls back once per file as
 * outcomes arrive; the caller keeps walk order. close() terminates the
 * workers at once, so a deadline holds even against a regex that never returns. When a worker cannot start or
 * fails, its files are searched in the calling thread (then a deadline is checked between files only); grep
 * without workers does not use a pool. It never walks and never writes output. */
import type { Worker as NodeWorkerType } from "node:worker_threads";
import { decodeOutcomes, type FromWorker, type ToWorker } from "./protocol.ts";
import { createSearcher, type FileOutcome, type Searcher, type SearchSpec } from "./search-file.ts";
import type { HitChunk } from "./search-text.ts";

/** Called with hits of a large file before its outcome; `taken` must be called once they are consumed. */
export type OnChunk = (index: number, chunk: HitChunk, taken: () => void) => void;

/** A pool of searchers. */
export interface SearchPool {
  /**
   * Searches a batch of files, calling back once per file (in order) as each is done, and before that with
   * the hits of a large file window by window.
   */
  submit(paths: readonly string[], done: (index: number, outcome: FileOutcome) => void, chunk: OnChunk): void;
  /** Terminates the workers; pending batches never resolve. */
  close(): void;
}

interface Port {
  post(msg: ToWorker): void;
  terminate(): void;
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

function spawn(onMessage: (m: FromWorker) => void, onError: (message: string) => void): Port {
  // In the compiled binary every module is bundled into one file at the virtual root and the worker entry is
  // stored by its path under src/ with a .js extension (scripts/build.ts lists it as an entrypoint).
  const url = import.meta.url.includes("$bunfs")
    ? new URL("./engine/search/worker.js", import.meta.url)
    : new URL("./worker.ts", import.meta.url);
  if (typeof Bun !== "undefined") {
    const w = new Worker(url.href);
    w.addEventListener("message", (ev: MessageEvent<FromWorker>) => onMessage(ev.data));
    w.addEventListener("error", (ev: ErrorEvent) => onError(ev.message));
    return { post: (m) => w.postMessage(m), terminate: () => w.terminate() };
  }
  // Loaded only under Node: importing node:worker_threads costs Bun tens of milliseconds at startup.
  const mod = process.getBuiltinModule?.("node:worker_threads") as
    | { Worker: new (url: URL) => NodeWorkerType }
    | undefined;
  if (!mod) throw new Error("node:worker_threads is not available");
  const w = new mod.Worker(url);
  w.on("message", onMessage);
  w.on("error", (err: Error) => onError(err.message));
  return {
    post: (m) => w.postMessage(m),
    terminate: () => {
      void w.terminate();
    },
  };
}

/**
 * Creates a search pool.
 * @param spec the search spec (sent to every worker once)
 * @param threads the number of workers, at least 1
 * @returns the pool
 */
export function createPool(spec: SearchSpec, threads: number): SearchPool {
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
  interface Slot {
    port: Port | null;
    readonly jobs: Map<number, Job>;
    dead: boolean;
    /** Hits given out by the worker and not taken yet (shared with it). */
    readonly credit: Int32Array;
  }
  const slots: Slot[] = [];
  let nextId = 0;
  let closed = false;
  const slotFor = (): Slot => {
    // The least loaded worker; start one more while there are fewer than asked for.
    let best: Slot | undefined;
    for (const s of slots) if (!s.dead && (best === undefined || s.jobs.size < best.jobs.size)) best = s;
    if (best !== undefined && (best.jobs.size === 0 || slots.length >= threads)) return best;
    if (slots.length >= threads) return slots[0] as Slot; // every worker failed: in-thread from now on
    const slot: Slot = {
      port: null,
      jobs: new Map(),
      dead: false,
      credit: new Int32Array(new SharedArrayBuffer(4)),
    };
    const fail = (why?: string) => {
      if (process.env.RGLOB_DEBUG) process.stderr.write(`rglob: search worker failed: ${why}\n`);
      // A worker that cannot start or crashed: its batches are searched here instead.
      slot.dead = true;
      slot.port?.terminate();
      const jobs = [...slot.jobs.values()];
      slot.jobs.clear();
      for (const j of jobs) if (!closed) inThread(j);
    };
    try {
      slot.port = spawn(
        (m) => {
          if (m.type === "fatal") return fail(m.message);
          const job = slot.jobs.get(m.id);
          if (!job) return;
          if (m.type === "part") {
            const { bytes, hits } = decodeOutcomes(m.data)[0] as FileOutcome;
            const chunk = { bytes, hits };
            job.partial = m.index;
            job.chunk(m.index, chunk, () => {
              Atomics.sub(slot.credit, 0, hits.length);
              Atomics.notify(slot.credit, 0);
            });
            return;
          }
          const outcomes = decodeOutcomes(m.data);
          job.next = m.start + outcomes.length;
          if (job.partial < job.next) job.partial = -1;
          if (job.next >= job.paths.length) slot.jobs.delete(m.id);
          for (let k = 0; k < outcomes.length; k++) job.done(m.start + k, outcomes[k] as FileOutcome);
        },
        (message) => fail(message),
      );
      slot.port.post({ type: "init", spec, credit: slot.credit.buffer as SharedArrayBuffer });
    } catch {
      slot.dead = true;
    }
    slots.push(slot);
    return slot;
  };
  return {
    submit(paths, done, chunk) {
      const job: Job = { paths, done, chunk, next: 0, partial: -1 };
      const slot = slotFor();
      if (slot.dead || slot.port === null) {
        inThread(job);
        return;
      }
      const id = nextId++;
      slot.jobs.set(id, job);
      slot.port.post({ type: "job", id, paths });
    },
    close() {
      closed = true;
      for (const s of slots) {
        s.port?.terminate();
        s.jobs.clear();
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
