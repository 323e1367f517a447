/*! Engine: what the parallel walk sends between threads, and the code both sides share: walking one subtree
 * with a budget into a compact result (walk-worker.ts runs it in a worker; walk-pool.ts runs it when no worker
 * is at hand), and turning that result back into entries. No policy of its own: the walk is walk.ts's. */
import * as path from "node:path";
import type { ErrorInfo } from "../contract/errors.ts";
import { emptySkipped, type Skipped } from "../contract/result.ts";
import type { EntryType } from "../platform/listing.ts";
import type { Routes } from "../platform/routes.ts";
import { type IgnoreFile, loadTreeIgnoreFile } from "./ignore.ts";
import type { RunContext } from "./run.ts";
import {
  Entry,
  type EntryStats,
  type PlanSource,
  type Root,
  type Subtree,
  type WalkPlan,
  walkTree,
} from "./walk.ts";

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

/** The walk of one subtree, in order: entries, errors and holes (subtrees left to walk), one kind per item. */
export interface SubtreeResult {
  /** Per item: ITEM_ENTRY, ITEM_ERROR or ITEM_HOLE. */
  readonly kinds: Uint8Array;
  /** The entries' rel paths joined by NUL (a name never holds one). */
  readonly rels: string;
  /** Per entry: its depth. */
  readonly depths: Uint32Array;
  /** Per entry: listed type << 4 | target type (indexes in TYPES). */
  readonly types: Uint8Array;
  /** Per entry: NS numbers when its stats were read (see statState), else zeros. */
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

export const ITEM_ENTRY = 0;
export const ITEM_ERROR = 1;
export const ITEM_HOLE = 2;

const TYPES: readonly EntryType[] = ["file", "dir", "symlink", "fifo", "socket", "block", "char", "unknown"];
const TYPE_CODE: Record<EntryType, number> = {
  file: 0,
  dir: 1,
  symlink: 2,
  fifo: 3,
  socket: 4,
  block: 5,
  char: 6,
  unknown: 7,
};
/** Numbers per entry in SubtreeResult.stats: size, mtimeMs, mode, uid, gid, dev, ino. */
const NS = 7;

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

/** Copies a full array into a larger one and returns the larger one. */
function grown<T extends Uint8Array | Uint32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
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
  let depths = new Uint32Array(cap);
  let types = new Uint8Array(cap);
  let statState = new Uint8Array(cap);
  let stats: Float64Array | null = null;
  let items = 0;
  let n = 0;
  const rels: string[] = [];
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
    depths = grown(depths, new Uint32Array(cap));
    types = grown(types, new Uint8Array(cap));
    statState = grown(statState, new Uint8Array(cap));
    if (stats !== null) stats = grown(stats, new Float64Array(cap * NS));
  };
  const ctx: RunContext = {
    signal: new AbortController().signal,
    resumeAfter: null,
    error(info) {
      if (items === cap) grow();
      gaps[items] = since;
      since = 0;
      kinds[items++] = ITEM_ERROR;
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
      kinds[items++] = ITEM_HOLE;
      holes.push(subtreeMsg(plan, item));
      continue;
    }
    const i = n++;
    kinds[items++] = ITEM_ENTRY;
    rels.push(item.rel);
    depths[i] = item.depth;
    types[i] = (TYPE_CODE[item.type] << 4) | TYPE_CODE[item.target];
    const st = needStats || item.statted ? item.stats() : undefined;
    if (st === undefined) continue;
    if (st === null) {
      statState[i] = 2;
      const err = item.statError as { code?: string; syscall?: string; message?: string } | undefined;
      statErrors.push([i, err?.code ?? null, err?.syscall ?? null, err?.message ?? String(err)]);
      continue;
    }
    statState[i] = 1;
    if (stats === null) stats = new Float64Array(cap * NS);
    const o = i * NS;
    stats[o] = st.size;
    stats[o + 1] = st.mtimeMs;
    stats[o + 2] = st.mode;
    stats[o + 3] = st.uid;
    stats[o + 4] = st.gid;
    stats[o + 5] = st.dev;
    stats[o + 6] = st.ino;
  }
  return {
    kinds: kinds.slice(0, items),
    gaps: gaps.slice(0, items),
    tail: since,
    rels: rels.join("\0"),
    depths: depths.slice(0, n),
    types: types.slice(0, n),
    stats: stats === null ? new Float64Array(0) : stats.slice(0, n * NS),
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
    const t = res.types[e] as number;
    const entry = new Entry(
      abs,
      rel,
      rel.slice(rel.lastIndexOf("/") + 1),
      res.depths[e] as number,
      TYPES[t >> 4] as EntryType,
      TYPES[t & 15] as EntryType,
      this.root,
      this.plan.follow,
    );
    const state = res.statState[e];
    if (state === 1) {
      const o = e * NS;
      const s = res.stats;
      const st: EntryStats = {
        size: s[o] as number,
        mtimeMs: s[o + 1] as number,
        mode: s[o + 2] as number,
        uid: s[o + 3] as number,
        gid: s[o + 4] as number,
        dev: s[o + 5] as number,
        ino: s[o + 6] as number,
      };
      entry.preset(st, undefined);
    } else if (state === 2) {
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
