/*! CLI: strict argv parsing driven by the registry. Every flag comes from an operation's input model (its
 * generated JSON Schema gives type, default, enum and description) plus the spelling in the op's CliSpec.
 * Repeatable flags for arrays, strict numbers, --no-x negations, bundled short booleans, `--` ends flags.
 * An unknown flag or a bad value is a UsageError (exit 2). Nothing here knows about any one operation. */

import { boundMessage } from "../../contract/errors.ts";
import { SCHEMAS } from "../../generated/schemas.ts";
import { type ListItemFlag, type Operation, operandKey, type PresentationFlag } from "../../ops/operation.ts";
import { closest } from "../suggest.ts";
import { fdKindLetter, fileTypeSpelling, foreignSpelling } from "./foreign.ts";

/** A mistake in the command line (exit 2, message on stderr). */
export class UsageError extends Error {
  override readonly name = "UsageError";

  constructor(message: string) {
    // A huge bad argument is quoted by its prefix only, as in every error message.
    super(boundMessage(message));
  }
}

/** The value kind of a flag. */
type FlagKind = "boolean" | "integer" | "number" | "string" | "size" | "strings" | "enum" | "enums";

/** One flag of a command. */
export interface FlagSpec {
  /** Input key (snake_case), or the presentation flag's name. */
  readonly key: string;
  readonly long: string;
  readonly short: string | undefined;
  readonly aliases: readonly string[];
  /** Long spellings that set the boolean to false (besides --no-<long>). */
  readonly negations: readonly string[];
  readonly kind: FlagKind;
  readonly choices: readonly string[] | undefined;
  readonly description: string;
  readonly default: unknown;
  readonly hint: string | undefined;
  /** True for presentation flags (not part of the operation input). */
  readonly presentation: boolean;
  /** A shorthand's input values per occurrence (PresentationFlag.sets), or undefined. */
  readonly sets: ReadonlyArray<Readonly<Record<string, unknown>>> | undefined;
  /** A short spelling that sets the boolean to false (PresentationFlag.offShort), or undefined. */
  readonly offShort?: string | undefined;
  /** Why the flag may not be given again with another value (CliFlag.once), or undefined. */
  readonly once?: string | undefined;
  /** How the flag fills a list of objects in the input (PresentationFlag.item), or undefined. */
  readonly item?: ListItemFlag | undefined;
}

/** Output flags every operation command has. */
const OUTPUT_FLAGS: Readonly<Record<string, PresentationFlag>> = {
  json: { type: "boolean", description: "Print one JSON result (the operation's output schema)." },
  jsonl: {
    type: "boolean",
    description: "Stream JSON Lines: one record per line with a `kind`, then one final `summary` line.",
  },
  color: {
    type: "string",
    description:
      "Colour: auto (a terminal, or forced by CLICOLOR_FORCE or FORCE_COLOR; never with NO_COLOR), always, never. Paths by LS_COLORS.",
    hint: "WHEN",
  },
};

const kebab = (key: string) => key.replaceAll("_", "-");

type Prop = Record<string, unknown>;

function kindOf(p: Prop): { kind: FlagKind; choices: string[] | undefined } {
  // A value or a list of them (perm): repeatable, each flag one item.
  if (Array.isArray(p.anyOf) && p.anyOf.some((a) => (a as Prop).type === "array"))
    return { kind: "strings", choices: undefined };
  if (Array.isArray(p.anyOf)) return { kind: "size", choices: undefined };
  if (p.type === "boolean") return { kind: "boolean", choices: undefined };
  if (p.type === "integer") return { kind: "integer", choices: undefined };
  if (p.type === "number") return { kind: "number", choices: undefined };
  if (p.type === "array") {
    const items = (p.items ?? {}) as Prop;
    return Array.isArray(items.enum)
      ? { kind: "enums", choices: items.enum as string[] }
      : { kind: "strings", choices: undefined };
  }
  if (Array.isArray(p.enum)) return { kind: "enum", choices: p.enum as string[] };
  return { kind: "string", choices: undefined };
}

/**
 * Returns the flags of an operation's command, in model order, then its presentation flags.
 * @param op the operation
 * @returns the flag specs
 */
