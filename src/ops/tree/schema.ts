/*! tree: input, record and output models. Validation only; the walk plan is engine/plan.ts. */
import * as v from "valibot";
import { ENTRY_TYPE, KindSchema, LINK_FIELDS, PATH_BYTES } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, linkEntries, walkEntries } from "../../contract/walk-options.ts";

/** Creates the tree input model. */
export const TreeInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...linkEntries,
    fold_depth: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description(
          "Fold directories at this depth. Each stands for what is below it and says entries_inside (the entries the query selects there, walked and counted, not listed) and size (their bytes, as tree -L N --du sums them). 0 folds nothing.",
        ),
      ),
    ),
    ...budgetEntries,
  }),
  v.title("TreeInput"),
  v.description(
    "List a directory tree: the selected entries in walk order, each with the directories above it.",
  ),
);
export type TreeInput = v.InferOutput<typeof TreeInputSchema>;

/** Creates the TreeEntry record model (JSONL kind "entry"). */
export const TreeEntrySchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(
      v.string(),
      v.description("POSIX path relative to the request's base, never starting with ./"),
    ),
    depth: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("Depth below its root: 1 for a direct child."),
    ),
    kinds: v.pipe(
      v.array(KindSchema),
      v.description("Kind letters: f file, d directory, l symlink, x executable, e empty, p/s/b/c specials."),
    ),
    size: v.pipe(
      v.nullable(v.pipe(v.number(), v.integer())),
      v.description(
        "Size in bytes for a file (or an unfollowed symlink); for a directory folded at fold_depth, the bytes of the selected files below it (as tree --du); null for another directory.",
      ),
    ),
    matched: v.pipe(
      v.boolean(),
      v.description(
        "True when the query selected this entry; false for a directory shown only because it holds selected entries.",
      ),
    ),
    ...ENTRY_TYPE,
    ...LINK_FIELDS,
    entries_inside: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description(
          "On a directory folded at fold_depth: how many entries the query selects below it, at every depth (not listed; base=that directory lists them).",
        ),
      ),
    ),
  }),
  v.title("TreeEntry"),
  v.description("One entry of a tree, in walk order (pre-order, names by code point)."),
);
export type TreeEntry = v.InferOutput<typeof TreeEntrySchema>;

/** Creates the TreeResult model (the output of tree). */
export const TreeResultSchema = v.pipe(
  v.strictObject({
    results: v.array(TreeEntrySchema),
    ...resultMetaEntries,
    directories: v.pipe(
      v.number(),
      v.integer(),
      v.description("Directories among the returned entries (this page)."),
    ),
    files: v.pipe(
      v.number(),
      v.integer(),
      v.description(
        "Files (and other entries that are neither directories nor symlinks) among the returned entries (this page).",
      ),
    ),
    symlinks: v.pipe(
      v.number(),
      v.integer(),
      v.description(
        "Symlinks among the returned entries (this page); with follow_symlinks a link that is followed counts as the file or directory it leads to.",
      ),
    ),
  }),
  v.title("TreeResult"),
  v.description("A directory tree as a list of entries in walk order."),
);
export type TreeResult = v.InferOutput<typeof TreeResultSchema>;
