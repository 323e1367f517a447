/*! count: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { TYPE_LIST_FLAG, UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The count operation. */
export const count = defineOperation({
  id: "count",
  summary: "Count files, lines, bytes, code, comment and blank lines, with an optional breakdown.",
  description:
    "Count the lines (newline bytes, plus a last line without a newline, classed as any other line), bytes, non-blank lines, code, comment and blank lines (comment-aware for 62 languages) of the selected files. Counting rules: a blank line holds only whitespace; a comment line holds only comments (line markers, block comments and doc comments of the file's language); a line with code and a comment is code; text inside a string is code, but a docstring line (a Python string statement of its own, a Julia string before a definition, Elixir's @doc/@moduledoc/@typedoc) is a comment line as cloc counts it, also counted in `docstring` (docstrings=code counts it as code, as tokei does; comment - docstring is tokei's comment count); a file whose name gives no language takes the one its #! line names (#!/usr/bin/env sh: Shell), as tokei and cloc do; that first line is a comment where comments start with '#', else code; a blank line inside a block comment is blank; non_blank = code + comment; `docstring` is in totals and breakdown rows too, so both conventions come from one call. classify=true shows it per line: each file record adds line_classes and line_notes (the comment and ambiguous lines, each with why), so no file needs reading to check. `by` = ext, language, dir or file gives a breakdown (file: one row per file with its code, comment and blank lines, most lines first). Binary files (a NUL byte in the first 8 KiB) are skipped and counted in totals.binary_files. Respects .gitignore/.ignore; hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed. `totals` and `breakdown` always cover the whole query, so `limit` 0 gives exact totals alone; when `truncated` is true and `next_cursor` is set, call again with `cursor` for the next page of per-file records.",
  models: async () => {
    const m = await import("./schema.ts");
    return { input: m.CountInputSchema, output: m.CountResultSchema, records: { file: m.CountFileSchema } };
  },
  cli: {
    synopsis: "[GLOB...]",
    operands: ["patterns..."],
    flags: {
      ...WALK_CLI_FLAGS,
      by: { hint: "KEY" },
      encoding: { hint: "NAME" },
      threads: { short: "j", hint: "N" },
    },
    presentation: {
      ...TYPE_LIST_FLAG,
      ...UNRESTRICTED_FLAG,
      files: {
        type: "boolean",
        description:
          "With --by: list each file too (by default the human output is the breakdown and the totals). --limit 0 prints the totals alone.",
      },
    },
  },
  mcpTool: "count_lines",
  agentDefaults: { limit: 50, max_output_bytes: 60_000, timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Lines of code per language in this repository",
      question: "Code, comment and blank lines per language?",
      cli: "rglob count --by language",
      input: { by: "language" },
    },
    {
      description:
        "How each line of these files was counted (comment, shebang, docstring, code and a comment)",
      question: "How was each line counted (code, comment, blank), and why?",
      cli: "rglob count --classify -e py",
      input: { extensions: ["py"], classify: true },
    },
    {
      description: "How many .rst files, and their lines",
      question: "How many .rst files, and how many lines?",
      cli: "rglob count -e rst",
      input: { extensions: ["rst"] },
    },
    {
      description: "Totals only (no per-file listing), as JSON",
      cli: "rglob count '*.ts' --limit 0 --json",
      input: { patterns: ["*.ts"], limit: 0 },
    },
    {
      description: "Per-file counts as JSON Lines, without blank and comment lines",
      cli: "rglob count '*.py' --no-empty --no-comments --jsonl",
      input: { patterns: ["*.py"], no_empty: true, no_comments: true },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runCountLines),
});