export function flagsOf(op: Operation): FlagSpec[] {
  const schema = SCHEMAS[`${op.id}.input`] as Prop | undefined;
  const props = (schema?.properties ?? {}) as Record<string, Prop>;
  const hidden = new Set(op.cli.hidden ?? []);
  const out: FlagSpec[] = [];
  for (const [key, p] of Object.entries(props)) {
    if (hidden.has(key)) continue;
    const spell = op.cli.flags?.[key] ?? {};
    const { kind, choices } = kindOf(p);
    out.push({
      key,
      long: spell.long ?? kebab(key),
      short: spell.short,
      aliases: spell.aliases ?? [],
      negations: spell.negations ?? [],
      kind,
      choices,
      description: typeof p.description === "string" ? p.description : "",
      default: p.default,
      hint: spell.hint,
      presentation: false,
      sets: undefined,
      once: spell.once,
    });
  }
  for (const [key, f] of Object.entries({ ...(op.cli.presentation ?? {}), ...OUTPUT_FLAGS })) {
    out.push({
      key,
      long: f.long ?? kebab(key),
      short: f.short,
      aliases: [],
      negations: [],
      kind: f.type,
      choices: undefined,
      description: f.description,
      default: undefined,
      hint: f.hint,
      presentation: true,
      sets: f.sets,
      offShort: f.offShort,
      item: f.item,
    });
  }
  return out;
}

/**
 * The shortest `--no-…` spelling that turns a boolean off (`--no-ignore` rather than `--no-respect-gitignore`),
 * as help and the man page name it.
 * @param f a boolean flag
 * @returns the spelling, with its dashes
 */
export function offSpelling(f: FlagSpec): string {
  const names = [f.long, ...f.aliases].sort((a, b) => a.length - b.length);
  return `--no-${names[0] ?? f.long}`;
}

/**
 * The notes help and the man page give after a flag's description: repeatable, its default, how to turn off a
 * switch that is on by default.
 * @param f the flag
 * @returns the notes, in that order
 */
export function flagNotes(f: FlagSpec): string[] {
  const notes: string[] = [];
  if (f.kind === "strings" || f.kind === "enums") notes.push("repeatable");
  if (
    f.default !== undefined &&
    !(Array.isArray(f.default) && f.default.length === 0) &&
    f.kind !== "boolean"
  )
    notes.push(`default ${JSON.stringify(f.default)}`);
  if (f.kind === "boolean" && f.default === true) notes.push(`on by default; ${offSpelling(f)} turns it off`);
  return notes;
}

/** The result of parsing one command's argv. */
export interface ParsedCommand {
  readonly input: Record<string, unknown>;
  readonly operands: string[];
  readonly presentation: Record<string, string | boolean>;
  readonly help: boolean;
  /** True when the help asked for is the short one (-h, a screen); --help is the full reference. */
  readonly briefHelp: boolean;
  /** Where each key (input or presentation) was last set by a flag: its index in argv (the later flag wins). */
  readonly setAt: ReadonlyMap<string, number>;
}

function parseNumber(flag: string, text: string, integer: boolean): number {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text.trim())) {
    throw new UsageError(`${flag}: '${text}' is not a number`);
  }
  const n = Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`${flag}: '${text}' is out of range`);
  if (integer && !Number.isSafeInteger(n)) throw new UsageError(`${flag}: '${text}' is not a whole number`);
  return n;
}

function convert(spec: FlagSpec, flag: string, text: string): unknown {
  switch (spec.kind) {
    case "integer":
      return parseNumber(flag, text, true);
    case "number":
      return parseNumber(flag, text, false);
    case "size":
      // A number of bytes past 2^53 goes on as text, for the size parser's own error.
      return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
    case "enum":
    case "enums":
      // fd's long names of entry kinds (`--type file`) mean what they mean in fd.
      if (spec.key === "types" && spec.choices && !spec.choices.includes(text)) {
        const letter = fdKindLetter(text);
        if (letter !== undefined && spec.choices.includes(letter)) return letter;
      }
      // A choice spelled in kebab case, as flag names are (`--only not-included` for not_included).
      if (spec.choices?.includes(text.replaceAll("-", "_")) && !spec.choices.includes(text))
        return text.replaceAll("-", "_");
      if (spec.choices && !spec.choices.includes(text)) {
        const fileType = spec.key === "types" ? fileTypeSpelling(flag, text) : null;
        throw new UsageError(fileType ?? `${flag}: '${text}' is not one of ${spec.choices.join(", ")}`);
      }
      return text;
    default:
      return text;
  }
}

/**
 * Says which long flag a mistyped one probably meant (`--ignore-cas` → `--ignore-case`), as rg does.
 * @param name the flag typed, without its dashes and value
 * @param specs the command's flags
 * @returns `: did you mean '--x'?`, or "" when no flag is close
 */
