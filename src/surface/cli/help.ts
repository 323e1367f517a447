/*! CLI help: the citty command tree built from the registry, used to render usage. citty draws the tree and
 * help; parsing is flags.ts (citty has no numbers or repeatable flags and accepts unknown ones). */
import { type ArgsDef, type CommandDef, defineCommand, renderUsage } from "citty";
import type { Host } from "../../config.ts";
import { PACKAGE_VERSION } from "../../contract/versions.ts";
import { RECORD_SCHEMAS, SCHEMAS } from "../../generated/schemas.ts";
import { type Operation, operandKey } from "../../ops/operation.ts";
import { OPERATIONS } from "../../ops/registry.ts";
import { synopsisOf } from "../introspect.ts";
import { shortText } from "../mcp/tools.ts";
import { type FlagSpec, flagNotes, flagsOf, offSpelling } from "./flags.ts";
import { colorByDefault } from "./human/paths.ts";
import { isTerminal } from "./output.ts";

/** SGR escape sequences: citty colours its usage whatever the output is (unless NO_COLOR=1, TERM=dumb, CI). */
const SGR = /\u001b\[[0-9;]*m/g;

/** Keeps citty's colours only where colour is allowed (help read by a program or an agent stays plain). */
function plain(text: string, fd: 1 | 2, host: Host): string {
  return colorByDefault(fd, host) ? text : text.replace(SGR, "");
}

/** The width help is wrapped to when neither COLUMNS nor a terminal says. */
const DEFAULT_HELP_WIDTH = 100;

/**
 * Returns the exit codes line of an operation's help: its own meanings when it has them (explain), else the
 * common ones.
 * @param op the operation
 * @param short the first words of each meaning (the short help)
 * @returns the line
 */
function exitLine(op: Operation, short = false): string {
  const c = op.exitCodes;
  if (c === undefined) return "Exit codes: 0 results found, 1 nothing found, 2 error.";
  // The short help keeps each meaning's first words ("0 at least one explanation given").
  const cut = (t: string) => (short ? (t.split(/[,:;(]/)[0] ?? t).trim() : t);
  return `Exit codes: 0 ${cut(c["0"])}; 1 ${cut(c["1"])}; 2 ${cut(c["2"])}${short ? " (--help says more)" : ""}.`;
}

/**
 * Returns the width help is wrapped to: COLUMNS when it is a number, else the terminal's width when the output
 * is a terminal, else 100; never below 40.
 * @param fd where the help is written
 * @param host what the environment says (COLUMNS)
 * @returns the width in columns
 */
export function helpWidth(fd: 1 | 2, host: Host): number {
  let width = host.columns ?? 0;
  if (width === 0 && isTerminal(fd)) width = (fd === 1 ? process.stdout : process.stderr).columns ?? 0;
  return Math.max(40, width || DEFAULT_HELP_WIDTH);
}

/** The printed width of a string (colour escapes take no column). */
function visible(text: string): number {
  return [...text.replace(SGR, "")].length;
}

/**
 * Fills words into lines of at most `width` columns, the first starting at column `first`, the others indented by
 * `indent` spaces. A word longer than a line gets a line of its own.
 */
function fill(words: readonly string[], width: number, first: number, indent: number): string[] {
  const lines: string[] = [];
  let line = "";
  let used = first;
  for (const word of words) {
    const w = visible(word);
    if (line !== "" && used + 1 + w > width) {
      lines.push(line);
      line = "";
      used = indent;
    }
    line += line === "" ? word : ` ${word}`;
    used += (line === word ? 0 : 1) + w;
  }
  lines.push(line);
  return lines;
}

/**
 * The indent of a flag's text under its name in the long help (--help), as rg's and fd's long help lay it out:
 * a table's hanging indent (the longest name, up to a third of the line) cost a third of the page in spaces.
 */
const STACKED_INDENT = 8;

/** A table row as citty draws it: indent, name, a gap of four or more spaces, text (names right-aligned). */
const ROW = /^( +)(\S(?:.*?\S)?) {4,}(\S.*)$/;

/**
 * Lays out help text for a width: table rows (options, commands, arguments) get a left-aligned name column and
 * wrapped text under a hanging indent (the text goes below a name too long for the column); any other line is
 * wrapped under its own indent. No line keeps trailing spaces (citty pads every row to the longest).
 * @param text the help as rendered
 * @param width the width to wrap to
 * @returns the laid-out help
 */
export function layoutHelp(text: string, width: number, stacked = false): string {
  const lines = text.split("\n").map((l) => l.replace(/\s+$/, ""));
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!ROW.test(lines[i] as string)) {
      const line = lines[i++] as string;
      const indent = /^ */.exec(line)?.[0].length ?? 0;
      const words = line.trim() === "" ? [] : line.trim().split(/ +/);
      if (words.length === 0) out.push("");
      else out.push(...fill(words, width, indent, indent).map((l) => " ".repeat(indent) + l));
      continue;
    }
    const rows: Array<[string, string]> = [];
    for (; i < lines.length; i++) {
      const m = ROW.exec(lines[i] as string);
      if (!m) break;
      rows.push([m[2] as string, m[3] as string]);
    }
    const column = Math.min(Math.max(...rows.map(([name]) => visible(name))), Math.floor(width * 0.35));
    const hang = stacked ? STACKED_INDENT : 2 + column + 4;
    for (const [name, description] of rows) {
      const words = description.split(/ +/);
      if (stacked || visible(name) > column) {
        out.push(`  ${name}`);
        out.push(...fill(words, width, hang, hang).map((l) => " ".repeat(hang) + l));
        continue;
      }
      const [head, ...tail] = fill(words, width, hang, hang);
      out.push(`  ${name}${" ".repeat(column - visible(name) + 4)}${head}`);
      out.push(...tail.map((l) => " ".repeat(hang) + l));
    }
  }
  return out.join("\n");
}

