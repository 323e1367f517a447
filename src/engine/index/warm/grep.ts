/*! Engine, warm index: what a root's warm state offers a grep run (WarmGrep): the index's candidates, how a file
 * it rules out is known unchanged (the watch with the suspect files read, or a stat), the walk replayed or walked
 * cold while the tree's own watch is read, and the binary files known. The root's state is read through its host
 * (WarmRoot); the checks of the query are kept there too. */
import { joinPath } from "../../../platform/names.ts";
import type { TreeWatch } from "../../../platform/tree-watch.ts";
import { lexedByName } from "../../regions/regions.ts";
import type { GrepNeeds, RunContext } from "../../run.ts";
import type { SearchSpec } from "../../search/search-file.ts";
import type { Entry, WalkPlan } from "../../walk.ts";
import type { BinaryVerdicts } from "../binary-verdicts.ts";
import { type AnswerSource, type WarmGrep, without } from "../provider.ts";
import { replayPicked } from "../recorded-walk.ts";
import type { TrigramIndex } from "../trigrams.ts";
import { idsOfInodes, sameAsIndexed, sameMembers } from "./indexed-words.ts";
import { linkedOf } from "./linked.ts";
import { candidatesFor, type Found, picked, type QueryChecks } from "./query.ts";
import { idsOf } from "./remembered.ts";
import { idsByPath, selectionOf } from "./selections.ts";
import { checkedTogether, type StoredHost, storedChecked, storedFor } from "./stored-walk.ts";

/** The index ids of the inodes held open for writing or mapped (markSuspects). */
interface HeldIds {
  readonly idx: TrigramIndex;
  readonly held: Set<number>;
  readonly ids: number[];
}

/** What the suspect files are made of (WarmRoot's watch state). */
interface SuspectsHost {
  readonly root: string;
  /** The tree's own watch (read before each call), or null for Bun's fs.watch: no suspects then. */
  ownWatch(): TreeWatch | null;
  /** The inodes held open for writing or mapped when the watch was set up, or null: not known. */
  held(): Set<number> | null;
  /** Files named by closes that wrote nothing, relative (WarmRoot.named). */
  readonly named: ReadonlyMap<string, number>;
  /** The index ids of the held inodes as last taken (taken again only when the inodes or the index differ). */
  heldIds(): HeldIds | null;
  keepHeldIds(ids: HeldIds): void;
}

/** What a grep asks of the root that answers it (WarmRoot). */
export interface GrepHost extends SuspectsHost, StoredHost {
  readonly binaries: BinaryVerdicts;
  /** Looks at every process made by the last settle. */
  settleLooks(): number;
  /** Keeps the checks of the query answered from the index (status). */
  noteChecks(checks: QueryChecks): void;
  /** Whether the watch vouches for the files the index rules out but the suspects (ADR 0032). */
  trustsWatch(): boolean;
  /** Per file id, 1 when the check under way found it unchanged with the watch whole; null when none is. */
  vouchedNow(idx: TrigramIndex): Uint8Array | null;
  /** A walk of the tree that reads its watch as it goes (paced, draining). */
  coldWalk(plan: WalkPlan, ctx: RunContext, after: string | null): Iterator<Entry>;
}

/**
 * Returns what the warm state offers a grep run.
 * @param host the root
 * @param plan the run's compiled walk
 * @param spec the run's search spec
 * @param needs what the run asks besides its candidates
 * @returns the seam for the run
 */
