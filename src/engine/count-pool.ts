/*! Engine: a small pool of line-counting workers (Bun Web Workers). Batches of paths go to the workers in turn
 * and come back as outcomes in path order; without Bun, or when a worker cannot start or fails, the batch is
 * counted in the calling thread. Workers that end a count with nothing left to do wait, unreferenced, for the
 * next count of the process (an MCP server runs many), which then pays neither their start nor their
 * compilation again. It never walks, never orders batches (the caller does) and never writes. */
import type { ErrorInfo } from "../contract/errors.ts";
import { type Routes, routes } from "../platform/routes.ts";
import { startWorker, workersAvailable } from "../platform/workers.ts";
import { languageNumber, languageNumbered, languageOf } from "./languages.ts";
import { type CountOutcome, LineCounter, type LineCounterOptions } from "./lines.ts";

/** A batch sent to a worker. */
export interface BatchRequest {
  readonly id: number;
  readonly paths: readonly string[];
  readonly opts: LineCounterOptions;
  /** The calling thread's routes to the kernel (src/platform/routes.ts), set before a worker reads. */
  readonly routes?: Routes;
}

/**
 * A worker's answer: seven numbers per path (kind, lines, non-blank, code, docstring, bytes, and the number of
 * the language its `#!` line named, languageNumber's, 0 for none) and the problems met.
 */
export interface BatchReply {
  readonly id: number;
  readonly counts: Float64Array;
  readonly errors: ReadonlyArray<readonly [number, ErrorInfo]>;
}

/** Numbers per path in a reply. */
const WIDTH = 7;
const COUNTED = 0;
const BINARY = 1;
const ERROR = 2;

let local: { key: string; counter: LineCounter } | null = null;

function counterFor(opts: LineCounterOptions): LineCounter {
  const key = `${opts.binaryProbe}:${opts.width}:${JSON.stringify(opts.confine)}`;
  if (local === null || local.key !== key) local = { key, counter: new LineCounter(opts) };
  return local.counter;
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * Counts a batch in this thread and packs the outcomes (what a worker does with each request).
 * @param req the batch
 * @returns the packed outcomes
 */
export function countBatch(req: BatchRequest): BatchReply {
  const counter = counterFor(req.opts);
  const counts = new Float64Array(req.paths.length * WIDTH);
  const errors: Array<readonly [number, ErrorInfo]> = [];
  for (let i = 0; i < req.paths.length; i++) {
    const path = req.paths[i] as string;
    const out = counter.count(path, languageOf(nameOf(path)));
    const o = i * WIDTH;
    if (out.kind === "counted") {
      counts[o] = COUNTED;
      counts[o + 1] = out.counts.lines;
      counts[o + 2] = out.counts.nonBlank;
      counts[o + 3] = out.counts.code;
      counts[o + 4] = out.counts.docstring;
      counts[o + 5] = out.counts.bytes;
      counts[o + 6] = languageNumber(out.counts.shebang);
    } else if (out.kind === "binary") {
      counts[o] = BINARY;
      counts[o + 5] = out.bytes;
    } else {
      counts[o] = ERROR;
      counts[o + 5] = out.bytes;
      errors.push([i, out.info]);
    }
  }
  return { id: req.id, counts, errors };
}

/**
 * Returns the outcomes packed in a reply, in path order.
 * @param reply a worker's (or countBatch's) answer
 * @returns one outcome per path
 */
function unpack(reply: BatchReply): CountOutcome[] {
  const n = reply.counts.length / WIDTH;
  const errors = new Map(reply.errors);
  const out: CountOutcome[] = new Array(n);
  const c = reply.counts;
  for (let i = 0; i < n; i++) {
    const o = i * WIDTH;
    const kind = c[o];
    const bytes = c[o + 5] as number;
    if (kind === COUNTED) {
      out[i] = {
        kind: "counted",
        counts: {
          lines: c[o + 1] as number,
          nonBlank: c[o + 2] as number,
          code: c[o + 3] as number,
          docstring: c[o + 4] as number,
          bytes,
          shebang: languageNumbered(c[o + 6] as number),
        },
      };
    } else if (kind === BINARY) out[i] = { kind: "binary", bytes };
    else out[i] = { kind: "error", info: errors.get(i) as ErrorInfo, bytes };
  }
  return out;
}

/** A pool of line counters. */
export interface CountPool {
  /** Counts the files of a batch; the outcomes come in path order. */
  count(paths: readonly string[]): Promise<CountOutcome[]>;
  /**
   * Ends the pool: a worker with nothing left to do waits for the next count of the process; one with batches
   * still out is terminated and they are counted in this thread.
   */
  close(): void;
}

interface Job {
  readonly paths: readonly string[];
  readonly resolve: (outcomes: CountOutcome[]) => void;
}

interface Slot {
  readonly worker: Worker;
  readonly jobs: Map<number, Job>;
  dead: boolean;
}

/** Workers waiting for the next count of this process. */
const idle: Worker[] = [];
const MAX_IDLE = 4;

/**
 * Creates a counting pool.
 * @param opts the line counter options (sent with every batch)
 * @param threads the number of workers (0, or no Bun: every batch is counted in the calling thread)
 * @returns the pool
 */
export function createCountPool(opts: LineCounterOptions, threads: number): CountPool {
  const inThread = (paths: readonly string[]): CountOutcome[] => unpack(countBatch({ id: 0, paths, opts }));
  const slots: Slot[] = [];
  let nextId = 1;
  let turn = 0;
  const fail = (slot: Slot): void => {
    slot.dead = true;
    slot.worker.terminate();
    for (const job of slot.jobs.values()) job.resolve(inThread(job.paths));
    slot.jobs.clear();
  };
  if (workersAvailable) {
    for (let i = 0; i < threads; i++) {
      let worker: Worker;
      try {
        worker = idle.pop() ?? startWorker("engine/count-worker");
      } catch {
        break;
      }
      worker.ref();
      const slot: Slot = { worker, jobs: new Map(), dead: false };
      // Handlers as properties, not listeners: a worker lent again answers its new pool only.
      worker.onmessage = (ev: MessageEvent<BatchReply>) => {
        const job = slot.jobs.get(ev.data.id);
        if (!job) return;
        slot.jobs.delete(ev.data.id);
        job.resolve(unpack(ev.data));
      };
      worker.onerror = () => fail(slot);
      slots.push(slot);
    }
  }
  return {
    count(paths) {
      const live = slots.filter((s) => !s.dead);
      if (live.length === 0) return Promise.resolve(inThread(paths));
      const slot = live[turn++ % live.length] as Slot;
      const id = nextId++;
      return new Promise((resolve) => {
        slot.jobs.set(id, { paths, resolve });
        const req: BatchRequest = { id, paths, opts, routes: routes() };
        slot.worker.postMessage(req);
      });
    },
    close() {
      for (const slot of slots) {
        if (slot.dead) continue;
        slot.dead = true;
        if (slot.jobs.size === 0 && idle.length < MAX_IDLE) {
          // Nothing left to count: it waits for the next count of the process.
          const w = slot.worker;
          w.onmessage = null;
          w.onerror = () => {
            // It failed while waiting: it is not lent again.
            const at = idle.indexOf(w);
            if (at >= 0) idle.splice(at, 1);
            w.terminate();
          };
          w.unref();
          idle.push(w);
          continue;
        }
        slot.worker.terminate();
        for (const job of slot.jobs.values()) job.resolve(inThread(job.paths));
        slot.jobs.clear();
      }
    },
  };
}
