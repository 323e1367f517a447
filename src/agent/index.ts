/*! The public library `rglob/agent`: typed functions over the one dispatcher, non-raising for operational
 * failures (a bad option, a bad regex or a missing root is a result whose `errors` says so). Library default:
 * strict_base on. Explicit named exports only; it never writes output and never exits. */
import type * as v from "valibot";
import type { CapabilityReport } from "../contract/capabilities.ts";
import { RglobError } from "../contract/errors.ts";
import type { FileMatch } from "../contract/records.ts";
import { withoutTextFacts } from "../contract/result.ts";
import { SCHEMAS } from "../generated/schemas.ts";
import type { CountFile, CountInputSchema, CountResult } from "../ops/count/schema.ts";
import type { DupesInputSchema, Duplicate, DuplicateSearchResult } from "../ops/dupes/schema.ts";
import type { ExplainInputSchema, ExplainResult, Explanation } from "../ops/explain/schema.ts";
import type { FileSearchResult, FindInputSchema } from "../ops/find/schema.ts";
import type { GrepFile, GrepInputSchema, LineMatch, LineSearchResult } from "../ops/grep/schema.ts";
import { findOperation } from "../ops/registry.ts";
import type { ExtensionStat, StatsInputSchema, StatsResult } from "../ops/stats/schema.ts";
import type { TopDirectory, TopFile, TopInputSchema, TopResult } from "../ops/top/schema.ts";
import type { TreeEntry, TreeInputSchema, TreeResult } from "../ops/tree/schema.ts";
import { capabilities as capabilityReportOf } from "../surface/introspect.ts";
import { type CallControl, collect, failedResult, type RecordStream, stream, withDefaults } from "./call.ts";
import { servedCall } from "./served.ts";

export type { CapabilityReport } from "../contract/capabilities.ts";
export type { ErrorCode, ErrorInfo, Failure } from "../contract/errors.ts";
export type { FileMatch } from "../contract/records.ts";
export type { TruncatedReason } from "../contract/result.ts";
export { AGENT_API_VERSION, SCHEMA_VERSION } from "../contract/versions.ts";
export type { CountFile, CountGroup, CountResult, CountTotals } from "../ops/count/schema.ts";
export type { Duplicate, DuplicateSearchResult } from "../ops/dupes/schema.ts";
export type { ExplainReason, ExplainResult, Explanation } from "../ops/explain/schema.ts";
export type { FileSearchResult } from "../ops/find/schema.ts";
export type { GrepFile, LineMatch, LineSearchResult, Submatch } from "../ops/grep/schema.ts";
export type { ExtensionStat, StatsResult } from "../ops/stats/schema.ts";
export type { TopDirectory, TopFile, TopResult } from "../ops/top/schema.ts";
export type { TreeEntry, TreeResult } from "../ops/tree/schema.ts";
export type { CallControl, RecordStream } from "./call.ts";

/** Options of find (`search`, `searchAll`): the find input model, snake_case keys, all optional. */
export type FindOptions = v.InferInput<typeof FindInputSchema>;
/** Options of grep: `pattern` or `regexps`, plus the walk and budget options. */
export type GrepOptions = v.InferInput<typeof GrepInputSchema>;
/** Options of count. */
export type CountOptions = v.InferInput<typeof CountInputSchema>;
/** Options of dupes (`findDuplicates`). */
export type DupesOptions = v.InferInput<typeof DupesInputSchema>;
/** Options of tree. */
export type TreeOptions = v.InferInput<typeof TreeInputSchema>;
/** Options of top. */
export type TopOptions = v.InferInput<typeof TopInputSchema>;
/** Options of stats. */
export type StatsOptions = v.InferInput<typeof StatsInputSchema>;
/** Options of explain: `path` plus the query's walk options. */
export type ExplainOptions = v.InferInput<typeof ExplainInputSchema>;

/**
 * The typed operations of the library, by operation id: options (the input model), record and result.
 * Adding an operation to the library = one line here plus its function lines below (see
 * docs/agents/typescript-api.md, "Adding an operation").
 */
export interface AgentOps {
  find: { options: FindOptions; record: FileMatch; result: FileSearchResult };
  grep: { options: GrepOptions; record: LineMatch | GrepFile; result: LineSearchResult };
  count: { options: CountOptions; record: CountFile; result: CountResult };
  dupes: { options: DupesOptions; record: Duplicate; result: DuplicateSearchResult };
  tree: { options: TreeOptions; record: TreeEntry; result: TreeResult };
  top: { options: TopOptions; record: TopFile | TopDirectory; result: TopResult };
  stats: { options: StatsOptions; record: ExtensionStat; result: StatsResult };
  explain: { options: ExplainOptions; record: Explanation; result: ExplainResult };
}

/** The id of an operation the library types. */
export type AgentOpId = keyof AgentOps;
/** The arguments of a library call: options (optional when every key is) and the call control. */
export type CallArgs<O> = object extends O
  ? [options?: O, control?: CallControl]
  : [options: O, control?: CallControl];
/** A result without its records: what a stream's `result` settles to. */
export type ResultMeta<Res> = Omit<Res, "results">;

/** Defaults the library applies when the caller leaves a key out (DESIGN.md: strict base on). */
const LIBRARY_DEFAULTS: Readonly<Record<string, unknown>> = { strict_base: true };

function inputOf(id: string, options: object | undefined) {
  const op = findOperation(id);
  return { op, input: withDefaults(op, (options ?? {}) as Record<string, unknown>, LIBRARY_DEFAULTS) };
}

