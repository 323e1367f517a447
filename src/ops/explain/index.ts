/*! explain: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The explain operation. */
export const explain = defineOperation({
  id: "explain",
  summary: "Explain why a path is or is not in the results of a query (ignore rule, hidden, depth, …).",
  description:
    "Say whether find, with the same walk options, would list a path, and why: the ignore file, line and pattern that matched (nested .gitignore, .ignore, .git/info/exclude, global excludes), a hidden component (with hidden=false), an exclude glob, too deep or too shallow, outside the base, a symlink that is not followed, an unreadable directory, or the predicate that rejects it (globs, type, size, time, permissions, owner). Use it when a file you expect is missing from find, grep, count or dupes results. The path is relative to base or absolute and must exist (NOT_FOUND otherwise).",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.ExplainInputSchema,
      output: m.ExplainResultSchema,
      records: { explanation: m.ExplanationSchema },
    };
  },
  cli: {
    operands: ["path"],
    hidden: ["path"],
    flags: WALK_CLI_FLAGS,
    presentation: UNRESTRICTED_FLAG,
  },
  mcpTool: "explain_path",
  agentDefaults: { timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Why is this file not found?",
      cli: "rglob explain build/out.log",
      input: { path: "build/out.log" },
    },
    {
      description: "Would find '*.py' --max-depth 2 list this file?",
      cli: "rglob explain src/pkg/deep/mod.py --glob '*.py' --max-depth 2",
      input: { path: "src/pkg/deep/mod.py", patterns: ["*.py"], max_depth: 2 },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runExplain),
});
