/*! stats: input, record and output models. Validation only; the walk plan is engine/plan.ts. */
import * as v from "valibot";
import { PATH_BYTES } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, linkEntries, walkEntries } from "../../contract/walk-options.ts";

const count = (text: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(text));
const abs = v.pipe(v.string(), v.description("Absolute path."));
const rel = v.pipe(v.string(), v.description("POSIX path relative to the request's base."));

/** What stats' directory count leaves out, said beside it on every surface (#37: a trial agent listed every
 * directory to learn it). */
export const BASE_NOT_COUNTED = "(the base not counted)";
/** Creates the stats input model. */
export const StatsInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...linkEntries,
    ...budgetEntries,
  }),
  v.title("StatsInput"),
  v.description("Summarise the selected entries: counts, sizes, extensions, newest, oldest, largest."),
);
export type StatsInput = v.InferOutput<typeof StatsInputSchema>;

/** Creates the ExtensionStat record model (JSONL kind "extension"). */
export const ExtensionStatSchema = v.pipe(
  v.strictObject({
    extension: v.pipe(
      v.string(),
      v.description(
        "The extension with its dot, as in the name ('.py', '.gz' for a.tar.gz); '' for names without one (and dotfiles like .gitignore).",
      ),
    ),
    files: count("Selected files with this extension."),
    size: count("Their total size in bytes."),
  }),
  v.title("ExtensionStat"),
  v.description("Files and bytes of one extension."),
);
export type ExtensionStat = v.InferOutput<typeof ExtensionStatSchema>;

/** Creates the model of a file named in the summary with its modification time. */
const TimedFileSchema = v.pipe(
  v.strictObject({
    path: abs,
    ...PATH_BYTES,
    relative_path: rel,
    mtime: v.pipe(v.string(), v.description("Modification time, ISO 8601 UTC with Z.")),
  }),
  v.title("TimedFile"),
  v.description("A file and its modification time."),
);
/** Creates the model of a file named in the summary with its size. */
const SizedFileSchema = v.pipe(
  v.strictObject({ path: abs, ...PATH_BYTES, relative_path: rel, size: count("Size in bytes.") }),
  v.title("SizedFile"),
  v.description("A file and its size."),
);

/** Creates the StatsResult model (the output of stats). */
export const StatsResultSchema = v.pipe(
  v.strictObject({
    results: v.array(ExtensionStatSchema),
    ...resultMetaEntries,
    files: count("Selected regular files (exact for the whole query, whatever the limit)."),
    directories: count(`Selected directories ${BASE_NOT_COUNTED}.`),
    others: count("Selected entries that are neither: unfollowed symlinks, FIFOs, sockets, devices."),
    symlinks: count(
      "Selected symlinks, followed or not (a followed one counts as its target too: file or directory).",
    ),
    broken_symlinks: count("Selected symlinks whose target does not exist (or that loop)."),
    escaping_symlinks: count("Selected symlinks that lead outside the base."),
    total_size: count("Total size in bytes of the selected files."),
    extensions: count("Distinct extensions (the length of the unpaged listing)."),
    newest: v.pipe(
      v.nullable(TimedFileSchema),
      v.description("The most recently modified file (ties by path), or null."),
    ),
    oldest: v.pipe(
      v.nullable(TimedFileSchema),
      v.description("The least recently modified file (ties by path), or null."),
    ),
    largest: v.pipe(v.nullable(SizedFileSchema), v.description("The largest file (ties by path), or null.")),
  }),
  v.title("StatsResult"),
  v.description(
    "Totals of the selection in the summary; one record per extension, most files first (then most bytes, then by name).",
  ),
);
export type StatsResult = v.InferOutput<typeof StatsResultSchema>;
