/*! Engine, warm index: the indexed files with other hard links (a write through another name sends no event for
 * this one, so a query reads them). Lists and stats a directory made or moved in; never reads a file's text. */
import { listTreeBytes, lstatPath } from "../../../platform/files.ts";
import { fsPath } from "../../../platform/names.ts";
import type { TrigramIndex } from "../trigrams.ts";

/**
 * The files of an index with other hard links (a link count over one when it read them, or a link made in the
 * tree since), by id: a write through another name sends no event for this one, so they are read at each query.
 * Made from the index's own flags when first asked (markLinked: written with the index, so a loaded one has them).
 */
const linkedIds = new WeakMap<TrigramIndex, Set<number>>();

export function linkedOf(idx: TrigramIndex): Set<number> {
  let s = linkedIds.get(idx);
  if (s === undefined) {
    s = new Set(idx.linkedIds());
    linkedIds.set(idx, s);
  }
  return s;
}

/** Records a file with other hard links in the index's flags (persisted) and in linkedOf. */
export function markLinked(idx: TrigramIndex, id: number): void {
  idx.markLinked(id);
  linkedOf(idx).add(id);
}

/** The inodes of the files below a directory with more than one link (a directory made or moved in). */
export function linkedBelow(dir: string): Set<number> {
  const out = new Set<number>();
  let names: Buffer[];
  try {
    names = listTreeBytes(fsPath(dir));
  } catch {
    return out;
  }
  const base = fsPath(dir);
  const prefix = Buffer.concat([typeof base === "string" ? Buffer.from(base) : base, Buffer.from("/")]);
  for (const n of names) {
    try {
      const st = lstatPath(Buffer.concat([prefix, n]));
      if (st.isFile() && st.nlink > 1) out.add(st.ino);
    } catch {}
  }
  return out;
}
