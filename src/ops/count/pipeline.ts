/*! count: the walk → count → records pipeline. Entries are counted in batches (in this thread for small trees,
 * by a worker pool past a threshold) and turned into records in walk order, errors interleaved where they
 * occurred. It never reads a file itself (engine/lines.ts does) and never cuts output (the dispatcher does). */
import type { ErrorInfo } from "../../contract/errors.ts";
import { type CountPool, createCountPool } from "../../engine/count-pool.ts";
import { type Language, languageOf } from "../../engine/languages.ts";
import type { CountOutcome, LineCounter, LineCounterOptions } from "../../engine/lines.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import type { Entry } from "../../engine/walk.ts";
import type { Emitted } from "../operation.ts";

/** Files counted per batch (one await per batch, one message to a worker). */
const BATCH = 256;
/** Files counted in this thread before workers start: a small tree never pays for starting them. */
const POOL_AFTER = 4096;

/** One walk entry to count (or only to report: a skipped entry, or the walker's problems after the last). */
export interface Item {
  readonly e: Entry | null;
  readonly count: boolean;
  readonly lang: Language | null;
  /** Problems met before this entry's outcome (the walker's, then the entry's own skip reason). */
  readonly before: ErrorInfo[];
  /** Its outcome when it was counted as the walk gave it (a batch counted in this thread), else null. */
  readonly out: CountOutcome | null;
}

interface Pending {
  readonly items: Item[];
  outcomes: CountOutcome[] | null;
  readonly wait: Promise<CountOutcome[]> | null;
  /** Next item to turn into a record, and its outcome's index. */
  next: number;
  k: number;
  /** Problems of the last item taken, not yet reported (the consumer stopped while they waited). */
  late: ErrorInfo[] | null;
}

/** What the pipeline needs from its operation. */
export interface CountStage {
  /** Worker threads asked for (the `threads` option), or undefined for the machine's default. */
  readonly threads: number | undefined;
  /** Walks with the given context (the pipeline queues the walker's problems to keep them in order). */
  readonly walk: (ctx: RunContext) => Iterator<Entry>;
  /** Turns an outcome into a record (or null), updating totals; problems go through `report`. */
  readonly finish: (item: Item, out: CountOutcome, report: (info: ErrorInfo) => void) => object | null;
  readonly counter: LineCounter;
  readonly options: LineCounterOptions;
  /** Order key after which records are yielded (a cursor), or null. */
  readonly resumeAfter: string | null;
  readonly keyAfter: (key: string, after: string) => boolean;
}

/**
 * Workers besides this thread, which walks and counts every (workers + 1)-th batch itself. Below four hardware
 * threads there are none: on a two-core machine a worker cost more CPU than it saved in wall time in our
 * measurements (docs/count-and-dupes.md).
 */
function workerCount(asked: number | undefined): number {
  if (asked !== undefined) return asked;
  const n = typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 1 : 1;
  return n >= 4 ? Math.min(3, n - 1) : 0;
}

/**
 * Runs the pipeline: yields batches of "file" records after the cursor, in walk order. Once the consumer stops
 * pulling, the remaining entries are still counted (for exact totals) but not yielded.
 * @param stage the operation's parts
 * @param ctx the run context
 * @yields batches of records
 */
export async function* countPipeline(stage: CountStage, ctx: RunContext): AsyncGenerator<Emitted[]> {
  let emitting = stage.resumeAfter === null;
  const problems: ErrorInfo[] = [];
  const entries = stage.walk(
    Object.assign(Object.create(ctx) as RunContext, {
      error: (info: ErrorInfo) => {
        problems.push(info);
      },
    }),
  );
  const threads = workerCount(stage.threads);
  let pool: CountPool | null = null;
  let seen = 0;
  let turn = 0;
  let done = false;
  const queue: Pending[] = [];
  const due = yielder(4);

  // A batch counted in this thread is counted entry by entry as the walk gives it, while the entry's directory
  // is still open: the file is opened from that directory's descriptor (ADR 0029), not by path with a check of
  // the object opened (a /proc/self/fd read-back per file). Workers get paths.
  const collect = (): Item[] => {
    const inline = pool === null || turn % (threads + 1) === 0;
    const items: Item[] = [];
    let counted = 0;
    while (counted < BATCH) {
      const r = entries.next();
      if (r.done) {
        done = true;
        break;
      }
      const e = r.value;
      const before = problems.splice(0);
      const lang = languageOf(e.name);
      const out = inline ? stage.counter.count(e.abs, lang, e) : null;
      items.push({ e, count: true, lang, before, out });
      counted++;
    }
    if (problems.length > 0)
      items.push({ e: null, count: false, lang: null, before: problems.splice(0), out: null });
    return items;
  };

  const submit = (items: Item[]): Pending => {
    const paths: string[] = [];
    for (const it of items) if (it.count) paths.push((it.e as Entry).abs);
    seen += paths.length;
    if (pool === null && threads > 0 && seen > POOL_AFTER && !done) {
      pool = createCountPool(stage.options, threads);
    }
    const base = { items, next: 0, k: 0, late: null };
    if (pool !== null && turn++ % (threads + 1) !== 0) {
      return { ...base, outcomes: null, wait: pool.count(paths) };
    }
    const outcomes: CountOutcome[] = [];
    for (const it of items)
      if (it.count) outcomes.push(it.out ?? stage.counter.count((it.e as Entry).abs, it.lang));
    return { ...base, outcomes, wait: null };
  };

  async function* settle(p: Pending, emit: boolean): AsyncGenerator<Emitted[]> {
    if (p.late !== null) {
      for (const info of p.late) ctx.error(info);
      p.late = null;
    }
    if (p.outcomes === null) p.outcomes = await (p.wait as Promise<CountOutcome[]>);
    const outcomes = p.outcomes;
    let out: Emitted[] = [];
    while (p.next < p.items.length) {
      const it = p.items[p.next++] as Item;
      const probs = it.before;
      let rec: object | null = null;
      if (it.count) rec = stage.finish(it, outcomes[p.k++] as CountOutcome, (info) => probs.push(info));
      if (probs.length > 0) {
        if (emit && out.length > 0) {
          // Records before the problem are handed over first, so the output keeps walk order.
          p.late = probs;
          const batch = out;
          out = [];
          yield batch;
          p.late = null;
        }
        for (const info of probs) ctx.error(info);
      }
      const e = it.e;
      if (e === null) continue;
      if (!emitting && stage.keyAfter(e.key, stage.resumeAfter as string)) emitting = true;
      if (rec !== null && emitting && emit) out.push({ kind: "file", record: rec, key: e.key });
    }
    if (out.length > 0) yield out;
  }

  async function* pump(emit: boolean): AsyncGenerator<Emitted[]> {
    while (!done || queue.length > 0) {
      const inFlight = pool === null ? 1 : 2 * (threads + 1);
      while (!done && queue.length < inFlight) queue.push(submit(collect()));
      const p = queue[0];
      if (p === undefined) break;
      yield* settle(p, emit);
      queue.shift();
      if (due()) await tick();
    }
  }

  let finished = false;
  try {
    yield* pump(true);
    finished = true;
  } finally {
    try {
      if (!finished) for await (const _ of pump(false));
    } finally {
      (pool as CountPool | null)?.close();
      // A walk stopped early (a deadline) closes the directories it holds open.
      entries.return?.(undefined);
    }
  }
}
