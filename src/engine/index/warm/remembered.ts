/*! Engine, warm index: a root's remembered walks (kept by walk key, the least recently used let go past the budget)
 * and the walks being recorded for them, a slice at a time, in a call and between calls. Never decides what is
 * fresh by itself: the root's watch generation, epoch and wholeness are asked of its host. */
import { insideDir } from "../../../platform/platform.ts";
import { quietContext, type RunContext } from "../../run.ts";
import { type Entry, selectingAll, type WalkPlan } from "../../walk.ts";
import { walkKey } from "../../walk-key.ts";
import { stillSo, type Witnessed, witnessingInto } from "../../witness.ts";
import { type MemoryWalk, type RecordedWalk, recordingWalk } from "../recorded-walk.ts";
import type { TrigramIndex } from "../trigrams.ts";
import { uncovered } from "./uncovered.ts";

/** A remembered walk, and the index ids of its entries (for the index they were looked up in). */
export interface Memo {
  readonly gen: number;
  readonly rec: RecordedWalk;
  /** What the walk read that the watch does not vouch for (uncovered): stat'ed again before each replay. */
  readonly checks: readonly Witnessed[];
  ids: Int32Array | null;
  idsFor: TrigramIndex | null;
}

/** A walk being recorded for a key: pumped a slice at a time, in the call that asked for it and then between
 * calls (a new key on a large tree heeds the call's deadline and lets the server answer meanwhile). */
interface Recording {
  readonly gen: number;
  readonly epoch: number;
  readonly steps: Iterator<Entry>;
  readonly seen: Map<string, Witnessed>;
  rec: MemoryWalk | null;
  entries: number;
  /** Past the budget of remembered entries: given up (it could not be kept). */
  over: boolean;
  background: boolean;
  /** Another key the walk is also kept for (the default walk's for find, filesOnly false), or null. */
  also: string | null;
}

/** What the remembered walks ask of the root that holds them (WarmRoot). */
interface WalksHost {
  /** Bumped by every change to the tree's shape or its ignore files: remembered walks older than it are void. */
  gen(): number;
  /** Bumped when the warm state starts again from scratch: a recording of an older epoch stops. */
  epoch(): number;
  closed(): boolean;
  /** Whether the tree is watched and the watch whole (nothing is remembered otherwise). */
  watchWhole(): boolean;
  /** The run context of a walk of the tree that reads the tree's watch as it goes. */
  paced(ctx: RunContext): RunContext;
  /** A turn of the event loop, then the calls in flight. */
  turn(): Promise<void>;
  /** How long a slice of recording between calls may take (ms). */
  sliceMs(): number;
  /** The most entries the remembered walks hold together. */
  readonly rememberedEntries: number;
}

const MEMOS = 8;
/** How long a call records a new walk itself before it walks cold and leaves the rest to the time between calls. */
const INLINE_RECORD_MS = 50;

/**
 * The index ids of a remembered walk's entries (-1: not indexed), looked up once per index.
 * @param m the remembered walk
 * @param idx the index
 * @returns the id of each entry
 */
export function idsOf(m: Memo, idx: TrigramIndex): Int32Array {
  if (m.ids !== null && m.idsFor === idx) return m.ids;
  const ids = new Int32Array(m.rec.entries);
  for (let i = 0; i < ids.length; i++) ids[i] = idx.idOfPath(m.rec.absOf(i));
  m.ids = ids;
  m.idsFor = idx;
  return ids;
}

/** A root's remembered walks by key, and the walks being recorded for them. */
export class RememberedWalks {
  private readonly memos = new Map<string, Memo>();
  /** Walks being recorded, by key (at most one of them between calls). */
  private readonly recordings = new Map<string, Recording>();
  /** Keys whose walk holds more entries than the budget, at the generation it was found (not recorded again). */
  private readonly tooLarge = new Map<string, number>();

  /**
   * @param root the root's real path
   * @param host the root's state the walks depend on
   */
  constructor(
    private readonly root: string,
    private readonly host: WalksHost,
  ) {}

  /**
   * The key of a plan's remembered walk, or null when its walk cannot be remembered and replayed (the watch must
   * see every change it depends on).
   * @param plan the plan
   * @param filesOnly the key of the same walk for a plan with this filesOnly (which only decides which roots are
   *   walked: the same for a walk of directories alone)
   */
  key(plan: WalkPlan, filesOnly = plan.source.plan.filesOnly ?? false): string | null {
    return this.host.watchWhole() ? this.keyOf(plan, filesOnly) : null;
  }

