/*! Engine, recorded walks: a walk's entries and its calls on the run context, in order, kept so that a later
 * run can replay them instead of walking (the warm server's remembered walks, the persisted index's walk). A
 * replay makes the same calls with the same arguments at the same places and yields the same entries, so its
 * answer is the walk's by construction, whatever the walk learns to report later. Kept in columns (a step
 * kind and an argument per step; entries and call payloads beside them: the encoding of src/engine/walk-columns.ts)
 * so a recording can be written to a file and read back without an object per step.
 * docs/decisions/0028-warm-index.md, 0040-walk-columns-and-index-sections.md. */
import type { ErrorInfo } from "../../contract/errors.ts";
import { emptySkipped, type Skipped } from "../../contract/result.ts";
import type { RunContext } from "../run.ts";
import { type Entry, gives, type WalkPlan, walk } from "../walk.ts";
import {
  depthOf,
  type EntryColumns,
  EntryColumnsBuilder,
  entryOf,
  STEP_CALL,
  STEP_COUNTED,
  STEP_ENTRY,
  STEP_SKIPPED,
} from "../walk-columns.ts";

/** A call on the run context (method and arguments), or the skip counts the walk added since the last step. */
export type Payload =
  | { readonly m: string; readonly a: readonly unknown[] }
  | { readonly d: Readonly<Partial<Skipped>> };

/** A recorded walk: its steps in order, and what they refer to. */
export interface RecordedWalk {
  /** Per step, its kind (STEP_*). */
  readonly ops: Uint8Array;
  /** Per step: the entry's place (STEP_ENTRY), the count (STEP_COUNTED), the payload's place (the others). */
  readonly args: Int32Array;
  readonly payloads: readonly Payload[];
  /** How many entries. */
  readonly entries: number;
  /**
   * Returns an entry as the walk gave it.
   * @param i its place among the entries
   * @param follow whether the plan follows symlinks
   */
  entry(i: number, follow: boolean): Entry;
  /** The absolute path of the entry at a place. */
  absOf(i: number): string;
}

/** A recording held in memory: the walk's entry columns (walk-columns.ts) and the absolute paths it gave. */
class MemoryWalk implements RecordedWalk {
  constructor(
    readonly ops: Uint8Array,
    readonly args: Int32Array,
    readonly payloads: readonly Payload[],
    private readonly abs: readonly string[],
    private readonly cols: EntryColumns,
  ) {}

  get entries(): number {
    return this.abs.length;
  }

  entry(i: number, follow: boolean): Entry {
    const c = this.cols;
    return entryOf(
      this.abs[i] as string,
      c.rels[i] as string,
      c.codes[i] as number,
      c.depths[i] as number,
      c.roots === null ? 0 : (c.roots[i] as number),
      follow,
    );
  }

  absOf(i: number): string {
    return this.abs[i] as string;
  }

  /** The relative path of the entry at a place. */
  relOf(i: number): string {
    return this.cols.rels[i] as string;
  }

  /** Whether every entry is below the first root and placed as its relative path says (its path and depth
   * derived from it: a PlainWalk holds it). */
  plainBelow(rootAbs: string): boolean {
    const prefix = rootAbs.endsWith("/") ? rootAbs : `${rootAbs}/`;
    const { rels, depths, roots } = this.cols;
    for (let i = 0; i < this.abs.length; i++) {
      const rel = rels[i] as string;
      if (
        (roots !== null && roots[i] !== 0) ||
        this.abs[i] !== prefix + rel ||
        depths[i] !== depthOf(rel) ||
        rel === ""
      )
        return false;
    }
    return true;
  }

  /** The entries' type codes (walk-columns.ts), as a persisted walk's `types` section holds them. */
  typeCodes(): Uint8Array {
    return this.cols.codes;
  }

  /** The entries' depths (0: a root). */
  depths(): Uint32Array {
    return this.cols.depths;
  }
}

/**
 * A recording read back from a file: entries below one root, each given by its relative path and type codes;
 * its path, name and depth are derived when it is replayed.
 */
export class PlainWalk implements RecordedWalk {
  private readonly prefix: string;
  /** The root the entries are below. */
  readonly base: string;