function meant(name: string, specs: readonly FlagSpec[]): string {
  const known = ["help"];
  for (const s of specs) {
    const names = [s.long, ...s.aliases];
    known.push(...names, ...s.negations);
    if (s.kind === "boolean") known.push(...names.map((n) => `no-${n}`));
  }
  const guess = closest(name, known);
  return guess === null ? "" : `: did you mean '--${guess}'?`;
}

/**
 * Refuses a predicate given twice with two values: both tests cannot be kept in one value, and keeping the last
 * would drop the first without a word (#37). The same value twice is one test.
 * @param spec the flag
 * @param flag the spelling used
 * @param before the value an earlier flag gave, or undefined
 * @param value the value given now
 * @throws UsageError when the flag holds one value and the two differ
 */
function onlyOnce(spec: FlagSpec, flag: string, before: unknown, value: unknown): void {
  if (spec.once === undefined || before === undefined || before === value) return;
  throw new UsageError(
    `${flag} given twice ('${String(before)}', then '${String(value)}'): it holds one value; ${spec.once}`,
  );
}

/**
 * Adds a flag's item to a list of objects in the input, or sets a field of the last one (PresentationFlag.item).
 * @param input the input being built
 * @param spec the flag
 * @param flag the spelling used
 * @param value its value
 * @param specs the command's flags (to name those that add an item)
 * @throws UsageError when a flag bound to the item before it comes first
 */
function addItem(
  input: Record<string, unknown>,
  spec: FlagSpec,
  flag: string,
  value: string,
  specs: readonly FlagSpec[],
): void {
  const item = spec.item as ListItemFlag;
  const list = (input[item.key] as Record<string, unknown>[] | undefined) ?? [];
  input[item.key] = list;
  const v = item.split === true ? value.split(",") : value;
  if (item.onLast !== true) {
    list.push({ [item.field]: v, ...item.with });
    return;
  }
  const last = list.at(-1);
  if (last === undefined) {
    const adders = specs
      .filter((s) => s.item?.key === item.key && s.item.onLast !== true)
      .map((s) => `--${s.long}`);
    throw new UsageError(`${flag} applies to the ${adders.join(" or ")} before it, and none was given`);
  }
  last[item.field] = v;
}

/**
 * Parses a command's argv strictly.
 * @param op the operation
 * @param argv the arguments after the subcommand
 * @returns the input (without operands mapped), operands and presentation values
 * @throws UsageError on an unknown flag, a missing value or a bad value
 */
