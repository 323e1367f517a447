/*! grep: input, record and output models. Validation only; matchers are compiled in engine/search/matcher.ts
 * and operands are classified in ops/grep/operands.ts. */
import * as v from "valibot";
import { BY_KEYS, BY_TEXT, KEY_TEXT } from "../../contract/breakdown.ts";
import { IGNORED_BY, onlyIgnoredEntries, PATH_BYTES } from "../../contract/records.ts";
import { DOCSTRING_CLASSES, IN_NAMES, REGION_NAMES } from "../../contract/regions.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { binaryListEntries, budgetEntries, walkEntries } from "../../contract/walk-options.ts";

const int = (min: number, text: string) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.description(text));
const flag = (text: string) => v.optional(v.pipe(v.boolean(), v.description(text)), false);
const sizeValue = (text: string) =>
  v.pipe(
    v.union([v.pipe(v.number(), v.integer(), v.minValue(0)), v.pipe(v.string(), v.minLength(1))]),
    v.description(text),
  );

/** Creates the grep input model. */
export const GrepInputSchema = v.pipe(
  v.strictObject({
    pattern: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "A regex, rg's or JavaScript's (a literal with fixed_strings). ripgrep's [[:upper:]], \\x{52}, (?i) (?s) (?U) (?i:…), \\A \\z and (?P<name>…) mean what they mean in rg; what has no exact equivalent (\\h, (?x), class set operations) is refused as REGEX. '.' matches anything but a newline (LF). \\b, \\w and \\d are ASCII, as in JavaScript; word_regexp counts any Unicode letter or digit as part of a word. A pattern that repeats a group runs on a linear-time engine; one that also holds a back-reference or a lookaround is refused (REGEX) rather than risk a silent miss.",
        ),
      ),
    ),
    regexps: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "More patterns, OR'd with `pattern` (CLI -e, repeatable; then every operand is a path).",
        ),
      ),
      [],
    ),
    operands: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "CLI operands, classified at plan time: the first is the pattern unless `pattern` or `regexps` is given; then an operand that exists (relative to base) is a root, and so is one that holds a `/` and no glob metacharacter (a missing one is a NOT_FOUND error record); anything else is a glob filter.",
        ),
      ),
      [],
    ),
    ...walkEntries,
    ...budgetEntries,
    fixed_strings: flag("Literal patterns, not regular expressions."),
    ignore_case: flag("Match case-insensitively."),
    smart_case: flag("Case-insensitive when every pattern is lower case. Else case-sensitive."),
    word_regexp: flag(
      "Only match whole words. A word is not preceded or followed by a letter, digit or '_'.",
    ),
    line_regexp: flag("Only match whole lines."),
    invert_match: flag("Select the lines that do not match."),
    multiline: flag(
      "Let a match span lines. The record holds every line it spans ('.' still stops at a newline) and counts as one matching line; invert_match selects the lines outside every match. Without it a pattern holding a newline is refused (REGEX).",
    ),
    only_matching: flag("One record per match, its matched text only. Context as rg -o gives it."),
    before_context: v.optional(int(0, "Lines of context before each match, in `before`.")),
    after_context: v.optional(int(0, "Lines of context after each match, in `after`.")),
    context: v.optional(int(0, "Lines of context before and after each match.")),
    files_with_matches: flag("List the files that match, not the lines. Records of kind 'file'."),
    files_without_match: flag("List the files that do not match. Records of kind 'file'."),
    count: flag(
      "Count matching lines per file (records of kind 'file' with `count`); the summary total is exact even when the listing is cut by limit.",
    ),
    count_matches: flag(
      "Count matches per file, not matching lines. Records of kind 'file' with `count`; count with only_matching does the same.",
    ),
    include_zero: flag(
      "With counts, list files without a match too. With count or count_matches; their count is 0, as in rg.",
    ),
    max_count: v.optional(
      int(
        1,
        "Stop after this many matching lines in all files. The reason is then 'max_count' (max_per_file is per file). With only_matching a line's matches count as one.",
      ),
    ),
    max_per_file: v.optional(
      int(
        1,
        "At most this many matching lines per file (rg's and grep's -m/--max-count); the after-context of a file's last one goes on through lines that match too.",
      ),
    ),
    max_bytes: v.optional(
      int(1, "Stop before reading more content bytes than this. The reason is then 'max_bytes'."),
    ),
    max_file_size: v.optional(
      sizeValue(
        "Skip larger files: bytes, '1M', '512K'. As TOO_LARGE; K = 1024; fd's '-10k' is at most 10000 bytes. A '+' size (fd's at least) is refused.",
      ),
    ),
    max_columns: v.optional(
      int(
        1,
        "Clip longer lines around the first match. Longer than this many characters (code points); `clipped` is set.",
      ),
    ),
    text: flag(
      "Search binary files as text and print their lines (a NUL byte in the first block means binary).",
    ),
    binary: flag(
      "Search binary files too, as rg's -uuu. One record each, with `binary_offset`, never its lines.",
    ),
    ...binaryListEntries,
    ...onlyIgnoredEntries,
    binary_sniff_bytes: v.optional(
      int(0, "Leading bytes checked for a NUL byte. A binary file has one; 0 disables."),
      8192,
    ),
    encoding: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description(
          "Decode files with this TextDecoder label or `auto`. Labels: latin1, shift_jis, utf-16le…; auto: by BOM, UTF-16 sniff, valid UTF-8, else windows-1252.",
        ),
      ),
    ),
    threads: v.optional(
      int(
        0,
        "Matching threads; 0: the calling thread. Default: 2 (at most the cores) on 4 cores or more, or with timeout_seconds and a regex pattern; else 0.",
      ),
    ),
    by: v.optional(
      v.pipe(
        v.picklist(BY_KEYS),
        v.description(
          `Break the totals (matches, matching lines, files with matches) down by this key. \`breakdown\` in the result; keys: ${BY_TEXT}. With limit 0, of the whole search and without the lines ("TODOs per top-level directory").`,
        ),
      ),
    ),
    in: v.optional(
      v.pipe(
        v.array(v.picklist(IN_NAMES)),
        v.minLength(1),
        v.description(
          "Keep matches starting in these regions. With all each match says its region. One or several (CLI: --in comment, --in code,string, --in all); comment keeps docstrings too (code does with docstrings=code), string never does. A match's region is that of its first character, multiline too. Files are lexed by language (count's: by name, else #!); one of none, or without comments or strings (plain text, CSV), is not searched and is counted in skipped.unknown_language. invert_match selects the lines where no match starts in these regions.",
        ),
      ),
    ),
    also: v.optional(
      v.pipe(
        v.array(
          v.strictObject({
            pattern: v.pipe(
              v.string(),
              v.description("A pattern with the query's fixed_strings, case, word and line options."),
            ),
            in: v.optional(
              v.pipe(
                v.array(v.picklist(IN_NAMES)),
                v.minLength(1),
                v.description(
                  "The regions it must match in (as `in`; default: the query's `in`, else anywhere).",
                ),
              ),
            ),
            not: v.optional(
              v.pipe(
                v.boolean(),
                v.description("The file is kept only when the pattern matches nowhere there."),
              ),
              false,
            ),
          }),
        ),
        v.description(
          "Only files each pattern also matches in (not: matches nowhere): items {pattern, in (default: the query's), not}, with the query's matching options; results and totals are `pattern`'s in the files kept (CLI: --also P [--also-in R], --without P).",
        ),
      ),
    ),
    docstrings: v.optional(
      v.pipe(
        v.picklist(DOCSTRING_CLASSES),
        v.description(
          "Docstrings as comment or code. Comment (the default) as cloc, code as tokei; for `in` and count.",
        ),
      ),
    ),
  }),
  v.title("GrepInput"),
  v.description("Search file contents by regular expression or literal."),
);
export type GrepInput = v.InferOutput<typeof GrepInputSchema>;

