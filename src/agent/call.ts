/*! Agent core: runs any registered operation through the one dispatcher, for the library and the MCP server.
 * Pull-based streaming: a bounded queue between the dispatcher (producer) and the caller (consumer); when the
 * queue is full the run waits, and a consumer that stops pulling aborts the walk. It never writes output. */
import { type Config, readConfig } from "../config.ts";
import { type ErrorInfo, RglobError } from "../contract/errors.ts";
import { emptySkipped } from "../contract/result.ts";
import { SCHEMA_VERSION } from "../contract/versions.ts";
import type { WarmProvider } from "../engine/index/provider.ts";
import type { RunContext } from "../engine/run.ts";
import { SCHEMAS } from "../generated/schemas.ts";
import { dispatch } from "../ops/dispatch.ts";
import type { Operation, Yielded } from "../ops/operation.ts";
import { CollectSink, type Sink } from "../sink/sink.ts";

/** How a call is controlled from outside: cancellation and progress. */
export interface CallControl {
  /** Aborting it stops the walk; the result then has `truncated_reason: "cancelled"`. */
  readonly signal?: AbortSignal;
  /** Called with the number of entries examined so far (at most every 100 ms). */
  readonly onProgress?: (scanned: number) => void;
  /** A long-lived server's warm state (the MCP server's); absent for one-shot calls. */
  readonly warm?: WarmProvider;
  /** The caller reads only the paths and types of find's records: the walk need not read stats ahead. */
  readonly pathsOnly?: boolean;
  /** The input is already the operation model's output (the MCP server checked it): not checked again. */
  readonly validated?: boolean;
}

/** What one collected call ended with: a result, or a request failure (bad input, bad regex, missing root). */
export type Outcome =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  | { readonly ok: false; readonly error: ErrorInfo };

/**
 * Returns the input keys an operation accepts (from its generated input schema).
 * @param op the operation
 * @returns the set of snake_case keys
 */
export function inputKeys(op: Operation): ReadonlySet<string> {
  let keys = keysOf.get(op);
  if (keys === undefined) {
    const props = SCHEMAS[`${op.id}.input`]?.properties;
    keys = new Set(props && typeof props === "object" ? Object.keys(props) : []);
    keysOf.set(op, keys);
  }
  return keys;
}

/** Each operation's input keys, made once (an MCP call asks three times: #36's fixed cost per call). */
const keysOf = new WeakMap<Operation, ReadonlySet<string>>();

/**
 * Creates the input of a call: defaults for the keys the caller left out, restricted to keys the operation has
 * (a strict model would reject the others).
 * @param op the operation
 * @param input the caller's input
 * @param defaults defaults to apply
 * @returns a new input object (the caller's keys win)
 */
export function withDefaults(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const keys = inputKeys(op);
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(defaults)) if (keys.has(k)) out[k] = value;
  for (const [k, value] of Object.entries(input)) if (value !== undefined) out[k] = value;
  return out;
}

/**
 * Creates the result of a request that failed as a whole, in the shape of every result (the library's
 * non-raising form): no records, the error in `errors`.
 * @param error the failure
 * @returns the result object
 */
export function failedResult(error: ErrorInfo): Record<string, unknown> {
  return {
    results: [],
    truncated: false,
    truncated_reason: null,
    total_files_searched: 0,
    skipped: emptySkipped(),
    bytes_read: 0,
    errors: [error],
    next_cursor: null,
    schema_version: SCHEMA_VERSION,
  };
}

function dispatchOptions(control: CallControl, config: Config, signal?: AbortSignal) {
  const sig = signal ?? control.signal;
  const { walkSplit, debug, indexDir, socketDir, git } = config;
  return {
    walkSplit,
    debug,
    indexDir,
    socketDir,
    git,
    ...(sig ? { signal: sig } : {}),
    ...(control.onProgress ? { onProgress: control.onProgress } : {}),
    ...(control.warm ? { warm: control.warm } : {}),
    ...(control.pathsOnly ? { pathsOnly: true } : {}),
    ...(control.validated ? { validated: true } : {}),
  };
}

/**
 * Runs an operation and collects its whole result.
 * @param op the operation
 * @param input the raw input (validated by the dispatcher)
 * @param control cancellation and progress
 * @param config the environment's switches: the entry's (the MCP server's, a served call's); absent: read now,
 *   at the library's call (a program may set them while it runs)
 * @returns the result, or the request failure; a bug (not an RglobError) is thrown
 */