  /**
   * @param ops the step kinds
   * @param args the steps' arguments
   * @param payloads the calls and skip counts
   * @param rels the entries' relative paths (POSIX); an empty one is given by `indexedRel` when first asked for
   * @param types the entries' type codes
   * @param rootAbs the root the entries are below
   * @param indexedRel the relative path of an entry whose `rels` item is empty (an indexed file's, which the index
   * holds: most are never replayed, so most are never decoded)
   */
  constructor(
    readonly ops: Uint8Array,
    readonly args: Int32Array,
    readonly payloads: readonly Payload[],
    private readonly rels: string[],
    private readonly types: Uint8Array,
    rootAbs: string,
    private readonly indexedRel: (i: number) => string,
  ) {
    this.base = rootAbs;
    this.prefix = rootAbs.endsWith("/") ? rootAbs : `${rootAbs}/`;
  }

  get entries(): number {
    return this.rels.length;
  }

  private rel(i: number): string {
    let rel = this.rels[i] as string;
    if (rel === "") {
      rel = this.indexedRel(i);
      this.rels[i] = rel;
    }
    return rel;
  }

  entry(i: number, follow: boolean): Entry {
    const rel = this.rel(i);
    return entryOf(this.prefix + rel, rel, this.types[i] as number, depthOf(rel), 0, follow);
  }

  absOf(i: number): string {
    return this.prefix + this.rel(i);
  }

  /** The entries' type codes (walk-columns.ts), as the file's `types` section holds them. */
  typeCodes(): Uint8Array {
    return this.types;
  }
}

/**
 * Walks the plan to its end, recording its entries and its calls on the run context. The calls are not made on
 * the context given (a replay makes them); a stop asked for is not heeded, so a query that stops after a few
 * records still leaves a whole walk.
 * @param plan the compiled walk
 * @param ctx the run context whose methods are recorded
 * @returns the recording
 */
export function recordWalk(plan: WalkPlan, ctx: RunContext): MemoryWalk {
  let rec: MemoryWalk | null = null;
  for (const _ of recordingWalk(plan, ctx, (r) => {
    rec = r;
  }));
  return rec as unknown as MemoryWalk;
}

/**
 * The same walk as `recordWalk`, giving each entry as it is recorded: a consumer walks the tree for itself and
 * leaves its recording behind (the warm server's index build), in slices if it likes.
 * @param plan the compiled walk
 * @param ctx the run context whose methods are recorded
 * @param done given the recording once the walk has reached its end (not when the consumer stops early)
 * @yields the entries, as the walk gives them
 */
export function* recordingWalk(
  plan: WalkPlan,
  ctx: RunContext,
  done: (rec: MemoryWalk) => void,
): Generator<Entry, void, undefined> {
  const ops: number[] = [];
  const args: number[] = [];
  const payloads: Payload[] = [];
  const abs: string[] = [];
  const cols = new EntryColumnsBuilder(plan.roots.length > 1);
  let counted = 0;
  // The walk's skip counts go to a ledger of the recording's own, kept as deltas in walk order, so that a replay
  // adds them to its context where the walk would have.
  const ledger = emptySkipped();
  const seen = emptySkipped();
  const flushCount = () => {
    if (counted > 0) {
      ops.push(STEP_COUNTED);
      args.push(counted);
    }
    counted = 0;
    let d: Partial<Skipped> | null = null;
    for (const k of Object.keys(ledger) as (keyof Skipped)[]) {
      if (ledger[k] !== seen[k]) {
        d ??= {};
        d[k] = ledger[k] - seen[k];
        seen[k] = ledger[k];
      }
    }
    if (d !== null) {
      ops.push(STEP_SKIPPED);
      args.push(payloads.length);
      payloads.push({ d });
    }
  };
  const recorder: RunContext = new Proxy(ctx, {
    get(target, prop, receiver) {
      if (prop === "skipped") return ledger;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      if (prop === "shouldStop") return () => false;
      if (prop === "searched") {
        return (n = 1) => {
          counted += n;
        };
      }
      return (...a: unknown[]) => {
        flushCount();
        const copy = a.map((x) => (x !== null && typeof x === "object" ? { ...(x as ErrorInfo) } : x));
        ops.push(STEP_CALL);
        args.push(payloads.length);
        payloads.push({ m: prop, a: copy });
      };
    },
  });
  for (const e of walk(plan, recorder, null)) {
    flushCount();
    ops.push(STEP_ENTRY);
    args.push(cols.push(e));
    abs.push(e.abs);
    yield e;
  }
  flushCount();
  done(new MemoryWalk(Uint8Array.from(ops), Int32Array.from(args), payloads, abs, cols.finish()));
}

export type { MemoryWalk };

/**
 * Replays a recorded walk: the same entries and calls on the run context, in the same order.
 * @param rec the recording
 * @param plan the run's plan
 * @param ctx the run context
 * @param leftOut tells, by its place, an entry left out (a file ruled out by an index), or null
 * @param select the recording selected every entry (`selectingAll`): each is given only when the run's plan
 * gives it (`gives`); the calls and counts are the walk's either way, since selecting makes none
 * @yields the entries
 */
