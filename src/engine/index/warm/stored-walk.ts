/*! Engine, warm index: the walk a loaded index was written with (the server's default walk, recorded by the server
 * that wrote it, or `rglob index`'s grep walk), replayed by a grep of the same walk while the watch is not trusted
 * yet, each path it depends on stat'ed first, and made the remembered default walk once the watch is trusted
 * (adoptStored). The root's state stays the root's: what is read or let go goes through its host. */
import * as v from "valibot";
import { WalkOptionsSchema } from "../../../contract/walk-options.ts";
import type { TreeWatch } from "../../../platform/tree-watch.ts";
import type { GitPlaces } from "../../ignore.ts";
import { compileWalk } from "../../plan.ts";
import type { WalkPlan } from "../../walk.ts";
import type { Witnessed } from "../../witness.ts";
import { checkLoaded, indexPathFor, type LoadedIndex, type StoredWalk, walkKeyOf } from "../persist.ts";
import type { TrigramIndex } from "../trigrams.ts";
import type { Found, QueryChecks } from "./query.ts";
import { idsOf, type Memo, type RememberedWalks } from "./remembered.ts";
import { selectionOf } from "./selections.ts";
import { isUncovered } from "./uncovered.ts";

/** The default walk a loaded index was written with, and the keys of the walks it stands for. */
export interface StoredDefault {
  readonly walk: StoredWalk;
  /** The key of the default grep's and count's walk (files only), and of find's. */
  readonly key: string;
  readonly also: string | null;
  /** The walk as a remembered walk (its index ids looked up once). */
  readonly memo: Memo;
}

/** What the stored walk asks of the root that holds it (WarmRoot). */
export interface StoredHost {
  readonly root: string;
  readonly walks: RememberedWalks;
  /** The walk the loaded index was written with, while the watch is not trusted yet (null: none, or let go). */
  stored(): StoredDefault | null;
  /** Lets the stored walk go, if it is still `s`. */
  letGo(s: StoredDefault): void;
  /**
   * Takes the stored walk and the walk's directories the watch's set-up stat'ed, with the generation before it
   * began (startWatch), and lets both go.
   */
  takeStored(): {
    readonly stored: StoredDefault | null;
    readonly verified: { readonly gen: number; readonly witnessed: Uint8Array } | null;
  };
  /** Counts the stored walk made the remembered default walk (tests: walksLoaded). */
  adopted(): void;
  /** The index that answers now, and the loaded one not checked since the watch was set up (recheck). */
  index(): TrigramIndex | null;
  unverified(): TrigramIndex | null;
  /** The loaded index file's checks while its index is unverified, or null. */
  loadedChecks(): LoadedIndex | null;
  /** Where this root's index is loaded from, or null. */
  indexDir(): string | null;
  /** Every stat check before the watch is trusted made by the stat worker (RGLOB_STAT_SPLIT=worker). */
  statsInWorker(): boolean;
  watching(): boolean;
  /** The tree's own watch (read before each call), or null for Bun's fs.watch. */
  ownWatch(): TreeWatch | null;
  gen(): number;
  epoch(): number;
  closed(): boolean;
  sliceMs(): number;
  /** A turn of the event loop, then the calls in flight. */
  turn(): Promise<void>;
}

/**
 * Creates the walk of a grep, count or find with the server's defaults over a whole root: the walk a server
 * builds its index from and remembers (the benchmarks and floors of the warm state take the same one). With
 * `asIndexGrep`, the walk `rglob index` writes with its index instead: a plain `rglob grep PATTERN` run at the
 * root (ops/index), which differs from the server's only where nothing differs for that walk: strict_base (with
 * symlinks not followed and the base the one root, what is opened must be the very path below the root whatever
 * it says: platform.ts `expectedReal`) and named files past the globs (no globs, no named file). Its key is
 * compared as it is, so a grep whose other defaults differ from the server's is not taken for its walk.
 * @param root the root's real path
 * @param git where git's config files are looked for (the Config's; absent: the engine's default)
 * @param asIndexGrep whether it is `rglob index`'s walk
 * @returns the compiled walk
 */
export function serverDefaultPlan(root: string, git?: GitPlaces, asIndexGrep = false): WalkPlan {
  return compileWalk(
    v.parse(WalkOptionsSchema, {
      base: root,
      hidden: true,
      respect_gitignore: true,
      follow_symlinks: false,
      ...(asIndexGrep ? {} : { strict_base: true }),
    }),
    {
      filesOnly: true,
      cwd: root,
      ...(asIndexGrep ? { namedFilesPastGlobs: true } : {}),
      ...(git ? { git } : {}),
    },
  ).plan;
}

/**
 * The walk a loaded index was written with, when it is the default walk of this server (the same walk key:
 * options, git's environment), or null.
 * @param loaded the loaded index
 * @param walks the root's remembered walks (their keys)
 * @param root the root's real path
 * @param plan the server's default walk (WarmRoot.defaultPlan)
 * @param git where git's config files are looked for
 */
export function storedDefault(
  loaded: LoadedIndex,
  walks: RememberedWalks,
  root: string,
  plan: () => WalkPlan,
  git: GitPlaces | undefined,
): StoredDefault | null {
  const w = loaded.walk;
  if (w === null) return null;
  try {
    const p = plan();
    const key = walks.keyOf(p, true);
    if (key === null || (w.key !== walkKeyOf(p) && w.key !== walkKeyOf(serverDefaultPlan(root, git, true))))
      return null;
    const rec = w.recording(p.base);
    return {
      walk: w,
      key,
      also: walks.keyOf(p, false),
      memo: { gen: -1, rec, checks: [], ids: null, idsFor: null },
    };
  } catch {
    return null;
  }
}

