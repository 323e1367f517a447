/*! Engine: the parallel walk. The calling thread walks the first entries itself; once a walk has examined
 * `split` entries it opens no more directories, and each directory it would enter becomes a task for a pool
 * of walk workers, which walk it the same way (walk.ts's walkTree, through walk-protocol.ts) and send back
 * its entries in order, with holes for the directories they left in turn. The consumer reads the results in
 * walk order, filling each hole with its task's result, so the stream is exactly the single-threaded walk's:
 * the same entries in the same order, each error at its place. Workers run ahead of the consumer by a
 * bounded number of entries. A small tree never starts a worker; without workers every task is walked in
 * the calling thread. It never matches contents or writes output. */
import { availableParallelism } from "node:os";
import { type ErrorInfo, fsErrorInfo } from "../contract/errors.ts";
import { SKIP_REASONS, type Skipped } from "../contract/result.ts";
import { routes } from "../platform/routes.ts";
import { startWorker, workersAvailable } from "../platform/workers.ts";
import type { RunContext } from "./run.ts";
import {
  admits,
  Entry,
  fileRootEntry,
  parseWalkKey,
  rejectsComplete,
  rootSubtree,
  type Subtree,
  type WalkPlan,
  walk,
  walkTree,
} from "./walk.ts";
import {
  STEP_ENTRY as ITEM_ENTRY,
  STEP_ERROR as ITEM_ERROR,
  STEP_HOLE as ITEM_HOLE,
} from "./walk-columns.ts";
import {
  type FromWalker,
  IgnoreCache,
  ResultReader,
  type SubtreeMsg,
  type SubtreeResult,
  subtreeMsg,
  type ToWalker,
  walkSubtree,
} from "./walk-protocol.ts";

/** Entries a worker examines before the directories it has not entered yet become tasks. */
const DEFAULT_SPLIT = 4096;
/**
 * Entries the calling thread examines before it hands directories to workers: starting them costs about what
 * walking this many entries with their stats does, so a smaller tree never starts one.
 */
const FIRST_SPLIT = 16384;
/** Entries the workers may hold ready beyond what the consumer has taken. */
const MAX_AHEAD = 65536;
/** Tasks sent to one worker before it answers (one more keeps it busy across the round trip). */
const PER_WORKER = 2;
/** The most walk workers (listing scales with cores only so far). */
const MAX_WORKERS = 4;

/** Options of a batched walk. */
interface WalkBatchOptions {
  /**
   * The most entries per batch (default 512), or a function asked before each batch: a consumer that will
   * stop at a limit asks for no more than it can take, so that nothing past the cut is counted or reported.
   */
  readonly batch?: number | (() => number);
  /**
   * The consumer reads the stats of every entry (default false): workers read them ahead, and an entry whose
   * stats cannot be read is reported (walk order) and left out of the batches.
   */
  readonly needStats?: boolean;
}

/**
 * Decides how many walk workers a walk gets. They pay where each entry costs a stat (measured in
 * docs/decisions/0009-parallel-walk.md): a listing of paths alone is faster in one thread on two cores.
 * @param heavy whether the walk reads the stats of every entry it selects or tests
 * @param forced the split size the run context asks for (RGLOB_WALK_SPLIT through the Config: 0 never uses walk
 * workers; N uses them for every walk that outgrows N entries, even where they do not pay, which tests use), or
 * null
 * @returns the number of workers (0: walk in this thread) and the split size
 */
function walkThreads(
  heavy: boolean,
  forced: number | null,
): { threads: number; first: number; split: number } {
  const none = { threads: 0, first: Number.POSITIVE_INFINITY, split: 0 };
  if (!workersAvailable || forced === 0) return none;
  const cores = availableParallelism();
  const threads = Math.max(1, Math.min(MAX_WORKERS, cores - 1));
  if (forced !== null) return { threads, first: forced, split: forced };
  return heavy && cores > 1 ? { threads, first: FIRST_SPLIT, split: DEFAULT_SPLIT } : none;
}

/** Adds a subtree's skip ledger to the request's. */
function addSkipped(to: Skipped, from: Skipped): void {
  for (const reason of SKIP_REASONS) to[reason] += from[reason];
}

/** Tasks answered by walk workers in this process (tests check that the workers did run). */
export const walkWorkerTasks = { answered: 0 };

/** Called with each subtree result as it is stored (tests hold weak references to see read results let go). */
export const walkResultWatch: { seen: ((result: SubtreeResult) => void) | null } = { seen: null };

