/*! What a directory listing holds: its names and the types of the entries that are not regular files. Types
 * only, shared by the platform door and the descriptor lister (so neither imports the other for them). */
/** The type of a directory entry, as listed (not followed). */
export type EntryType = "file" | "dir" | "symlink" | "fifo" | "socket" | "block" | "char" | "unknown";

/**
 * A directory's entries: every name, and the types of the entries that are not regular files. Most entries are
 * files, so the walk looks a name up only among the few others, and no object is made per entry.
 */
export interface DirListing {
  /** The names, in no particular order (the walk sorts them in place). */
  readonly names: string[];
  /** Types of the entries that are not regular files (null when there are none). A name that is not valid
   * UTF-8 is held losslessly (names.ts) and listed as "unknown" (the walk reads its type). */
  readonly others: ReadonlyMap<string, EntryType> | null;
}