  /** A plan's walk key (key), watched or not. */
  keyOf(plan: WalkPlan, filesOnly = plan.source.plan.filesOnly ?? false): string | null {
    if (plan.readsStats || plan.follow || !insideDir(plan.baseReal, this.root)) return null;
    // Selection is applied at replay; the rules from outside the tree (not watched) are in the key (walk-key.ts).
    return walkKey(plan, "remembered", filesOnly);
  }

  /**
   * The remembered walk of a key when it is fresh: no change to the tree's shape since it began (the watch
   * says), and every path it read that the watch does not vouch for stats as it did (uncovered). A stale one is
   * let go.
   */
  fresh(key: string): Memo | null {
    const m = this.memos.get(key);
    if (m === undefined) return null;
    if (m.gen === this.host.gen() && m.checks.every(stillSo)) return m;
    this.memos.delete(key);
    return null;
  }

  /**
   * The fresh remembered walk of a key; else its walk is recorded, for at most INLINE_RECORD_MS and while the
   * call's deadline and cancellation allow, and given when done; else null (the call walks cold) and the
   * recording goes on between calls, a slice at a time, to be remembered when it ends. `checked`: the walk this
   * call found fresh already (grep), taken without its paths stat'ed again while it is still the key's.
   */
  forCall(key: string, plan: WalkPlan, ctx: RunContext, checked: Memo | null = null): Memo | null {
    const gen = this.host.gen();
    const m =
      checked !== null && this.memos.get(key) === checked && checked.gen === gen ? checked : this.fresh(key);
    if (m !== null) {
      this.memos.delete(key);
      this.memos.set(key, m); // most recently used last
      return m;
    }
    if (this.tooLarge.get(key) === gen) return null;
    let r = this.recordings.get(key);
    if (r !== undefined && (r.gen !== gen || r.epoch !== this.host.epoch())) {
      r.steps.return?.();
      this.recordings.delete(key);
      r = undefined;
    }
    if (r === undefined) {
      // One recording goes on between calls at a time: another key's waits for it to end.
      for (const other of this.recordings.values()) if (other.background) return null;
      r = this.record(key, plan);
    }
    // A recording going on between calls is taken on in the call too: calls that come one after another leave it
    // a slice at most between two of them, and each walks cold until it ends.
    const until = performance.now() + INLINE_RECORD_MS;
    this.pump(r, () => ctx.shouldStop() || performance.now() > until);
    if (r.rec !== null || r.over) return this.finish(key, r);
    if (!r.background) {
      r.background = true;
      void this.recordBetweenCalls(key, r);
    }
    return null;
  }

  /**
   * Records a plan's walk between calls (key for files only, and kept for the plan's other key too), unless it is
   * remembered fresh, recorded already, or another recording goes on between calls.
   * @param plan the plan (the server's default walk)
   */
  recordBetween(plan: WalkPlan): void {
    const key = this.key(plan, true);
    if (key === null || this.fresh(key) !== null || this.recordings.has(key)) return;
    for (const other of this.recordings.values()) if (other.background) return;
    const r = this.record(key, plan);
    r.also = this.key(plan, false);
    r.background = true;
    void this.recordBetweenCalls(key, r);
  }

  /** Starts the recording of a key's walk (selecting every entry: the walk of every plan with this key). */
  private record(key: string, plan: WalkPlan): Recording {
    const host = this.host;
    const r: Recording = {
      gen: host.gen(),
      epoch: host.epoch(),
      steps: recordingWalk(selectingAll(plan), host.paced(quietContext(() => host.closed(), 1)), (rec) => {
        r.rec = rec;
      }),
      seen: new Map(),
      rec: null,
      entries: 0,
      over: false,
      background: false,
      also: null,
    };
    this.recordings.set(key, r);
    return r;
  }

  /** Takes steps of a recording until it ends, grows past the budget, or `stop` says so. */
  private pump(r: Recording, stop: () => boolean): void {
    const budget = this.host.rememberedEntries;
    witnessingInto(r.seen, () => {
      for (let n = 1; r.rec === null; n++) {
        if ((n & 63) === 0 && stop()) return;
        if (r.steps.next().done === true) return;
        if (++r.entries > budget) {
          r.over = true;
          r.steps.return?.();
          return;
        }
      }
    });
  }