/** Commands that are not operations: name and summary (the surface's own, for agents and setup). */
export const META_COMMANDS: ReadonlyArray<{ name: string; summary: string; usage: string }> = [
  {
    name: "describe",
    summary: "Print an operation's manifest as JSON (flags, schemas, limits, examples).",
    usage: "describe OP",
  },
  {
    name: "schema",
    summary: "Print an operation's input/output JSON Schemas, or every schema with --all.",
    usage: "schema OP | --all",
  },
  {
    name: "capabilities",
    summary: "Print versions, platform, supported predicates and MCP availability as JSON.",
    usage: "capabilities",
  },
  {
    name: "agent-version",
    summary: "Print the agent API and schema versions as JSON.",
    usage: "agent-version",
  },
  { name: "mcp", summary: "Serve every operation as an MCP tool over stdio.", usage: "mcp [--root DIR]..." },
  {
    name: "completions",
    summary: "Print a shell completion script (bash, zsh, fish or PowerShell), generated from the registry.",
    usage: "completions bash|zsh|fish|powershell",
  },
  { name: "man", summary: "Print the man page (roff), generated from the registry.", usage: "man" },
];

function typeHint(kind: string, hint: string | undefined, choices: readonly string[] | undefined): string {
  if (hint) return hint;
  if (choices) return choices.join("|");
  return kind === "integer" || kind === "number" ? "N" : kind === "size" ? "SIZE" : "VALUE";
}

/**
 * Creates the citty command of an operation (for help only).
 * @param op the operation
 * @returns the command definition
 */
