/*! The one dispatcher: validate → compile → run → bound → sink. Every surface (CLI, library, MCP) calls dispatch().
 * The run's records and events pass through one decorator, the bounds (bounds.ts: truncation by look-ahead);
 * here the result's metadata and next_cursor are made. It never writes output itself: the sink does. */

import * as v from "valibot";
import { type ErrorInfo, RglobError } from "../contract/errors.ts";
import { emptySkipped, type ResultMeta, type Skipped, type TruncatedReason } from "../contract/result.ts";
import { SCHEMA_VERSION } from "../contract/versions.ts";
import { typeList } from "../engine/filter/filetype.ts";
import { resolveTimes } from "../engine/filter/time.ts";
import type { GitPlaces } from "../engine/ignore.ts";
import type { WarmProvider } from "../engine/index/provider.ts";
import type { RunContext, StopReason } from "../engine/run.ts";
import type { Sink } from "../sink/sink.ts";
import { Bounds } from "./bounds.ts";
import { decodeCursor, encodeCursor, fingerprint, validOrderKey } from "./cursor.ts";
import type { Operation } from "./operation.ts";
import { findOperation } from "./registry.ts";
import { wireError } from "./wire-names.ts";

/** Records an op may gather per yield unless the caller asks for fewer: one await per batch, not per record. */
const DEFAULT_BATCH = 512;

/** Options of one dispatch. */
interface DispatchOptions {
  readonly signal?: AbortSignal;
  /** Called with the number of entries examined so far, at most every 100 ms. */
  readonly onProgress?: (scanned: number) => void;
  /** The most records an op gathers per batch (default 512; 1 for a consumer that paces record by record). */
  readonly batch?: number;
  /** The sink reads only the paths of file records (the human find output): stats need not be read ahead. */
  readonly pathsOnly?: boolean;
  /**
   * The sink takes paths that are not valid UTF-8 losslessly, as the engine holds them (platform/names.ts; the
   * human output writes their raw bytes); other sinks get the wire form (lossy paths plus `path_bytes`).
   */
  readonly rawNames?: boolean;
  /** A long-lived server's warm state (remembered walks, content index), for the operations that use it. */
  readonly warm?: WarmProvider;
  /** Counts the results handed to the sink (records, entries and lines), as they go (the CLI's exit code). */
  readonly tally?: { emitted: number };
  /** The Config's walk split (RGLOB_WALK_SPLIT): walk workers on every walk past N entries, none for 0. */
  readonly walkSplit?: number | null;
  /** The Config's recordSlice (RGLOB_TEST_RECORD_SLICE): `rglob index` collects every N recorded entries. */
  readonly recordSlice?: number | null;
  /** The Config's debug switch (RGLOB_DEBUG): internal failures told with their detail. */
  readonly debug?: boolean;
  /** The Config's indexDir: where persisted indexes are kept (`rglob index`). */
  readonly indexDir?: string;
  /** The Config's socketDir: where the warm servers' sockets are (`rglob index --status`). */
  readonly socketDir?: string;
  /** The Config's git: where git's config files are looked for (every walk's ignore rules). */
  readonly git?: GitPlaces;
  /** The input is already the model's output (validateInput's, the MCP server's call): it is not checked again. */
  readonly validated?: boolean;
}

/**
 * Validates raw input against an operation's model.
 * @param op the operation
 * @param raw the raw input
 * @returns the validated input with defaults applied
 * @throws RglobError BAD_PREDICATE naming the first bad key
 */
export async function validateInput(op: Operation, raw: unknown): Promise<Record<string, unknown>> {
  const parsed = v.safeParse((await op.models()).input, raw);
  if (parsed.success) return splitNameLists(parsed.output as Record<string, unknown>);
  const issue = parsed.issues[0];
  const where = issue?.path?.map((p) => String(p.key)).join(".") ?? "";
  let message: string;
  if (issue?.type === "strict_object" && issue.expected === "never")
    message = `unknown option '${where}' for ${op.id}`;
  else if (issue?.type === "strict_object") message = `missing required option '${where}' for ${op.id}`;
  else message = `invalid ${where ? `'${where}'` : "input"} for ${op.id}: ${issue?.message ?? "invalid"}`;
  throw new RglobError("BAD_PREDICATE", message);
}

