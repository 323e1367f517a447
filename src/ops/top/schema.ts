/*! top: input, record and output models. Validation only; the walk plan is engine/plan.ts. */
import * as v from "valibot";
import { FileMatchSchema, PATH_BYTES } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, walkEntries } from "../../contract/walk-options.ts";

const count = (text: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(text));
const rank = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(1),
  v.description("Position in the whole ranking (1 = largest), stable across pages."),
);

/** The default number of entries of a ranking (top is a top-N on every surface). */
const TOP_DEFAULT_LIMIT = 10;

/** Creates the top input model. */
export const TopInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...budgetEntries,
    limit: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.description(
          "How many entries of the ranking to return (top N); more sets truncated with reason 'limit' and a next_cursor.",
        ),
      ),
      TOP_DEFAULT_LIMIT,
    ),
    dirs: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Rank directories by all their files' size; max_depth bounds those listed. The size is the selected files' below each at any depth (cumulative; a symlink counts only when followed); max_depth/min_depth bound which directories are listed, not which files are counted: max_depth 1 ranks the top-level directories.",
        ),
      ),
      false,
    ),
  }),
  v.title("TopInput"),
  v.description("Rank the largest files, or the largest directories by cumulative size."),
);
export type TopInput = v.InferOutput<typeof TopInputSchema>;

/** Creates the TopFile record model (JSONL kind "file"): a FileMatch with its rank. */
export const TopFileSchema = v.pipe(
  v.strictObject({
    ...FileMatchSchema.pipe[0].entries,
    rank,
  }),
  v.title("TopFile"),
  v.description("A file of the ranking: a FileMatch plus its rank (largest first, ties by path)."),
);
export type TopFile = v.InferOutput<typeof TopFileSchema>;

/** Creates the TopDirectory record model (JSONL kind "directory"). */
export const TopDirectorySchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(
      v.string(),
      v.description("POSIX path relative to the request's base, never starting with ./"),
    ),
    depth: v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Depth below its root.")),
    size: count("Total size in bytes of the selected files anywhere below this directory."),
    files: count("Number of selected files anywhere below this directory."),
    rank,
  }),
  v.title("TopDirectory"),
  v.description("A directory of the ranking, by the cumulative size of the selected files below it."),
);
export type TopDirectory = v.InferOutput<typeof TopDirectorySchema>;

/** Creates the TopResult model (the output of top). */
export const TopResultSchema = v.pipe(
  v.strictObject({
    results: v.array(v.union([TopFileSchema, TopDirectorySchema])),
    ...resultMetaEntries,
    total_files: count("Selected files considered (the whole query, not just this page)."),
    total_size: count("Total size in bytes of the selected files (the whole query)."),
    total_ranked: count("Entries in the whole ranking: files, or directories with --dirs."),
  }),
  v.title("TopResult"),
  v.description("The largest files (or directories with dirs=true), largest first, ties by path."),
);
export type TopResult = v.InferOutput<typeof TopResultSchema>;