/** Creates the Submatch model. */
const SubmatchSchema = v.pipe(
  v.strictObject({
    start: v.pipe(
      v.number(),
      v.integer(),
      v.description("Start column in characters (code points), 0-based."),
    ),
    end: v.pipe(v.number(), v.integer(), v.description("End column in characters (code points), exclusive.")),
    byte_start: v.pipe(v.number(), v.integer(), v.description("Start column in UTF-8 bytes, 0-based.")),
    byte_end: v.pipe(v.number(), v.integer(), v.description("End column in UTF-8 bytes, exclusive.")),
    region: v.optional(
      v.pipe(
        v.picklist(REGION_NAMES),
        v.description(
          "With `in` naming several regions or all: the one it starts in (code, comment, string or docstring).",
        ),
      ),
    ),
  }),
  v.title("Submatch"),
  v.description(
    "Where one match lies in its line (columns count from the start of the line, not of `content`).",
  ),
);
export type Submatch = v.InferOutput<typeof SubmatchSchema>;

/** The `bom` field of grep's records. */
const BOM = {
  bom: v.optional(v.pipe(v.literal(true), v.description("True after a byte order mark."))),
};

/** Creates the ContextLine model. */
const ContextLineSchema = v.pipe(
  v.strictObject({
    line_number: v.pipe(v.number(), v.integer(), v.description("1-based line number.")),
    content: v.pipe(v.string(), v.description("The line, without its line terminator.")),
    clipped: v.pipe(v.boolean(), v.description("True when the line was cut to max_columns.")),
  }),
  v.title("ContextLine"),
  v.description("A context line around a match (not a match itself)."),
);
export type ContextLine = v.InferOutput<typeof ContextLineSchema>;

