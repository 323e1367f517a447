/*! explain: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The explain operation. */
export const explain = defineOperation({
  id: "explain",
  summary: "Explain why paths are or are not in a query's results (ignore rule, hidden, depth, …).",
  description:
    "Say whether find, with the same walk options, would list a path, and why: the ignore file, line and pattern that matched (nested .gitignore, .ignore, .git/info/exclude, global excludes), a hidden component (with hidden=false), an exclude glob, too deep or too shallow, outside the base, a symlink that is not followed (its text, and the path's real path with its own verdict: real_path, real_included), an unreadable directory, or the predicate that rejects it (globs, type, size, time, permissions, owner). Use it when a file you expect is missing from find, grep, count or dupes results. The path is relative to base or absolute; one that does not exist is explained too (exists: false, stage missing), with the rule that would leave it out, as git check-ignore --no-index (a broken link's target, say). Several paths (targets) or every entry below a directory (under) are explained in one call; only=ignored keeps the entries an ignore rule leaves out, each with its file, line and pattern (as git check-ignore -v); an ignored directory met under `under` is one explanation with entries_inside, its contents listed only with expand=true (as git lists an ignored dir/). rules=true lists instead every rule of the ignore files read (FILE:LINE: PATTERN) with how many paths it decides, as git check-ignore -v names the deciding rule; only=unused keeps the rules that decide nothing, to clean them up. The CLI exits 0 when it gives an explanation, whatever its verdict and whether the path exists, 1 when only kept none (only=ignored on a path that is not there exits 0 when a rule would ignore it, as git check-ignore).",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.ExplainInputSchema,
      output: m.ExplainResultSchema,
      records: { explanation: m.ExplanationSchema, rule: m.IgnoreRuleRecordSchema },
    };
  },
  cli: {
    synopsis: "[PATH...]",
    operands: ["targets..."],
    hidden: ["path", "targets"],
    flags: {
      ...WALK_CLI_FLAGS,
      under: { hint: "DIR" },
      only: { hint: "VERDICT" },
    },
    presentation: {
      ...UNRESTRICTED_FLAG,
      all: {
        type: "boolean",
        description:
          "Explain every entry below the base, ignored ones included (--under .); with --only ignored, the ignored entries with the rule of each, an ignored directory as one (dir/ and how many entries it holds; --expand lists them).",
        sets: [{ under: "." }],
      },
    },
  },
  mcpTool: "explain_path",
  agentDefaults: { timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  // One rule, grep's (#37): 0 when an explanation was given, whatever its verdict, so a listing never reads as
  // "nothing"; --only turns it into a test of the verdict, as git check-ignore exits 0 when a path is ignored.
  exitCodes: {
    "0": "at least one explanation given, whatever its verdict (the verdict is in the output: included or not included); with --only, at least one path has that verdict (explain PATH --only ignored exits 0 when PATH is ignored, as git check-ignore)",
    "1": "no explanation given: --only kept none (explain PATH --only included exits 1 when PATH is not included)",
    "2": "error: usage, bad input, or a path that does not exist (the other paths are still explained)",
  },
  examples: [
    {
      description: "Why are these files not found?",
      question: "Why is a path listed or not: which rule, file and line?",
      cli: "rglob explain build/out/app.js logs/app.log",
      input: { targets: ["build/out/app.js", "logs/app.log"] },
    },
    {
      description: "The ignored entries under a folder, with the rule of each",
      question: "Which entries under a folder are ignored, and by which rule?",
      cli: "rglob explain --under build --only ignored --expand",
      input: { under: "build", only: "ignored", expand: true },
    },
    {
      description: "Every ignored entry of the tree, with the rule of each",
      question: "Every ignored entry of the tree, with its rule (an ignored folder once)?",
      cli: "rglob explain --all --only ignored",
      input: { under: ".", only: "ignored" },
    },
    {
      description: "The rules of the ignore files that decide nothing",
      question: "Which rules of our ignore files decide nothing at all?",
      cli: "rglob explain --rules --only unused",
      input: { rules: true, only: "unused" },
    },
    {
      description: "Would find '*.py' --max-depth 2 list this file?",
      cli: "rglob explain src/pkg/deep/mod.py --glob '*.py' --max-depth 2",
      input: { path: "src/pkg/deep/mod.py", patterns: ["*.py"], max_depth: 2 },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runExplain),
});
