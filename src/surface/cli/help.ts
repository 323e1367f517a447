/*! CLI help: the citty command tree built from the registry, used to render usage. citty draws the tree and
 * help; parsing is flags.ts (citty has no numbers or repeatable flags and accepts unknown ones). */
import { type ArgsDef, type CommandDef, defineCommand, renderUsage } from "citty";
import { PACKAGE_VERSION } from "../../contract/versions.ts";
import { SCHEMAS } from "../../generated/schemas.ts";
import { type Operation, operandKey } from "../../ops/operation.ts";
import { OPERATIONS } from "../../ops/registry.ts";
import { synopsisOf } from "../introspect.ts";
import { flagNotes, flagsOf } from "./flags.ts";
import { colorByDefault } from "./human/paths.ts";
import { isTerminal } from "./output.ts";

/** SGR escape sequences: citty colours its usage whatever the output is (unless NO_COLOR=1, TERM=dumb, CI). */
const SGR = /\u001b\[[0-9;]*m/g;

/** Keeps citty's colours only where colour is allowed (help read by a program or an agent stays plain). */
function plain(text: string, fd: 1 | 2): string {
  return colorByDefault(fd) ? text : text.replace(SGR, "");
}

/** The width help is wrapped to when neither COLUMNS nor a terminal says. */
export const DEFAULT_HELP_WIDTH = 100;

/**
 * Returns the width help is wrapped to: COLUMNS when it is a number, else the terminal's width when the output
 * is a terminal, else 100; never below 40.
 * @param fd where the help is written
 * @returns the width in columns
 */
export function helpWidth(fd: 1 | 2): number {
  const columns = Number.parseInt(process.env.COLUMNS ?? "", 10);
  let width = Number.isFinite(columns) && columns > 0 ? columns : 0;
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
export function layoutHelp(text: string, width: number): string {
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
    const hang = 2 + column + 4;
    for (const [name, description] of rows) {
      const words = description.split(/ +/);
      if (visible(name) > column) {
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
export function commandOf(op: Operation): CommandDef {
  // Operands are not citty positionals: the usage line and the ARGUMENTS section come from the synopsis
  // (opHelp), and an operand's key may also be a flag's (find's GLOB operands are --patterns).
  const args: ArgsDef = {};
  for (const f of flagsOf(op)) {
    const extra = flagNotes(f);
    for (const n of f.negations) extra.push(`--${n} sets it to false`);
    const description = f.description + (extra.length ? ` [${extra.join("; ")}]` : "");
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

/** Creates the root command, with every operation and meta command as a subcommand. */
export function rootCommand(): CommandDef {
  const subCommands: Record<string, CommandDef> = {};
  for (const op of OPERATIONS) subCommands[op.id] = commandOf(op);
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
 * @param fd where it is written (colour only on a terminal)
 * @returns the usage text with examples
 */
export async function opHelp(op: Operation, fd: 1 | 2 = 1): Promise<string> {
  const synopsis = synopsisOf(op);
  const text = plain(await renderUsage(commandOf(op), rootCommand()), fd).replace(
    /^(.*USAGE.*rglob \S+ \[OPTIONS\]) ?/m,
    `$1 ${synopsis}`,
  );
  const args = operandLines(op, synopsis);
  const withArgs =
    args === ""
      ? text
      : text.replace(
          /^(?:\u001b\[[0-9;]*m)*OPTIONS.*$/m,
          (h) => `${h.replace("OPTIONS", "ARGUMENTS")}\n\n${args}\n\n${h}`,
        );
  const examples = op.examples.map((e) => `  ${e.cli}\n      ${e.description}`).join("\n");
  return layoutHelp(
    `${withArgs}\n\nEXAMPLES\n\n${examples}\n\nExit codes: 0 results found, 1 nothing found, 2 error.`,
    helpWidth(fd),
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
    if (typeof description === "string") rows.push([label, description]);
  }
  // A PATTERN in the synopsis is the `pattern` input key (grep): its model says which regex dialect it is.
  const pattern = schema.properties?.pattern?.description;
  if (/\bPATTERN\b/.test(synopsis) && typeof pattern === "string" && !rows.some(([k]) => k === "PATTERN")) {
    rows.push(["PATTERN", pattern]);
  }
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, d]) => `  ${k.padEnd(width)}    ${d}`).join("\n");
}

/**
 * Renders the top-level help.
 * @param fd where it is written (colour only on a terminal)
 * @returns the usage text
 */
export async function rootHelp(fd: 1 | 2 = 1): Promise<string> {
  // citty's closing line is replaced by one that also names describe.
  const text = plain(await renderUsage(rootCommand()), fd).replace(
    /\n[^\n]*for more information about a command\.$/,
    "",
  );
  return layoutHelp(
    `${text}\nRun 'rglob <command> --help' for a command's flags, 'rglob describe <command>' for its JSON manifest.`,
    helpWidth(fd),
  );
}
