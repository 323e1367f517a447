/*! Platform: what a tree watch knows of each directory it watches, as of the listing it took into account: the
 * directory's stat words (stat-words.ts) taken before that listing, by watch descriptor. After the watch's queue
 * overflowed, a directory whose words are the same had no entry added, removed or renamed since (its mtime and
 * ctime would have moved), so only those that differ are listed again (tree-watch.ts's repair). Words taken
 * while the directory's newest time is less than RACY_S old are kept as zeros, which no stat gives (an inode is
 * never 0), so they never compare the same: a later change in the same tick of the file system's clock would
 * leave them as they were (as persist.ts's RACY_S). Kept in one pool of words, not an object per directory (a
 * tree of 130k directories: 6 MB). */

import { newestTime, STAT_WORDS } from "./stat-words.ts";

/** A directory whose newest time is less than this old (seconds) when its words are taken is listed again. */
const RACY_S = 2;

/** The words of the watched directories, by watch descriptor. */
export class DirWords {
  private pool = new Uint32Array(STAT_WORDS * 1024);
  /** Each directory's slot in the pool, by watch descriptor. */
  private readonly slots = new Map<number, number>();
  /** Slots let go, taken again first. */
  private readonly free: number[] = [];
  private used = 0;

  /**
   * Keeps a directory's words (zeros when they are racy, or when the stat failed).
   * @param wd its watch descriptor
   * @param words the words
   * @param at the first of them
   * @param ok whether the stat gave them
   */
  keep(wd: number, words: Uint32Array, at: number, ok: boolean): void {
    let slot = this.slots.get(wd);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.used++;
      if ((slot + 1) * STAT_WORDS > this.pool.length) {
        const grown = new Uint32Array(this.pool.length * 2);
        grown.set(this.pool);
        this.pool = grown;
      }
      this.slots.set(wd, slot);
    }
    const base = slot * STAT_WORDS;
    if (ok && newestTime(words, at) < Date.now() / 1000 - RACY_S)
      this.pool.set(words.subarray(at, at + STAT_WORDS), base);
    else this.pool.fill(0, base, base + STAT_WORDS);
  }

  /**
   * Whether a directory's words now are those kept (false when none are).
   * @param wd its watch descriptor
   * @param words the words now
   */
  same(wd: number, words: Uint32Array): boolean {
    const slot = this.slots.get(wd);
    if (slot === undefined) return false;
    const base = slot * STAT_WORDS;
    for (let w = 0; w < STAT_WORDS; w++) if (this.pool[base + w] !== words[w]) return false;
    return true;
  }

  /** Forgets a directory's words (its watch was dropped). */
  drop(wd: number): void {
    const slot = this.slots.get(wd);
    if (slot === undefined) return;
    this.slots.delete(wd);
    this.free.push(slot);
  }

  /** Forgets every directory's words. */
  clear(): void {
    this.slots.clear();
    this.free.length = 0;
    this.used = 0;
  }
}
