/*! Contract: the metadata every result carries, and the builder of concrete result models.
 * Models only; the dispatcher fills them (ops/dispatch.ts). */
import * as v from "valibot";
import { ErrorInfoSchema } from "./errors.ts";
import { SCHEMA_VERSION } from "./versions.ts";

/** Why a result stopped early. */
export const TRUNCATED_REASONS = [
  "limit",
  "max_count",
  "max_bytes",
  "max_output_bytes",
  "timeout",
  "cancelled",
] as const;

/** Creates the TruncatedReason model. */
const TruncatedReasonSchema = v.pipe(
  v.nullable(v.picklist(TRUNCATED_REASONS)),
  v.description(
    "Why the result stopped before the end: limit, max_count, max_bytes, max_output_bytes, timeout, cancelled; null when complete.",
  ),
);
export type TruncatedReason = NonNullable<v.InferOutput<typeof TruncatedReasonSchema>>;

/** Why the walk or a reader left an entry out, in the order the skip ledger lists them. */
export const SKIP_REASONS = [
  "ignored",
  "hidden",
  "excluded",
  "too_deep",
  "binary",
  "too_large",
  "unreadable",
  "vcs",
] as const;
/** A reason an entry was left out. */
export type SkipReason = (typeof SKIP_REASONS)[number];

const count = (text: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(text));

/** Creates the skip ledger model: what was left out, counted by reason. */
const SkippedSchema = v.pipe(
  v.strictObject({
    ignored: count(
      "Entries left out by an ignore rule (.gitignore, .ignore, .git/info/exclude, global excludes); an ignored directory counts once, since it is not entered. respect_gitignore: false (CLI --no-ignore) includes them.",
    ),
    hidden: count(
      "Entries whose name starts with '.' left out because hidden is false (CLI --no-hidden); a hidden directory counts once. Always 0 with the default hidden: true.",
    ),
    excluded: count("Entries left out by an exclude glob; an excluded directory counts once."),
    too_deep: count("Directories at max_depth that were not entered (their contents are beyond max_depth)."),
    binary: count("Files not searched or counted because they are binary (BINARY errors)."),
    too_large: count("Files not read because they exceed max_file_size (TOO_LARGE errors)."),
    unreadable: count(
      "Entries that could not be listed, read or followed (PERM, UNREADABLE and NOT_FOUND errors with a path).",
    ),
    vcs: count(
      "Version-control metadata directories (.git, .hg, .svn, .bzr, .jj, .sl) met by the walk; never listed or searched.",
    ),
    unknown_language: v.optional(
      count(
        "Present with grep's `in` only: files not searched because their language is unknown or has no code regions (plain text, CSV), so no match in them could be placed in code, a comment or a string.",
      ),
    ),
  }),
  v.description(
    "The skip ledger: entries left out of the answer, counted by reason (entries the query's globs and predicates did not select are not skips). Covers what the walk examined, up to where it stopped.",
  ),
);
/** The skip ledger: counts by reason. */
export type Skipped = { -readonly [K in SkipReason]: number };
/** The ledger of a grep with `in`: files of no language with code regions too. */
export type SkippedWithRegions = Skipped & { unknown_language?: number };

/**
 * Creates an empty skip ledger.
 * @returns every count at 0
 */
export function emptySkipped(): Skipped {
  return {
    ignored: 0,
    hidden: 0,
    excluded: 0,
    too_deep: 0,
    binary: 0,
    too_large: 0,
    unreadable: 0,
    vcs: 0,
  };
}

/** The metadata entries shared by every result (wire names as in the contract). */
export const resultMetaEntries = {
  truncated: v.pipe(v.boolean(), v.description("True only when more results existed than were returned.")),
  truncated_reason: TruncatedReasonSchema,
  total_files_searched: v.pipe(
    v.number(),
    v.integer(),
    v.description(
      "Files the walk examined: entries other than directories that no ignore, hidden, exclude, VCS or depth rule left out, each tested against the query's globs and predicates (a grep or count reads only those selected). Directories are not counted.",
    ),
  ),
  skipped: SkippedSchema,
  bytes_read: v.pipe(v.number(), v.integer(), v.description("Content bytes actually read.")),
  errors: v.pipe(
    v.array(ErrorInfoSchema),
    v.description("Per-path problems; they never stop the other results."),
  ),
  schema_version: v.pipe(v.literal(SCHEMA_VERSION), v.description("Version of this result's schema.")),
  type_globs: v.optional(
    v.pipe(
      v.record(v.string(), v.array(v.string())),
      v.description(
        "Present when file_types or file_types_not named a type: the names each selects by ('py': ['*.py', '*.pyi', '*.pyw']). A type selects by file name only, never by a #! line (which count's language reads).",
      ),
    ),
  ),
  time_window: v.optional(
    v.pipe(
      v.strictObject({
        now: v.pipe(v.string(), v.description("The instant durations ('30m', '7d') counted back from.")),
        after: v.optional(
          v.pipe(
            v.string(),
            v.description("Entries modified after this instant (newer_than, newer_than_file)."),
          ),
        ),
        before: v.optional(
          v.pipe(v.string(), v.description("Entries modified before this instant (older_than).")),
        ),
      }),
      v.description(
        "Present when a time predicate was given: the instants it was resolved to (ISO 8601 UTC), so that no clock needs reading to check it; every page of a query resolves a duration again.",
      ),
    ),
  ),
  next_cursor: v.pipe(
    v.nullable(v.string()),
    v.description(
      "Opaque token: pass it back as `cursor` (CLI --cursor) with the same query for the next page.",
    ),
  ),
};

/** The plain metadata object, as the dispatcher builds it. */
export interface ResultMeta {
  truncated: boolean;
  truncated_reason: TruncatedReason | null;
  total_files_searched: number;
  skipped: Skipped;
  bytes_read: number;
  errors: Array<v.InferOutput<typeof ErrorInfoSchema>>;
  next_cursor: string | null;
  schema_version: typeof SCHEMA_VERSION;
}

/**
 * The key under which a result carries facts for its texts only (the CLI's human output and notes, the MCP text),
 * never on the wire: a symbol, so JSON, JSONL, the schemas and `structuredContent` never see it (#37: dupes names
 * the files it only counts, without a field that the records of every surface would then carry).
 */
export const TEXT_FACTS: unique symbol = Symbol("rglob.textFacts");

/** The facts a result holds under TEXT_FACTS. */
export interface TextFacts {
  /** dupes: the first files whose only identical paths are their own hard links, each as its paths (relative to
   * the base, and absolute). */
  readonly hard_link_only_sets?: ReadonlyArray<{
    readonly rel: readonly string[];
    readonly abs: readonly string[];
  }>;
  /** A walk with file types that went over every entry: the files they left out that are of no known type, the
   * first 1000 in walk order (`more`: there were others), for the --lang shebang note (engine/filter/type-rejects.ts). */
  readonly type_rejects?: {
    readonly files: ReadonlyArray<{ readonly abs: string; readonly rel: string }>;
    readonly more: boolean;
  };
}

/**
 * Returns a result without its TEXT_FACTS, for the structured answers (MCP `structuredContent`, the library),
 * whose validators would refuse a symbol key.
 * @param result a result
 * @returns the result itself when it has none, else a copy without them
 */
export function withoutTextFacts(result: Record<string, unknown>): Record<string, unknown> {
  if (!(TEXT_FACTS in result)) return result;
  const { [TEXT_FACTS]: _facts, ...rest } = result as Record<string | symbol, unknown>;
  return rest as Record<string, unknown>;
}
