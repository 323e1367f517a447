/*! top: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The top operation. */
export const top = defineOperation({
  id: "top",
  summary: "Rank the largest files, or the largest directories by the total size of their files.",
  description:
    "Rank the selected files by size, largest first (ties by path), each with its rank; with dirs=true rank directories by the total size of the selected files anywhere below them. Globs and predicates select files as in find; .gitignore/.ignore are respected, hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed. `limit` is the N of the top N and defaults to 10; the summary holds exact totals (total_files, total_size, total_ranked) for the whole query. When `truncated` is true and `next_cursor` is set, call again with the same arguments plus `cursor` to get the next ranks.",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.TopInputSchema,
      output: m.TopResultSchema,
      records: { file: m.TopFileSchema, directory: m.TopDirectorySchema },
    };
  },
  cli: {
    synopsis: "[GLOB...]",
    operands: ["patterns..."],
    flags: { ...WALK_CLI_FLAGS, limit: { short: "n", hint: "N" }, dirs: { short: "D" } },
    presentation: UNRESTRICTED_FLAG,
  },
  mcpTool: "largest_files",
  agentDefaults: { limit: 10, max_output_bytes: 60_000, timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "The 10 largest files",
      question: "The largest files, with exact bytes?",
      cli: "rglob top",
      input: {},
    },
    {
      description: "The largest top-level directories, each with every file below it",
      question: "Which top-level folders are largest, counting everything below each?",
      cli: "rglob top -D --max-depth 1",
      input: { dirs: true, max_depth: 1 },
    },
    {
      description: "The 25 largest log files, ignored ones included",
      cli: "rglob top '*.log' -n 25 --no-ignore",
      input: { patterns: ["*.log"], limit: 25, respect_gitignore: false },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runTop),
});
