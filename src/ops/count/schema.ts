/*! count: input and output models (also used by the lcount alias). Validation only; the run is run.ts. */
import * as v from "valibot";
import { BY_KEYS, BY_TEXT, KEY_TEXT } from "../../contract/breakdown.ts";
import { PATH_BYTES } from "../../contract/records.ts";
import { DOCSTRING_CLASSES } from "../../contract/regions.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { binaryListEntries, budgetEntries, walkEntries } from "../../contract/walk-options.ts";
import { LANGUAGE_NAMES } from "../../engine/languages.ts";
import { blockCommentsNest } from "../../engine/regions/regions.ts";

const int = (text: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(text));

/** The entries that choose what a line is and how text is read (count and lcount). */
export const lineEntries = {
  no_empty: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Leave blank lines out of `lines`. non_blank and code are always given."),
    ),
    false,
  ),
  no_comments: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Leave comment lines out of `lines` (docstring lines too unless docstrings=code), with the comment markers of each file's language (// # -- ; /* */ <!-- --> …).",
      ),
    ),
    false,
  ),
  docstrings: v.optional(
    v.pipe(
      v.picklist(DOCSTRING_CLASSES),
      v.description(
        "Docstrings as comment or code. Comment (the default) as cloc, code as tokei; for `in` and count. A docstring line (a Python string statement of its own, a Julia string before a definition, Elixir's @doc/@moduledoc/@typedoc) is a comment line as cloc counts it, a code line with code as tokei does; `docstring` counts them either way.",
      ),
    ),
  ),
  encoding: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.description(
        "Text encoding: ASCII-compatible encodings (utf-8, latin1, …) are counted on raw bytes; utf-16le/utf-16be by 16-bit units. UTF-16 is detected by a byte order mark whatever this says, and without one (as grep and find's {encoding}) under utf-8.",
      ),
    ),
    "utf-8",
  ),
};

/** Creates the count input model. */
export const CountInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...binaryListEntries,
    ...budgetEntries,
    ...lineEntries,
    threads: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.maxValue(16),
        v.description(
          "Worker threads that count besides the walking thread (0 = none; default: none below four hardware threads, else up to 3). Execution only: the result is the same.",
        ),
      ),
    ),
    by: v.optional(v.pipe(v.picklist(BY_KEYS), v.description(`Break the totals down by ${BY_TEXT}.`))),
    classify: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Show each line's class. Per file: line_classes (one letter per line: c code, # comment, d docstring, . blank) and line_notes, the lines worth a check with why (comment only, docstring, shebang, code and a comment, only a string that is not a docstring, blank inside a block comment), at most 200 per file. Meant for a few named files.",
        ),
      ),
      false,
    ),
  }),
  v.title("CountInput"),
  v.description("Count files, lines, bytes, non-blank, code, comment and blank lines of the selected files."),
);
export type CountInput = v.InferOutput<typeof CountInputSchema>;

/** The CountFile record: the counts of one text file. */
export const CountFileSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(
      v.string(),
      v.description("POSIX path relative to the request's base, never starting with ./"),
    ),
    lines: int(
      "Lines: newline bytes plus one for a last line without a newline (wc -l does not count that one); blank or comment lines left out when no_empty or no_comments is set.",
    ),
    bytes: int("Size in bytes (bytes read)."),
    non_blank: int("Lines holding something other than white space."),
    code: int(
      "Non-blank lines holding something outside comments and docstrings (every non-blank line for unknown languages), and the docstring lines with docstrings=code; a line with code and a comment is a code line.",
    ),
    comment: int(
      "Non-blank lines holding only comments (markers of the file's language; a shebang line in a language whose comments start with '#'; a blank line inside a block comment is blank, not comment), and the docstring lines unless docstrings=code. non_blank = code + comment.",
    ),
    blank: int(
      "Lines holding only white space (space, tab, CR, VT, FF), inside block comments too; counted whatever no_empty says. blank + code + comment = the file's lines before no_empty or no_comments left any out.",
    ),
    language: v.pipe(
      v.nullable(v.string()),
      v.description(
        "Language from the file name (built-in table), else from a #! line naming a known interpreter, or null.",
      ),
    ),
    line_classes: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "With classify: one letter per line, in order: c code, # comment, d docstring (counted as comment, or code with docstrings=code), . blank.",
        ),
      ),
    ),
    line_notes: v.optional(
      v.pipe(
        v.array(
          v.strictObject({
            line: v.pipe(v.number(), v.integer(), v.minValue(1), v.description("1-based line number.")),
            class: v.pipe(
              v.picklist(["code", "comment", "blank"]),
              v.description("How the line was counted."),
            ),
            why: v.pipe(v.string(), v.description("Why: the rule that decided.")),
            text: v.pipe(v.string(), v.description("The line (its first 200 characters).")),
          }),
        ),
        v.description(
          "With classify: the comment and docstring lines and the ambiguous ones (shebang, code and a comment, only a string that is not a docstring, blank inside a block comment), each with its class and why; at most 200 per file.",
        ),
      ),
    ),
  }),
  v.title("CountFile"),
  v.description("The line and byte counts of one text file."),
);
export type CountFile = v.InferOutput<typeof CountFileSchema>;

