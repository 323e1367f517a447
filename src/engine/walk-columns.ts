/*! Engine: a walk as columns, the one encoding of a walk that leaves the walker: between threads (the parallel
 * walk's SubtreeResult, walk-protocol.ts), in memory between queries (the warm server's remembered walks,
 * index/recorded-walk.ts) and in the index file (the persisted walk's sections, index/format.ts). A walk is a
 * stream of steps (a kind and an argument each) and, beside it, one column per entry field; the three forms hold
 * the columns each needs and derive the others, all with the codes and the decoder below.
 *
 * | column    | per   | encoding                  | parallel result      | remembered walk    | persisted walk             |
 * |-----------|-------|---------------------------|----------------------|--------------------|----------------------------|
 * | step kind | step  | u8, STEP_*                | `kinds` (ENTRY, ERROR, HOLE) | `ops` (ENTRY, COUNTED, CALL, SKIPPED) | `ops` section |
 * | step arg  | step  | i32                       | implied (in order); `gaps`: entries counted before it | `args` | `args` section |
 * | rel       | entry | POSIX, from the base      | joined by NUL        | string[]           | `rels` ("" for an indexed file: its path is the index's) |
 * | type code | entry | u8, listed << 4 | target  | `codes`              | `codes`            | `types` section            |
 * | depth     | entry | u32                       | `depths`             | `depths`           | derived (depthOf)          |
 * | root      | entry | index in the plan's roots | one per result       | `roots`            | 0 (one root)               |
 * | abs       | entry | the platform's path       | derived from the root | kept (the walk's strings) | derived from the base |
 * | name      | entry | rel's last segment; a root's (depth 0) from abs | derived (entryOf) | derived | derived      |
 * | stats     | entry | STAT_NUMBERS f64          | when read            | not kept (read again) | not kept                |
 *
 * docs/decisions/0040-walk-columns-and-index-sections.md. */
import type { EntryType } from "../platform/listing.ts";
import { basenamePath } from "../platform/names.ts";
import { Entry, type EntryStats } from "./walk-types.ts";

/** The entry types by code: a type code is the listed type's code in the high four bits, the followed in the
 * low four. The persisted walk's `types` section holds these codes: changing them changes the index's bytes. */
const ENTRY_TYPES: readonly EntryType[] = [
  "file",
  "dir",
  "symlink",
  "fifo",
  "socket",
  "block",
  "char",
  "unknown",
];
const TYPE_CODE: Readonly<Record<EntryType, number>> = {
  file: 0,
  dir: 1,
  symlink: 2,
  fifo: 3,
  socket: 4,
  block: 5,
  char: 6,
  unknown: 7,
};

/** The type code of an entry's listed and followed types. */
function typeCode(type: EntryType, target: EntryType): number {
  return (TYPE_CODE[type] << 4) | TYPE_CODE[target];
}

/** The step kinds. A recorded walk (remembered or persisted) has entries, runs of entries counted
 * (ctx.searched), calls on the run context and skip counts; the persisted walk's `ops` section holds these
 * codes. A parallel result has entries, errors and holes (subtrees left to walk), its counts in `gaps`. */
export const STEP_ENTRY = 0;
export const STEP_COUNTED = 1;
export const STEP_CALL = 2;
export const STEP_SKIPPED = 3;
export const STEP_ERROR = 4;
export const STEP_HOLE = 5;

/** Numbers per entry in a stats column: size, mtimeMs, mode, uid, gid, dev, ino. */
export const STAT_NUMBERS = 7;

/** An entry's name: the last segment of its relative path. */
function nameOf(rel: string): string {
  return rel.slice(rel.lastIndexOf("/") + 1);
}

/** An entry's depth below a root that is the base: one more than the slashes in its relative path. */
export function depthOf(rel: string): number {
  let n = 1;
  for (let i = rel.indexOf("/"); i >= 0; i = rel.indexOf("/", i + 1)) n++;
  return n;
}