/** The lists of names that take a comma list too (`--lang java,kotlin`, `file_types: ["java,kotlin"]`, `-e py,sh`):
 * a file type's name never holds a comma, nor does an extension one means (`-e py,sh` found nothing, and a trial
 * agent read it as no such files). Globs and paths are not split (a comma is theirs). */
const NAME_LISTS = ["file_types", "file_types_not", "extensions"] as const;

/**
 * Splits the comma lists of the name lists, the same on every surface.
 * @param input the validated input
 * @returns the input, each name of NAME_LISTS on its own
 */
function splitNameLists(input: Record<string, unknown>): Record<string, unknown> {
  for (const k of NAME_LISTS) {
    const l = input[k];
    if (Array.isArray(l) && l.some((x) => typeof x === "string" && x.includes(",")))
      input[k] = l.flatMap((x) => String(x).split(","));
  }
  return input;
}

/**
 * Counts in the skip ledger an entry that an error left out: binary, too large, or unreadable (a per-path
 * PERM, UNREADABLE or NOT_FOUND). Errors without a path (a timeout, a record too large for max_output_bytes)
 * skip no entry.
 * @param skipped the ledger
 * @param info the error
 */
function countSkip(skipped: Skipped, info: ErrorInfo): void {
  if (info.path === null) return;
  switch (info.code) {
    case "BINARY":
      skipped.binary++;
      break;
    case "TOO_LARGE":
      skipped.too_large++;
      break;
    case "PERM":
    case "UNREADABLE":
    case "NOT_FOUND":
      skipped.unreadable++;
      break;
  }
}

/**
 * Runs an operation and streams its bounded records to a sink.
 * @param opOrId the operation or its id
 * @param raw the raw input (validated here, unless options.validated says it was)
 * @param sink where records, errors and the summary go
 * @param options cancellation signal and progress callback
 * @returns the summary (metadata plus operation-specific fields), also given to sink.end
 * @throws RglobError for request-level failures (bad input, unknown op, bad regex, missing root)
 */