/** An item of a walk in this thread; `gap` counts the entries examined since the item before, itself included. */
type Item =
  | { readonly kind: typeof ITEM_ENTRY; readonly gap: number; readonly entry: Entry }
  | { readonly kind: typeof ITEM_ERROR; readonly gap: number; readonly info: ErrorInfo }
  | { readonly kind: typeof ITEM_HOLE; readonly gap: number; readonly task: Task }
  | { readonly kind: typeof ITEM_TAIL; readonly gap: number };

/** The entries examined after a walk's last item (a kind of this thread's items only, beside the step kinds). */
const ITEM_TAIL = -1;

interface Task {
  readonly msg: SubtreeMsg;
  /** Its place in walk order: lexicographic over the parents' keys. */
  readonly key: readonly number[];
  result: SubtreeResult | null;
  /** Tasks of the result's holes, by hole index. */
  children: Task[];
  /** No worker will answer: the consumer walks it itself. */
  failed: boolean;
  wake: (() => void) | null;
}

function before(a: readonly number[], b: readonly number[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y;
  }
  return a.length < b.length;
}

interface Slot {
  readonly worker: Worker;
  readonly tasks: Map<number, Task>;
  dead: boolean;
}

/** The workers and the queue of tasks, in walk order. */
class Pool {
  private readonly slots: Slot[] = [];
  private readonly pending: Task[] = [];
  private started = false;
  private nextId = 1;
  /** Entries in results the consumer has not taken yet. */
  ahead = 0;
  /** The task the consumer waits for, sent even when the workers are far enough ahead. */
  awaited: Task | null = null;

  constructor(
    private readonly plan: WalkPlan,
    private readonly threads: number,
    private readonly needStats: boolean,
    private readonly split: number,
  ) {}

  /** Queues a task in walk order and sends what the workers can take. */
  submit(task: Task): void {
    let i = this.pending.length;
    while (i > 0 && before(task.key, (this.pending[i - 1] as Task).key)) i--;
    this.pending.splice(i, 0, task);
    this.pump();
  }

  private start(): void {
    this.started = true;
    if (!workersAvailable) return;
    const init: ToWalker = {
      type: "init",
      source: this.plan.source,
      needStats: this.needStats,
      routes: routes(),
    };
    for (let i = 0; i < this.threads; i++) {
      let worker: Worker;
      try {
        worker = startWorker("engine/walk-worker");
      } catch {
        break;
      }
      const slot: Slot = { worker, tasks: new Map(), dead: false };
      worker.addEventListener("message", (ev: MessageEvent<FromWalker>) => this.answer(slot, ev.data));
      worker.addEventListener("error", () => this.fail(slot));
      worker.postMessage(init);
      this.slots.push(slot);
    }
  }

  private answer(slot: Slot, m: FromWalker): void {
    if (m.type === "fatal") {
      this.fail(slot);
      return;
    }
    const task = slot.tasks.get(m.id);
    if (!task) return;
    slot.tasks.delete(m.id);
    walkWorkerTasks.answered++;
    this.complete(task, m.result);
  }

  /** Stores a task's result and queues the tasks of its holes. */
  complete(task: Task, result: SubtreeResult): void {
    task.result = result;
    walkResultWatch.seen?.(result);
    this.ahead += result.depths.length;
    task.children = result.holes.map((msg, i) => this.task(msg, [...task.key, i]));
    for (const child of task.children) this.submit(child);
    this.pump();
    task.wake?.();
  }

  /** Takes the first queued task (for the consumer to walk while it waits), or null. */
  take(): Task | null {
    return this.pending.shift() ?? null;
  }

  private fail(slot: Slot): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.worker.terminate();
    for (const task of slot.tasks.values()) {
      task.failed = true;
      task.wake?.();
    }
    slot.tasks.clear();
    this.pump();
  }

  /** Creates a task (not yet queued). */
  task(msg: SubtreeMsg, key: readonly number[]): Task {
    return { msg, key, result: null, children: [], failed: false, wake: null };
  }

  /** Sends queued tasks to workers with room, while the workers are not too far ahead. */
  pump(): void {
    if (this.pending.length === 0) return;
    if (!this.started) this.start();
    const live = this.slots.filter((s) => !s.dead);
    if (live.length === 0) {
      for (const task of this.pending.splice(0)) {
        task.failed = true;
        task.wake?.();
      }
      return;
    }
    while (this.pending.length > 0) {
      const front = this.pending[0] as Task;
      if (this.ahead >= MAX_AHEAD && front !== this.awaited) return;
      let best: Slot | null = null;
      for (const s of live)
        if (s.tasks.size < PER_WORKER && (!best || s.tasks.size < best.tasks.size)) best = s;
      if (best === null) return;
      this.pending.shift();
      const id = this.nextId++;
      best.tasks.set(id, front);
      const msg: ToWalker = { type: "task", id, sub: front.msg, budget: this.split };
      best.worker.postMessage(msg);
    }
  }

  /** Takes a task out of the queue (the consumer walks it itself). */
  withdraw(task: Task): boolean {
    const i = this.pending.indexOf(task);
    if (i < 0) return false;
    this.pending.splice(i, 1);
    return true;
  }

  close(): void {
    for (const s of this.slots) {
      // Asked to end after the task it is walking (a bounded one), not terminated in it: a walk stopped in the
      // middle would leave the directories it holds open (ADR 0029) in this process.
      if (!s.dead) s.worker.postMessage({ type: "close" } satisfies ToWalker);
      s.dead = true;
    }
    this.pending.length = 0;
  }
}

