/*! Search: the worker pool. Sends batches of paths to N workers (Bun Web Workers in the binary, worker_threads
 * under Node) and calls back once per file as
 * outcomes arrive; the caller keeps walk order. close() terminates the
 * workers at once, so a deadline holds even against a regex that never returns. With 0 threads, or when a
 * worker cannot start, files are searched in the calling thread (then a deadline is checked between files
 * only). It never walks and never writes output. */
import type { Worker as NodeWorkerType } from "node:worker_threads";
import { decodeOutcomes, type FromWorker, type ToWorker } from "./protocol.ts";
import { createSearcher, type FileOutcome, type Searcher, type SearchSpec } from "./search-file.ts";

/** A pool of searchers. */
export interface SearchPool {
  /** Searches a batch of files, calling back once per file (in order) as each is done. */
  submit(paths: readonly string[], done: (index: number, outcome: FileOutcome) => void): void;
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
  /** Files already answered. */
  next: number;
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
 * @param threads the number of workers (0 = search in the calling thread)
 * @returns the pool
 */
export function createPool(spec: SearchSpec, threads: number): SearchPool {
  let local: Searcher | null = null;
  const inThread = (job: Job): void => {
    local ??= createSearcher(spec);
    for (; job.next < job.paths.length; job.next++) {
      job.done(job.next, local.search(job.paths[job.next] as string));
    }
  };
  if (threads <= 0) {
    return { submit: (paths, done) => inThread({ paths, done, next: 0 }), close: () => {} };
  }
  interface Slot {
    port: Port | null;
    readonly jobs: Map<number, Job>;
    dead: boolean;
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
    const slot: Slot = { port: null, jobs: new Map(), dead: false };
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
          const outcomes = decodeOutcomes(m.data);
          job.next = m.start + outcomes.length;
          if (job.next >= job.paths.length) slot.jobs.delete(m.id);
          for (let k = 0; k < outcomes.length; k++) job.done(m.start + k, outcomes[k] as FileOutcome);
        },
        (message) => fail(message),
      );
      slot.port.post({ type: "init", spec });
    } catch {
      slot.dead = true;
    }
    slots.push(slot);
    return slot;
  };
  return {
    submit(paths, done) {
      const job: Job = { paths, done, next: 0 };
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
