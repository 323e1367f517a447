/*! index: the registry entry of the CLI's persisted index (docs, CLI spelling, examples). Not an MCP tool:
 * the server keeps its own index in memory (docs/decisions/0028-warm-index.md). */
import { defineOperation, lazyRun } from "../operation.ts";

/** The index operation. */
export const index = defineOperation({
  id: "index",
  summary: "Build (or report, or remove) a persisted trigram index of a tree, which grep then uses.",
  description:
    "Build a trigram index of the text files under --base (hidden files included, ignore rules on, symlinks not followed; binary files, files over 10 MiB and UTF-16 files are left out) and write it to rglob's cache directory (RGLOB_CACHE_DIR, else XDG_CACHE_HOME/rglob or ~/.cache/rglob; ~/Library/Caches/rglob on macOS; %LOCALAPPDATA%\\rglob on Windows), never inside the tree. grep then uses the index of the tree holding its root: it leaves unread only the files the index rules out whose size, mtime, ctime and inode are those indexed, so its answer is the cold answer (bytes_read may be smaller; source says index). The index also keeps the walk of a plain `rglob grep PATTERN` run in the tree (no path operands, no size or time predicates) with the stats of every directory it listed and every ignore, config and .git file it read or looked for: while they all stat the same, such a grep replays that walk instead of walking; otherwise it walks (a build waits up to 2 s for a directory changed in the last 2 s, and keeps no walk of a tree still changing). A stale, corrupt or foreign index is not used. Run it again to refresh the index; --status reports it, --remove deletes it; RGLOB_INDEX=0 makes grep ignore it.",
  models: async () => {
    const m = await import("./schema.ts");
    return { input: m.IndexInputSchema, output: m.IndexResultSchema, records: { index: m.IndexInfoSchema } };
  },
  cli: {
    operands: [],
    flags: { base: { hint: "DIR" } },
  },
  mcpTool: null,
  agentDefaults: { timeout_seconds: 600 },
  // It writes one file, in the cache directory, never in the tree.
  annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false, destructiveHint: false },
  examples: [
    { description: "Index the current directory's tree", cli: "rglob index", input: {} },
    {
      description: "Report the index of another tree",
      cli: "rglob index --base ../app --status",
      input: { base: "../app", status: true },
    },
    { description: "Remove it", cli: "rglob index --remove", input: { remove: true } },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runIndex),
});