export function warmGrep(host: GrepHost, plan: WalkPlan, spec: SearchSpec, needs: GrepNeeds): WarmGrep {
  const { readsAll, listsNonMatching, unlexed } = needs;
  const stored = storedFor(host, plan);
  const key = stored === null ? host.walks.key(plan) : null;
  // The remembered walk found fresh here (the paths it read that no watch vouches for stat'ed) is the one the
  // walk below takes, not stat'ed again (#36: a second check of the same paths in one call).
  const checked = key !== null ? host.walks.fresh(key) : null;
  const fresh = stored !== null || checked !== null;
  // The index answers only while it is held (the state is `ready`, or the rehearsal of a built index is under way).
  const found = readsAll ? null : candidatesFor(host.index(), host.root, plan, spec);
  const candidates = found?.map ?? null;
  const source: AnswerSource = candidates !== null ? "index" : fresh ? "warm_list" : "cold";
  const idx = host.index();
  const maxFileSize = spec.maxFileSize;
  // Files ruled out have no effect on the answer (no record, error or skip) unless it lists the files that
  // do not match: then they are given to the run as found empty; otherwise they are left out of the walk.
  const leaveOut = candidates !== null && !listsNonMatching;
  // How a file the index rules out is known unchanged (ADR 0032): by the watch, with the suspect files read
  // (marked as candidates here); or, where the watch cannot vouch for every file, by a stat of each.
  const byWatch = candidates !== null && idx !== null && host.trustsWatch();
  // While every file is stat'ed again (recheck): those it found unchanged are the watch's, the rest stat'ed.
  const vouch = candidates !== null && idx !== null && !byWatch ? host.vouchedNow(idx) : null;
  const checks: QueryChecks = {
    mode: byWatch ? "watch" : "stat",
    given: 0,
    suspects: 0,
    stat_checks: 0,
    proc_looks: host.settleLooks(),
    selected: 0,
  };
  if (candidates !== null && idx !== null) {
    host.noteChecks(checks);
    if (byWatch || vouch !== null) markSuspects(host, idx, found as Found, checks);
  }
  // Set when the walk is a replay that leaves ruled-out entries out: every entry it gives was checked then.
  let replayed = false;
  // The index ids of the entries such a replay gives, by path, while the index's own map from paths is not built
  // (a loaded index's: on 277k files it takes a second or more, and the first query would pay for it).
  let pickedIds: Map<string, number> | null = null;
  const ruledOut = (e: Entry): boolean => {
    if (candidates === null || idx === null || replayed) return false;
    if (unlexed && lexedByName(e.name) !== true) return false;
    const id = idx.idOfPath(e.abs);
    if (id < 0 || candidates[id] === 1) return false;
    if (idx.sizeOf(id) > maxFileSize) return false;
    if (byWatch || (vouch !== null && vouch[id] === 1 && idx.isLive(id))) return true;
    checks.stat_checks++;
    const same = sameAsIndexed(idx, id, e.abs);
    // Found unchanged with the watch whole while every file is checked again: as the check's own stat, a change
    // since is an event; the check and the next queries take it as found (ADR 0066).
    if (same && vouch !== null) vouch[id] = 1;
    return same;
  };
  // Binary files (which the index does not hold) known unchanged since a read found them binary are not read.
  const bins =
    candidates !== null && idx !== null && !spec.binaryAsText && !spec.binaryMode && spec.sniffBytes > 0
      ? host.binaries.query(spec.sniffBytes, suspectOf(host), byWatch)
      : null;
  const knownBinary = (e: Entry): boolean => {
    if (bins === null || idx === null || e.type !== "file" || e.depth === 0) return false;
    const id = pickedIds?.get(e.abs) ?? idx.idOfPath(e.abs);
    return !(id >= 0 && idx.isLive(id)) && bins.known(e.abs, maxFileSize);
  };
  return {
    source,
    knownBinary,
    read: (e, binary) => bins?.saw(e.abs, binary),
    walk: (p, ctx, after) => {
      // While a loaded index is unverified: the walk's paths and the files ruled out, stat'ed on two threads.
      const both =
        after === null && stored !== null && leaveOut && !byWatch && idx !== null && found !== null
          ? checkedTogether(host, stored, p, idx, found, maxFileSize, checks, vouch)
          : undefined;
      const m =
        both !== undefined
          ? (both?.memo ?? null)
          : after !== null
            ? null
            : stored !== null
              ? storedChecked(host, stored)
              : key !== null
                ? host.walks.forCall(key, p, ctx, checked)
                : null;
      if (m !== null) {
        const sel = selectionOf(m.rec, p, checks);
        if (!leaveOut || idx === null || candidates === null) {
          checks.given = sel.places.length;
          return replayPicked(m.rec, p, ctx, sel.places);
        }
        const lc = host.loadedChecks();
        const loaded = lc !== null && lc.index === idx ? lc : null;
        const pick = picked(
          m,
          sel,
          idx,
          found as Found,
          maxFileSize,
          byWatch,
          checks,
          loaded,
          both?.same,
          vouch,
          unlexed,
        );
        replayed = true;
        if (bins !== null && !idx.pathsMapped) pickedIds = idsByPath(m.rec, idsOf(m, idx), pick);
        checks.given = pick.length;
        return replayPicked(m.rec, p, ctx, pick);
      }
      const cold = host.coldWalk(p, ctx, after);
      return leaveOut ? without(cold, ruledOut) : cold;
    },
    ruledOut,
    sizeOf: (e) => {
      if (idx === null) return null;
      const id = idx.idOfPath(e.abs);
      return id < 0 ? null : idx.sizeOf(id);
    },
  };
}

