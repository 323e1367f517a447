/*! Engine, warm index: the binary files a warm server's queries met, remembered so that a query does not read
 * them again. The index holds text only, so every query that reaches a binary file used to open it, read its
 * first block and close it (and the close names the file for the watch's look through /proc, ADR 0032). A
 * verdict is kept by the file's stat words taken before the read that found it binary (size, mtime, ctime,
 * inode) and used only while a stat of the file gives the same words, the file has one link and it is not a
 * suspect of the watch (open now, named by a close, held open for writing or mapped): a file changed since is
 * read again. Where the watch vouches for the tree (as for the index's files) a verdict is used without that stat,
 * while no event named the file and no hard link was made to it in the tree. docs/decisions/0034-warm-query-structure.md. */
import { newestTime, STAT_WORDS, wordsAndLinks } from "../../platform/stat-words.ts";

/** The most verdicts kept per root (each a path and ten words): past it, binary files are read as before. */
const MAX_VERDICTS = 65_536;
/**
 * A file whose mtime or ctime is less than this before the stat is not remembered: a later write in the same
 * tick of the file system's clock, of the same size, would leave its words as they were (as persist.ts's RACY_S).
 */
const RACY_S = 2;

/** A verdict: the file's words when it was found binary, and the bytes sniffed for a NUL then. */
interface Verdict {
  readonly words: Uint32Array;
  readonly sniff: number;
}

/** What one query asks of the verdicts: whether a file is known binary, and what its read found. */
interface BinaryQuery {
  /**
   * Tells whether a file is known binary now (it is then skipped as binary unread); otherwise its words are
   * taken, before it is read, for `saw`.
   * @param abs the file's absolute path
   * @param maxFileSize the query's size cap (a larger file is read: it is skipped as too large)
   */
  known(abs: string, maxFileSize: number): boolean;
  /**
   * Keeps or drops a file's verdict once its read ended.
   * @param abs the file's absolute path
   * @param binary whether the read found it binary
   */
  saw(abs: string, binary: boolean): void;
  /** Files skipped as binary unread by this query. */
  readonly skipped: number;
}

/** The binary verdicts of one root. */
export class BinaryVerdicts {
  private readonly byPath = new Map<string, Verdict>();
  private readonly scratch = new Uint32Array(STAT_WORDS);

  /** Forgets every verdict (the watch lost events, the root started again). */
  clear(): void {
    this.byPath.clear();
  }

  /**
   * Forgets the verdict of a path and of every path below it (an event named it).
   * @param abs the path
   * @param below also the paths below it (a directory)
   */
  forget(abs: string, below: boolean): void {
    this.byPath.delete(abs);
    if (!below || this.byPath.size === 0) return;
    const prefix = abs.endsWith("/") ? abs : `${abs}/`;
    for (const p of this.byPath.keys()) if (p.startsWith(prefix)) this.byPath.delete(p);
  }

  /**
   * Forgets the verdicts of files by inode (a hard link made to them in the tree: a write through the new name
   * sends no event for the old one).
   * @param inodes the inodes
   */
  forgetInodes(inodes: ReadonlySet<number>): void {
    for (const [p, v] of this.byPath) if (inodes.has(inoOf(v.words))) this.byPath.delete(p);
  }

  /** How many verdicts are kept (tests, status). */
  get size(): number {
    return this.byPath.size;
  }

  /**
   * Starts a query's use of the verdicts.
   * @param sniff the bytes the query sniffs for a NUL (a verdict made with another count is not used)
   * @param suspect tells a file the watch cannot vouch for (by path and inode): it is read
   * @param byWatch the watch vouches for the files it sent no event for (the index's files are not stat'ed either):
   *   a verdict is then used without a stat, by the words it was kept with (#36: a stat per binary file a call)
   * @returns the query's view
   */
  query(sniff: number, suspect: (abs: string, ino: number) => boolean, byWatch = false): BinaryQuery {
    const pending = new Map<string, Uint32Array>();
    const scratch = this.scratch;
    const byPath = this.byPath;
    let skipped = 0;
    return {
      known(abs, maxFileSize) {
        if (byWatch) {
          // Kept while no event named it (forget), no link was made to it in the tree (forgetInodes) and it is no
          // suspect: its words as kept are its words now.
          const v = byPath.get(abs);
          if (v !== undefined && v.sniff === sniff && !suspect(abs, inoOf(v.words))) {
            if (sizeOf(v.words) > maxFileSize) return false;
            skipped++;
            return true;
          }
        }
        // One link only: a write through another name, mapped, would change neither these words nor send an event.
        const one = wordsAndLinks(abs, scratch, 0) === 1;
        const v = byPath.get(abs);
        if (v !== undefined) {
          if (!one || v.sniff !== sniff || !sameWords(v.words, scratch)) byPath.delete(abs);
          else if (!suspect(abs, inoOf(scratch))) {
            if (sizeOf(scratch) > maxFileSize) return false;
            skipped++;
            return true;
          }
        }
        // Read (changed, never met, or a suspect, which a writer may hold): what the read finds is kept by the words
        // taken before it, and used only once the file is no suspect (a write through a mapping ends in an event).
        if (one && newestTime(scratch, 0) < Date.now() / 1000 - RACY_S) pending.set(abs, scratch.slice());
        else byPath.delete(abs);
        return false;
      },
      saw(abs, binary) {
        const words = pending.get(abs);
        if (words === undefined) return;
        pending.delete(abs);
        if (!binary) byPath.delete(abs);
        else if (byPath.has(abs) || byPath.size < MAX_VERDICTS) byPath.set(abs, { words, sniff });
      },
      get skipped() {
        return skipped;
      },
    };
  }
}

/** The inode in a file's stat words. */
function inoOf(w: Uint32Array): number {
  return (w[8] as number) + (w[9] as number) * 4294967296;
}

/** The size in a file's stat words. */
function sizeOf(w: Uint32Array): number {
  return (w[0] as number) + (w[1] as number) * 4294967296;
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < STAT_WORDS; i++) if (a[i] !== b[i]) return false;
  return true;
}
