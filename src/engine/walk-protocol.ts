/*! Engine: what the parallel walk sends between threads, and the code both sides share: walking one subtree
 * with a budget into a compact result (walk-worker.ts runs it in a worker; walk-pool.ts runs it when no worker
 * is at hand), and turning that result back into entries. No policy of its own: the walk is walk.ts's. */
import * as path from "node:path";
import type { ErrorInfo } from "../contract/errors.ts";
import { emptySkipped, type Skipped } from "../contract/result.ts";
import type { Routes } from "../platform/routes.ts";
import { type IgnoreFile, loadTreeIgnoreFile } from "./ignore.ts";
import type { RunContext } from "./run.ts";
import { Entry, type PlanSource, type Root, type Subtree, type WalkPlan, walkTree } from "./walk.ts";
import {
  EntryColumnsBuilder,
  entryOf,
  grown,
  putStats,
  STAT_NUMBERS,
  STEP_ENTRY,
  STEP_ERROR,
  STEP_HOLE,
  statsAt,
} from "./walk-columns.ts";

/** A subtree as sent between threads: its ignore chain as the root's outer files plus (file, prefix) pairs. */
export interface SubtreeMsg {
  readonly root: number;
  readonly abs: string;
  readonly rel: string;
  readonly depth: number;
  /** The ignore files read below the root (the chain is the root's outer files followed by these). */
  readonly inner: ReadonlyArray<readonly [file: string, prefix: string]>;
  readonly keyPrefix: string;
  readonly resume: readonly string[] | null;
  readonly ancestors: readonly string[] | null;
}

/** The walk of one subtree, in order: entries, errors and holes (subtrees left to walk), one kind per item; the
 * entries in the columns of walk-columns.ts. */
export interface SubtreeResult {
  /** Per item: STEP_ENTRY, STEP_ERROR or STEP_HOLE. */
  readonly kinds: Uint8Array;
  /** The entries' rel paths joined by NUL (a name never holds one). */
  readonly rels: string;
  /** Per entry: its depth. */
  readonly depths: Uint32Array;
  /** Per entry: its type code (walk-columns.ts). */
  readonly codes: Uint8Array;
  /** Per entry: STAT_NUMBERS numbers when its stats were read (see statState), else zeros. */
  readonly stats: Float64Array;
  /** Per entry: 0 stats not read, 1 read, 2 could not be read. */
  readonly statState: Uint8Array;
  /** Why stats could not be read, by entry index. */
  readonly statErrors: ReadonlyArray<
    readonly [index: number, code: string | null, syscall: string | null, message: string]
  >;
  readonly errors: readonly ErrorInfo[];
  readonly holes: readonly SubtreeMsg[];
  /** Per item: entries examined since the item before it, itself included (total_files_searched). */
  readonly gaps: Uint32Array;
  /** Entries examined after the last item. */
  readonly tail: number;
  /** Entries examined in all. */
  readonly searched: number;
  /** The skip ledger of this subtree's walk (added to the request's when the result is read). */
  readonly skipped: Skipped;
}

/** Messages to a walk worker. */
export type ToWalker =
  | {
      readonly type: "init";
      readonly source: PlanSource;
      readonly needStats: boolean;
      /** The calling thread's routes to the kernel (src/platform/routes.ts), set before the worker lists. */
      readonly routes: Routes;
    }
  | { readonly type: "task"; readonly id: number; readonly sub: SubtreeMsg; readonly budget: number }
  | { readonly type: "close" };

/** Messages from a walk worker. */
export type FromWalker =
  | { readonly type: "done"; readonly id: number; readonly result: SubtreeResult }
  | { readonly type: "fatal"; readonly message: string };

/**
 * Encodes a subtree for another thread.
 * @param plan the compiled walk
 * @param sub the subtree
 * @returns the message form
 */
export function subtreeMsg(plan: WalkPlan, sub: Subtree): SubtreeMsg {
  const outer = (plan.roots[sub.root] as Root).outer.length;
  return {
    root: sub.root,
    abs: sub.abs,
    rel: sub.rel,
    depth: sub.depth,
    inner: sub.chain.slice(outer).map((f) => [f.file, f.prefix] as const),
    keyPrefix: sub.keyPrefix,
    resume: sub.resume,
    ancestors: sub.ancestors,
  };
}

/** Loads ignore files once per thread (every task below a directory shares its files). */
export class IgnoreCache {
  private readonly files = new Map<string, IgnoreFile | null>();

  /**
   * Decodes a subtree message.
   * @param plan the compiled walk
   * @param m the message form
   * @returns the subtree (an ignore file that can no longer be read is left out)
   */
  subtree(plan: WalkPlan, m: SubtreeMsg): Subtree {
    const chain: IgnoreFile[] = [...(plan.roots[m.root] as Root).outer];
    for (const [file, prefix] of m.inner) {
      const key = `${prefix}\0${file}`;
      let f = this.files.get(key);
      if (f === undefined) {
        f = loadTreeIgnoreFile(file, prefix, () => {}, plan.confine);
        this.files.set(key, f);
      }
      if (f) chain.push(f);
    }
    return { ...m, chain };
  }
}

/**
 * Walks a subtree with a budget into a compact result. Errors, counts and stats are recorded, not reported:
 * the receiving thread reports them when its consumer reaches them.
 * @param plan the compiled walk
 * @param sub the subtree
 * @param budget entries to examine before directories become holes
 * @param needStats read the stats of every selected entry (the consumer will want them)
 * @returns the result
 */
