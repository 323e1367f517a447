/*! Contract: the records shared by several operations (FileMatch). Operation-specific records live in
 * ops/<op>/schema.ts. Models only: no I/O, no transforms (every model must convert to JSON Schema). */
import * as v from "valibot";

/** Entry kinds, as `--type` letters: f file, d directory, l symlink, x executable file, e empty, p fifo, s socket, b block device, c char device. */
const KINDS = ["f", "d", "l", "x", "e", "p", "s", "b", "c"] as const;
/** Creates the Kind model. */
export const KindSchema = v.picklist(KINDS);
export type Kind = v.InferOutput<typeof KindSchema>;

/** What an entry is itself (lstat): a symlink is "symlink" whether or not it is followed (its kinds then carry the
 * target's letter too). The JSONL `kind` of a FileMatch stays "file": it names the record, not the entry. */
const ENTRY_TYPES = ["file", "dir", "symlink", "fifo", "socket", "block", "char"] as const;
/** Creates the EntryType model. */
const EntryTypeSchema = v.picklist(ENTRY_TYPES);
export type EntryTypeName = v.InferOutput<typeof EntryTypeSchema>;

/** The entry's own type, in every record of a walk entry (find, top, tree): spread it into the record's model. */
export const ENTRY_TYPE = {
  entry_type: v.pipe(
    EntryTypeSchema,
    v.description(
      "What the entry is itself: file, dir, symlink (followed or not), fifo, socket, block or char. JSONL's kind names the record, not the entry.",
    ),
  ),
};

/** A symlink's facts, present only on the record of a symlink: spread them into the record's model. */
export const LINK_FIELDS = {
  link_target: v.optional(
    v.pipe(v.string(), v.description("Symlinks only: the target as written in the link (readlink).")),
  ),
  link_target_exists: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Symlinks only: whether the target exists once every link on the way is followed (false: a broken link or a loop).",
      ),
    ),
  ),
  link_target_type: v.optional(
    v.pipe(
      v.nullable(v.picklist(["f", "d", "p", "s", "b", "c"])),
      v.description(
        "Symlinks only: what the chain of links ends at, in --type's letters: f file, d directory, p fifo, s socket, b/c device; null when it leads nowhere (broken, a loop).",
      ),
    ),
  ),
  link_escapes: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Symlinks only: whether the path it leads to (resolved as realpath -m) is outside the base; such a link is never followed under strict_base.",
      ),
    ),
  ),
  link_resolved: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Symlinks only: where the chain of links ends, every link on the way followed (realpath -m; a loop ends at the link met twice): relative to the base when inside it ('.' for the base), absolute when outside.",
      ),
    ),
  ),
};

/**
 * The lossless form of a path that is not valid UTF-8, in every record that has a `path`: spread it into the
 * record's model. `path` and `relative_path` then hold U+FFFD for the bad bytes (as Buffer#toString gives).
 */
/** The field a record carries under only_ignored: the ignore rule that leaves its path out (#37). */
export const IGNORED_BY = {
  ignored_by: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "With only_ignored: the rule that ignores this path, as git check-ignore -v gives it: FILE:LINE:PATTERN (the ignore file relative to the base, or absolute outside it).",
      ),
    ),
  ),
};

/** With entries_inside (a folded ignored directory, find's and explain's): its regular files and directories. */
export const INSIDE_COUNTS = {
  files_inside: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.description("With entries_inside: how many of them are regular files (as find -type f)."),
    ),
  ),
  dirs_inside: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.description("With entries_inside: how many of them are directories."),
    ),
  ),
};

/** The field of find's record of an ignored directory listed as one under only_ignored (#37). */
const ENTRIES_INSIDE = {
  entries_inside: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.description(
        "With only_ignored (expand not set): on an ignored directory, how many entries it holds at every depth; they share its rule and are not listed.",
      ),
    ),
  ),
  ...INSIDE_COUNTS,
};

/** The input entry of the operations that can list what the ignore rules leave out (find, grep). */
export const onlyIgnoredEntries = {
  only_ignored: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Only the ignored entries, each with its rule. Records say ignored_by (FILE:LINE:PATTERN); the other filters apply.",
      ),
    ),
    false,
  ),
};

export const PATH_BYTES = {
  path_bytes: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Base64 of the absolute path's raw bytes; present only when the path is not valid UTF-8 (`path` and `relative_path` then hold U+FFFD for the bad bytes).",
      ),
    ),
  ),
};

/** What a user checks with stat(1) (#37): the permission bits and the owner, absent when the entry's stats
 * could not be read. */
const STAT_FIELDS = {
  mode: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-7]{1,4}$/),
      v.description(
        "Permission bits in octal, as `stat -c %a` (setuid, setgid and sticky included, file type left out; a symlink's own, 777).",
      ),
    ),
  ),
  uid: v.optional(v.pipe(v.number(), v.integer(), v.description("Owner user id, as `stat -c %u`."))),
  gid: v.optional(v.pipe(v.number(), v.integer(), v.description("Owner group id, as `stat -c %g`."))),
};

/** The FileMatch record: one file system entry selected by a query. */
export const FileMatchSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(
      v.string(),
      v.description("POSIX path relative to the request's base, never starting with ./"),
    ),
    size: v.pipe(
      v.number(),
      v.integer(),
      v.description("Size in bytes (of the link itself for a symlink that is not followed)."),
    ),
    mtime: v.pipe(v.string(), v.description("Modification time, ISO 8601 UTC with Z.")),
    kinds: v.pipe(
      v.array(KindSchema),
      v.description(
        "Kind letters: f file, d directory, l symlink, x executable, e empty, p fifo, s socket, b/c devices.",
      ),
    ),
    ...STAT_FIELDS,
    ...ENTRY_TYPE,
    ...LINK_FIELDS,
    encoding: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "find with saved_as naming an encoding: the file's encoding, as saved_as names it (utf-8, utf-8+bom, utf-16le, windows-1252, binary…).",
        ),
      ),
    ),
    eol: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "find with saved_as naming line ends: the text file's, as git ls-files --eol: crlf (every line end CR LF), lf, mixed, none.",
        ),
      ),
    ),
    ...IGNORED_BY,
    ...ENTRIES_INSIDE,
  }),
  v.title("FileMatch"),
  v.description("A file system entry selected by the query."),
);
export type FileMatch = v.InferOutput<typeof FileMatchSchema>;
