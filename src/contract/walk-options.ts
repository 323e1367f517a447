/*! Contract: the walk and budget options shared by every operation that selects files (find, grep, count,
 * dupes, tree, top, stats, explain). Models only; engine/plan.ts compiles them. */
import * as v from "valibot";
import { KindSchema } from "./records.ts";

const int = (min: number, text: string) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.description(text));
const sizeValue = (text: string) =>
  v.pipe(
    v.union([v.pipe(v.number(), v.integer(), v.minValue(0)), v.pipe(v.string(), v.minLength(1))]),
    v.description(text),
  );
const strings = (text: string) => v.pipe(v.array(v.string()), v.description(text));

/** The entries that select files: roots, globs, predicates and ignore rules. */
export const walkEntries = {
  base: v.optional(
    v.pipe(v.string(), v.minLength(1), v.description("Base directory: relative paths start there.")),
    ".",
  ),
  paths: v.optional(
    strings("Roots to search: files or directories. Relative to base or absolute; default: the base itself."),
    [],
  ),
  patterns: v.optional(
    strings(
      "Glob filters, OR'd; '!' negates ('!*.md' excludes), as rg -g. Without '/' a glob matches the basename; with '/' or '**' it matches the relative path, and '*' does not cross '/'. A leading '/' or './' anchors at the base ('./a.txt' is only the a.txt directly under it). A trailing '/' matches directories only, as in .gitignore, and the rest is classified as if it were absent: 'build/' is every directory named build, 'src/*/' the directories directly under src. Syntax: '*', '?', '**', '{a,b}', '\\x', brackets '[a-z]', '[!a-z]' and POSIX classes inside them ('[[:digit:]_]', ASCII as in the C locale; an unknown class is an error).",
    ),
    [],
  ),
  exclude: v.optional(
    strings(
      "Globs to exclude; a matching directory is not entered. Matched as patterns are (a trailing '/' excludes directories only: 'build/' prunes directories named build, not files).",
    ),
    [],
  ),
  types: v.optional(
    v.pipe(
      v.array(KindSchema),
      v.description(
        "Kinds as fd -t, OR'd; x (any execute bit), e (empty) AND'd. x: user, group or other, as --perm /111 (GNU find's -executable asks access(2)); a symlink only when followed. With follow_symlinks, l = a link that is not followed: one that leads nowhere (broken, or links that loop) and, under strict_base, one that leads outside the base.",
      ),
    ),
    [],
  ),
  extensions: v.optional(
    strings("File extensions, OR'd, either case (fd -e). 'md' keeps a.md and B.MD; 'py,sh' names two."),
    [],
  ),
  file_types: v.optional(
    strings(
      "Languages to keep, OR'd: 'py', 'ts'; files only. Names as rg's --type ('rust', 'go'…); a comma list names several ('java,kotlin').",
    ),
    [],
  ),
  file_types_not: v.optional(
    strings("Languages to leave out (rg's --type-not). A comma list names several ('md,txt')."),
    [],
  ),
  type_add: v.optional(
    strings("Define file types (rg's --type-add): 'NAME:GLOB' or 'NAME:include:A,B'."),
    [],
  ),
  min_size: v.optional(
    sizeValue(
      "Minimum size, inclusive, files only. Bytes, '10k' = '10K' = '10KiB' (1024-based), '100kb' (1000-based). A signed value is fd's: '+3k' = 3000, '+3ki' = 3072.",
    ),
  ),
  max_size: v.optional(
    sizeValue(
      "Maximum size, inclusive (files only). Units as min_size. As fd's '-10k': at most 10000 bytes.",
    ),
  ),
  size: v.optional(
    strings(
      "fd's -S sizes, AND'd, inclusive, files only. '+3k' at least 3000 bytes, '-1mi' at most 1048576, '10b' exactly.",
    ),
    [],
  ),
  newer_than: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Modified after: '7d' ago or an ISO date. A duration ('7d', '30m'), an ISO date or datetime, or fd's words ('2weeks'); naive = UTC; a date or time that does not exist, such as 2024-02-30, is refused; the result's time_window says the instants used.",
      ),
    ),
  ),
  older_than: v.optional(
    v.pipe(
      v.string(),
      v.description("Modified before: '7d' ago or an ISO date. Values and rules as newer_than."),
    ),
  ),
  newer_than_file: v.optional(v.pipe(v.string(), v.description("Modified after this file was."))),
  perm: v.optional(
    v.pipe(
      v.union([v.string(), v.array(v.string())]),
      v.description(
        "Permission bits as find -perm, AND'd, octal or symbolic, '!' negating: '!u+x' owner cannot execute. Given again, all must hold. '644' or 'u=rw,go=r': exactly these bits; '-111', '-u+x' or 'u+x': all of them; '/222' or '/u+w,g+w': any of them; '!' before any: the complement ('!/111': no execute bit at all). Symbolic: who u g o a (none = a), operators + = - applied in order to no bits, perms r w x (setuid, setgid, sticky: octal). 'u+x' with no prefix means '-u+x' (find reads it as exactly 0100: write 'u=x').",
      ),
    ),
  ),
  nlink: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Hard link count, as find -links. '2': exactly 2; '+1': more than 1 (a file with another hard link); '-2': fewer than 2. Any entry kind; a followed link's target's.",
      ),
    ),
  ),
  saved_as: v.optional(
    strings(
      "Encoding utf-8, utf-16, latin-1; line ends crlf (all), mixed (some), lf; '!' negates. As {encoding} names a file's head: utf-8 (ASCII, empty, +bom; utf-8+bom: BOM only), utf-16 (both byte orders), windows-1252 (latin-1: not UTF-8), binary; as {eol} (git ls-files --eol) a text file's, read whole: crlf (every line end CR LF), mixed (CR LF and lone LF), lf, none (no LF). A kind's values OR'd, kinds AND'd ('utf-8,crlf'); '!' keeps text only",
    ),
  ),
  uid: v.optional(int(0, "Owner user id (POSIX).")),
  gid: v.optional(int(0, "Owner group id (POSIX).")),
  max_depth: v.optional(int(0, "Maximum depth below a root. 1 = its direct children; 0 = nothing below it.")),
  min_depth: v.optional(int(0, "Minimum depth below a root.")),
  hidden: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Include dot entries; false skips them. As git; fd and rg skip them. Hidden entries are names starting with '.'. VCS metadata directories (.git .hg .svn .bzr .jj .sl) are never listed either way.",
      ),
    ),
    true,
  ),
  respect_gitignore: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Respect ignore files. They are .gitignore, .ignore, .git/info/exclude, the global excludes file, and those in the directories above each root (a symlinked, FIFO, device or over-1-MiB ignore file is never read: an error record says so).",
      ),
    ),
    true,
  ),
  ignore_vcs: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Respect version-control ignore files: .gitignore, .git/info/exclude and the global excludes file (false: only .ignore files and ignore_files apply, as ripgrep's --no-ignore-vcs).",
      ),
    ),
    true,
  ),
  ignore_dot: v.optional(
    v.pipe(v.boolean(), v.description("Respect .ignore files (false: as ripgrep's --no-ignore-dot).")),
    true,
  ),
  ignore_parent: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Respect ignore files above each root. .ignore up to the file system root, .gitignore up to the repository root (false: as ripgrep's --no-ignore-parent).",
      ),
    ),
    true,
  ),
  global_ignore_file: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Respect git's core.excludesFile. The global excludes file's default place is ~/.config/git/ignore (false: as fd's --no-global-ignore-file, ripgrep's --no-ignore-global).",
      ),
    ),
    true,
  ),
  ignore_files: v.optional(
    strings(
      "Extra ignore files in .gitignore syntax, relative to base; their patterns are relative to base, they have the lowest priority, and they apply even when respect_gitignore is false (as ripgrep's --ignore-file).",
    ),
    [],
  ),
  follow_symlinks: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Follow symlinks (a directory met again on its own path, a loop, is reported and not entered; a link that leads nowhere, broken or looping, is listed as a link).",
      ),
    ),
    false,
  ),
  one_file_system: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Stay on each root's filesystem. Directories on another one are not entered (fd, rg)."),
    ),
    false,
  ),
  strict_base: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Never emit or read a path that leaves the base after resolving symlinks."),
    ),
    false,
  ),
  case_sensitive: v.optional(
    v.pipe(v.boolean(), v.description("Case-sensitive globs. Default true, except on macOS and Windows.")),
  ),
};