export function walkSubtree(plan: WalkPlan, sub: Subtree, budget: number, needStats: boolean): SubtreeResult {
  let cap = 1024;
  let kinds = new Uint8Array(cap);
  let gaps = new Uint32Array(cap);
  // Per entry (fewer than the items): grown with the items.
  let statState = new Uint8Array(cap);
  let stats: Float64Array | null = null;
  let items = 0;
  const cols = new EntryColumnsBuilder(false);
  const statErrors: Array<readonly [number, string | null, string | null, string]> = [];
  const errors: ErrorInfo[] = [];
  const holes: SubtreeMsg[] = [];
  let searched = 0;
  let since = 0;
  const skipped = emptySkipped();
  const grow = (): void => {
    cap *= 2;
    kinds = grown(kinds, new Uint8Array(cap));
    gaps = grown(gaps, new Uint32Array(cap));
    statState = grown(statState, new Uint8Array(cap));
    if (stats !== null) stats = grown(stats, new Float64Array(cap * STAT_NUMBERS));
  };
  const ctx: RunContext = {
    signal: new AbortController().signal,
    resumeAfter: null,
    error(info) {
      if (items === cap) grow();
      gaps[items] = since;
      since = 0;
      kinds[items++] = STEP_ERROR;
      errors.push(info);
    },
    searched(k = 1) {
      searched += k;
      since += k;
    },
    skipped,
    read() {},
    shouldStop: () => false,
    stop() {},
    summary() {},
    progress() {},
    batch: 1,
  };
  for (const item of walkTree(plan, ctx, sub, budget, { examined: 0 })) {
    if (items === cap) grow();
    gaps[items] = since;
    since = 0;
    if (!(item instanceof Entry)) {
      kinds[items++] = STEP_HOLE;
      holes.push(subtreeMsg(plan, item));
      continue;
    }
    const i = cols.push(item);
    kinds[items++] = STEP_ENTRY;
    const st = needStats || item.statted ? item.stats() : undefined;
    if (st === undefined) continue;
    if (st === null) {
      statState[i] = 2;
      const err = item.statError as { code?: string; syscall?: string; message?: string } | undefined;
      statErrors.push([i, err?.code ?? null, err?.syscall ?? null, err?.message ?? String(err)]);
      continue;
    }
    statState[i] = 1;
    if (stats === null) stats = new Float64Array(cap * STAT_NUMBERS);
    putStats(stats, i, st);
  }
  const n = cols.length;
  const { rels, codes, depths } = cols.finish();
  return {
    kinds: kinds.slice(0, items),
    gaps: gaps.slice(0, items),
    tail: since,
    rels: rels.join("\0"),
    depths,
    codes,
    stats: stats === null ? new Float64Array(0) : stats.slice(0, n * STAT_NUMBERS),
    statState: statState.slice(0, n),
    statErrors,
    errors,
    holes,
    searched,
    skipped,
  };
}

/** Reads a result back in order: its entries (created with any stats read for them), errors and holes. */
export class ResultReader {
  /** The next item's index. */
  item = 0;
  private e = 0;
  private err = 0;
  private hole = 0;
  private readonly rels: string[];
  private readonly prefix: string;
  private readonly skip: number;
  private readonly errByIndex: Map<number, { code: string | null; syscall: string | null; message: string }>;

  /**
   * @param plan the compiled walk
   * @param root the root the subtree belongs to
   * @param res the result
   * @param searched counts the entries examined up to each item as it is taken (and the tail at the end)
   */
  constructor(
    private readonly plan: WalkPlan,
    private readonly root: number,
    readonly res: SubtreeResult,
    private readonly searched: (n: number) => void,
  ) {
    const r = plan.roots[root] as Root;
    this.prefix = r.abs.endsWith(path.sep) ? r.abs : r.abs + path.sep;
    this.skip = r.rel === "" ? 0 : r.rel.length + 1;
    this.rels = res.depths.length === 0 ? [] : res.rels.split("\0");
    this.errByIndex = new Map(
      res.statErrors.map(([i, code, syscall, message]) => [i, { code, syscall, message }]),
    );
  }

  /** The kind of the next item, or -1 at the end. */
  peek(): number {
    if (this.item < this.res.kinds.length) return this.res.kinds[this.item] as number;
    if (this.item === this.res.kinds.length) {
      this.item++;
      if (this.res.tail > 0) this.searched(this.res.tail);
    }
    return -1;
  }

  private take(): void {
    const gap = this.res.gaps[this.item++] as number;
    if (gap > 0) this.searched(gap);
  }

  /** Takes the next item, an error. */
  error(): ErrorInfo {
    this.take();
    return this.res.errors[this.err++] as ErrorInfo;
  }

  /** Takes the next item, a hole: its index in res.holes. */
  holeIndex(): number {
    this.take();
    return this.hole++;
  }

  /** Takes the next item, an entry. */
  entry(): Entry {
    this.take();
    const e = this.e++;
    const res = this.res;
    const rel = this.rels[e] as string;
    const sub = rel.slice(this.skip);
    const abs = this.prefix + (path.sep === "/" ? sub : sub.split("/").join(path.sep));
    const entry = entryOf(
      abs,
      rel,
      res.codes[e] as number,
      res.depths[e] as number,
      this.root,
      this.plan.follow,
    );
    const state = res.statState[e];
    if (state === 1) entry.preset(statsAt(res.stats, e), undefined);
    else if (state === 2) {
      const why = this.errByIndex.get(e);
      entry.preset(
        null,
        why?.code
          ? { code: why.code, syscall: why.syscall ?? undefined, message: why.message }
          : new Error(why?.message),
      );
    }
    return entry;
  }
}