/**
 * Walks a subtree in this thread, turning errors into items at their place and directories past the budget
 * into tasks.
 * @param plan the compiled walk
 * @param ctx the run context (counts and the deadline; errors are returned as items instead)
 * @param sub the subtree
 * @param budget entries to examine before directories become tasks
 * @param tally the running count of examined entries
 * @param hole makes and queues the task of a subtree left to walk
 * @param statNow read each entry's stats as the walk gives it (the consumer wants them): the walk is then still
 * in its directory, so they are read relative to it
 * @yields the items in walk order
 */
function* walkHere(
  plan: WalkPlan,
  ctx: RunContext,
  sub: Subtree,
  budget: number,
  tally: { examined: number },
  hole: (sub: Subtree) => Task,
  statNow: boolean,
): Generator<Item> {
  // Errors and counts are kept with the items, so they reach the consumer at their place, not ahead of it.
  const errors: Array<{ info: ErrorInfo; gap: number }> = [];
  let since = 0;
  const local: RunContext = {
    ...ctx,
    error: (info) => {
      errors.push({ info, gap: since });
      since = 0;
    },
    searched: (n = 1) => {
      since += n;
    },
  };
  for (const x of walkTree(plan, local, sub, budget, tally)) {
    if (errors.length > 0) {
      for (const { info, gap } of errors) yield { kind: ITEM_ERROR, gap, info };
      errors.length = 0;
    }
    const gap = since;
    since = 0;
    if (x instanceof Entry) {
      if (statNow) x.stats();
      yield { kind: ITEM_ENTRY, gap, entry: x };
    } else yield { kind: ITEM_HOLE, gap, task: hole(x) };
  }
  for (const { info, gap } of errors) yield { kind: ITEM_ERROR, gap, info };
  if (since > 0) yield { kind: ITEM_TAIL, gap: since };
}

/**
 * Walks the plan's roots in order, in batches, with walk workers for large trees. The entries, their order
 * and the errors (reported through ctx.error between batches, at their place in the order) are those of
 * walk(); a batch never spans an error.
 * @param plan the compiled walk
 * @param ctx the run context (errors, counters, deadline)
 * @param startAfter a cursor key "root:rel": entries up to and including it are skipped
 * @param opts batch size and whether the consumer reads stats
 * @yields batches of selected entries, pre-order, siblings by code point
 */
export async function* walkBatches(
  plan: WalkPlan,
  ctx: RunContext,
  startAfter: string | null = null,
  opts: WalkBatchOptions = {},
): AsyncGenerator<Entry[]> {
  const batches = walkAll(plan, ctx, startAfter, opts);
  if (opts.needStats !== true) {
    yield* batches;
    return;
  }
  for await (const batch of batches) yield* withStats(batch, ctx);
}

/**
 * Splits a batch around the entries whose stats cannot be read (one that vanished since it was listed, or in a
 * directory that can be listed but not searched): such an entry is no record a consumer of stats could give
 * (its size and time are unknown), so its problem is reported at its place and it is left out, as find(1)
 * reports it instead of printing a size.
 * @param batch entries in walk order
 * @param ctx the run context (its error reports the problem)
 * @yields the runs of entries whose stats were read
 */
function* withStats(batch: Entry[], ctx: RunContext): Generator<Entry[]> {
  let from = 0;
  for (let i = 0; i < batch.length; i++) {
    const e = batch[i] as Entry;
    if (e.stats() !== null) continue;
    if (i > from) yield batch.slice(from, i);
    ctx.error(fsErrorInfo(e.statError, e.abs));
    from = i + 1;
  }
  if (from === 0) yield batch;
  else if (from < batch.length) yield batch.slice(from);
}