/** The sorts of symlinks `links` selects. */
const LINK_SELECTORS = ["broken", "escaping", "absolute", "ok", "file", "dir"] as const;

/** The link selector of the operations that list entries (find, tree, stats, explain). */
export const linkEntries = {
  links: v.optional(
    v.pipe(
      v.array(v.picklist(LINK_SELECTORS)),
      v.description(
        "Keep only symlinks of these sorts. broken: the target does not exist, or the links loop; escaping: it leads outside the base; absolute: its text is an absolute path; ok: it works and stays inside; OR'd. file, dir: where the chain ends (find -xtype f, d), AND'd with those ('dir,escaping').",
      ),
    ),
  ),
};

/** The option of the operations that read contents (grep, count): skipped binary files listed, not only counted. */
export const binaryListEntries = {
  list_binary: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "List skipped binary files as BINARY errors. By default they are only counted (skipped.binary).",
      ),
    ),
    false,
  ),
};

/** The entries that bound a request. */
export const budgetEntries = {
  limit: v.optional(
    int(
      0,
      "Maximum number of records. More sets truncated ('limit') and a next_cursor. 0 gives the summary alone: the whole run's totals and skip ledger, no record and no next_cursor; truncated says whether there were records.",
    ),
  ),
  max_output_bytes: v.optional(int(1, "Most bytes of the records as JSON.")),
  timeout_seconds: v.optional(
    v.pipe(
      v.number(),
      v.minValue(0.01),
      v.description("Stop after this many seconds. truncated_reason is then 'timeout'."),
    ),
  ),
  cursor: v.optional(v.pipe(v.string(), v.description("A previous page's next_cursor, same query."))),
};

/** Creates the walk options object model (used to infer the WalkOptions type). */
export const WalkOptionsSchema = v.object({ ...walkEntries, ...linkEntries });
/** The validated walk options. */
export type WalkOptions = v.InferOutput<typeof WalkOptionsSchema>;