function commandOf(op: Operation): CommandDef {
  // Operands are not citty positionals: the usage line and the ARGUMENTS section come from the synopsis
  // (opHelp), and an operand's key may also be a flag's (find's GLOB operands are --patterns).
  const args: ArgsDef = {};
  const shared = sharedWithFind(op);
  for (const f of flagsOf(op)) {
    const extra = flagNotes(f);
    for (const n of f.negations) extra.push(`--${n} sets it to false`);
    const text = cliText(op, f.description);
    const description =
      (shared.has(f.key) && text.length > SHARED_TEXT ? `${shortText(text, SHARED_TEXT)} ${MORE}.` : text) +
      (extra.length ? ` [${extra.join("; ")}]` : "");
    // citty prints every alias after one dash: a long alias gets the second dash here (`--glob`, not the
    // `-glob` that the parser refuses as a find(1) spelling).
    const alias = [...(f.short ? [f.short] : []), ...f.aliases.map((a) => `-${a}`)];
    args[f.long] =
      f.kind === "boolean"
        ? { type: "boolean", description, alias }
        : { type: "string", description, alias, valueHint: typeHint(f.kind, f.hint, f.choices) };
  }
  return defineCommand({ meta: { name: op.id, description: op.summary }, args });
}

/** The most characters a flag's text that find's help gives in full takes in another command's --help. */
const SHARED_TEXT = 110;

/** What a text cut because find's help has it in full ends with. */
const MORE = "(more: find --help)";

/** The note under the flags of a help whose shared texts were cut. */
const SHARED_NOTE =
  "The selection flags (globs, types, sizes, times, --perm, links, ignore files) are find's, AND'd with each other while a repeated flag ORs its values (-e php -g Gemfile keeps nothing; -g '*.php' -g Gemfile keeps either): 'rglob find --help' gives their rules in full, and so do docs/ops/find.md and docs/contract.md.";

/**
 * The input keys of an operation whose flag text is find's, word for word (the selection flags every walking
 * operation shares): its --help cuts them to a line and says where they are in full (#37: grep, count and find
 * --help repeated 35 flags' rules, 7-9 KB a page). Empty for find itself.
 */
function sharedWithFind(op: Operation): Set<string> {
  const out = new Set<string>();
  const find = OPERATIONS.find((o) => o.id === "find");
  if (find === undefined || find === op) return out;
  const texts = new Map(flagsOf(find).map((f) => [f.key, f.description]));
  for (const f of flagsOf(op)) if (!f.presentation && texts.get(f.key) === f.description) out.add(f.key);
  return out;
}

/** Creates the root command, with every operation and meta command as a subcommand. */
function rootCommand(): CommandDef {
  const subCommands: Record<string, CommandDef> = {};
  // The overview lists each command by its summary: its flags are built by its own help only.
  for (const op of OPERATIONS)
    subCommands[op.id] = defineCommand({ meta: { name: op.id, description: op.summary } });
  for (const m of META_COMMANDS)
    subCommands[m.name] = defineCommand({ meta: { name: m.name, description: m.summary } });
  return defineCommand({
    meta: {
      name: "rglob",
      version: PACKAGE_VERSION,
      description: "Recursive file search for coding agents and the people who work with them.",
    },
    subCommands,
  });
}

/**
 * Renders the help of an operation.
 * @param op the operation
 * @param host what the environment says (COLUMNS, the colour variables)
 * @param fd where it is written (colour only on a terminal)
 * @returns the usage text with examples
 */