export function* replay(
  rec: RecordedWalk,
  plan: WalkPlan,
  ctx: RunContext,
  leftOut: ((i: number) => boolean) | null,
  select = false,
): Generator<Entry> {
  if (ctx.shouldStop()) return;
  const calls = ctx as unknown as Record<string, (...a: unknown[]) => unknown>;
  const { ops, args, payloads } = rec;
  // Entries counted since the last call, given to ctx.searched at once (it only adds them up).
  let counted = 0;
  for (let s = 0; s < ops.length; s++) {
    if ((s & 1023) === 1023 && ctx.shouldStop()) return;
    const op = ops[s] as number;
    const arg = args[s] as number;
    if (op === STEP_COUNTED) {
      counted += arg;
      continue;
    }
    if (op === STEP_SKIPPED) {
      const d = (payloads[arg] as { d: Partial<Skipped> }).d;
      for (const k of Object.keys(d) as (keyof Skipped)[]) ctx.skipped[k] += d[k] ?? 0;
      continue;
    }
    if (op === STEP_ENTRY && leftOut?.(arg)) continue;
    let e: Entry | null = null;
    if (op === STEP_ENTRY) {
      e = rec.entry(arg, plan.follow);
      // Not given: its counts stay pending, as an entry left out, for the next entry given or call.
      if (select && !gives(plan, e)) continue;
    }
    if (counted > 0) ctx.searched(counted);
    counted = 0;
    if (e !== null) yield e;
    else {
      const p = payloads[arg] as { m: string; a: readonly unknown[] };
      const a = p.a.map((x) => (x !== null && typeof x === "object" ? { ...(x as ErrorInfo) } : x));
      calls[p.m]?.(...a);
    }
  }
  if (counted > 0) ctx.searched(counted);
}

/**
 * A recorded walk's steps other than its entries, laid out once so that a replay of a few entries costs what
 * those entries and the walk's errors cost, not the whole walk: per entry, its step and the entries counted before
 * it; the calls and skip counts, with their steps and the entries counted before each; the skip counts summed
 * (so those between two entries given are added at once), where the last progress call before each call is,
 * and where the next call that is neither a skip count nor progress (an error: made one by one) is.
 */
interface Skeleton {
  /** Per entry, the place of its step. */
  readonly entryStep: Int32Array;
  /** Per entry, the entries counted (ctx.searched) in the steps before it. */
  readonly countedAt: Int32Array;
  /** The steps that are calls or skip counts, in order (the walk's calls, numbered from 0). */
  readonly calls: Int32Array;
  /** Per call, the entries counted before it. */
  readonly countedAtCall: Int32Array;
  /** Every entry counted. */
  readonly counted: number;
  /** The skip reasons the walk counted. */
  readonly skipKeys: readonly (keyof Skipped)[];
  /** Per call c (and one past the last), per skip reason k: the skips counted by the calls before c (c * K + k). */
  readonly skipsBefore: Float64Array;
  /** Per call c (and one past the last): the last progress call before c, or -1. */
  readonly progressBefore: Int32Array;
  /** Per call c (and one past the last): the first call from c on that is neither a skip count nor progress. */
  readonly otherFrom: Int32Array;
}

const skeletons = new WeakMap<RecordedWalk, Skeleton>();

