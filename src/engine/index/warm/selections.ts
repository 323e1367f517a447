/*! Engine, warm index: what a plan selects among a remembered walk's entries, made once per walk and selection,
 * and the per-index lists a query takes (dead ids, files over a size). Pure structures: no I/O. */
import { isNegated } from "../../glob.ts";
import { lexedByName } from "../../regions/regions.ts";
import { gives, type WalkPlan } from "../../walk.ts";
import {
  type RecordedWalk,
  selectedByType,
  selectedPlaces,
  selectsByType,
  skeletonOf,
} from "../recorded-walk.ts";
import type { TrigramIndex } from "../trigrams.ts";
import type { Memo } from "./remembered.ts";

/** The places a plan selects in a remembered walk (made once per walk and selection: selectionOf). */
export interface Selection {
  readonly places: Int32Array;
  /** Per entry, 1 when selected. */
  readonly mask: Uint8Array;
  /** The places selected that the index did not hold (for that index): always given. */
  unindexed: Int32Array | null;
  unindexedFor: TrigramIndex | null;
}

/** Per remembered walk: its selections by key (the most recently used last), and the entry of each index id. */
const selectionsOf = new WeakMap<RecordedWalk, Map<string, Selection>>();
const entriesById = new WeakMap<RecordedWalk, { readonly idx: TrigramIndex; readonly byId: Int32Array }>();
/** Selections a walk keeps. */
const SELECTIONS = 8;
/** Per index: the ids over a size (by the size), and its dead ids (with the count they were taken at). */
const oversizeOf = new WeakMap<TrigramIndex, Map<number, Int32Array>>();
const deadOf = new WeakMap<TrigramIndex, { readonly dead: number; readonly ids: Int32Array }>();
/** Per remembered walk: the places whose name names no language with a lexer (unlexedPlaces). */
const unlexedOf = new WeakMap<RecordedWalk, Int32Array>();

/**
 * The key of what a plan selects among the entries of one remembered walk: what plan.ts puts in `select`,
 * `selectDirs` and `minDepth` (globs but negated ones, kinds, extensions, file types, the least depth, whether
 * only files are given, the case of globs and file types where there are some; plans with stat predicates are
 * not replayed). The rest of a plan's walk options are its walk key's (walk-key.ts), the same for every plan
 * that replays the walk; an operation's other input (grep's pattern, limit, timeout, output) selects nothing.
 * So every query of a walk with the same selection (every literal of the default grep) shares one, made once.
 */
function selectionKey(plan: WalkPlan): string {
  const o = plan.source.options;
  const p = plan.source.plan;
  const globs = o.patterns.filter((g) => !isNegated(g));
  const named = o.file_types.length > 0 || o.file_types_not.length > 0;
  return JSON.stringify([
    globs,
    o.types,
    o.extensions,
    o.file_types,
    o.file_types_not,
    named ? o.type_add : [],
    o.min_depth ?? 0,
    o.follow_symlinks,
    globs.length > 0 || named ? (o.case_sensitive ?? null) : null,
    p.filesOnly ?? false,
    globs.length > 0 && (p.namedFilesPastGlobs ?? false),
  ]);
}

/**
 * Keeps a walk's selection of these places (at most SELECTIONS per walk, the least recently used let go).
 * @param sels the walk's selections
 * @param key the selection's key
 * @param rec the walk
 * @param places the places selected, ascending
 * @returns the selection
 */
function keepSelection(
  sels: Map<string, Selection>,
  key: string,
  rec: RecordedWalk,
  places: Int32Array,
): Selection {
  const mask = new Uint8Array(rec.entries);
  for (let k = 0; k < places.length; k++) mask[places[k] as number] = 1;
  const sel: Selection = { places, mask, unindexed: null, unindexedFor: null };
  while (sels.size >= SELECTIONS) sels.delete(sels.keys().next().value as string);
  sels.set(key, sel);
  return sel;
}

