/*! grep: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { resolvePath } from "../../platform/names.ts";
import { platform } from "../../platform/platform.ts";
import { type CompileEnv, defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { TYPE_LIST_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";
import { grepJsonlExpander } from "./jsonl.ts";
import { classifyOperands } from "./operands.ts";
import type { GrepQuery } from "./query.ts";
import type { GrepInput } from "./schema.ts";

/** The query layer's module, loaded on first use: an import at each call cost a warm call about 0.08 ms (#36). */
let queryModule: Promise<typeof import("./query.ts")> | null = null;
const queryLayer = () => {
  queryModule ??= import("./query.ts");
  return queryModule;
};

/** The grep operation. */
export const grep = defineOperation({
  id: "grep",
  summary: "Search file contents by regular expression or literal, with context, counts and file lists.",
  description:
    "Search the contents of files under a base directory for a regular expression, in ripgrep's syntax or JavaScript's (or a literal with fixed_strings). Files are selected as by find: .gitignore/.ignore are respected, hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed; every find filter (globs, types, size, time) applies, but a file named in paths is searched whatever the globs say, since they filter the walk. Binary files (a NUL byte in the first 8 KiB) are skipped and counted in skipped.binary (each listed as a BINARY error with list_binary); `binary` searches them (one record each, with `binary_offset`), `text` gives their lines. A CRLF file is read as an LF file (content, `$`, line_regexp). Each match is a LineMatch with line_number, content, every submatch's columns and optional before/after context; use files_with_matches or count for a compact overview first, and max_columns to keep minified files short. Results come in walk order; page with `cursor` when `next_cursor` is set.",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.GrepInputSchema,
      output: m.LineSearchResultSchema,
      records: { match: m.LineMatchSchema, context: m.GrepContextSchema, file: m.GrepFileSchema },
    };
  },
  cli: {
    synopsis: "PATTERN [PATH_OR_GLOB...]",
    operands: ["operands..."],
    hidden: ["operands", "pattern", "also"],
    flags: {
      ...WALK_CLI_FLAGS,
      extensions: { long: "extension", hint: "EXT" },
      // -s and --case-sensitive are the pattern's, as in rg; the globs' case keeps rg's --glob-case-insensitive.
      case_sensitive: { long: "glob-case-sensitive", negations: ["glob-case-insensitive"] },
      regexps: { short: "e", aliases: ["regexp"], hint: "PATTERN" },
      fixed_strings: { short: "F" },
      ignore_case: { short: "i" },
      smart_case: { short: "S" },
      word_regexp: { short: "w" },
      line_regexp: { short: "x" },
      invert_match: { short: "v" },
      multiline: { short: "U" },
      only_matching: { short: "o" },
      before_context: { short: "B", hint: "N" },
      after_context: { short: "A", hint: "N" },
      context: { short: "C", hint: "N" },
      files_with_matches: { short: "l" },
      count: { short: "c" },
      // -m/--max-count is per file, as in rg and grep; the global cap is --max-total (ADR 0026).
      max_count: { long: "max-total", hint: "N" },
      max_per_file: { short: "m", long: "max-count", aliases: ["max-per-file"], hint: "N" },
      max_bytes: { hint: "BYTES" },
      max_file_size: { hint: "SIZE" },
      max_columns: { hint: "N", aliases: ["max-cols"] },
      text: { short: "a" },
      binary_sniff_bytes: { hint: "BYTES" },
      encoding: { hint: "LABEL" },
      threads: { short: "j", hint: "N" },
    },
    misuse: (input, cwd) => {
      // grep -E means extended regex; here -E is --exclude (a glob, as in fd). `rglob grep -E 'a|b' src` then
      // takes 'a|b' for a glob to exclude and searches for the text "src": the pattern naming an existing path
      // while excludes are given is that mistake.
      const excludes = input.exclude as readonly string[] | undefined;
      const operands = input.operands as readonly string[] | undefined;
      const regexps = input.regexps as readonly string[] | undefined;
      if (!excludes?.length || !operands?.length || input.pattern !== undefined || regexps?.length)
        return null;
      const pattern = operands[0] as string;
      const base = typeof input.base === "string" ? input.base : ".";
      try {
        platform.lstat(resolvePath(cwd, base, pattern));
      } catch {
        return null;
      }
      return `the pattern '${pattern}' names an existing path and -E/--exclude '${excludes.join("', '")}' was given: -E is --exclude (a glob, as in fd), not grep's -E (patterns are always extended regular expressions, in ripgrep's dialect). Write the regex first (rglob grep '${excludes[0]}' ${operands.join(" ")}), or pass the pattern with -e to search for that text.`;
    },
    presentation: {
      ...TYPE_LIST_FLAG,
      case_sensitive_pattern: {
        type: "boolean",
        long: "case-sensitive",
        short: "s",
        description:
          "Match the pattern case-sensitively (the default), overriding an earlier -i or -S, as rg's -s.",
        sets: [{ ignore_case: false, smart_case: false }],
      },
      unrestricted: {
        type: "boolean",
        short: "u",
        description:
          "As rg: -u searches what ignore rules leave out (--no-ignore), -uu hidden entries too (the default here), -uuu binary files too (--binary).",
        sets: [{ respect_gitignore: false, hidden: true }, {}, { binary: true }],
      },
      line_number: {
        type: "boolean",
        short: "n",
        offShort: "N",
        description:
          "Print line numbers (the default, so -n is accepted as in grep; -N or --no-line-number hides them, as in rg).",
      },
      quiet: {
        type: "boolean",
        short: "q",
        description:
          "Print no results: exit 0 as soon as a line matches, 1 when none does (problems still go to stderr).",
      },
      recursive: {
        type: "boolean",
        short: "r",
        description: "Accepted as in grep -r: directories are always searched recursively.",
      },
      with_filename: {
        type: "boolean",
        description:
          "Print the file name on every line (the default unless one file is searched; --no-with-filename hides it). Long form only: -H is --hidden.",
      },
      stats: {
        type: "boolean",
        description: "Print totals, skips and bytes read after the results (stderr).",
      },
      file: {
        type: "string",
        short: "f",
        description:
          "Read patterns from a file, one per line ('-' reads them from stdin), as rg -f and grep -f; then every operand is a path.",
        hint: "PATTERNFILE",
      },
      null: {
        type: "boolean",
        short: "0",
        description: "Follow each file name with a NUL byte instead of ':' or a newline (rg's -0/--null).",
      },
      column: {
        type: "boolean",
        description:
          "Print the column (1-based, in bytes) of a line's first match after its number (rg's --column).",
      },
      vimgrep: {
        type: "boolean",
        description:
          "Print one path:line:column:line line per match, as rg --vimgrep (for editors' quickfix lists).",
      },
      heading: {
        type: "boolean",
        description:
          "Print each file's name on a line of its own above its matches, a blank line between files (rg's --heading; --no-heading is the default).",
      },
      replace: {
        type: "string",
        description:
          "Show each match replaced with this text in the output ($1, $name, $0 as in rg, with or without braces around the name; $$ is a dollar sign). Files are never changed. Long form only: -r is grep's accepted -r.",
        hint: "TEXT",
      },
      also: {
        type: "string",
        description:
          "Keep only the files where this pattern matches too (anywhere, or in the query's --in regions); repeatable: each must match.",
        hint: "PATTERN",
        item: { key: "also", field: "pattern" },
      },
      without: {
        type: "string",
        description:
          "Keep only the files where this pattern matches nowhere (in the same regions); repeatable.",
        hint: "PATTERN",
        item: { key: "also", field: "pattern", with: { not: true } },
      },
      also_in: {
        type: "string",
        description:
          "The regions the --also or --without just before it looks in (code, comment, string, docstring, all).",
        hint: "REGIONS",
        item: { key: "also", field: "in", onLast: true, split: true },
      },
      passthru: {
        type: "boolean",
        description: "Print every line, matching or not (non-matching ones as context), as rg --passthru.",
      },
    },
  },
  mcpTool: "grep_content",
  agentDefaults: {
    limit: 100,
    max_output_bytes: 60_000,
    max_columns: 300,
    max_file_size: "10M",
    timeout_seconds: 30,
    strict_base: true,
  },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Lines with TODO under src, as JSON Lines",
      cli: "rglob grep TODO src --jsonl",
      input: { pattern: "TODO", paths: ["src"] },
    },
    {
      description: "Whole-word, case-insensitive, with two lines of context, in TypeScript files",
      cli: "rglob grep -i -w -C 2 'parse' '*.ts'",
      input: { pattern: "parse", ignore_case: true, word_regexp: true, context: 2, patterns: ["*.ts"] },
    },
    {
      description: "Which files mention an error class, and how often",
      cli: "rglob grep -c '[A-Z][a-z]+Error' --json",
      input: { pattern: "[A-Z][a-z]+Error", count: true },
    },
    {
      description: "TODO and FIXME notes per top-level directory, with the totals",
      question: "TODO and FIXME notes per top-level folder, and the totals?",
      cli: "rglob grep 'TODO|FIXME' --by dir",
      input: { pattern: "TODO|FIXME", by: "dir", limit: 0 },
    },
    {
      description: "FIXME lines under any lib/ folder?",
      question: "FIXME lines under any lib/ folder?",
      cli: "rglob grep -w FIXME -g '**/lib/**'",
      input: { pattern: "FIXME", word_regexp: true, patterns: ["**/lib/**"] },
    },
    {
      description: "Where is a function defined?",
      question: "Where is a function defined?",
      cli: "rglob grep 'def load_settings\\b'",
      input: { pattern: "def load_settings\\b" },
    },
    {
      description: "FIXME in comments only, not in strings or code?",
      question: "FIXME in comments only, not in strings or code?",
      cli: "rglob grep FIXME --in comment --lang py",
      input: { pattern: "FIXME", in: ["comment"], file_types: ["py"] },
    },
    {
      description: "Every FIXME, each tagged with its region ([code], [comment], …)?",
      question: "Every FIXME, each tagged with its region ([code], [comment], …)?",
      cli: "rglob grep FIXME --in all",
      input: { pattern: "FIXME", in: ["all"] },
    },
    {
      description: "Python files that import requests and have a TODO comment, in one call?",
      question: "Python files that import requests and have a TODO comment?",
      cli: "rglob grep -w requests --in code --also TODO --also-in comment --lang py -l",
      input: {
        pattern: "requests",
        word_regexp: true,
        in: ["code"],
        also: [{ pattern: "TODO", in: ["comment"] }],
        file_types: ["py"],
        files_with_matches: true,
      },
    },
    {
      description: "Text in UTF-16 files too (BOM or not)?",
      question: "Text in UTF-16 files too (BOM or not)?",
      cli: "rglob grep -F 'Total:'",
      input: { pattern: "Total:", fixed_strings: true },
    },
    {
      description: "A name in any encoding, with each file's encoding?",
      question: "A name in any encoding, with each file's encoding?",
      cli: "rglob grep -F 'Zürich' --encoding auto",
      input: { pattern: "Zürich", fixed_strings: true, encoding: "auto" },
    },
    {
      description: "Hits in ignored files too?",
      question: "Hits in ignored files too?",
      cli: "rglob grep -u -F 'connection reset'",
      input: { pattern: "connection reset", fixed_strings: true, respect_gitignore: false, hidden: true },
    },
    {
      description: "Hits only in ignored files, with the rule of each?",
      question: "Hits only in ignored files, with the rule of each?",
      cli: "rglob grep -F 'connection reset' --only-ignored",
      input: { pattern: "connection reset", fixed_strings: true, only_ignored: true },
    },
  ],
  jsonlExpander: grepJsonlExpander,
  normalize: (input) => {
    // CLI operands → pattern list, roots and globs (as run() would), so that the same query from the CLI, the
    // library and MCP has one fingerprint and its cursors work on every surface.
    const c = classifyOperands(input as GrepInput, process.cwd());
    const { pattern: _pattern, ...rest } = input;
    return { ...rest, regexps: c.patterns, operands: [], paths: c.paths, patterns: c.globs };
  },
  // The query layer: operands (classified by normalize), mode, matcher and walk, compiled once per request.
  compile: async (input: GrepInput, env?: CompileEnv): Promise<GrepQuery> =>
    (await queryLayer()).compileGrepQuery(input, process.cwd(), env?.git),
  // only_ignored (#37) wraps the run: the ignored entries alone, each with its rule (the query compiled again
  // with the ignore rules off).
  run: lazyRun(async () => {
    const { compileGrepQuery } = await import("./query.ts");
    return (await import("../only-ignored.ts")).withOnlyIgnored((await import("./run.ts")).runGrep, {
      input: (q) => q.input,
      with: (q, input) => compileGrepQuery(input as GrepInput, process.cwd(), q.plan.source.plan.git),
    });
  }),
});