/** The skeleton of a recording, made once (one pass over its steps, one over its calls). */
export function skeletonOf(rec: RecordedWalk): Skeleton {
  const had = skeletons.get(rec);
  if (had !== undefined) return had;
  const { ops, args, payloads } = rec;
  const entryStep = new Int32Array(rec.entries);
  const countedAt = new Int32Array(rec.entries);
  const calls: number[] = [];
  const countedAtCall: number[] = [];
  let counted = 0;
  for (let s = 0; s < ops.length; s++) {
    const op = ops[s] as number;
    const arg = args[s] as number;
    if (op === STEP_COUNTED) counted += arg;
    else if (op === STEP_ENTRY) {
      entryStep[arg] = s;
      countedAt[arg] = counted;
    } else {
      calls.push(s);
      countedAtCall.push(counted);
    }
  }
  const n = calls.length;
  const keys: (keyof Skipped)[] = [];
  for (const s of calls) {
    if (ops[s] !== STEP_SKIPPED) continue;
    for (const k of Object.keys(
      (payloads[args[s] as number] as { d: Partial<Skipped> }).d,
    ) as (keyof Skipped)[])
      if (!keys.includes(k)) keys.push(k);
  }
  const K = keys.length;
  const skipsBefore = new Float64Array((n + 1) * K);
  const progressBefore = new Int32Array(n + 1);
  const otherFrom = new Int32Array(n + 1);
  let lastProgress = -1;
  for (let c = 0; c < n; c++) {
    const s = calls[c] as number;
    progressBefore[c] = lastProgress;
    const d = ops[s] === STEP_SKIPPED ? (payloads[args[s] as number] as { d: Partial<Skipped> }).d : null;
    for (let k = 0; k < K; k++)
      skipsBefore[(c + 1) * K + k] =
        (skipsBefore[c * K + k] as number) + (d?.[keys[k] as keyof Skipped] ?? 0);
    if (d === null && (payloads[args[s] as number] as { m: string }).m === "progress") lastProgress = c;
  }
  progressBefore[n] = lastProgress;
  otherFrom[n] = n;
  for (let c = n - 1; c >= 0; c--) {
    const s = calls[c] as number;
    const other = ops[s] !== STEP_SKIPPED && (payloads[args[s] as number] as { m: string }).m !== "progress";
    otherFrom[c] = other ? c : (otherFrom[c + 1] as number);
  }
  const sk: Skeleton = {
    entryStep,
    countedAt,
    calls: Int32Array.from(calls),
    countedAtCall: Int32Array.from(countedAtCall),
    counted,
    skipKeys: keys,
    skipsBefore,
    progressBefore,
    otherFrom,
  };
  skeletons.set(rec, sk);
  return sk;
}

