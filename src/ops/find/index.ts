/*! find: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { TYPE_LIST_FLAG, UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The find operation. */
export const find = defineOperation({
  id: "find",
  summary: "Find files and directories by glob, type, size, time, permissions and owner.",
  description:
    "Find files and directories under a base directory by globs and find-style predicates (type, size, time, permissions, owner, depth): different ones AND'd, one's values OR'd. Respects .gitignore/.ignore; hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed. Walk order: pre-order, names by code point. A symlink shows as `path -> target`, its text exactly, plus ` (directory)` when its chain ends at one. When `truncated` is true and `next_cursor` is set, call again with the same arguments plus `cursor` to get the next page.",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.FindInputSchema,
      output: m.FileSearchResultSchema,
      records: { file: m.FileMatchSchema },
    };
  },
  cli: {
    synopsis: "[GLOB...]",
    operands: ["patterns..."],
    flags: {
      ...WALK_CLI_FLAGS,
      extensions: { long: "extension", short: "e", hint: "EXT" },
      size: { short: "S", hint: "SIZE" },
      limit: { hint: "N" },
      sort: { hint: "KEY" },
      reverse: { short: "r" },
    },
    presentation: {
      ...TYPE_LIST_FLAG,
      ...UNRESTRICTED_FLAG,
      print0: {
        type: "boolean",
        short: "0",
        description:
          "Separate paths with NUL instead of newline (for xargs -0); symlinks without their ' -> target'.",
      },
      format: {
        type: "string",
        description:
          "Print each entry with a template: {path} {rel} {abs} {name} {size} (bytes) {mtime} {kinds} {mode} (octal as stat -c %a, setuid, setgid, sticky too) {uid} {gid} {nlink} {inode} (find's %n %i) {encoding} {eol} (--saved-as's words) {type} (entry_type) {target} (a symlink's text), {resolved} (where its chain of links ends), {target_type} (what that end is, in --type's letters; empty when it leads nowhere), {link} (a symlink's state in --link's words: ok, broken, escaping, and absolute for an absolute text; else empty), {ignored_by} (the rule that ignores it: FILE:LINE:PATTERN, with -u too; else empty), and fd's {} {/} {//} {.} {/.} (path, name, parent directory, path and name without extension). Another {word} is a usage error.",
        hint: "TEMPLATE",
      },
      absolute_path: {
        type: "boolean",
        short: "a",
        description: "Print absolute paths (fd's -a).",
      },
      one: {
        type: "boolean",
        short: "1",
        description: "Stop after the first result, as fd's -1 (--limit 1).",
      },
      max_results: {
        type: "string",
        description:
          "fd's --max-results N: the first N results (--limit N), but 0 means no limit, as in fd (--limit 0 gives the summary alone).",
        hint: "N",
      },
    },
  },
  mcpTool: "find_files",
  agentDefaults: { limit: 150, max_output_bytes: 60_000, timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "All TypeScript files under src",
      cli: "rglob find '*.ts' --base src",
      input: { patterns: ["*.ts"], base: "src" },
    },
    {
      description: "Files changed in the last 7 days, as JSON",
      cli: "rglob find --type f --newer-than 7d --json",
      input: { types: ["f"], newer_than: "7d" },
    },
    {
      description: "Files of 1 MiB (1M = 1048576 bytes) or more, the largest first",
      cli: "rglob find --type f --min-size 1M --sort size --reverse",
      input: { types: ["f"], min_size: "1M", sort: "size", reverse: true },
    },
    {
      description: "Which .py files changed in the last 2 days, and when?",
      question: "Which .py files changed in the last 2 days, and when?",
      cli: "rglob find -e py --changed-within 2d --format '{mtime} {path}'",
      input: { extensions: ["py"], newer_than: "2d" },
    },
    {
      description: "Which five files changed last?",
      question: "Which five files changed last?",
      cli: "rglob find -t f --sort mtime -r --limit 5",
      input: { types: ["f"], sort: "mtime", reverse: true, limit: 5 },
    },
    {
      description: "Which sources are newer than a build output?",
      question: "Which sources are newer than a build output?",
      cli: "rglob find -e py --newer-than-file build/out/app.js",
      input: { extensions: ["py"], newer_than_file: "build/out/app.js" },
    },
    {
      description: "The YAML files in a folder and its subfolders?",
      question: "The YAML files in a folder and its subfolders?",
      cli: "rglob find -e yaml --base deploy/charts",
      input: { extensions: ["yaml"], base: "deploy/charts" },
    },
    {
      description:
        "Where does each symlink point: ok, broken or escaping the tree, and is its text absolute?",
      question: "Where does each symlink point: ok, broken or escaping the tree, and is its text absolute?",
      cli: "rglob find -t l --format '{rel} -> {target}: {link}'",
      input: { types: ["l"] },
    },
    {
      description: "Which links break when the tree moves (broken, leading out of it, or absolute)?",
      question: "Which links break when the tree moves (broken, leading out of it, or absolute)?",
      cli: "rglob find --link broken,escaping,absolute --format '{rel} -> {target}: {link}'",
      input: { links: ["broken", "escaping", "absolute"] },
    },
    {
      description: "Which files has nobody the execute bit on (no x at all)?",
      question: "Which files has nobody the execute bit on (no x at all)?",
      cli: "rglob find -t f --perm '!/111' --base scripts",
      input: { types: ["f"], perm: "!/111", base: "scripts" },
    },
    {
      description: "Permission bits (as stat -c %a) and owner ids?",
      question: "Permission bits (as stat -c %a) and owner ids?",
      cli: "rglob find --base scripts --format '{mode} {uid}:{gid} {rel}'",
      input: { base: "scripts" },
    },
    {
      description: "Exact sizes in bytes, ignored files included?",
      question: "Exact sizes in bytes, ignored files included?",
      cli: "rglob find -u -t f --format '{size} {rel}'",
      input: { respect_gitignore: false, hidden: true, types: ["f"] },
    },
    {
      description: "Which text files are not saved as UTF-8, and in which encoding?",
      question: "Which text files are not saved as UTF-8, and in which encoding?",
      cli: "rglob find --saved-as '!utf-8'",
      input: { saved_as: ["!utf-8"] },
    },
    {
      description: "Which text files have CR LF line ends, on every line or some?",
      question: "Which text files have CR LF line ends, on every line or some?",
      cli: "rglob find --saved-as crlf,mixed",
      input: { saved_as: ["crlf,mixed"] },
    },
    {
      description: "Which entries do the ignore rules leave out, and by which rule?",
      question: "Which entries do the ignore rules leave out, and by which rule?",
      cli: "rglob find --only-ignored --format '{rel} {ignored_by}'",
      input: { only_ignored: true },
    },
  ],
  // only_ignored (#37) wraps the run: the ignored entries alone, each with its rule.
  run: lazyRun(async () =>
    (await import("../only-ignored.ts")).withOnlyIgnored((await import("./run.ts")).runFind, undefined, true),
  ),
});
