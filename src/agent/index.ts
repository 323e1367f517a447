/*! The public library `rglob/agent`: typed functions over the one dispatcher, non-raising for operational
 * failures (they land in the result's `errors`). Explicit named exports only. */
import { type ErrorInfo, RglobError } from "../contract/errors.ts";
import { SCHEMAS } from "../generated/schemas.ts";
import { dispatch } from "../ops/dispatch.ts";
import type { FileSearchResult, FindInput } from "../ops/find/schema.ts";
import type { GrepFile, GrepInput, LineMatch, LineSearchResult } from "../ops/grep/schema.ts";
import { findOperation } from "../ops/registry.ts";
import { CollectSink } from "../sink/sink.ts";
import { capabilities as capabilityReportOf } from "../surface/introspect.ts";

export type { CapabilityReport } from "../contract/capabilities.ts";
export type { ErrorCode, ErrorInfo } from "../contract/errors.ts";
export type { FileMatch } from "../contract/records.ts";
export { AGENT_API_VERSION, SCHEMA_VERSION } from "../contract/versions.ts";
export type { FileSearchResult, FindInput, GrepFile, GrepInput, LineMatch, LineSearchResult };

/** Options of a library call: the operation's input (snake_case keys) plus a cancellation signal. */
export type CallOptions<I> = Partial<I> & { signal?: AbortSignal };

function failedResult(error: ErrorInfo): Record<string, unknown> {
  return {
    results: [],
    truncated: false,
    truncated_reason: null,
    total_files_searched: 0,
    bytes_read: 0,
    errors: [error],
    next_cursor: null,
    schema_version: "1.0",
  };
}

/**
 * Runs an operation and collects its result (the library's agent defaults apply: strict base, bounded).
 * @param id the operation id
 * @param options the input plus a signal
 * @returns the result object; a request failure is a result with the error in `errors`
 */
export async function runAll(id: string, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { signal, ...input } = options as { signal?: AbortSignal } & Record<string, unknown>;
  const sink = new CollectSink();
  try {
    const op = findOperation(id);
    await dispatch(op, { strict_base: true, ...input }, sink, signal ? { signal } : {});
  } catch (err) {
    if (err instanceof RglobError) return failedResult(err.toInfo());
    throw err;
  }
  return sink.result ?? failedResult({ code: "UNREADABLE", message: "no result", path: null });
}

/**
 * Finds files (the `find` operation) and returns the whole result.
 * @param options find input
 * @returns a FileSearchResult
 */
export async function searchAll(options: CallOptions<FindInput> = {}): Promise<FileSearchResult> {
  return (await runAll("find", options)) as unknown as FileSearchResult;
}

/**
 * Searches file contents (the `grep` operation) and returns the whole result.
 * @param options grep input (`pattern` or `regexps`, plus walk and budget options)
 * @returns a LineSearchResult; a bad regex is a result with a REGEX error
 */
export async function grepAll(options: CallOptions<GrepInput> = {}): Promise<LineSearchResult> {
  return (await runAll("grep", options)) as unknown as LineSearchResult;
}

/**
 * Returns one public JSON Schema by stem (e.g. "find.input", "FileMatch").
 * @param name the stem
 * @returns the schema, or undefined
 */
export function schemaFor(name: string): Readonly<Record<string, unknown>> | undefined {
  return SCHEMAS[name];
}

/** Returns every public JSON Schema, keyed by stem. */
export function allSchemas(): Readonly<Record<string, Readonly<Record<string, unknown>>>> {
  return SCHEMAS;
}

/** Returns the capability report of this process. */
export function capabilities() {
  return capabilityReportOf();
}