/** The first place in [lo, hi) of a sorted array whose value is at least `v` (hi when none). */
function firstAtLeast(a: Int32Array, v: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Replays a recorded walk giving only the entries at the places listed, as `replay` does with every other entry
 * left out or not selected: the same entries, the same counts and skip counts, the same errors in the same order,
 * at the same places relative to the entries given (entries counted are handed to ctx.searched before the next
 * entry given or call made), and a stop asked for at the same steps (the first step past each 1024-step mark
 * that is an entry given or a call). Between two entries given, the skip counts are added as one sum per reason
 * and the walk's progress calls made as their last (progress only reports; the run throttles it): a replay costs
 * the entries given, the errors and a binary search per 1024 steps, not the steps of the walk.
 * @param rec the recording
 * @param plan the run's plan (whether it follows symlinks)
 * @param ctx the run context
 * @param pick the places of the entries to give, ascending
 * @yields the entries
 */
export function* replayPicked(
  rec: RecordedWalk,
  plan: WalkPlan,
  ctx: RunContext,
  pick: Int32Array,
): Generator<Entry> {
  if (ctx.shouldStop()) return;
  const sk = skeletonOf(rec);
  const methods = ctx as unknown as Record<string, (...a: unknown[]) => unknown>;
  const { ops, args, payloads } = rec;
  const { calls, countedAtCall, skipKeys, skipsBefore, progressBefore, otherFrom } = sk;
  const K = skipKeys.length;
  const nCalls = calls.length;
  // Entries counted and handed to ctx.searched so far.
  let handed = 0;
  const hand = (upTo: number) => {
    if (upTo > handed) ctx.searched(upTo - handed);
    handed = Math.max(handed, upTo);
  };
  const make = (c: number) => {
    hand(countedAtCall[c] as number);
    const call = payloads[args[calls[c] as number] as number] as { m: string; a: readonly unknown[] };
    // The walk's progress (one at each 1024-step mark a replay passes: O(tree) of them) made directly.
    if (call.m === "progress") return ctx.progress(call.a[0] as number);
    const a = call.a.map((x) => (x !== null && typeof x === "object" ? { ...(x as ErrorInfo) } : x));
    methods[call.m]?.(...a);
  };
  // The calls taken in so far: those before call `c`.
  let c = 0;
  /** Takes in the calls before call `to` (none of them asks for a stop): their skip counts, errors, last progress. */
  const take = (to: number) => {
    if (to <= c) return;
    for (let k = 0; k < K; k++) {
      const d = (skipsBefore[to * K + k] as number) - (skipsBefore[c * K + k] as number);
      if (d !== 0) ctx.skipped[skipKeys[k] as keyof Skipped] += d;
    }
    const progress = progressBefore[to] as number;
    let pending = progress >= c;
    for (let o = otherFrom[c] as number; o < to; o = otherFrom[o + 1] as number) {
      if (pending && progress < o) {
        make(progress);
        pending = false;
      }
      make(o);
    }
    if (pending) make(progress);
    c = to;
  };
  // The last step taken in that asked, or could have asked, for a stop: one is asked for at the first step taken
  // in past each 1024-step mark (as replay asks before each step s with s % 1024 === 1023).
  let at = -1;
  for (let k = 0; k <= pick.length; k++) {
    const i = k < pick.length ? (pick[k] as number) : -1;
    const step = i >= 0 ? (sk.entryStep[i] as number) : ops.length;
    for (;;) {
      // The first step past the next mark; the first call there (before this entry) asks for a stop.
      const mark = ((((at + 1) >> 10) + 1) << 10) - 1;
      if (mark >= step) break;
      const j = firstAtLeast(calls, mark, c, nCalls);
      if (j >= nCalls || (calls[j] as number) >= step) break;
      take(j);
      at = calls[j] as number;
      if (ctx.shouldStop()) return;
      take(j + 1);
    }
    take(firstAtLeast(calls, step, c, nCalls));
    if (i < 0) break;
    if ((step + 1) >> 10 !== (at + 1) >> 10 && ctx.shouldStop()) return;
    at = step;
    hand(sk.countedAt[i] as number);
    yield rec.entry(i, plan.follow);
  }
  if (ops.length > 0 && ops.length >> 10 !== (at + 1) >> 10 && ctx.shouldStop()) return;
  hand(sk.counted);
}

/**
 * Whether what a plan gives of an entry below its roots depends on the entry's type codes alone: it has no globs,
 * extensions or file types, reads no stats (sizes, times, owners, the types x and e), and gives every depth from
 * one (min_depth 0 or 1). The default plans of grep, count and find are such plans.
 * @param plan the plan
 * @returns whether selectedByType may decide its selection
 */
export function selectsByType(plan: WalkPlan): boolean {
  const o = plan.source.options;
  return (
    !plan.readsStats &&
    plan.minDepth <= 1 &&
    o.patterns.length === 0 &&
    o.extensions.length === 0 &&
    o.file_types.length === 0 &&
    o.file_types_not.length === 0
  );
}

/**
 * The places of the entries a plan gives among those of a recording that selected every entry, decided from the
 * entries' type codes (walk-columns.ts) without making an entry each: the plan's verdict is taken once per code,
 * on an entry of that code at depth one. A recording's roots (depth 0: a recording in memory) are decided on
 * their own entries. On the 277k tree's restart this replaces a decoded path and an entry for each of 406,981
 * entries (most of 1.3 s of CPU) by one pass over a byte column.
 * @param rec the recording (a walk read from a file, or one in memory)
 * @param plan a plan that selectsByType
 * @param pause awaited every 65,536 entries; false: stop (null returned)
 * @returns the places, ascending, or null (the recording keeps no codes, or stopped)
 */
export async function selectedByType(
  rec: RecordedWalk,
  plan: WalkPlan,
  pause: () => Promise<boolean>,
): Promise<Int32Array | null> {
  const codes = rec instanceof PlainWalk || rec instanceof MemoryWalk ? rec.typeCodes() : null;
  if (codes === null || codes.length < rec.entries) return null;
  const depths = rec instanceof MemoryWalk ? rec.depths() : null;
  const verdict = new Int8Array(256).fill(-1);
  const out = new Int32Array(rec.entries);
  let n = 0;
  for (let i = 0; i < rec.entries; i++) {
    if ((i & 65535) === 65535 && !(await pause())) return null;
    if (depths !== null && depths[i] === 0) {
      if (gives(plan, rec.entry(i, plan.follow))) out[n++] = i;
      continue;
    }
    const code = codes[i] as number;
    let v = verdict[code] as number;
    if (v < 0) {
      v = gives(plan, entryOf(`/${TYPE_PROBE}`, TYPE_PROBE, code, 1, 0, plan.follow)) ? 1 : 0;
      verdict[code] = v;
    }
    if (v === 1) out[n++] = i;
  }
  return out.slice(0, n);
}

/** The name of the entry a plan that selectsByType is asked about for each type code (never opened). */
const TYPE_PROBE = "type-probe";

/**
 * The places of the entries a plan gives (`gives`) among those of a recording that selected every entry.
 * @param rec the recording
 * @param plan the run's plan
 * @returns the places, ascending
 */
export function selectedPlaces(rec: RecordedWalk, plan: WalkPlan): Int32Array {
  const out = new Int32Array(rec.entries);
  let n = 0;
  for (let i = 0; i < rec.entries; i++) if (gives(plan, rec.entry(i, plan.follow))) out[n++] = i;
  return out.slice(0, n);
}
