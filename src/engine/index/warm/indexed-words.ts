/*! Engine, warm index: the stat words each indexed file had when it was read, and the checks made of them
 * (a file still as indexed; the files of some inodes). One statx per file checked; never reads a file's text. */
import { STAT_OK, STAT_WORDS, statInto } from "../../../platform/stat-words.ts";
import type { ItemChecks } from "../stat-job.ts";
import type { TrigramIndex } from "../trigrams.ts";

const scratch = new Uint32Array(STAT_WORDS);

/**
 * The stat words of the files an index holds (size, mtime and ctime to the nanosecond, inode; stat-words.ts), by
 * id, STAT_WORDS each: what the file was when it was read for the index.
 */
export const indexedWords = new WeakMap<TrigramIndex, Uint32Array>();

/**
 * Whether a file still stats as it did when it was indexed (size, mtime, ctime and inode: the persisted index's
 * promise), its final symlink not followed. Asked of every file the index would rule out, at each query, watch
 * or no watch: an edit through another hard link or a write through a shared mapping sends no event for this
 * name, but changes the inode's mtime and ctime. One statx per file, no object made.
 */
export function sameAsIndexed(idx: TrigramIndex, id: number, abs: string): boolean {
  const words = indexedWords.get(idx);
  if (words === undefined || statInto()(abs, false, scratch, 0) !== STAT_OK) return false;
  const at = id * STAT_WORDS;
  for (let i = 0; i < STAT_WORDS; i++) if (scratch[i] !== words[at + i]) return false;
  return true;
}

/** What recheck stats: an index and, per file id, a check of its stats against those it was indexed with. */
export interface Checkable {
  readonly index: TrigramIndex;
  readonly header: { readonly files: number };
  fileChecks(): ItemChecks;
}

/**
 * The server's own index as recheck takes a loaded one (LoadedIndex): each file by the path it was indexed at,
 * stat'ed against the words it was indexed with (sameAsIndexed).
 * @param idx the index
 * @returns its checks
 */
export function checkable(idx: TrigramIndex): Checkable {
  const paths = idx.pathsById();
  return {
    index: idx,
    header: { files: paths.length },
    fileChecks: () => ({
      unchanged: (id) => {
        const abs = paths[id];
        return abs != null && sameAsIndexed(idx, id, abs);
      },
      close: () => {},
    }),
  };
}

/** The ids of an index's files with one of these inodes (a pass over its stat words). */
export function idsOfInodes(idx: TrigramIndex, inodes: ReadonlySet<number>): number[] {
  const words = indexedWords.get(idx);
  const out: number[] = [];
  if (words === undefined || inodes.size === 0) return out;
  const n = Math.min(idx.size, words.length / STAT_WORDS);
  for (let id = 0; id < n; id++) {
    const at = id * STAT_WORDS + 8;
    if (inodes.has((words[at] as number) + (words[at + 1] as number) * 2 ** 32)) out.push(id);
  }
  return out;
}

/** Whether two sets hold the same members. */
export function sameMembers(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