/**
 * The index ids of some entries of a remembered walk, by their paths.
 * @param rec the walk
 * @param ids the index id of each of its entries (-1: none)
 * @param places the entries' places in it
 * @returns the map
 */
export function idsByPath(rec: RecordedWalk, ids: Int32Array, places: Int32Array): Map<string, number> {
  const out = new Map<string, number>();
  for (const i of places) out.set(rec.absOf(i), ids[i] as number);
  return out;
}

/**
 * The places a selection gives that an index does not hold (directories, binary and large files, files changed
 * before the walk's ids were taken), made once per selection and index.
 * @param sel the selection
 * @param ids the index id of each entry of its walk (-1: none)
 * @param idx the index
 * @returns the places, ascending
 */
export function unindexedOf(sel: Selection, ids: Int32Array, idx: TrigramIndex): Int32Array {
  if (sel.unindexedFor === idx && sel.unindexed !== null) return sel.unindexed;
  const out: number[] = [];
  for (const i of sel.places) if ((ids[i] as number) < 0) out.push(i);
  sel.unindexed = Int32Array.from(out);
  sel.unindexedFor = idx;
  return sel.unindexed;
}

/**
 * The places a plan selects in a remembered walk, made once per walk and selection (at most SELECTIONS kept
 * per walk, the least recently used let go); `checks.selected` counts the entries a new one went through.
 */
export function selectionOf(rec: RecordedWalk, plan: WalkPlan, checks?: { selected: number }): Selection {
  let sels = selectionsOf.get(rec);
  if (sels === undefined) {
    sels = new Map();
    selectionsOf.set(rec, sels);
  }
  const key = selectionKey(plan);
  const sel = sels.get(key);
  if (sel === undefined) {
    if (checks !== undefined) checks.selected += rec.entries;
    return keepSelection(sels, key, rec, selectedPlaces(rec, plan));
  }
  sels.delete(key);
  sels.set(key, sel);
  return sel;
}

/** The entry of each index id in a remembered walk (-1: none), made once per walk and index. */
export function entriesOf(rec: RecordedWalk, ids: Int32Array, idx: TrigramIndex): Int32Array {
  const had = entriesById.get(rec);
  if (had !== undefined && had.idx === idx) return had.byId;
  const byId = new Int32Array(idx.size).fill(-1);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (id >= 0 && id < byId.length) byId[id] = i;
  }
  entriesById.set(rec, { idx, byId });
  return byId;
}

/** Whether the entry at a place is named so that grep's `in` cannot lex it by its name (lexedByName not true). */
export function unlexedAt(rec: RecordedWalk, i: number): boolean {
  const abs = rec.absOf(i);
  return lexedByName(abs.slice(abs.lastIndexOf("/") + 1)) !== true;
}

/**
 * The places of a remembered walk whose name names no language with a lexer (directories among them), made once
 * per walk (an entry's path never changes): grep's `in` is given these besides its candidates, which it counts
 * as skipped.unknown_language or reads for their `#!` line, so that a ruled-out query counts them as a cold
 * run does without being given every file.
 * @param rec the walk
 * @returns the places, ascending
 */
export function unlexedPlaces(rec: RecordedWalk): Int32Array {
  const had = unlexedOf.get(rec);
  if (had !== undefined) return had;
  const out: number[] = [];
  for (let i = 0; i < rec.entries; i++) if (unlexedAt(rec, i)) out.push(i);
  const places = Int32Array.from(out);
  unlexedOf.set(rec, places);
  return places;
}

/** The ids of an index's files changed since it was built (taken again when more have changed). */
export function deadIds(idx: TrigramIndex): Int32Array {
  const had = deadOf.get(idx);
  if (had !== undefined && had.dead === idx.dead) return had.ids;
  const out: number[] = [];
  for (let id = 0; id < idx.size; id++) if (!idx.isLive(id)) out.push(id);
  const ids = Int32Array.from(out);
  deadOf.set(idx, { dead: idx.dead, ids });
  return ids;
}