export async function collect(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  control: CallControl = {},
  config: Config = readConfig(),
): Promise<Outcome> {
  const sink = new CollectSink();
  try {
    await dispatch(op, input, sink, dispatchOptions(control, config));
  } catch (err) {
    if (err instanceof RglobError) return { ok: false, error: err.toInfo() };
    throw err;
  }
  return {
    ok: true,
    result: sink.result ?? failedResult({ code: "UNREADABLE", message: "no result", path: null }),
  };
}

/** A stream of records that also tells how it ended. */
export interface RecordStream<R, M> extends AsyncIterable<R> {
  /**
   * The result without its records (truncation, counters, errors, next_cursor, op-specific summary fields).
   * It settles once the iteration ended: ran to the end, or the loop was left early.
   */
  readonly result: Promise<M>;
}

/** Records buffered between the walk and a slow consumer before the walk waits. */
const HIGH_WATER = 64;

/**
 * Runs an operation as an async iterator of its records. The walk starts at the first pull, waits while
 * HIGH_WATER records are unread, and stops when the loop is left (break, return, throw).
 * @param op the operation
 * @param input the raw input (validated by the dispatcher)
 * @param control cancellation and progress
 * @returns the record stream; a request failure ends it at once with the error in `result.errors`
 */
export function stream<R, M>(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  control: CallControl = {},
): RecordStream<R, M> {
  const abort = new AbortController();
  const outer = control.signal;
  const queue: object[] = [];
  let finished = false;
  let failure: unknown = null;
  let wakeConsumer: (() => void) | null = null;
  let wakeProducer: (() => void) | null = null;
  let resolveResult: (m: M) => void = () => {};
  const result = new Promise<M>((resolve) => {
    resolveResult = resolve;
  });
  const wake = () => {
    wakeConsumer?.();
    wakeConsumer = null;
  };
  const room = () => {
    wakeProducer?.();
    wakeProducer = null;
  };
  const onOuterAbort = () => abort.abort();

  // The operation as the dispatcher sees it: the same, but it waits for room in the queue before each record.
  const paced: Operation = {
    ...op,
    async *run(validated: object, ctx: RunContext): AsyncGenerator<Yielded> {
      for await (const item of op.run(validated, ctx)) {
        while (queue.length >= HIGH_WATER && !abort.signal.aborted) {
          await new Promise<void>((resolve) => {
            wakeProducer = resolve;
          });
        }
        if (abort.signal.aborted) {
          ctx.shouldStop(); // records the cancellation so the summary says so
          return;
        }
        yield item;
      }
    },
  };
  const sink: Sink = {
    record(_kind, record) {
      queue.push(record);
      wake();
    },
    error() {},
    end(summary) {
      resolveResult(summary as M);
    },
  };

  let running: Promise<void> | null = null;
  const start = () => {
    if (outer?.aborted) abort.abort();
    else outer?.addEventListener("abort", onOuterAbort, { once: true });
    // batch 1: the bounded queue counts records, so the walk must hand them over one by one.
    running = dispatch(paced, input, sink, {
      ...dispatchOptions(control, readConfig(), abort.signal),
      batch: 1,
    })
      .then(
        () => {},
        (err: unknown) => {
          if (err instanceof RglobError) {
            const { results: _none, ...meta } = failedResult(err.toInfo());
            resolveResult(meta as M);
          } else {
            failure = err;
            const message = `internal error: ${err instanceof Error ? err.message : String(err)}`;
            const { results: _none, ...meta } = failedResult({ code: "UNREADABLE", message, path: null });
            resolveResult(meta as M);
          }
        },
      )
      .finally(() => {
        finished = true;
        outer?.removeEventListener("abort", onOuterAbort);
        wake();
      });
    return running;
  };

  const stop = async () => {
    abort.abort();
    room();
    await (running ?? start());
  };

  return {
    result,
    [Symbol.asyncIterator](): AsyncIterator<R> {
      return {
        async next(): Promise<IteratorResult<R>> {
          if (running === null) start();
          for (;;) {
            if (queue.length > 0) {
              const value = queue.shift() as R;
              if (queue.length < HIGH_WATER) room();
              return { value, done: false };
            }
            if (finished) {
              if (failure !== null) throw failure;
              return { value: undefined, done: true };
            }
            await new Promise<void>((resolve) => {
              wakeConsumer = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<R>> {
          queue.length = 0;
          await stop();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