export async function opHelp(op: Operation, host: Host, fd: 1 | 2 = 1): Promise<string> {
  const synopsis = synopsisOf(op);
  const text = plain(await renderUsage(commandOf(op), rootCommand()), fd, host).replace(
    /^(.*USAGE.*rglob \S+ \[OPTIONS\]) ?/m,
    `$1 ${synopsis}`,
  );
  const args = operandLines(op, synopsis);
  const rules = RULES_FIRST[op.id];
  const ruled =
    rules === undefined ? text : text.replace(/^((?:\u001b\[[0-9;]*m)*USAGE)/m, (u) => `${rules}\n\n${u}`);
  const withArgs =
    args === ""
      ? ruled
      : ruled.replace(
          /^(?:\u001b\[[0-9;]*m)*OPTIONS.*$/m,
          (h) => `${h.replace("OPTIONS", "ARGUMENTS")}\n\n${args}\n\n${h}`,
        );
  const examples = op.examples.map((e) => `  ${e.cli}\n      ${e.description}`).join("\n");
  const note = sharedWithFind(op).size > 0 && withArgs.includes(MORE) ? `\n\n${SHARED_NOTE}` : "";
  return layoutHelp(
    // The operation's full description (for count, its counting rules, #37) after the examples.
    `${withArgs}${note}\n\nEXAMPLES\n\n${examples}\n\nABOUT\n\n  ${cliText(op, op.description)}\n\n${exitLine(op)}`,
    helpWidth(fd, host),
    true,
  );
}

/**
 * The ARGUMENTS section: what each operand's input key means, from its model (empty when none says). A lone
 * operand key is shown as the whole synopsis, the spelling the usage line gives it.
 */
function operandLines(op: Operation, synopsis: string): string {
  const schema = SCHEMAS[`${op.id}.input`] as { properties?: Record<string, { description?: unknown }> };
  const rows: Array<[string, string]> = [];
  for (const raw of op.cli.operands) {
    const key = operandKey(raw);
    const description = schema.properties?.[key]?.description;
    const label = op.cli.operands.length === 1 ? synopsis : key.toUpperCase();
    // An operand that is also a flag's input key (find's GLOBs are --glob's) is said once, under the flag.
    const flag = flagsOf(op).find((f) => f.key === key && !f.presentation);
    if (flag !== undefined) rows.push([label, `As ${flagSpellings(flag)} below.`]);
    else if (typeof description === "string") rows.push([label, cliText(op, description)]);
  }
  // A PATTERN in the synopsis is the `pattern` input key (grep): its model says which regex dialect it is.
  const pattern = schema.properties?.pattern?.description;
  if (/\bPATTERN\b/.test(synopsis) && typeof pattern === "string" && !rows.some(([k]) => k === "PATTERN")) {
    rows.push(["PATTERN", cliText(op, pattern)]);
  }
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, d]) => `  ${k.padEnd(width)}    ${d}`).join("\n");
}

/**
 * Renders the top-level help.
 * @param host what the environment says (COLUMNS, the colour variables)
 * @param fd where it is written (colour only on a terminal)
 * @returns the usage text
 */
export async function rootHelp(host: Host, fd: 1 | 2 = 1): Promise<string> {
  // citty's closing line is replaced by one that also names describe.
  const text = plain(await renderUsage(rootCommand()), fd, host).replace(
    /\n[^\n]*for more information about a command\.$/,
    "",
  );
  // The everyday questions first (#37: agents read four help pages before their first question), then the
  // commands; citty's first line (the description and version) stays first.
  const at = text.indexOf("\n");
  const questions = `QUESTIONS, ONE COMMAND EACH (add --json for records)\n\n${questionLines().join("\n")}\n`;
  return layoutHelp(
    `${text.slice(0, at)}\n\n${questions}${text.slice(at)}\nRun 'rglob help --all' for every command's usage and flags in one page, 'rglob <command> -h' for a command's flags used most, 'rglob <command> --help' for all of them with their rules, 'rglob describe <command>' for its JSON manifest.`,
    helpWidth(fd, host),
  );
}

/**
 * The registry's examples that answer an everyday question, in registry order: each operation's examples with a
 * `question`. The top-level help and the README's everyday block (scripts/gen-docs.ts) list them.
 * @returns question and command line pairs
 */
export function everydayQuestions(): Array<{ question: string; cli: string }> {
  return OPERATIONS.flatMap((op) =>
    op.examples.flatMap((e) => (e.question === undefined ? [] : [{ question: e.question, cli: e.cli }])),
  );
}

/** The QUESTIONS section's lines: the question, then the command under it. */
function questionLines(): string[] {
  return everydayQuestions().map(({ question, cli }) => `  ${question}\n      ${cli}`);
}