  /** A recording that ended: remembered (when still fresh and within the budget) and given. */
  private finish(key: string, r: Recording): Memo | null {
    if (this.recordings.get(key) === r) this.recordings.delete(key);
    if (r.over || r.rec === null) {
      if (r.over) {
        if (this.tooLarge.size >= 64) this.tooLarge.clear();
        this.tooLarge.set(key, r.gen);
      }
      return null;
    }
    const memo: Memo = {
      gen: r.gen,
      rec: r.rec,
      checks: uncovered(this.root, r.seen.values()),
      ids: null,
      idsFor: null,
    };
    this.keep(key, memo);
    if (r.also !== null && r.also !== key) this.keepUnlessFresher(r.also, memo);
    return memo;
  }

  /** Goes on with a recording a slice at a time between calls (turn), until it ends or goes stale. */
  private async recordBetweenCalls(key: string, r: Recording): Promise<void> {
    const host = this.host;
    const sliceMs = host.sliceMs();
    while (r.rec === null && !r.over) {
      await host.turn();
      if (
        host.closed() ||
        this.recordings.get(key) !== r ||
        r.gen !== host.gen() ||
        r.epoch !== host.epoch()
      ) {
        r.steps.return?.();
        if (this.recordings.get(key) === r) this.recordings.delete(key);
        return;
      }
      const until = performance.now() + sliceMs;
      this.pump(r, () => performance.now() > until);
    }
    // Not when a call ended it (forCall): it is no longer there.
    if (this.recordings.get(key) === r) this.finish(key, r);
  }

  /**
   * Keeps a remembered walk when it is still fresh (no change to the tree's shape since it began) and within the
   * budget, letting go of the least recently used past it.
   */
  keep(key: string, memo: Memo): void {
    const budget = this.host.rememberedEntries;
    if (memo.gen !== this.host.gen() || !this.host.watchWhole() || memo.rec.entries > budget) return;
    this.memos.delete(key);
    this.memos.set(key, memo);
    while (this.memos.size > MEMOS || this.remembered().entries > budget) {
      this.memos.delete(this.memos.keys().next().value as string);
    }
  }

  /** Keeps a walk for a key (keep) unless a walk of the generation now is kept for it already. */
  keepUnlessFresher(key: string, memo: Memo): void {
    const had = this.memos.get(key);
    if (had === undefined || had.gen !== this.host.gen()) this.keep(key, memo);
  }

  /**
   * Keeps a walk recorded whole elsewhere (the index build's) as the remembered walk of its plan's keys, files
   * only and not, unless a fresher walk is kept for either already.
   * @param plan the walk's plan
   * @param rec the recorded walk
   * @param seen what the walk read (the watch does not vouch for what lies outside the tree)
   * @param gen the watch generation the walk began in
   */
  keepWalk(plan: WalkPlan, rec: MemoryWalk, seen: Map<string, Witnessed>, gen: number): void {
    const memo: Memo = { gen, rec, checks: uncovered(this.root, seen.values()), ids: null, idsFor: null };
    for (const filesOnly of [true, false]) {
      const key = this.key(plan, filesOnly);
      if (key !== null) this.keepUnlessFresher(key, memo);
    }
  }

  /** The walk remembered for a key now, fresh or not. */
  get(key: string): Memo | undefined {
    return this.memos.get(key);
  }

  /** The walks remembered now, the least recently used first. */
  values(): IterableIterator<Memo> {
    return this.memos.values();
  }

  /** Whether a walk is remembered (for some key). */
  holds(m: Memo): boolean {
    return [...this.memos.values()].includes(m);
  }

  /** Whether a recorded walk is remembered (for some key, in some memo). */
  holdsWalk(rec: RecordedWalk): boolean {
    return [...this.memos.values()].some((k) => k.rec === rec);
  }

  /**
   * The keys remembered now and the entries their walks hold (tests and the budget's check): a walk kept for two
   * keys (the index build's) counts once.
   */
  remembered(): { readonly walks: number; readonly entries: number } {
    let entries = 0;
    const counted = new Set<RecordedWalk>();
    for (const m of this.memos.values()) {
      if (counted.has(m.rec)) continue;
      counted.add(m.rec);
      entries += m.rec.entries;
    }
    return { walks: this.memos.size, entries };
  }

  /**
   * Takes the walks of the generation before this one that a change did not touch on to this one (the rest stay
   * behind, void): for a change that forgets only some walks, made after the generation moved on.
   * @param kept whether a walk still stands
   */
  carryOver(kept: (m: Memo) => boolean): void {
    const gen = this.host.gen();
    for (const [key, m] of this.memos) if (m.gen === gen - 1 && kept(m)) this.memos.set(key, { ...m, gen });
  }

  /** Forgets the remembered walks and stops those being recorded. */
  forget(): void {
    this.memos.clear();
    for (const r of this.recordings.values()) r.steps.return?.();
    this.recordings.clear();
  }
}
