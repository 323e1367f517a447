/*! Engine, persisted index: a loaded index's file ids by path, answered from the paths section's bytes (a hash
 * table of the ids, no string made per path). A map of every path took 0.7-2 s in one block at 277k files, the
 * first lookup after a restart paying for it (docs/decisions/0055-loaded-paths-looked-up-in-place.md). It only
 * finds an id; whether the file is still the index's is the index's flags. No I/O here. */
import { isWellFormed } from "../../platform/names.ts";

/** A 32-bit FNV-1a hash of bytes [from, to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

/**
 * The ids of the relative paths of a persisted index's paths section, by the absolute path a walk gives. The
 * table is filled a slice at a time (fill), or whole at the first lookup that finds it unfinished.
 */
export class PathTable {
  /** Per slot, the id plus one (0: empty); open addressing, linear probing, at most half full. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Per id, its path's hash (compared before its bytes). */
  private readonly hashes: Uint32Array;
  /** Ids hashed and placed so far (in id order). */
  private filled = 0;
  /** The root's prefix of every absolute path below it (the root with a separator at its end). */
  private readonly prefix: string;
  private readonly encoder = new TextEncoder();
  private scratch = new Uint8Array(4096);

  /**
   * @param section the paths section (UTF-8, NUL-separated, in id order)
   * @param starts where each path starts (pathStarts: one more entry, the end plus one)
   * @param root the tree's real path (the absolute path of the empty relative path)
   * @param sep the platform's separator (the section's paths are POSIX)
   */
  constructor(
    private readonly section: Uint8Array,
    private readonly starts: Int32Array,
    private readonly root: string,
    private readonly sep: string,
  ) {
    const files = starts.length - 1;
    let size = 1024;
    while (size < files * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    this.hashes = new Uint32Array(files);
    this.prefix = root.endsWith(sep) ? root : root + sep;
  }

  /** Whether every path is in the table. */
  get whole(): boolean {
    return this.filled === this.hashes.length;
  }

  /**
   * Places up to `n` more paths in the table.
   * @param n how many
   * @returns whether every path is placed now
   */
  fill(n: number): boolean {
    const { section, starts, hashes, slots, mask } = this;
    const end = Math.min(hashes.length, this.filled + n);
    for (let id = this.filled; id < end; id++) {
      const h = hashBytes(section, starts[id] as number, (starts[id + 1] as number) - 1);
      hashes[id] = h;
      let s = h & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = id + 1;
    }
    this.filled = end;
    return this.whole;
  }

  /**
   * Calls `each` with every id whose absolute path is below a directory (a descendant of it, at any depth), in
   * id order, from the section's bytes (no path decoded).
   * @param dir the directory's absolute path
   * @param each called with each such id
   */
  eachBelow(dir: string, each: (id: number) => void): void {
    const files = this.hashes.length;
    const below = dir.endsWith(this.sep) ? dir : dir + this.sep;
    // The root itself, or a directory above it: every path, the root's own only when it is below.
    if (dir === this.root || this.root.startsWith(below)) {
      for (let id = 0; id < files; id++)
        if (dir !== this.root || (this.starts[id + 1] as number) - 1 > (this.starts[id] as number)) each(id);
      return;
    }
    if (!below.startsWith(this.prefix)) return;
    let rel = below.slice(this.prefix.length);
    if (this.sep !== "/") rel = rel.split(this.sep).join("/");
    // A lone surrogate is encoded as U+FFFD: such a string is no path the section's bytes decode to.
    if (!isWellFormed(rel)) return;
    const bytes = this.encoder.encode(rel);
    const n = bytes.length;
    const { section, starts } = this;
    for (let id = 0; id < files; id++) {
      const from = starts[id] as number;
      if ((starts[id + 1] as number) - 1 - from <= n) continue;
      let i = 0;
      while (i < n && section[from + i] === bytes[i]) i++;
      if (i === n) each(id);
    }
  }

  /**
   * Returns the last id whose path is this absolute path and that `live` accepts (as a map of the live ids' paths
   * made in id order would answer), or -1 (none; or a string no section's bytes decode to).
   * @param abs the absolute path
   * @param live whether an id counts
   * @returns the id or -1
   */
  idOf(abs: string, live: (id: number) => boolean): number {
    if (!this.whole) this.fill(this.hashes.length);
    let rel: string;
    if (abs === this.root) rel = "";
    else if (abs.length > this.prefix.length && abs.startsWith(this.prefix))
      rel = abs.slice(this.prefix.length);
    else return -1;
    if (this.sep !== "/") rel = rel.split(this.sep).join("/");
    // A lone surrogate is encoded as U+FFFD: such a string is no path the section's bytes decode to.
    if (!isWellFormed(rel)) return -1;
    if (this.scratch.length < rel.length * 3) this.scratch = new Uint8Array(rel.length * 3);
    const bytes = this.scratch;
    const n = this.encoder.encodeInto(rel, bytes).written;
    const h = hashBytes(bytes, 0, n);
    const { section, starts, hashes, slots, mask } = this;
    let found = -1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = slots[s] as number;
      if (at === 0) return found;
      const id = at - 1;
      if (hashes[id] !== h || id < found) continue;
      const from = starts[id] as number;
      if ((starts[id + 1] as number) - 1 - from !== n) continue;
      let i = 0;
      while (i < n && section[from + i] === bytes[i]) i++;
      if (i === n && live(id)) found = id;
    }
  }
}
