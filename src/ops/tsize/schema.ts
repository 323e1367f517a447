/*! tsize: input and output models of the total-size alias. Validation only; the run is count's. */
import * as v from "valibot";
import { PATH_BYTES } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, walkEntries } from "../../contract/walk-options.ts";

/** Units of tsize: powers of 1024, the original's names (printed KiB, MiB, GiB, TiB). */
const SIZE_UNITS = ["kb", "mb", "gb", "tb"] as const;

/** Creates the tsize input model. */
export const TsizeInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...budgetEntries,
    unit: v.optional(
      v.pipe(
        v.picklist(SIZE_UNITS),
        v.description(
          "Unit of total_size: kb, mb, gb or tb, powers of 1024 (the original's names), printed as KiB, MiB, GiB or TiB with the exact bytes beside it.",
        ),
      ),
      "mb",
    ),
  }),
  v.title("TsizeInput"),
  v.description(
    "Total size of the regular files matching PATTERN, or selected by the other predicates (an alias of count that reads no contents).",
  ),
);
export type TsizeInput = v.InferOutput<typeof TsizeInputSchema>;

const int = (text: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(text));

/** The FileSize record: one file and its size. */
export const FileSizeSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(
      v.string(),
      v.description("POSIX path relative to the request's base, never starting with ./"),
    ),
    bytes: int(
      "Size in bytes (of a symlink sized itself: its own, the length of its target text, as du -b).",
    ),
    entry_type: v.optional(
      v.pipe(
        v.picklist(["symlink"]),
        v.description(
          "Present only for a symlink sized itself (-t l), not followed; absent for a regular file.",
        ),
      ),
    ),
  }),
  v.title("FileSize"),
  v.description("A regular file (or, with -t l, a symlink itself) and its size."),
);
export type FileSize = v.InferOutput<typeof FileSizeSchema>;

/** Creates the SizeResult model (the output of tsize). */
export const SizeResultSchema = v.pipe(
  v.strictObject({
    results: v.array(FileSizeSchema),
    ...resultMetaEntries,
    totals: v.pipe(
      v.strictObject({
        files: int(
          "Entries sized: regular files (a symlink followed counts as what it leads to) and, with -t l, symlinks themselves.",
        ),
        bytes: int("Sum of their sizes, in bytes."),
      }),
      v.description("Totals over every selected file of the query (not only the returned page)."),
    ),
    unit: v.pipe(
      v.picklist(SIZE_UNITS),
      v.description("The unit of total_size: kb = KiB (1024 bytes), mb = MiB, gb = GiB, tb = TiB."),
    ),
    total_size: v.pipe(v.number(), v.minValue(0), v.description("totals.bytes in `unit` (not rounded).")),
  }),
  v.title("SizeResult"),
  v.description("Files in walk order with their sizes, and the total size of the whole query."),
);