const countEntries = {
  files: int("Text files counted (binary files are not)."),
  lines: int("Sum of `lines`."),
  bytes: int("Sum of `bytes`."),
  non_blank: int("Sum of `non_blank`."),
  code: int("Sum of `code`."),
  comment: int("Sum of `comment` (comment-only lines, docstring lines unless docstrings=code)."),
  docstring: int(
    "Docstring lines (only docstrings and comments on the line): in comment by default, in code with docstrings=code; comment - docstring is tokei's comment count.",
  ),
  blank: int("Sum of `blank` (blank lines)."),
};

/** The totals of a count: exact for the whole query, whatever limit cut the listing. */
const CountTotalsSchema = v.pipe(
  v.strictObject({
    ...countEntries,
    binary_files: int(
      "Binary files (a NUL byte in the first 8 KiB): skipped and counted here (listed as BINARY errors only with list_binary).",
    ),
    binary_bytes: int(
      "Sizes of those binary files, in bytes: not in `bytes`, which sums the text files counted (as cloc and tokei count), so bytes + binary_bytes is what wc -c gives for every selected file.",
    ),
  }),
  v.title("CountTotals"),
  v.description("Totals over every selected file of the query (not only the returned page)."),
);
export type CountTotals = v.InferOutput<typeof CountTotalsSchema>;

/** One row of a count breakdown. */
const CountGroupSchema = v.pipe(
  v.strictObject({
    key: v.pipe(v.string(), v.description(KEY_TEXT)),
    ...countEntries,
  }),
  v.title("CountGroup"),
  v.description("Totals of the files that share a breakdown key."),
);
export type CountGroup = v.InferOutput<typeof CountGroupSchema>;

/** Creates the CountResult model (the output of count and lcount; the original's Stats). */
export const CountResultSchema = v.pipe(
  v.strictObject({
    results: v.array(CountFileSchema),
    ...resultMetaEntries,
    totals: CountTotalsSchema,
    by: v.pipe(v.nullable(v.picklist(BY_KEYS)), v.description("The breakdown key asked for, or null.")),
    breakdown: v.pipe(
      v.nullable(v.array(CountGroupSchema)),
      v.description("Totals per key, most lines first (then by key); null without `by`."),
    ),
  }),
  v.title("CountResult"),
  v.description(
    "Per-file counts in walk order, and totals over the whole query (the Stats of the original).",
  ),
);
export type CountResult = v.InferOutput<typeof CountResultSchema>;

/**
 * The rules count classified lines by, in one line (#37: agents dumped whole files to check them): said in count's
 * MCP text and in a note of the CLI's human output, so that the counts need no re-check.
 * @param classify how to ask for the class of each line on this surface
 * @param docstrings how to count docstrings as code on this surface
 * @returns the line
 */
export function countedBy(classify: string, docstrings: string): string {
  return `counted by: a line with code and a comment is code; strings are code, but docstring lines (Python, Julia, Elixir) are comment lines unless ${docstrings}, and counted in \`docstring\` either way; doc comments are comments; a blank line in a comment is blank; only ${LANGUAGE_NAMES.filter(blockCommentsNest).join(", ")} nest block comments; a #! first line is a comment where # starts one; ${classify} shows each line's class`;
}