/** walkBatches without the stats rule: the walk in this thread or with workers. */
async function* walkAll(
  plan: WalkPlan,
  ctx: RunContext,
  startAfter: string | null,
  opts: WalkBatchOptions,
): AsyncGenerator<Entry[]> {
  // A request cancelled (or past its deadline) before it starts examines nothing.
  if (ctx.shouldStop()) return;
  const size = opts.batch ?? 512;
  const room = typeof size === "number" ? () => size : size;
  let max = Math.max(1, room());
  // A long-lived server's remembered walk (docs/decisions/0028-warm-index.md): the same entries, errors and
  // counters as the walk, without listing a directory. A page resumed from a cursor walks cold.
  const warm = startAfter === null ? (ctx.warm?.walker(plan) ?? null) : null;
  if (warm !== null) {
    yield* walkInThread(ctx, warm, room, false);
    return;
  }
  // Every entry's stats are read ahead (in the workers, or here as the walk gives the entry).
  const needStats = opts.needStats === true;
  const { threads, first, split } = walkThreads(needStats || plan.readsStats, ctx.walkSplit ?? null);
  if (threads === 0) {
    yield* walkInThread(ctx, (c) => walk(plan, c, startAfter), room, needStats);
    return;
  }
  const pool = new Pool(plan, threads, needStats, split);
  const ignores = new IgnoreCache();
  const tally = { examined: 0 };
  const resume = parseWalkKey(plan, startAfter);
  const passing: WalkPlan = plan.admit === null ? plan : { ...plan, admit: null, typeRejects: null };
  let batch: Entry[] = [];
  // Each level is the walk of one subtree: items from this thread, or a worker's result being read.
  let stack: Array<Iterator<Item> | { reader: ResultReader; task: Task }> = [];
  try {
    for (let r = 0; r < plan.roots.length; r++) {
      if (r < resume.root) continue;
      const rootSub = rootSubtree(plan, r, r === resume.root ? resume.parts : null);
      if (rootSub === null) {
        if (r === resume.root) continue; // the single file was already returned
        const e = fileRootEntry(plan, r);
        ctx.searched();
        if (plan.select(e) && admits(plan, e)) batch.push(e);
        if (batch.length >= max) {
          yield batch;
          batch = [];
          max = Math.max(1, room());
          if (ctx.shouldStop()) return;
        }
        continue;
      }
      // The tasks of holes met in this thread, keyed below the subtree's own key (for the queue's order).
      const holesBelow = (key: readonly number[]): ((sub: Subtree) => Task) => {
        let seq = 0;
        return (sub) => {
          const task = pool.task(subtreeMsg(plan, sub), [...key, seq++]);
          pool.submit(task);
          return task;
        };
      };
      // A task walked here is a worker's: its result is read in walk order, where admits keeps what it must.
      const help = (t: Task): void =>
        pool.complete(t, walkSubtree(passing, ignores.subtree(plan, t.msg), split, needStats));
      stack = [firstHoleDrains(walkHere(plan, ctx, rootSub, first, tally, holesBelow([r]), needStats))];
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as Iterator<Item> | { reader: ResultReader; task: Task };
        let error: ErrorInfo | null = null;
        let task: Task | null = null;
        if ("reader" in top) {
          const reader = top.reader;
          let k = reader.peek();
          while (k === ITEM_ENTRY && batch.length < max) {
            // A worker's plan lets the files of no known type through; this thread keeps them (admits).
            const e = reader.entry();
            if (admits(plan, e)) batch.push(e);
            k = reader.peek();
          }
          if (k === -1) {
            stack.pop();
            release(top.task);
          } else if (k === ITEM_ERROR) error = reader.error();
          else if (k === ITEM_HOLE) task = top.task.children[reader.holeIndex()] as Task;
        } else {
          const next = top.next();
          if (next.done) stack.pop();
          else {
            const it = next.value;
            if (it.gap > 0) ctx.searched(it.gap);
            if (it.kind === ITEM_ENTRY && admits(plan, it.entry)) batch.push(it.entry);
            else if (it.kind === ITEM_ERROR) error = it.info;
            else if (it.kind === ITEM_HOLE) task = it.task;
          }
        }
        if (batch.length >= max || ((error !== null || task !== null) && batch.length > 0)) {
          yield batch;
          batch = [];
          max = Math.max(1, room());
          if (ctx.shouldStop()) return;
        }
        if (error !== null) ctx.error(error);
        if (task === null) continue;
        // A task no worker has taken yet is walked here (its own holes go to the workers); so is one whose
        // worker died. Otherwise its result is awaited.
        const here = pool.withdraw(task);
        if (!here && task.result === null && !task.failed && !(await arrival(pool, task, ctx, help))) return;
        if (task.result === null) {
          const sub = ignores.subtree(plan, task.msg);
          stack.push(
            firstHoleDrains(walkHere(plan, ctx, sub, split, tally, holesBelow(task.key), needStats)),
          );
          continue;
        }
        const res = task.result;
        pool.ahead -= res.depths.length;
        pool.pump();
        tally.examined += res.searched;
        addSkipped(ctx.skipped, res.skipped);
        ctx.progress(tally.examined);
        stack.push({ reader: new ResultReader(plan, task.msg.root, res, ctx.searched), task });
      }
      if (ctx.shouldStop()) break;
    }
    if (startAfter === null) rejectsComplete(plan, ctx);
    if (batch.length > 0) yield batch;
  } finally {
    pool.close();
    // Walks stopped early in this thread close the directories they hold open.
    for (const top of stack) if (!("reader" in top)) top.return?.();
  }
}

