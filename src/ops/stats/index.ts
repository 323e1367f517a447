/*! stats: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The stats operation. */
export const stats = defineOperation({
  id: "stats",
  summary: "Summarise a tree: counts, total size, extensions, newest, oldest, largest.",
  description:
    "Summarise the selected entries under a base directory: counts of files, directories and other entries, total size, the newest, oldest and largest file (in the summary), and one record per extension with its file count and bytes (most files first). Globs and predicates select entries as in find; .gitignore/.ignore are respected, hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed. The summary totals are exact for the whole query even when `limit` cuts the extension list. When `truncated` is true and `next_cursor` is set, call again with the same arguments plus `cursor` for more extensions.",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.StatsInputSchema,
      output: m.StatsResultSchema,
      records: { extension: m.ExtensionStatSchema },
    };
  },
  cli: {
    synopsis: "[GLOB...]",
    operands: ["patterns..."],
    flags: WALK_CLI_FLAGS,
    presentation: UNRESTRICTED_FLAG,
  },
  mcpTool: "file_stats",
  agentDefaults: { limit: 50, max_output_bytes: 60_000, timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Totals and extensions of the current directory",
      question: "Files, sizes, extensions, newest, largest?",
      cli: "rglob stats",
      input: {},
    },
    {
      description: "Everything, ignored files included, as JSON",
      cli: "rglob stats --no-ignore --json",
      input: { respect_gitignore: false },
    },
    {
      description: "Source files changed in the last week",
      cli: "rglob stats '*.ts' --newer-than 7d",
      input: { patterns: ["*.ts"], newer_than: "7d" },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runStats),
});
