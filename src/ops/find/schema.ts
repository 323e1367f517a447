/*! find: input and output models. Validation only; the plan is engine/plan.ts. */
import * as v from "valibot";
import { FileMatchSchema, onlyIgnoredEntries } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, linkEntries, walkEntries } from "../../contract/walk-options.ts";

/** find's record is the shared FileMatch (also top's file record). */
export { FileMatchSchema };

/** Sort keys of find. */
const SORT_KEYS = ["path", "size", "mtime", "name"] as const;

/** Creates the find input model. */
export const FindInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...linkEntries,
    ...onlyIgnoredEntries,
    expand: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "List every entry inside an ignored directory too. With only_ignored; by default an ignored directory is one record saying what it holds (entries_inside, files_inside, dirs_inside).",
        ),
      ),
      false,
    ),
    ...budgetEntries,
    sort: v.optional(
      v.pipe(
        v.picklist(SORT_KEYS),
        v.description(
          "Order of results. path (the default) is walk order and streams; size, mtime and name collect first.",
        ),
      ),
      "path",
    ),
    reverse: v.optional(
      v.pipe(v.boolean(), v.description("Reverse the sort order. Ties stay in path order.")),
      false,
    ),
  }),
  v.title("FindInput"),
  v.description("Find files and directories by glob and metadata predicates."),
);
export type FindInput = v.InferOutput<typeof FindInputSchema>;

/** Creates the FileSearchResult model (the output of find). */
export const FileSearchResultSchema = v.pipe(
  v.strictObject({
    results: v.array(FileMatchSchema),
    ...resultMetaEntries,
  }),
  v.title("FileSearchResult"),
  v.description("Files found by find, in walk order unless sorted."),
);
export type FileSearchResult = v.InferOutput<typeof FileSearchResultSchema>;
