/*! lcount: the registry entry of the line-count alias of the original CLI (`Total lines: N`). CLI only: agents
 * use count. */

import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The lcount operation (an alias of count). */
export const lcount = defineOperation({
  id: "lcount",
  summary: "Total lines of the files matching PATTERN (alias of count; prints `Total lines: N`).",
  description:
    "The line-count command of the original CLI, kept as an alias of count: the same per-file records and CountResult, and `Total lines: N` as human output. It counts the regular files its patterns select, as count does: a directory or a symlink a pattern matches is an entry, not a file to count, and is left out without an error (as tokei; wc -l says `Is a directory` of an operand and exits 1); with follow_symlinks a link is counted as the file it leads to (as wc -l does), and one that leads nowhere is not counted. Prefer count.",
  models: async () => {
    const [m, r] = await Promise.all([import("../count/schema.ts"), import("./schema.ts")]);
    return { input: r.LcountInputSchema, output: m.CountResultSchema, records: { file: m.CountFileSchema } };
  },
  cli: {
    synopsis: "PATTERN...",
    operands: ["patterns..."],
    flags: { ...WALK_CLI_FLAGS, encoding: { hint: "NAME" } },
    presentation: UNRESTRICTED_FLAG,
  },
  mcpTool: null,
  agentDefaults: { limit: 50, max_output_bytes: 60_000, timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Total lines of Python files, without blank and comment lines",
      cli: "rglob lcount '*.py' --no-empty --no-comments",
      input: { patterns: ["*.py"], no_empty: true, no_comments: true },
    },
  ],
  run: lazyRun(async () => (await import("../count/run.ts")).runCountLines),
});
