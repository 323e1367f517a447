/*! Operations: the shape every operation in the registry has, and the run context the dispatcher gives it.
 * An operation never writes output or exits: it yields records or pushes events (engine/events.ts); the
 * dispatcher bounds them and the sink writes. */
import type * as v from "valibot";
import type { GitPlaces } from "../engine/ignore.ts";
import type { RunContext } from "../engine/run.ts";

/** A record yielded by an operation: its JSONL kind, the wire object and its order key (for cursors). */
export interface Emitted {
  readonly kind: string;
  readonly record: object;
  /** Order key of the record: a cursor resumes strictly after it. */
  readonly key: string;
}

/**
 * What an operation yields: a record, or a batch of records (one await in the dispatcher per batch). An empty
 * batch is a pause: an operation that pushes its results through `ctx.events` (find's walk entries) yields one
 * between batches, so a consumer that paces the run (the library's streaming iterator) holds it there.
 */
export type Yielded = Emitted | readonly Emitted[];

/** Turns one record into the JSONL lines (kind, object) that stand for it, or null when it is one line as it is. */
export type JsonlExpander = (kind: string, record: object) => ReadonlyArray<readonly [string, object]> | null;

/** How a CLI flag of an operation is spelled (the type, default and description come from the input model). */
export interface CliFlag {
  /** The long spelling when it is not the key in kebab-case (e.g. "max-count" for max_per_file, as rg spells it). */
  readonly long?: string;
  /** Single-letter alias, e.g. "d" for --max-depth. */
  readonly short?: string;
  /** Extra long aliases. */
  readonly aliases?: readonly string[];
  /** Long spellings that set a boolean to false (e.g. --case-insensitive for case_sensitive). */
  readonly negations?: readonly string[];
  /** Value hint in help, e.g. "SIZE". */
  readonly hint?: string;
  /**
   * A predicate that holds one value: given again with another, the command is refused with this reason (a
   * later flag never silently drops an earlier test, #37).
   */
  readonly once?: string;
}

/** A CLI-only presentation flag (output shape for people: -0, --format…); it never reaches the operation. */
export interface PresentationFlag {
  readonly type: "boolean" | "string";
  readonly short?: string;
  readonly description: string;
  readonly hint?: string;
  /** The long spelling when it is not the key in kebab-case. */
  readonly long?: string;
  /** A short spelling that sets the boolean to false (rg's -N, --no-line-number). */
  readonly offShort?: string;
  /**
   * A shorthand for input values (rg's -u, -uu, -uuu; grep's -s): the n-th time the flag is given sets the input
   * values of the n-th entry (cumulative; a repeat past the last sets the last entry's values again). As in rg, the last flag that sets
   * a key wins, the shorthand or an explicit flag.
   */
  readonly sets?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /** A flag that builds a list of objects in the input (grep's --also, --without, --also-in): see ListItemFlag. */
  readonly item?: ListItemFlag;
}

/**
 * How a flag fills a list of objects: each use adds `{[field]: value, ...with}` to the input key's list, or with
 * `onLast` sets `field` of the item the flag before it added (position-bound, as find's operators bind); a value
 * of `split` is a comma-separated list.
 */
export interface ListItemFlag {
  readonly key: string;
  readonly field: string;
  readonly with?: Readonly<Record<string, unknown>>;
  readonly onLast?: boolean;
  readonly split?: boolean;
}

/**
 * Returns an operand's input key: its name in a CliSpec without the `...` (variadic) or `?` (optional) mark.
 * @param raw the operand as a CliSpec lists it
 * @returns the key
 */
export function operandKey(raw: string): string {
  return raw.replace(/\.\.\.$/, "").replace(/\?$/, "");
}

/** The CLI spelling of an operation: how operands map to input keys, and flag aliases. */
interface CliSpec {
  /** The operands as help shows them, e.g. "PATTERN [PATH_OR_GLOB...]" (default: from `operands`). */
  readonly synopsis?: string;
  /** Operand names in order; the last may be variadic ("patterns..."). Keys of the input model. */
  readonly operands: readonly string[];
  /** Per-input-key spelling extras. Keys not listed still get a --kebab-case flag. */
  readonly flags?: Readonly<Record<string, CliFlag>>;
  /** Input keys that have no CLI flag (e.g. set from operands only). */
  readonly hidden?: readonly string[];
  /** Presentation flags of the human output (declared here so help and describe list them). */
  readonly presentation?: Readonly<Record<string, PresentationFlag>>;
  /** How the CLI turns operands into input (e.g. grep: existing paths are roots, the rest globs). */
  readonly operandsToInput?: (operands: readonly string[], cwd: string) => Record<string, unknown>;
  /**
   * Catches a command line that parses but was almost surely meant otherwise (another tool's meaning of a
   * letter): returns the usage error to print, or null.
   */
  readonly misuse?: (input: Readonly<Record<string, unknown>>, cwd: string) => string | null;
}