/**
 * walkBatches without workers: walk()'s entries (or a server's replay of them) gathered straight into batches
 * (no items, no holes). An error is reported while the walk produces the entry after it, so the batch before
 * that entry goes out first.
 * @param ctx the run context
 * @param entriesOf the walk, given the context its errors go to
 * @param room the most entries the next batch may hold
 * @param statNow read each entry's stats as the walk gives it (while the walk is still in its directory)
 * @yields batches of selected entries
 */
function* walkInThread(
  ctx: RunContext,
  entriesOf: (ctx: RunContext) => Iterator<Entry>,
  room: () => number,
  statNow: boolean,
): Generator<Entry[]> {
  const errors: ErrorInfo[] = [];
  const local: RunContext = { ...ctx, error: (info) => errors.push(info) };
  let max = Math.max(1, room());
  let batch: Entry[] = [];
  const entries = entriesOf(local);
  // Stopped early (a limit, a consumer that stops pulling), the walk is ended too: it closes the directories
  // it holds (docs/decisions/0029-directories-by-descriptor.md).
  try {
    for (let r = entries.next(); !r.done; r = entries.next()) {
      const e = r.value;
      if (errors.length > 0) {
        if (batch.length > 0) {
          yield batch;
          batch = [];
          max = Math.max(1, room());
        }
        for (const info of errors.splice(0)) ctx.error(info);
        if (ctx.shouldStop()) return;
      }
      if (statNow) e.stats();
      batch.push(e);
      if (batch.length >= max) {
        yield batch;
        batch = [];
        max = Math.max(1, room());
        if (ctx.shouldStop()) return;
      }
    }
    if (batch.length > 0) yield batch;
    for (const info of errors) ctx.error(info);
  } finally {
    entries.return?.();
  }
}

/**
 * Lets go of a task whose result the consumer has read to the end: its result (paths, stats) and the tasks of
 * its holes, all read by then. A task stays referenced from its parent's children (or the items of a walk in
 * this thread) until the parent is read, so without this every result of a walk would stay alive to its end.
 */
function release(task: Task): void {
  task.result = null;
  task.children = [];
}

/** Passes items through until the first hole, then reads the rest at once, so every task is queued early. */
function* firstHoleDrains(items: Iterator<Item>): Generator<Item> {
  try {
    for (let it = items.next(); !it.done; it = items.next()) {
      if (it.value.kind === ITEM_HOLE) {
        const rest: Array<Item | undefined> = [it.value];
        for (let r = items.next(); !r.done; r = items.next()) rest.push(r.value);
        // Each item is let go once it is yielded: a hole's item holds its task, which the consumer lets go of
        // (release) once it has read the task's result.
        for (let i = 0; i < rest.length; i++) {
          const item = rest[i] as Item;
          rest[i] = undefined;
          yield item;
        }
        return;
      }
      yield it.value;
    }
  } finally {
    items.return?.();
  }
}

/**
 * Waits until a task's result arrives or no worker will send it, checking the deadline meanwhile.
 * @returns false when the run should stop
 */
async function arrival(pool: Pool, task: Task, ctx: RunContext, help: (t: Task) => void): Promise<boolean> {
  pool.awaited = task;
  pool.pump();
  try {
    while (task.result === null && !task.failed) {
      // Rather than sit idle, walk the next queued task here, then let the workers' answers in.
      const other = pool.take();
      if (other !== null) {
        help(other);
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (ctx.shouldStop()) return false;
        continue;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        task.wake = resolve;
        timer = setTimeout(resolve, 50);
      });
      clearTimeout(timer);
      task.wake = null;
      if (ctx.shouldStop()) return false;
    }
    return true;
  } finally {
    pool.awaited = null;
  }
}