/** The most characters a flag's text takes in `rglob help --all` (one line each, about 8 KB in all). */
const ALL_TEXT = 56;

/**
 * Renders every command's short help in one page (`rglob help --all`, `rglob --help-all`), as `git help -a` lists
 * every command with its summary: first the flags every command that walks a tree takes (find's selection, the
 * bounds, the output), once; then per command its usage and summary, its own flags used most with the first
 * clause of each, and the spelling of every other flag it has; then the other commands.
 * @param host what the environment says (COLUMNS)
 * @param fd where it is written
 * @returns the text
 */
export function allHelp(host: Host, fd: 1 | 2 = 1): string {
  const walking = OPERATIONS.filter((op) => flagsOf(op).some((f) => f.key === "patterns" && !f.presentation));
  const spelled = (f: FlagSpec) => `${f.key} ${briefName(f)} ${flagSpellings(f)}`;
  // A key is common when every walking command spells it alike (grep's -e is a pattern, not --extension).
  const [first, ...others] = walking.map((op) => new Set(flagsOf(op).map(spelled)));
  const common = new Set([...(first ?? [])].filter((k) => others.every((keys) => keys.has(k))));
  const out: string[] = [
    "rglob: every command's usage and flags on one page. 'rglob --help': everyday questions, one command each; 'rglob <command> --help': a flag's full rules.",
  ];
  const section = (op: Operation, keep: (f: FlagSpec) => boolean) => {
    const flags = flagsOf(op).filter(keep);
    const order = BRIEF_FLAGS[op.id] ?? [];
    const brief = order
      .map((k) => flags.find((f) => f.key === k))
      .filter((f): f is FlagSpec => f !== undefined);
    for (const f of brief)
      out.push(`  ${briefName(f)}    ${shortText(cliText(op, f.description), ALL_TEXT)}`);
    const rest = flags.filter((f) => !brief.includes(f)).map((f) => flagSpellings(f).replace(", ", "/"));
    if (rest.length > 0) out.push(`  ${brief.length > 0 ? "also: " : ""}${rest.join(" ")}`);
  };
  const find = walking[0];
  if (find !== undefined) {
    out.push("", `Every command that walks a tree (${walking.map((o) => o.id).join(", ")}) takes these:`);
    section(find, (f) => common.has(spelled(f)));
  }
  for (const op of OPERATIONS) {
    out.push("", `rglob ${op.id} ${synopsisOf(op)}`.trimEnd(), `  ${op.summary}`);
    section(op, (f) => !walking.includes(op) || !common.has(spelled(f)));
  }
  out.push("", "Other commands:");
  for (const m of META_COMMANDS) out.push(`  rglob ${m.usage}    ${m.summary}`);
  return layoutHelp(out.join("\n"), helpWidth(fd, host));
}

/** The names of an operation's result and record fields (what --json prints): kept as they are in its help. */
function fieldNames(op: Operation): Set<string> {
  const names = new Set<string>();
  const add = (stem: string | undefined) => {
    const props = (stem === undefined ? undefined : SCHEMAS[stem])?.properties;
    if (props && typeof props === "object") for (const k of Object.keys(props)) names.add(k);
  };
  add(`${op.id}.output`);
  for (const stem of Object.values(RECORD_SCHEMAS[op.id] ?? {})) add(stem);
  return names;
}

/** Per operation, the flags by key and the field names cliText reads (built once per process). */
const VOCABULARY = new Map<Operation, { flags: Map<string, FlagSpec>; fields: Set<string> }>();

/** Each input key of an operation with a flag, and the flag that sets it. */
function flagByKey(op: Operation): Map<string, FlagSpec> {
  const map = new Map<string, FlagSpec>();
  for (const f of flagsOf(op)) if (!f.presentation) map.set(f.key, f);
  return map;
}