/**
 * Creates the streaming function of an operation: an async iterator of its records.
 * @param id the operation id
 * @returns `(options?, control?) => RecordStream`
 */
function streamer<K extends AgentOpId>(id: K) {
  return (
    ...[options, control]: CallArgs<AgentOps[K]["options"]>
  ): RecordStream<AgentOps[K]["record"], ResultMeta<AgentOps[K]["result"]>> => {
    const { op, input } = inputOf(id, options);
    return stream(op, input, control ?? {});
  };
}

/**
 * Creates the collecting function of an operation (`…All`): the whole result at once.
 * @param id the operation id
 * @returns `(options?, control?) => Promise<result>`
 */
function collector<K extends AgentOpId>(id: K) {
  return async (...[options, control]: CallArgs<AgentOps[K]["options"]>): Promise<AgentOps[K]["result"]> =>
    (await runAll(
      id,
      (options ?? {}) as Record<string, unknown>,
      control,
    )) as unknown as AgentOps[K]["result"];
}

/**
 * Runs any registered operation by id and returns its whole result (untyped; prefer the typed functions).
 * @param id the operation id
 * @param options the operation's input (snake_case keys)
 * @param control cancellation and progress
 * @returns the result object; a request failure is a result with the error in `errors`
 */
export async function runAll(
  id: string,
  options: Readonly<Record<string, unknown>> = {},
  control: CallControl = {},
): Promise<Record<string, unknown>> {
  try {
    const { op, input } = inputOf(id, options);
    // A tree a running warm server keeps is answered by it (src/agent/served.ts); else, here.
    const outcome = (await servedCall(op.id, input, control)) ?? (await collect(op, input, control));
    return outcome.ok ? withoutTextFacts(outcome.result) : failedResult(outcome.error);
  } catch (err) {
    if (err instanceof RglobError) return failedResult(err.toInfo());
    throw err;
  }
}

// ── Typed functions: two lines per operation (a stream and/or a collector). ──

/**
 * Finds files and directories (the `find` operation), as an async iterator of FileMatch records in walk
 * order. Leaving the loop early stops the walk; `result` then tells how it ended.
 * @param options find options (globs, predicates, bounds, cursor)
 * @param control cancellation signal and progress callback
 * @returns a RecordStream of FileMatch
 */
export const search = streamer("find");

/**
 * Finds files and directories (the `find` operation) and returns the whole result.
 * @param options find options (globs, predicates, bounds, cursor)
 * @param control cancellation signal and progress callback
 * @returns a FileSearchResult; a bad option is a result with a BAD_PREDICATE error
 */
export const searchAll = collector("find");

/**
 * Searches file contents (the `grep` operation), as an async iterator of LineMatch records (GrepFile records
 * in `files_with_matches`/`count` modes) in walk order. Leaving the loop early stops the search.
 * @param options grep options (`pattern` or `regexps`, walk and budget options)
 * @param control cancellation signal and progress callback
 * @returns a RecordStream of records
 */
export const grep = streamer("grep");

/**
 * Searches file contents (the `grep` operation) and returns the whole result.
 * @param options grep options
 * @param control cancellation signal and progress callback
 * @returns a LineSearchResult; a bad regex is a result with a REGEX error
 */
export const grepAll = collector("grep");

/**
 * Counts files, lines (total, non-blank, code) and bytes (the `count` operation).
 * @param options count options
 * @param control cancellation signal and progress callback
 * @returns a CountResult with per-file records and exact totals
 */
export const count = collector("count");

/**
 * Finds files with identical contents (the `dupes` operation).
 * @param options dupes options
 * @param control cancellation signal and progress callback
 * @returns a DuplicateSearchResult, groups sorted by wasted bytes
 */
export const findDuplicates = collector("dupes");

/**
 * Lists the selected entries with the directories above them (the `tree` operation).
 * @param options tree options
 * @param control cancellation signal and progress callback
 * @returns a TreeResult
 */
export const tree = collector("tree");

/**
 * Ranks the largest files, or directories by cumulative size (the `top` operation).
 * @param options top options
 * @param control cancellation signal and progress callback
 * @returns a TopResult
 */
export const top = collector("top");

/**
 * Summarises a tree: files, directories, sizes, extensions, newest/oldest/largest (the `stats` operation).
 * @param options stats options
 * @param control cancellation signal and progress callback
 * @returns a StatsResult
 */
export const stats = collector("stats");

/**
 * Explains why a path is or is not in the results of a query (the `explain` operation).
 * @param options `path` plus the query's walk options
 * @param control cancellation signal and progress callback
 * @returns an ExplainResult
 */
export const explain = collector("explain");

/**
 * Returns one public JSON Schema by stem: `<op>.input`, `<op>.output`, or a shared model such as
 * `FileMatch`, `ErrorInfo`, `Failure`, `CapabilityReport`.
 * @param name the stem
 * @returns the schema (Draft 2020-12), or undefined for an unknown stem
 */
export function schemaFor(name: string): Readonly<Record<string, unknown>> | undefined {
  return SCHEMAS[name];
}

/**
 * Returns every public JSON Schema, keyed by stem.
 * @returns the schemas
 */
export function allSchemas(): Readonly<Record<string, Readonly<Record<string, unknown>>>> {
  return SCHEMAS;
}

/**
 * Returns the capability report of this process (versions, platform, operations, predicates, MCP tools).
 * @returns the report
 */
export function capabilities(): CapabilityReport {
  return capabilityReportOf();
}