/**
 * The run context of a walk of the tree that reads the tree's own watch as the walk examines entries (it asks
 * whether to stop every 256), whatever it gives: a walk that gives few entries (a glob's) lists many
 * directories between two it gives, four events each, and the queue (16,384 events by default) would overflow
 * into a recrawl that forgets the index and every remembered walk.
 * @param w the watch read (WarmRoot.liveWatch), or null
 * @param ctx the walk's context
 * @returns the same context, its shouldStop reading the watch first
 */
export function paced(w: TreeWatch | null, ctx: RunContext): RunContext {
  if (w === null) return ctx;
  // Derived, not spread: a context may hold its methods on its prototype (count's contexts are derived so).
  return Object.assign(Object.create(ctx) as RunContext, {
    shouldStop: () => {
      w.drain();
      return ctx.shouldStop();
    },
  });
}

/**
 * A walk that reads the tree's own watch every 64 entries it gives: each directory it lists is four events
 * (an open and a close, on the directory's watch and its parent's), and a cold walk of a large tree in one
 * call would overflow the queue (16,384 events by default) into a recrawl before the timers read it.
 * @param liveWatch the watch to read at that time (WarmRoot.liveWatch)
 * @param entries the walk
 */
export function* draining(liveWatch: () => TreeWatch | null, entries: Iterator<Entry>): Generator<Entry> {
  let n = 0;
  try {
    for (let r = entries.next(); r.done !== true; r = entries.next()) {
      if ((++n & 63) === 0) liveWatch()?.drain();
      yield r.value;
    }
  } finally {
    // A walk ended early closes the directories it holds open.
    entries.return?.();
  }
}

/**
 * Tells the files the watch cannot vouch for, by path or inode (a binary file's verdict is not used for them):
 * those open now, named by a close (a writer's open may have merged with it), held open for writing or mapped
 * when the watch began. Without the tree's own watch: none (the stat of each file is the check, ADR 0032).
 */
export function suspectOf(host: SuspectsHost): (abs: string, ino: number) => boolean {
  const w = host.ownWatch();
  if (w === null) return () => false;
  let paths: Set<string> | null = null;
  return (abs, ino) => {
    const held = host.held();
    if (held === null || held.has(ino)) return true;
    if (paths === null) {
      paths = new Set();
      for (const rel of w.openFiles()) paths.add(joinPath(host.root, rel));
      for (const rel of host.named.keys()) paths.add(joinPath(host.root, rel));
    }
    return paths.has(abs);
  };
}

/**
 * Marks the suspect files as candidates (they are read): the files open now (opened since the watch began and
 * not closed: a mapping keeps its file open), those held open for writing or mapped when it began, and those
 * with other hard links.
 */
function markSuspects(host: SuspectsHost, idx: TrigramIndex, found: Found, checks: QueryChecks): void {
  const { map, more } = found;
  const mark = (id: number) => {
    if (id >= 0 && map[id] === 0) {
      map[id] = 1;
      more.push(id);
      checks.suspects++;
    }
  };
  for (const rel of (host.ownWatch() as TreeWatch).openFiles()) mark(idx.idOfPath(joinPath(host.root, rel)));
  for (const rel of host.named.keys()) mark(idx.idOfPath(joinPath(host.root, rel)));
  const held = host.held() as Set<number>;
  // Taken again only when the inodes differ: each look makes a new set, mostly of the same inodes (a pass over
  // every indexed file's stats, 14 ms at 277k files, was the first call's after the rehearsal's look).
  let heldIds = host.heldIds();
  if (heldIds === null || heldIds.idx !== idx || !sameMembers(heldIds.held, held)) {
    heldIds = { idx, held, ids: idsOfInodes(idx, held) };
    host.keepHeldIds(heldIds);
  }
  for (const id of heldIds.ids) mark(id);
  for (const id of linkedOf(idx)) mark(id);
}