/** The loaded index's walk for a grep of the same walk while the watch is not trusted yet, or null. */
export function storedFor(host: StoredHost, plan: WalkPlan): StoredDefault | null {
  const s = host.stored();
  const index = host.index();
  if (s === null || index === null || host.unverified() !== index) return null;
  const key = host.walks.keyOf(plan);
  return key !== null && (key === s.key || key === s.also) ? s : null;
}

/**
 * The loaded index's walk when every path it depends on (each directory it listed, each ignore, config and
 * `.git` file it read or looked for) stats as it did now: no watch vouches for them yet. Else it is let go.
 */
export function storedChecked(host: StoredHost, s: StoredDefault): Memo | null {
  for (let i = 0; i < s.walk.witnessed; i++) {
    if (!s.walk.stillWitnessed(i)) {
      host.letGo(s);
      return null;
    }
  }
  return s.memo;
}

/**
 * The loaded index's walk and the stats of the files a query rules out, while the watch is not trusted yet,
 * checked at once on this thread and the stat worker (persist.ts's checkLoaded), the walk's paths first.
 * @returns the walk and, per file id, 1 when it stats as indexed; null when a path of the walk changed (it is
 *   let go: a cold walk); undefined when there is no loaded index file or no worker (stat'ed here, picked)
 */
export function checkedTogether(
  host: StoredHost,
  s: StoredDefault,
  plan: WalkPlan,
  idx: TrigramIndex,
  found: Found,
  maxFileSize: number,
  checks: QueryChecks,
  vouch: Uint8Array | null,
): { memo: Memo; same: Uint8Array } | null | undefined {
  const loaded = host.loadedChecks();
  const dir = host.indexDir();
  if (loaded === null || loaded.index !== idx || dir === null) return undefined;
  const m = s.memo;
  const sel = selectionOf(m.rec, plan, checks);
  const ids = idsOf(m, idx);
  const wanted: number[] = [];
  for (const i of sel.places) {
    const id = ids[i] as number;
    if (id < 0 || id >= loaded.header.files || found.map[id] === 1 || !idx.isLive(id)) continue;
    if (vouch !== null && vouch[id] === 1) continue;
    if (idx.sizeOf(id) <= maxFileSize) wanted.push(id);
  }
  const r = checkLoaded(loaded, indexPathFor(host.root, dir), host.root, wanted, host.statsInWorker());
  if (r === null) return undefined;
  if (!r.fresh) {
    host.letGo(s);
    return null;
  }
  return { memo: m, same: r.same };
}

/**
 * Once the watch is set up and the indexed files stat'ed again: the loaded index's walk becomes the remembered
 * default walk when every path it depends on still stats as it did (a change before the watch covered it shows
 * there, one after it is an event that makes the walk void), instead of the walk being recorded again.
 */
export async function adoptStored(host: StoredHost, idx: TrigramIndex, epoch: number): Promise<void> {
  const { stored: s, verified } = host.takeStored();
  if (s === null || !host.watching()) return;
  host.ownWatch()?.drain();
  // The directories the set-up stat'ed after watching each (startWatch) are not stat'ed again: a change since
  // is an event, which moved the generation on from the one taken before the set-up.
  const skip = verified !== null && verified.gen === host.gen() ? verified.witnessed : null;
  const gen = skip !== null && verified !== null ? verified.gen : host.gen();
  const sliceMs = host.sliceMs();
  let slice = performance.now();
  // What the watch does not vouch for (uncovered), found in the same slices: decoding every witnessed path
  // at once (130k directories on the 277k tree) kept a call waiting 0.3-1.4 s just before the watch vouched.
  const prefix = host.root.endsWith("/") ? host.root : `${host.root}/`;
  const checks: Witnessed[] = [];
  for (let i = 0; i < s.walk.witnessed; i++) {
    if ((i & 255) === 0 && performance.now() - slice > sliceMs) {
      await host.turn();
      slice = performance.now();
      if (host.closed() || host.epoch() !== epoch || host.index() !== idx) return;
    }
    const w = s.walk.witness(i);
    if (w === null) return;
    if (isUncovered(host.root, prefix, w)) checks.push(w);
    if (skip !== null && skip[i] === 1) continue;
    if (!s.walk.stillWitnessed(i)) return;
  }
  if (host.gen() !== gen || host.closed() || host.epoch() !== epoch) return;
  const memo: Memo = {
    gen,
    rec: s.memo.rec,
    checks,
    ids: s.memo.ids,
    idsFor: s.memo.idsFor,
  };
  for (const key of [s.key, s.also]) {
    if (key === null) continue;
    host.walks.keepUnlessFresher(key, memo);
  }
  if (host.walks.get(s.key) === memo) host.adopted();
}

/**
 * The remembered walk of the server's default plan (a grep's and count's with its defaults), or null.
 * @param walks the root's remembered walks
 * @param plan the server's default walk (WarmRoot.defaultPlan)
 */
export function defaultMemo(walks: RememberedWalks, plan: () => WalkPlan): Memo | null {
  try {
    const key = walks.key(plan(), true);
    return key === null ? null : walks.fresh(key);
  } catch {
    return null;
  }
}

/**
 * Records the default walk between calls (and in the calls that ask for it: forCall), to be kept as the build's
 * walk is: an index loaded from the cache comes without it, and until it is recorded a grep answered from the
 * index walks the tree cold to find the files left to read.
 * @param walks the root's remembered walks
 * @param plan the server's default walk (WarmRoot.defaultPlan)
 */
export function recordDefault(walks: RememberedWalks, plan: () => WalkPlan): void {
  let p: WalkPlan;
  try {
    p = plan();
  } catch {
    return;
  }
  walks.recordBetween(p);
}