/** Creates the GrepContext model: a context line as a JSONL "context" record (not a match). */
export const GrepContextSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(v.string(), v.description("POSIX path relative to the request's base.")),
    ...ContextLineSchema.pipe[0].entries,
  }),
  v.title("GrepContext"),
  v.description(
    "A context line in a JSONL stream: each context line once, merged as grep does; JSON results carry context inside LineMatch.before/after instead.",
  ),
);

/** Creates the LineMatch model. */
export const LineMatchSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(v.string(), v.description("POSIX path relative to the request's base.")),
    line_number: v.pipe(
      v.number(),
      v.integer(),
      v.description("1-based number of the (first) matching line."),
    ),
    content: v.pipe(
      v.string(),
      v.description(
        "The matching line without its terminator (every spanned line with multiline; the matched text with only_matching).",
      ),
    ),
    clipped: v.pipe(v.boolean(), v.description("True when `content` was cut to max_columns.")),
    content_offset: v.pipe(
      v.number(),
      v.integer(),
      v.description(
        "Column (characters) of the line where `content` starts: 0 unless clipped or only_matching.",
      ),
    ),
    submatches: v.pipe(
      v.array(SubmatchSchema),
      v.description("Every match in the line (empty for an inverted match)."),
    ),
    before: v.optional(
      v.pipe(
        v.array(ContextLineSchema),
        v.description(
          "Context lines before, not already given with an earlier match of the file; present only when context was asked for (before_context or context).",
        ),
      ),
    ),
    after: v.optional(
      v.pipe(
        v.array(ContextLineSchema),
        v.description(
          "Context lines after; present only when context was asked for (after_context or context).",
        ),
      ),
    ),
    encoding: v.pipe(
      v.string(),
      v.description("How the file was decoded: utf-8, utf-16le, utf-16be, windows-1252 (auto) or the label."),
    ),
    ...BOM,
    ...IGNORED_BY,
  }),
  v.title("LineMatch"),
  v.description("A matching line of a file."),
);
export type LineMatch = v.InferOutput<typeof LineMatchSchema>;

/** Creates the GrepFile model. */
export const GrepFileSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(v.string(), v.description("POSIX path relative to the request's base.")),
    count: v.pipe(
      v.nullable(v.number()),
      v.description(
        "Matching lines in the file with count (matches with count_matches, or count and only_matching; 0 with files_without_match), else null.",
      ),
    ),
    encoding: v.optional(v.pipe(v.string(), v.description("As LineMatch's (utf-8 too)."))),
    ...BOM,
    binary_offset: v.optional(
      v.pipe(v.number(), v.integer(), v.description("With `binary`: the offset of its first NUL byte.")),
    ),
    ...IGNORED_BY,
  }),
  v.title("GrepFile"),
  v.description("A file listed by files_with_matches, files_without_match or count."),
);
export type GrepFile = v.InferOutput<typeof GrepFileSchema>;