/**
 * Rewrites a text of the registry (written with the input keys every surface shares) in the CLI's words: an input
 * key becomes its flag (`max_per_file` → `--max-count`, `hidden=false` → `--no-hidden`, `` `limit` `` → `--limit`),
 * and an "error record" is an error. The names of result and record fields (what --json prints), and a key
 * in quotes (a value such as the reason 'max_count'), stay as they are.
 * @param op the operation whose help it is
 * @param text the text
 * @returns the text for the CLI
 */
function cliText(op: Operation, text: string): string {
  let known = VOCABULARY.get(op);
  if (known === undefined) {
    known = { flags: flagByKey(op), fields: fieldNames(op) };
    VOCABULARY.set(op, known);
  }
  const { flags, fields } = known;
  const on = (f: FlagSpec) => `--${f.long}`;
  let out = text
    .replace(
      /call again with (?:the same arguments plus |)`cursor`/g,
      "run the same command again with --cursor NEXT_CURSOR",
    )
    .replace(
      /page with `cursor` when `next_cursor` is set/g,
      "when a next_cursor is given, run the same command again with --cursor NEXT_CURSOR",
    )
    .replace(/\b([a-z][a-z_]*)=(true|false|[a-z0-9]+)\b/g, (whole, key: string, value: string) => {
      const f = flags.get(key);
      if (f === undefined) return whole;
      if (f.kind === "boolean") return value === "false" ? offSpelling(f) : value === "true" ? on(f) : whole;
      return `${on(f)} ${value}`;
    });
  out = out.replace(/`([a-z][a-z_]*)`( = )?/g, (whole, key: string, eq: string | undefined) => {
    const f = flags.get(key);
    if (f === undefined || fields.has(key)) return whole;
    return eq === undefined ? on(f) : `${on(f)} `;
  });
  out = out.replace(
    /(?<![\w.'`-])([a-z]+(?:_[a-z]+)+)( is (?:false|true|set))?(?![\w'`-])/g,
    (whole, key: string, is) => {
      const f = flags.get(key);
      if (f === undefined) return whole;
      if (is === " is false" && f.kind === "boolean") return `${offSpelling(f)} is given`;
      if (is !== undefined) return `${on(f)} is given`;
      return on(f);
    },
  );
  return out.replace(
    /\b(an? )?([A-Z_]+ )?error record(s?)\b/g,
    (_w, art: string | undefined, code: string | undefined, s: string) =>
      `${art === undefined ? "" : code === undefined ? art : "an "}error${s}${code === undefined ? "" : ` (${code.trim()})`}`,
  );
}

/**
 * The flags a command's short help (-h) shows, by input or presentation key, in this order: those a person
 * reaches for first (rg's and fd's -h show about as many). Every other flag is in --help.
 */
const BRIEF_FLAGS: Readonly<Record<string, readonly string[]>> = {
  // biome-ignore format: one command a line
  find: ["extensions", "types", "patterns", "exclude", "base", "max_depth", "min_size", "newer_than", "perm", "links", "sort", "format", "only_ignored", "unrestricted", "json"],
  // biome-ignore format: one command a line
  grep: ["fixed_strings", "ignore_case", "word_regexp", "patterns", "file_types", "context", "files_with_matches", "count", "max_per_file", "max_count", "in", "by", "only_ignored", "unrestricted", "json"],
  // biome-ignore format: one command a line
  count: ["by", "files", "classify", "extensions", "file_types", "patterns", "exclude", "base", "no_comments", "unrestricted", "json"],
  // biome-ignore format: one command a line
  dupes: ["extensions", "min_size", "include_empty", "include_hard_links", "patterns", "exclude", "base", "unrestricted", "json"],
  tree: ["max_depth", "types", "patterns", "exclude", "links", "base", "unrestricted", "json"],
  top: ["limit", "dirs", "extensions", "patterns", "exclude", "base", "unrestricted", "json"],
  stats: ["extensions", "patterns", "exclude", "links", "base", "unrestricted", "json"],
  explain: ["under", "all", "only", "expand", "base", "patterns", "unrestricted", "json"],
  lcount: ["extensions", "patterns", "exclude", "base", "json"],
  tsize: ["extensions", "patterns", "exclude", "base", "unit", "json"],
  index: ["base", "status", "remove", "json"],
  serve: ["base", "detach", "stop", "idle_seconds", "json"],
};

/**
 * Rules a command's answers follow that people check by hand unless told (#37): said right after the summary, in
 * -h and --help alike.
 */
const RULES_FIRST: Readonly<Record<string, string>> = {
  count:
    "RULES: blank = only whitespace (inside a block comment too); comment = only comments (doc comments too; a #! first line where comments start with #); a line with code and a comment is code; text inside a string is code, but a docstring line (Python, Julia, Elixir @doc) is a comment line, also counted as `docstring` (--docstrings code counts it as code, as tokei does). --classify shows how each line of the files was counted.",
};

/** A flag's short letter and shortest long spelling, as a text names it: `-g, --glob`. */
function flagSpellings(f: FlagSpec): string {
  const shortest = [f.long, ...f.aliases].sort((a, b) => a.length - b.length)[0] ?? f.long;
  return `${f.short ? `-${f.short}, ` : ""}--${shortest}`;
}

/** A flag's spellings as the short help shows them: `-e, --extension EXT`. */
function briefName(f: FlagSpec): string {
  const value = f.kind === "boolean" ? "" : ` ${typeHint(f.kind, f.hint, f.choices)}`;
  // The shortest long spelling, as rg and fd name it (--glob, --type, --link), or how to turn a default off.
  const shortest = [f.long, ...f.aliases].sort((a, b) => a.length - b.length)[0] ?? f.long;
  const long = f.kind === "boolean" && f.default === true ? offSpelling(f) : `--${shortest}`;
  return `${f.short && !(f.kind === "boolean" && f.default === true) ? `-${f.short}, ` : ""}${long}${value}`;
}

/**
 * Renders the short help of an operation (-h): a screen with the usage, the flags of BRIEF_FLAGS with the first
 * sentence of each, two examples, and where the rest is. --help stays the full reference.
 * @param op the operation
 * @param host what the environment says (COLUMNS, the colour variables)
 * @param fd where it is written
 * @returns the text
 */
export function opShortHelp(op: Operation, host: Host, fd: 1 | 2 = 1): string {
  const flags = flagsOf(op);
  const rows: Array<[string, string]> = [];
  for (const key of BRIEF_FLAGS[op.id] ?? []) {
    const f = flags.find((x) => x.key === key);
    if (f === undefined) continue;
    rows.push([briefName(f), cliText(op, f.description)]);
  }
  const column = Math.max(...rows.map(([n]) => n.length));
  // One line each: the first sentence, cut at a clause to the width left.
  const room = Math.max(30, helpWidth(fd, host) - column - 6);
  for (const row of rows) row[1] = shortText(row[1], room);
  const examples = op.examples.slice(0, 2).map((e) => `  ${e.cli}\n      ${e.description}`);
  return layoutHelp(
    [
      `${op.summary}`,
      "",
      ...(RULES_FIRST[op.id] === undefined ? [] : [RULES_FIRST[op.id] as string, ""]),
      `USAGE: rglob ${op.id} [OPTIONS] ${synopsisOf(op)}`.trimEnd(),
      "",
      "OPTIONS (the ones used most)",
      "",
      ...rows.map(([n, d]) => `  ${n.padEnd(column)}    ${d}`),
      "",
      "EXAMPLES",
      "",
      ...examples,
      "",
      ...(op.exitCodes === undefined
        ? [
            `'rglob ${op.id} --help' lists all ${flags.length} flags with the rules; exit codes: 0 found, 1 nothing, 2 error.`,
          ]
        : [`'rglob ${op.id} --help' lists all ${flags.length} flags with the rules.`, exitLine(op, true)]),
    ].join("\n"),
    helpWidth(fd, host),
  );
}
