/*! tree: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The tree operation. */
export const tree = defineOperation({
  id: "tree",
  summary: "Show a directory tree: selected entries with the directories above them.",
  description:
    "List the entries under a base directory as a tree, in walk order (pre-order, names by code point), each with its depth, kinds and size (files). Globs and predicates select entries as in find; the directories above a selected entry are listed too, with matched=false, so a filtered tree shows where its matches are. Respects .gitignore/.ignore; hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed; use max_depth to keep it shallow, or fold_depth to fold each directory at a depth into the count and bytes of what it holds below. A symlink is drawn `name -> target`, its text exactly as written, with ` (directory)` after it when its chain ends at a directory. When `truncated` is true and `next_cursor` is set, call again with the same arguments plus `cursor` to get the next page.",
  models: async () => {
    const m = await import("./schema.ts");
    return { input: m.TreeInputSchema, output: m.TreeResultSchema, records: { entry: m.TreeEntrySchema } };
  },
  cli: {
    synopsis: "[GLOB...]",
    operands: ["patterns..."],
    flags: WALK_CLI_FLAGS,
    presentation: UNRESTRICTED_FLAG,
  },
  mcpTool: "directory_tree",
  // An overview first (#37): two levels, each directory there with the count and bytes of what is below it.
  agentDefaults: {
    limit: 200,
    fold_depth: 2,
    max_output_bytes: 60_000,
    timeout_seconds: 30,
    strict_base: true,
  },
  annotations: READ_ONLY,
  examples: [
    {
      description: "The tree of the current directory, two levels deep",
      cli: "rglob tree --max-depth 2",
      input: { max_depth: 2 },
    },
    {
      description: "An overview: two levels, each directory there with what it holds below (count and bytes)",
      question: "An overview: two levels, each folder there with what is below it?",
      cli: "rglob tree --fold-depth 2",
      input: { fold_depth: 2 },
    },
    {
      description: "Where the Python files are",
      cli: "rglob tree '*.py'",
      input: { patterns: ["*.py"] },
    },
    {
      description: "Directories only, as JSON",
      cli: "rglob tree --type d --json",
      input: { types: ["d"] },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runTree),
});