/** The ids of an index's files over a size (made once per index and size). */
export function oversize(idx: TrigramIndex, max: number): Int32Array {
  let bySize = oversizeOf.get(idx);
  if (bySize === undefined) {
    bySize = new Map();
    oversizeOf.set(idx, bySize);
  }
  let ids = bySize.get(max);
  if (ids === undefined) {
    const out: number[] = [];
    for (let id = 0; id < idx.size; id++) if (idx.sizeOf(id) > max) out.push(id);
    ids = Int32Array.from(out);
    if (bySize.size >= 8) bySize.clear();
    bySize.set(max, ids);
  }
  return ids;
}

/**
 * Makes a remembered walk's structures that its queries share (ADR 0034): its skeleton, the selection of each of
 * `plans`, and with the index the index id of each entry, the entry of each id, the selected entries the index
 * does not hold, and the index's own lists a query takes. A slice at a time: `pause` between slices.
 * @param m the remembered walk
 * @param idx the ready index, or null
 * @param plans the plans whose selections are made (every file, every entry)
 * @param pause awaited between slices; false: stop
 * @param live whether the work is still worth it
 * @returns false when it stopped short
 */
export async function makeShared(
  m: Memo,
  idx: TrigramIndex | null,
  plans: readonly WalkPlan[],
  pause: () => Promise<boolean>,
  live: () => boolean,
): Promise<boolean> {
  const { rec } = m;
  skeletonOf(rec);
  let sels = selectionsOf.get(rec);
  if (sels === undefined) {
    sels = new Map();
    selectionsOf.set(rec, sels);
  }
  const made: Selection[] = [];
  for (const plan of plans) {
    const key = selectionKey(plan);
    const had = sels.get(key);
    if (had !== undefined) {
      made.push(had);
      continue;
    }
    // The default plans' selections are decided from the entries' type codes, no entry made (selectedByType).
    let places = selectsByType(plan) ? await selectedByType(rec, plan, pause) : null;
    if (!live()) return false;
    if (places === null) {
      const out = new Int32Array(rec.entries);
      let n = 0;
      for (let i = 0; i < rec.entries; i++) {
        if ((i & 1023) === 0 && !(await pause())) return false;
        if (gives(plan, rec.entry(i, plan.follow))) out[n++] = i;
      }
      places = out.slice(0, n);
    }
    const now = sels.get(key);
    made.push(now ?? keepSelection(sels, key, rec, places));
  }
  if (idx !== null) {
    let ids = m.ids !== null && m.idsFor === idx ? m.ids : null;
    if (ids === null) {
      const looked = new Int32Array(rec.entries);
      for (let i = 0; i < looked.length; i++) {
        if ((i & 1023) === 0 && !(await pause())) return false;
        looked[i] = idx.idOfPath(rec.absOf(i));
      }
      // A query may have looked them up meanwhile: the same ids.
      if (m.ids === null || m.idsFor !== idx) {
        m.ids = looked;
        m.idsFor = idx;
      }
      ids = m.ids;
    }
    entriesOf(rec, ids, idx);
    for (const sel of made) unindexedOf(sel, ids, idx);
    // The index's own lists a query takes: files changed since, and those over the default size cap (none).
    deadIds(idx);
    oversize(idx, Number.POSITIVE_INFINITY);
  }
  // The places grep's `in` is given besides its candidates (unlexedPlaces), a slice at a time.
  if (!unlexedOf.has(rec)) {
    const out: number[] = [];
    for (let i = 0; i < rec.entries; i++) {
      if ((i & 4095) === 0 && !(await pause())) return false;
      if (unlexedAt(rec, i)) out.push(i);
    }
    if (!unlexedOf.has(rec)) unlexedOf.set(rec, Int32Array.from(out));
  }
  return true;
}