export function parseCommand(op: Operation, argv: readonly string[]): ParsedCommand {
  const specs = flagsOf(op);
  const byLong = new Map<string, FlagSpec>();
  const byShort = new Map<string, FlagSpec>();
  const byNegation = new Map<string, FlagSpec>();
  const byShortOff = new Map<string, FlagSpec>();
  for (const s of specs) {
    if (s.offShort) byShortOff.set(s.offShort, s);
    byLong.set(s.long, s);
    for (const a of s.aliases) byLong.set(a, s);
    for (const n of s.negations) byNegation.set(n, s);
    if (s.short) byShort.set(s.short, s);
  }
  const first = op.cli.operands[0] === "operands..." ? " PATTERN" : ""; // grep's form: the pattern comes first
  const usage = `rglob ${op.id}${first}`;
  const input: Record<string, unknown> = {};
  const presentation: Record<string, string | boolean> = {};
  const operands: string[] = [];
  let help = false;
  let briefHelp = false;

  // Where each input key was last set by a flag, and each use of a shorthand (applied after, by position).
  const setAt = new Map<string, number>();
  const lastAt = new Map<string, number>();
  const times = new Map<FlagSpec, number>();
  const shorthands: Array<{ values: Readonly<Record<string, unknown>>; at: number }> = [];
  let at = 0;
  const assign = (spec: FlagSpec, flag: string, value: unknown) => {
    if (spec.item !== undefined) return addItem(input, spec, flag, String(value), specs);
    if (spec.sets !== undefined) {
      if (value !== true) return;
      const n = (times.get(spec) ?? 0) + 1;
      times.set(spec, n);
      const values = spec.sets[Math.min(n, spec.sets.length) - 1];
      if (values !== undefined) shorthands.push({ values, at });
      return;
    }
    lastAt.set(spec.key, at);
    if (!spec.presentation) setAt.set(spec.key, at);
    const target = spec.presentation ? presentation : input;
    if (spec.kind === "strings" || spec.kind === "enums") {
      const list = (target[spec.key] as unknown[] | undefined) ?? [];
      const parts = spec.kind === "enums" ? String(value).split(",") : [value];
      for (const part of parts) list.push(convert(spec, flag, String(part)));
      (target as Record<string, unknown>)[spec.key] = list;
    } else if (spec.kind === "boolean") {
      (target as Record<string, unknown>)[spec.key] = value;
    } else {
      const v = convert(spec, flag, String(value));
      onlyOnce(spec, flag, (target as Record<string, unknown>)[spec.key], v);
      (target as Record<string, unknown>)[spec.key] = v;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    at = i;
    if (arg === "--") {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "--help" || arg === "-h") {
      // The last one given decides which help, as in rg.
      briefHelp = arg === "-h";
      help = true;
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      let spec = byLong.get(name);
      let negated = false;
      if (!spec && byNegation.has(name)) {
        spec = byNegation.get(name);
        negated = true;
      }
      if (!spec && name.startsWith("no-")) {
        const positive = byLong.get(name.slice(3));
        if (positive?.kind === "boolean") {
          spec = positive;
          negated = true;
        }
      }
      if (!spec)
        throw new UsageError(
          foreignSpelling(arg, usage, () => false) ??
            `unknown flag '--${name}' for '${op.id}'${meant(name, specs)} (see 'rglob ${op.id} --help')`,
        );
      if (spec.kind === "boolean") {
        if (eq >= 0) {
          const text = arg.slice(eq + 1);
          if (text !== "true" && text !== "false")
            throw new UsageError(`--${name} takes no value (or =true/=false)`);
          assign(spec, arg, negated ? text === "false" : text === "true");
        } else assign(spec, arg, !negated);
        continue;
      }
      let value: string | undefined;
      if (eq >= 0) value = arg.slice(eq + 1);
      else {
        value = argv[++i];
        if (value === undefined) throw new UsageError(`--${name} needs a value`);
      }
      assign(spec, `--${name}`, value);
      continue;
    }
    const foreign = foreignSpelling(
      arg,
      usage,
      (f) => f.length === 2 && (byShort.has(f[1] as string) || byShortOff.has(f[1] as string)),
    );
    if (foreign !== null) throw new UsageError(foreign);
    if (arg.startsWith("-") && arg.length > 1) {
      // Short flags: booleans may be bundled (-iw); a value may be attached (-n10) or follow (-n 10).
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        const off = byShortOff.get(letter);
        if (off !== undefined && !byShort.has(letter)) {
          assign(off, `-${letter}`, false);
          continue;
        }
        const spec = byShort.get(letter);
        if (!spec)
          throw new UsageError(`unknown flag '-${letter}' for '${op.id}' (see 'rglob ${op.id} --help')`);
        if (spec.kind === "boolean") {
          assign(spec, `-${letter}`, true);
          continue;
        }
        let value = arg.slice(j + 1);
        if (value === "") {
          const next = argv[++i];
          if (next === undefined) throw new UsageError(`-${letter} needs a value`);
          value = next;
        } else if (value.startsWith("=")) value = value.slice(1);
        assign(spec, `-${letter}`, value);
        break;
      }
      continue;
    }
    operands.push(arg);
  }
  // Shorthands (-u, -uu, grep's -s): a value applies unless a flag after it set the same key.
  for (const { values, at: where } of shorthands) {
    for (const [key, value] of Object.entries(values)) if ((setAt.get(key) ?? -1) < where) input[key] = value;
  }
  return { input, operands, presentation, help, briefHelp, setAt: lastAt };
}

/**
 * Maps operands to input keys by the op's operand names (the last may be variadic: "name...").
 * @param op the operation
 * @param operands the operands
 * @param input the input to fill
 * @throws UsageError when a required operand is missing or there are too many
 */
export function assignOperands(
  op: Operation,
  operands: readonly string[],
  input: Record<string, unknown>,
): void {
  const names = op.cli.operands;
  let i = 0;
  for (const raw of names) {
    const variadic = raw.endsWith("...");
    const name = operandKey(raw);
    if (variadic) {
      const rest = operands.slice(i);
      if (rest.length > 0) {
        const prev = (input[name] as unknown[] | undefined) ?? [];
        input[name] = [...rest, ...prev];
      }
      i = operands.length;
      break;
    }
    const value = operands[i];
    if (value === undefined) {
      if (raw.endsWith("?")) continue;
      if (input[name] !== undefined) continue;
      throw new UsageError(`missing operand ${name.toUpperCase()} (see 'rglob ${op.id} --help')`);
    }
    input[name] = value;
    i++;
  }
  if (i < operands.length) {
    throw new UsageError(`unexpected operand '${operands[i]}' (see 'rglob ${op.id} --help')`);
  }
}