/** Creates the skip counts model. */
const SkipCountsSchema = v.pipe(
  v.strictObject({
    binary: v.pipe(v.number(), v.integer()),
    too_large: v.pipe(v.number(), v.integer()),
    unreadable: v.pipe(v.number(), v.integer()),
    unknown_language: v.optional(v.pipe(v.number(), v.integer())),
  }),
  v.description(
    "Files not searched, by reason (binary, too_large, unreadable including permission denied; with `in`, unknown_language: files of no language with code regions).",
  ),
);

/** One row of a grep breakdown. */
const GrepGroupSchema = v.pipe(
  v.strictObject({
    key: v.pipe(v.string(), v.description(KEY_TEXT)),
    total_matches: v.pipe(v.number(), v.integer(), v.description("Matches in its files.")),
    matched_lines: v.pipe(v.number(), v.integer(), v.description("Matching lines in its files.")),
    files_with_matches: v.pipe(v.number(), v.integer(), v.description("Its files with at least one match.")),
  }),
  v.title("GrepGroup"),
  v.description("The totals of the files searched that share a breakdown key (only keys with a match)."),
);
export type GrepGroup = v.InferOutput<typeof GrepGroupSchema>;

/** Creates the LineSearchResult model (the output of grep). */
export const LineSearchResultSchema = v.pipe(
  v.strictObject({
    results: v.array(v.union([LineMatchSchema, GrepFileSchema])),
    ...resultMetaEntries,
    total_matches: v.pipe(
      v.number(),
      v.integer(),
      v.description("Matches found (submatches; matching lines with invert_match) in the files searched."),
    ),
    matched_lines: v.pipe(v.number(), v.integer(), v.description("Matching lines in the files searched.")),
    files_with_matches: v.pipe(v.number(), v.integer(), v.description("Files with at least one match.")),
    files_skipped: SkipCountsSchema,
    encodings: v.pipe(
      v.record(v.string(), v.pipe(v.number(), v.integer())),
      v.description(
        "Files read that are not plain UTF-8, by how decoded: utf-8+bom, utf-16le…, invalid-utf-8, windows-1252, binary.",
      ),
    ),
    not_utf8: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "Files read as UTF-8 that are not valid UTF-8 (10 at most); encoding auto decodes them.",
        ),
      ),
    ),
    left_out_by_in: v.optional(
      v.pipe(
        v.strictObject({
          matches: v.pipe(v.number(), v.integer(), v.description("Matches left out.")),
          files: v.pipe(v.number(), v.integer(), v.description("Files with a match left out.")),
        }),
        v.description(
          "Present with `in` (not with invert_match): the matches found that start outside the regions asked for, and their files; counted as far as each file was searched (max_per_file, files_with_matches stop early).",
        ),
      ),
    ),
    left_out_by_also: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.description("With `also`: files a condition left out that would be listed otherwise."),
      ),
    ),
    utf16_files: v.optional(
      v.pipe(v.array(v.string()), v.description("Files decoded from UTF-16 (BOM or not), the first 20.")),
    ),
    breakdown: v.optional(
      v.pipe(
        v.array(GrepGroupSchema),
        v.description(
          "With `by`: the totals per key, most matching lines first (then by key); they cover the files the totals cover.",
        ),
      ),
    ),
    source: v.optional(
      v.pipe(
        v.picklist(["index", "warm_list", "cold"]),
        v.description(
          "Where a server's answer came from (for debugging; results are the same): its content index, its remembered file list, or a walk. Absent outside `rglob mcp`.",
        ),
      ),
    ),
  }),
  v.title("LineSearchResult"),
  v.description(
    "Matches in walk order. Totals cover the files searched before the result stopped; with count they cover every file even when limit cuts the listing.",
  ),
);
export type LineSearchResult = v.InferOutput<typeof LineSearchResultSchema>;