/**
 * Makes an entry from its columns, its name derived as the walk names it (walk.ts): a root's (depth 0) is the
 * last segment of its absolute path, any other's that of its relative path.
 * @param abs its absolute path
 * @param rel its relative path
 * @param code its type code
 * @param depth its depth
 * @param root its root's index
 * @param follow whether the plan follows symlinks
 * @returns the entry
 */
export function entryOf(
  abs: string,
  rel: string,
  code: number,
  depth: number,
  root: number,
  follow: boolean,
): Entry {
  return new Entry(
    abs,
    rel,
    depth === 0 ? basenamePath(abs) : nameOf(rel),
    depth,
    ENTRY_TYPES[code >> 4] as EntryType,
    ENTRY_TYPES[code & 15] as EntryType,
    root,
    follow,
  );
}

/** A walk's entry columns, as gathered (EntryColumnsBuilder). */
export interface EntryColumns {
  readonly rels: string[];
  readonly codes: Uint8Array;
  readonly depths: Uint32Array;
  /** Per entry, its root (null: every entry is of the one root the columns were gathered for). */
  readonly roots: Uint32Array | null;
}

/** Gathers entries into columns, growing them as it goes. */
export class EntryColumnsBuilder {
  readonly rels: string[] = [];
  private codes = new Uint8Array(1024);
  private depths = new Uint32Array(1024);
  private roots: Uint32Array | null;

  /** @param withRoots keep each entry's root (a walk of several roots), else the one root is implied */
  constructor(withRoots: boolean) {
    this.roots = withRoots ? new Uint32Array(1024) : null;
  }

  /** How many entries so far. */
  get length(): number {
    return this.rels.length;
  }

  /**
   * Adds an entry.
   * @returns its place
   */
  push(e: Entry): number {
    const i = this.rels.length;
    if (i === this.codes.length) {
      const cap = i * 2;
      this.codes = grown(this.codes, new Uint8Array(cap));
      this.depths = grown(this.depths, new Uint32Array(cap));
      if (this.roots !== null) this.roots = grown(this.roots, new Uint32Array(cap));
    }
    this.rels.push(e.rel);
    this.codes[i] = typeCode(e.type, e.target);
    this.depths[i] = e.depth;
    if (this.roots !== null) this.roots[i] = e.root;
    return i;
  }

  /** The columns, each as long as the entries. */
  finish(): EntryColumns {
    const n = this.rels.length;
    return {
      rels: this.rels,
      codes: this.codes.slice(0, n),
      depths: this.depths.slice(0, n),
      roots: this.roots === null ? null : this.roots.slice(0, n),
    };
  }
}

/** Copies a full array into a larger one and returns the larger one. */
export function grown<T extends Uint8Array | Uint32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * Writes an entry's stats into a stats column.
 * @param col the column (STAT_NUMBERS per entry)
 * @param i the entry's place
 * @param st its stats
 */
export function putStats(col: Float64Array, i: number, st: EntryStats): void {
  const o = i * STAT_NUMBERS;
  col[o] = st.size;
  col[o + 1] = st.mtimeMs;
  col[o + 2] = st.mode;
  col[o + 3] = st.uid;
  col[o + 4] = st.gid;
  col[o + 5] = st.dev;
  col[o + 6] = st.ino;
}

/**
 * Reads an entry's stats from a stats column.
 * @param col the column (STAT_NUMBERS per entry)
 * @param i the entry's place
 * @returns its stats
 */
export function statsAt(col: Float64Array, i: number): EntryStats {
  const o = i * STAT_NUMBERS;
  return {
    size: col[o] as number,
    mtimeMs: col[o + 1] as number,
    mode: col[o + 2] as number,
    uid: col[o + 3] as number,
    gid: col[o + 4] as number,
    dev: col[o + 5] as number,
    ino: col[o + 6] as number,
  };
}
