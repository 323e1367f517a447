/*! Engine, warm index: a grep answered from the index: its candidates, and which entries of a remembered walk
 * it is given (those the index does not hold, the candidates, suspects, files changed or over the size cap).
 * Stats a file the watch cannot vouch for; never reads a file's text, never changes the root's state. */
import { insideDir } from "../../../platform/platform.ts";
import type { SearchSpec } from "../../search/search-file.ts";
import type { WalkPlan } from "../../walk.ts";
import type { LoadedIndex } from "../persist.ts";
import { literalQueryOf } from "../provider.ts";
import type { TrigramIndex } from "../trigrams.ts";
import { sameAsIndexed } from "./indexed-words.ts";
import { idsOf, type Memo } from "./remembered.ts";
import { deadIds, entriesOf, oversize, type Selection, unindexedOf, unlexedPlaces } from "./selections.ts";

/** What a grep answered from the index checked (capabilities' `checks`). */
export interface QueryChecks {
  /** watch: only the suspect files were checked; stat: every file the index rules out was stat'ed. */
  mode: "watch" | "stat";
  /** Files handed to the search. */
  given: number;
  /** Files read because they were suspect (open, held for writing or mapped, other hard links). */
  suspects: number;
  /** stat calls made to prove files unchanged. */
  stat_checks: number;
  /** Looks through /proc at every process (openForWriting) made on this call before it was answered. */
  proc_looks: number;
  /** Entries of the remembered walk this call selected (0: it shared a selection made before). */
  selected: number;
}

/**
 * A query's candidates: the ids the index's lookup gave (ascending), the same as a byte per file id, and the ids
 * marked since (suspects, and files a stat found changed), which the map then holds too.
 */
export interface Found {
  readonly ids: Int32Array;
  readonly map: Uint8Array;
  readonly more: number[];
}

/** The index's candidates for a run, or null when the index cannot narrow it. */
export function candidatesFor(
  idx: TrigramIndex | null,
  root: string,
  plan: WalkPlan,
  spec: SearchSpec,
): Found | null {
  if (idx === null) return null;
  const q = literalQueryOf(spec);
  if (q === null || !insideDir(plan.baseReal, root)) return null;
  const ids = idx.candidateIds(q);
  if (ids === null) return null;
  const map = new Uint8Array(idx.size);
  for (let k = 0; k < ids.length; k++) map[ids[k] as number] = 1;
  return { ids, map, more: [] };
}

/**
 * The places of the entries a grep answered from the index is given, ascending: the selected entries the index
 * does not hold, and those it holds that are candidates (suspects included), changed since (dead), or over the
 * query's size cap. What it costs is these entries (and, without the watch, a stat of each selected file the
 * index rules out), not the walk nor the files indexed. `loaded`: the loaded index file's checks while it is
 * the index (a file ruled out is stat'ed by its bytes there), or null. `unlexed`: also the selected files the
 * index holds and rules out whose name names no language with a lexer (grep's `in` counts or reads them).
 * `vouch`: the files the check of every file under way found unchanged (not stat'ed here), to which those this
 * query stats unchanged are added.
 */
export function picked(
  m: Memo,
  sel: Selection,
  idx: TrigramIndex,
  found: Found,
  maxFileSize: number,
  byWatch: boolean,
  checks: QueryChecks,
  loaded: LoadedIndex | null,
  same: Uint8Array | undefined = undefined,
  vouch: Uint8Array | null = null,
  unlexed = false,
): Int32Array {
  const ids = idsOf(m, idx);
  const unindexed = unindexedOf(sel, ids, idx);
  const { map: candidates, more } = found;
  if (!byWatch) {
    // Every selected file the index rules out is stat'ed; one that differs is read. A loaded index's file by
    // the bytes of its path in the index file, from the tree's descriptor opened now (`loaded`).
    const byBytes = same === undefined ? (loaded?.fileChecks() ?? null) : null;
    const files = loaded?.header.files ?? 0;
    try {
      for (const i of sel.places) {
        const id = ids[i] as number;
        if (id < 0 || candidates[id] === 1 || !idx.isLive(id) || idx.sizeOf(id) > maxFileSize) continue;
        if (vouch !== null && vouch[id] === 1) continue;
        checks.stat_checks++;
        const unchanged =
          same !== undefined && id < same.length
            ? same[id] === 1
            : byBytes !== null && id < files
              ? byBytes.unchanged(id)
              : sameAsIndexed(idx, id, m.rec.absOf(i));
        if (!unchanged) {
          candidates[id] = 1;
          more.push(id);
        } else if (vouch !== null) {
          // Stat'ed unchanged now, with the watch whole, while every file is checked again: as the check's own
          // stat (a change since is an event), it and the next queries take it as found (ADR 0066).
          vouch[id] = 1;
        }
      }
    } finally {
      byBytes?.close();
    }
  }
  const byId = entriesOf(m.rec, ids, idx);
  const { mask } = sel;
  const out: number[] = Array.from(unindexed);
  const give = (id: number) => {
    const i = byId[id] as number;
    if (i >= 0 && mask[i] === 1) out.push(i);
  };
  // The candidates the lookup gave, then those marked since (suspects, files found changed by a stat).
  for (const id of found.ids) if (id < byId.length) give(id);
  for (const id of more) if (id < byId.length) give(id);
  for (const id of deadIds(idx)) if (candidates[id] === 0) give(id);
  for (const id of oversize(idx, maxFileSize)) if (candidates[id] === 0 && idx.isLive(id)) give(id);
  if (unlexed) {
    // Those not given above: held by the index (the rest are unindexed), ruled out, live, within the size cap.
    for (const i of unlexedPlaces(m.rec)) {
      const id = ids[i] as number;
      if (mask[i] === 1 && id >= 0 && id < candidates.length && candidates[id] === 0 && idx.isLive(id))
        if (idx.sizeOf(id) <= maxFileSize) out.push(i);
    }
  }
  return Int32Array.from(out).sort();
}
