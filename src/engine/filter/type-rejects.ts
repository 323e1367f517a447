/*! Engine filter: the files a file type (`file_types`) leaves out that are of no known type, kept by the query's own
 * walk for the --lang shebang note (src/surface/shebangs.ts), so the note reads their first lines without walking
 * the query again (#37). The walk's select lets such a file through (in a walk worker too, and in a server's
 * remembered selections); `admit`, in the calling thread, keeps it here in walk order and takes it out. */
import type { EntryType } from "../../platform/listing.ts";

/** What the tests read of a walk entry (walk-types.ts's Entry, which holds the plan that holds these). */
interface Seen {
  readonly abs: string;
  readonly rel: string;
  readonly name: string;
  readonly type: EntryType;
  readonly target: EntryType;
}

/** A file the type left out: its absolute path and its path relative to the base. */
interface TypeReject {
  readonly abs: string;
  readonly rel: string;
}

/** The files of no known type a query's walk met that pass its every other test, the first MOST of them. */
export class TypeRejects {
  /** The most files kept: the note reads the first line of each. */
  static readonly MOST = 1000;
  /** The files kept, in walk order. */
  readonly files: TypeReject[] = [];
  /** There were more than MOST. */
  more = false;
  /** The walk went over every entry, from the first (no cursor, not stopped): only then do the files say all. */
  complete = false;

  /**
   * Keeps a file (its first MOST).
   * @param e the entry
   */
  keep(e: Seen): void {
    if (this.files.length < TypeRejects.MOST) this.files.push({ abs: e.abs, rel: e.rel });
    else this.more = true;
  }
}

/** How a plan with file types treats the files of no known type that pass its other tests. */
export interface TypeRejectTests<E extends Seen> {
  /** The select test of the types: true for a file of an asked type, and for such a file. */
  readonly select: (e: E) => boolean;
  /** In the calling thread: false for such a file, which it keeps; null in a walk worker. */
  readonly admit: ((e: E) => boolean) | null;
  /** Where it keeps them, or null in a walk worker. */
  readonly rejects: TypeRejects | null;
}

/**
 * Compiles the file type test of a plan that keeps the files the types leave out that are of no known type.
 * @param fileType the types' test of (name, isFile)
 * @param unknown the test of (name, isFile) that is true for a file of no known type
 * @param isFile the test of the kind the note reads (a regular file, as `--type f` selects it)
 * @param keep whether this thread keeps them (false in a walk worker: the calling thread does)
 * @returns the tests
 */
export function typeRejectTests<E extends Seen>(
  fileType: (name: string, isFile: boolean) => boolean,
  unknown: (name: string, isFile: boolean) => boolean,
  isFile: (e: E) => boolean,
  keep: boolean,
): TypeRejectTests<E> {
  const asked = (e: E): boolean => fileType(e.name, e.target === "file");
  // A record's entry_type "file": what the entry is itself (an unreadable type counts as a file).
  const candidate = (e: E): boolean =>
    (e.type === "file" || e.type === "unknown") && isFile(e) && unknown(e.name, e.target === "file");
  const select = (e: E): boolean => asked(e) || candidate(e);
  if (!keep) return { select, admit: null, rejects: null };
  const rejects = new TypeRejects();
  const admit = (e: E): boolean => {
    if (asked(e)) return true;
    rejects.keep(e);
    return false;
  };
  return { select, admit, rejects };
}
