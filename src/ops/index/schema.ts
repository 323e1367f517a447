/*! index: input, record and output models of the persisted index's command. Validation only; the index is
 * engine/index/persist.ts. */
import * as v from "valibot";
import { resultMetaEntries } from "../../contract/result.ts";
import { ServerInfoSchema } from "../serve/schema.ts";

const count = (text: string) =>
  v.pipe(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))), v.description(text));

/** Creates the index input model. */
export const IndexInputSchema = v.pipe(
  v.strictObject({
    base: v.optional(
      v.pipe(v.string(), v.minLength(1), v.description("The tree to index (its real path keys the index).")),
      ".",
    ),
    status: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Report the tree's index (files, size, when built, how many indexed files changed since) without building it.",
        ),
      ),
      false,
    ),
    remove: v.optional(v.pipe(v.boolean(), v.description("Remove the tree's index.")), false),
    timeout_seconds: v.optional(
      v.pipe(
        v.number(),
        v.minValue(0.01),
        v.description("Stop after this many seconds with reason 'timeout' (nothing is written then)."),
      ),
    ),
  }),
  v.title("IndexInput"),
  v.description("Build, report or remove the persisted trigram index of a tree."),
);
export type IndexInput = v.InferOutput<typeof IndexInputSchema>;

/** States of a tree's index. */
const INDEX_STATES = ["built", "present", "absent", "unusable", "removed"] as const;

/** Creates the IndexInfo record model (JSONL kind "index"). */
export const IndexInfoSchema = v.pipe(
  v.strictObject({
    root: v.pipe(v.string(), v.description("The tree's real path.")),
    index_path: v.pipe(v.string(), v.description("The index file, in rglob's cache directory.")),
    state: v.pipe(
      v.picklist(INDEX_STATES),
      v.description(
        "built: written now; present: there is a usable index; absent: there is none; unusable: there is one that grep does not use (corrupt, truncated, of another rglob version, format or tree; see reason); removed: deleted now.",
      ),
    ),
    reason: v.pipe(v.nullable(v.string()), v.description("Why an index is unusable, else null.")),
    files: count("Files indexed."),
    not_indexed: count(
      "Files the build met and did not index (binary, over 10 MiB, UTF-16, unreadable, modified while indexed): grep always searches them.",
    ),
    trigrams: count("Distinct trigrams."),
    text_bytes: count("Bytes of text indexed."),
    index_bytes: count("Size of the index file."),
    built_at: v.pipe(v.nullable(v.string()), v.description("When the index was built, ISO 8601 UTC with Z.")),
    build_ms: count("How long the build took, in milliseconds."),
    changed_files: count(
      "With status: indexed files whose size, mtime, ctime or inode changed since (or that are gone); grep searches them.",
    ),
    walk: v.pipe(
      v.nullable(v.picklist(["fresh", "stale", "none"])),
      v.description(
        "The walk of a plain grep (no path operands, no stat predicates) recorded with the index: fresh when every directory listed and every ignore, config and .git file read or looked for still has the stats it had and a plain grep here would make the walk recorded (grep then replays it instead of walking), stale when one changed or the walk was recorded under another HOME, XDG_CONFIG_HOME or GIT_CONFIG_NOSYSTEM (grep walks), none when none was kept (the tree was changing while indexed, or names that are not valid UTF-8).",
      ),
    ),
    servers: v.pipe(
      v.nullable(v.array(ServerInfoSchema)),
      v.description(
        "With status: every warm server of this user that is running (`rglob serve`), whatever its tree; null otherwise.",
      ),
    ),
  }),
  v.title("IndexInfo"),
  v.description("A tree's persisted index."),
);
export type IndexInfo = v.InferOutput<typeof IndexInfoSchema>;

/** Creates the IndexResult model (the output of index). */
export const IndexResultSchema = v.pipe(
  v.strictObject({
    results: v.array(IndexInfoSchema),
    ...resultMetaEntries,
  }),
  v.title("IndexResult"),
  v.description("The tree's index after the command (one record, none when stopped)."),
);