/** An example of an operation, shown by describe, help and the docs. */
interface Example {
  readonly description: string;
  /**
   * The everyday question this example answers in one command, when it answers one: the top-level help's
   * QUESTIONS section and the README's everyday block list these (scripts/gen-docs.ts), in registry order.
   */
  readonly question?: string;
  readonly cli: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** Hints for MCP clients (every operation that is a tool is read-only). */
interface Annotations {
  /** False only for index, which writes its index file to rglob's cache directory (never into a tree). */
  readonly readOnlyHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
  readonly destructiveHint: false;
}

/** The valibot models of an operation: the contract its surfaces validate against and schemas are made from. */
interface OperationModels<S extends v.GenericSchema = v.GenericSchema> {
  readonly input: S;
  readonly output: v.GenericSchema;
  /** JSONL record kinds this operation emits, with their models. */
  readonly records: Readonly<Record<string, v.GenericSchema>>;
}

/** An operation with its input type erased, as the registry holds it. */
export interface Operation {
  /** Operation id: the CLI subcommand, library function family and schema stem. */
  readonly id: string;
  readonly summary: string;
  /** A longer description, written for models (when to use it, how to page). */
  readonly description: string;
  /**
   * Loads the operation's valibot models, built on first use (memoized): a process builds the models of the
   * operation it validates, not of all of them. Code that only needs their JSON Schemas or record kinds reads
   * the generated SCHEMAS and RECORD_SCHEMAS instead.
   */
  models(): Promise<OperationModels>;
  readonly cli: CliSpec;
  /** MCP tool name, or null when the operation is not a tool. */
  readonly mcpTool: string | null;
  /** Defaults the MCP surface and the library apply when the caller leaves a key out (bounded, strict). */
  readonly agentDefaults: Readonly<Record<string, unknown>>;
  readonly annotations: Annotations;
  readonly examples: readonly Example[];
  /** What exit codes 0, 1 and 2 mean for this operation, when its results need it said (help, describe, docs). */
  readonly exitCodes?: Readonly<Record<"0" | "1" | "2", string>>;
  /**
   * Rewrites validated input into its canonical form before the query fingerprint is taken (e.g. grep's CLI
   * operands into pattern, roots and globs), so that equal queries from any surface share their cursors.
   */
  readonly normalize?: (input: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Creates the JSONL expansion of this operation's records, for a stream that has line kinds the JSON result
   * folds into its records (grep: a match's before/after become "context" lines). Stateful per stream.
   */
  readonly jsonlExpander?: () => JsonlExpander;
  /**
   * The query layer: compiles normalized input once per request (grep: operands, mode, matcher, walk), before
   * the run; the dispatcher hands the query to the sink (Sink.begin) and to run(). Absent: run() gets the input.
   */
  readonly compile?: (input: Record<string, unknown>, env?: CompileEnv) => Promise<object>;
  /** Runs the operation on its compiled query (or validated input), yielding records in their final order. */
  run(query: object, ctx: RunContext): AsyncIterable<Yielded>;
}

/** What a request is compiled with besides its input: the entry's Config, as far as a walk takes it. */
export interface CompileEnv {
  /** Where git's config files are looked for (the Config's git). */
  readonly git?: GitPlaces;
}

/** The typed definition of an operation, before its input type is erased. */
interface OperationDef<S extends v.GenericSchema<unknown, object>>
  extends Omit<Operation, "models" | "run" | "compile"> {
  /** Imports the schema module and returns its models (called once). */
  models(): Promise<OperationModels<S>>;
  run(input: v.InferOutput<S>, ctx: RunContext): AsyncIterable<Yielded>;
}

/** The typed definition of an operation with a query layer: run() takes what compile() makes of the input. */
interface CompiledOperationDef<S extends v.GenericSchema<unknown, object>, Q extends object>
  extends Omit<OperationDef<S>, "run"> {
  /** Compiles validated, normalized input into the query run() takes (once per request). */
  compile(input: v.InferOutput<S>, env?: CompileEnv): Promise<Q>;
  run(query: Q, ctx: RunContext): AsyncIterable<Yielded>;
}

/**
 * Creates a registry operation from its typed definition.
 * @param def the operation definition
 * @returns the operation with its input type erased (the dispatcher validates input before run) and its models
 *   loaded once
 */
export function defineOperation<S extends v.GenericSchema<unknown, object>, Q extends object>(
  def: CompiledOperationDef<S, Q>,
): Operation;
export function defineOperation<S extends v.GenericSchema<unknown, object>>(def: OperationDef<S>): Operation;
export function defineOperation(
  def:
    | OperationDef<v.GenericSchema<unknown, object>>
    | CompiledOperationDef<v.GenericSchema<unknown, object>, object>,
): Operation {
  let models: Promise<OperationModels> | null = null;
  const { compile, ...rest } = def as Partial<
    CompiledOperationDef<v.GenericSchema<unknown, object>, object>
  > &
    OperationDef<v.GenericSchema<unknown, object>>;
  return {
    ...rest,
    models: () => {
      models ??= def.models();
      return models;
    },
    ...(compile !== undefined
      ? { compile: (input: Record<string, unknown>, env?: CompileEnv) => compile(input, env) }
      : {}),
    run: (query, ctx) => def.run(query as never, ctx),
  };
}

/** What runs an operation. */
type Runner<I> = (input: I, ctx: RunContext) => AsyncIterable<Yielded>;

/**
 * Defers loading an operation's run module to its first run: a process loads the engine code of the one
 * operation it runs, not of all of them (start-up is part of every command's time).
 * @param load imports the module and returns its run function
 * @returns a run function
 */
export function lazyRun<I>(load: () => Promise<Runner<I>>): Runner<I> {
  let run: Runner<I> | null = null;
  return async function* (input, ctx) {
    run ??= await load();
    yield* run(input, ctx);
  };
}

/** Read-only, idempotent, closed-world annotations. */
export const READ_ONLY: Annotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
  destructiveHint: false,
};
