/*! dupes: input and output models. Validation only; the run is run.ts, the detection engine/dupes.ts. */
import * as v from "valibot";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, walkEntries } from "../../contract/walk-options.ts";

const int = (text: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(text));

/** Creates the dupes input model. */
export const DupesInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    ...budgetEntries,
    include_empty: v.optional(
      v.pipe(
        v.boolean(),
        v.description("Also group empty files. They are left out by default; an explicit min_size wins."),
      ),
      false,
    ),
    anywhere: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Compare selected files with all files under the base. Ignored, hidden and other names included (as -u with no glob or predicate); a group is listed when it holds a selected file, every member shown, `selected` naming the selected ones; the summary counts those groups.",
        ),
      ),
      false,
    ),
    include_hard_links: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Also list files identical only to their hard links. Each is a group of one file (files 1, wasted_bytes 0); else only counted in hard_link_only_files.",
        ),
      ),
      false,
    ),
  }),
  v.title("DupesInput"),
  v.description("Find groups of files with identical contents."),
);
export type DupesInput = v.InferOutput<typeof DupesInputSchema>;

/** The Duplicate record: one group of files with identical contents. */
export const DuplicateSchema = v.pipe(
  v.strictObject({
    size: int("Size of each file in bytes."),
    digest: v.pipe(
      v.string(),
      v.description("Digest of the contents, prefixed with its algorithm (e.g. 'sha256:…')."),
    ),
    paths: v.pipe(
      v.array(v.string()),
      v.description(
        "Absolute paths, in walk order: every path of the group, each hard link of a file included.",
      ),
    ),
    paths_bytes: v.optional(
      v.pipe(
        v.array(v.nullable(v.string())),
        v.description(
          "Present only when a path is not valid UTF-8: per path, base64 of its raw bytes (null for a valid one).",
        ),
      ),
    ),
    relative_paths: v.pipe(
      v.array(v.string()),
      v.description("POSIX paths relative to the request's base, in the order of `paths`."),
    ),
    count: int("Number of paths in the group (the length of paths)."),
    files: int(
      "Distinct files (device and inode) in the group: count less the extra hard links (1: a file listed by include_hard_links).",
    ),
    hard_links: v.pipe(
      v.array(v.array(v.string())),
      v.description(
        "Paths of the group that are one file on disk (same device and inode: hard links; with follow_symlinks also a link and its target), one list per such file, as relative_paths; empty when none.",
      ),
    ),
    selected: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "With anywhere: the members the query selected, as relative_paths; the others are copies found anywhere under the base.",
        ),
      ),
    ),
    wasted_bytes: int(
      "Bytes that removing all copies but one would free: size × (files − 1); hard links take no extra space.",
    ),
  }),
  v.title("Duplicate"),
  v.description(
    "Files with identical contents (same size and same full-content digest), every path of each, hard links marked.",
  ),
);
export type Duplicate = v.InferOutput<typeof DuplicateSchema>;

/** Creates the DuplicateSearchResult model (the output of dupes). */
export const DuplicateSearchResultSchema = v.pipe(
  v.strictObject({
    results: v.array(DuplicateSchema),
    ...resultMetaEntries,
    groups: int("Groups found in the whole query (not only the returned page)."),
    duplicate_files: int(
      "Redundant copies: the sum of files − 1 over all groups (hard links are not copies).",
    ),
    wasted_bytes: int("Sum of wasted_bytes over all groups."),
    hard_link_only_files: int(
      "Files whose only identical paths are their own hard links (groups of one file with include_hard_links).",
    ),
  }),
  v.title("DuplicateSearchResult"),
  v.description("Groups of identical files, most wasted bytes first (then by first path)."),
);
export type DuplicateSearchResult = v.InferOutput<typeof DuplicateSearchResultSchema>;