export async function dispatch(
  opOrId: Operation | string,
  raw: unknown,
  sink: Sink,
  options: DispatchOptions = {},
): Promise<Record<string, unknown>> {
  const op = typeof opOrId === "string" ? findOperation(opOrId) : opOrId;
  const validated =
    options.validated === true ? (raw as Record<string, unknown>) : await validateInput(op, raw);
  const input = op.normalize ? op.normalize(validated) : validated;
  // The query's fingerprint (a SHA-256) is needed only to read or write a cursor.
  let fpText: string | null = null;
  const fp = (): string => {
    fpText ??= fingerprint(op.id, input);
    return fpText;
  };
  const resumeAfter =
    typeof input.cursor === "string"
      ? decodeCursor(input.cursor, fp(), (k) => validOrderKey(op.id, input, k))
      : null;
  // The query layer: the request compiled once (a bad pattern fails here, before anything is given), and heard
  // by the sink before the run gives anything.
  // Durations resolved once, against one instant, which the result says (time_window, #37).
  const timed = resolveTimes(input, Date.now());
  const query = op.compile
    ? await op.compile(timed?.input ?? input, { ...(options.git ? { git: options.git } : {}) })
    : (timed?.input ?? input);
  if (op.compile) sink.begin?.(query);
  const limit = typeof input.limit === "number" ? input.limit : Number.POSITIVE_INFINITY;
  const maxOut =
    typeof input.max_output_bytes === "number" ? input.max_output_bytes : Number.POSITIVE_INFINITY;
  const timeout = typeof input.timeout_seconds === "number" ? input.timeout_seconds : null;
  const deadline = timeout === null ? Number.POSITIVE_INFINITY : performance.now() + timeout * 1000;
  const signal = options.signal;

  const meta: ResultMeta = {
    truncated: false,
    truncated_reason: null,
    total_files_searched: 0,
    skipped: emptySkipped(),
    bytes_read: 0,
    errors: [],
    next_cursor: null,
    schema_version: SCHEMA_VERSION,
  };
  const extra: Record<string | symbol, unknown> = {};
  let stopReason: StopReason | null = null;
  let lastProgress = 0;
  const progress = options.onProgress;

  const rawNames = options.rawNames === true;
  const tally = options.tally ?? { emitted: 0 };
  const report = (info: ErrorInfo): void => {
    const wire = wireError(info);
    meta.errors.push(wire);
    sink.error(rawNames ? info : wire);
  };
  const bounds = new Bounds(sink, { limit, maxOut, resumed: resumeAfter !== null, rawNames, report, tally });
  const ctx: RunContext = {
    signal: signal ?? new AbortController().signal,
    resumeAfter,
    error(info: ErrorInfo) {
      countSkip(meta.skipped, info);
      // A skipped binary file is counted (skipped.binary), not listed, unless list_binary asks (#37): one record
      // per binary file was most of a repository-wide answer. A sink that says so still hears of it (the CLI
      // notes a binary file named on the command line).
      if (info.code === "BINARY" && input.list_binary !== true) {
        sink.binarySkipped?.(info);
        return;
      }
      report(info);
    },
    skipped: meta.skipped,
    searched(n = 1) {
      meta.total_files_searched += n;
    },
    read(bytes: number) {
      meta.bytes_read += bytes;
    },
    shouldStop() {
      if (stopReason !== null) return true;
      if (signal?.aborted) stopReason = "cancelled";
      else if (performance.now() > deadline) stopReason = "timeout";
      return stopReason !== null;
    },
    stop(reason: StopReason) {
      stopReason ??= reason;
    },
    summary(key: string | symbol, value: unknown) {
      extra[key] = value;
    },
    batch: Math.max(1, Math.floor(options.batch ?? DEFAULT_BATCH)),
    pathsOnly: options.pathsOnly === true,
    events: bounds.events,
    ...(options.warm ? { warm: options.warm } : {}),
    ...(options.walkSplit != null ? { walkSplit: options.walkSplit } : {}),
    ...(options.recordSlice != null ? { recordSlice: options.recordSlice } : {}),
    ...(options.debug === true ? { debug: true } : {}),
    ...(options.indexDir !== undefined ? { indexDir: options.indexDir } : {}),
    ...(options.socketDir !== undefined ? { socketDir: options.socketDir } : {}),
    ...(options.git !== undefined ? { git: options.git } : {}),
    progress(scanned: number) {
      if (!progress) return;
      const now = performance.now();
      if (now - lastProgress >= 100) {
        lastProgress = now;
        progress(scanned);
      }
    },
  };

  await bounds.drain(op.run(query, ctx));
  const lastKey = bounds.last === null ? null : bounds.last.key;
  // stopReason is set in the context's methods (closures), which the compiler's narrowing does not see.
  const reason = (bounds.cut ?? (stopReason as StopReason | null)) as TruncatedReason | null;
  if (reason !== null) {
    meta.truncated = true;
    meta.truncated_reason = reason;
    if (reason !== "cancelled" && reason !== "max_count" && lastKey !== null) {
      meta.next_cursor = encodeCursor(fp(), lastKey);
    } else if (reason !== "cancelled" && reason !== "max_count" && lastKey === null && resumeAfter !== null) {
      meta.next_cursor = encodeCursor(fp(), resumeAfter);
    }
    if (reason === "timeout") {
      const info: ErrorInfo = {
        code: "TIMEOUT",
        message: `stopped after ${timeout} s; results so far are returned`,
        path: null,
      };
      ctx.error(info);
    }
  }
  // What a file type covered, so that an answer filtered by language needs no second call to see it (#37).
  const named = [input.file_types, input.file_types_not].flatMap((l) => (Array.isArray(l) ? l : []));
  if (named.length > 0) {
    const adds = Array.isArray(input.type_add) ? (input.type_add as string[]) : [];
    extra.type_globs = Object.fromEntries(
      typeList(adds)
        .filter((t) => named.includes(t.name))
        .map((t) => [t.name, t.globs]),
    );
  }
  if (timed !== null) extra.time_window = timed.window;
  const summary = { ...meta, ...extra };
  sink.end(summary);
  return summary;
}
