/*! The run context an operation and the engine share: deadline, cancellation, error reporting, counters, the
 * resume point, and the pacing that lets other requests in (tick, yielder). The engine's bottom: it imports only
 * the contract and the engine's own seams, never ops/ or a surface. */
import type { ErrorInfo } from "../contract/errors.ts";
import { emptySkipped, type Skipped } from "../contract/result.ts";
import type { Events } from "./events.ts";
import type { WarmProvider } from "./index/provider.ts";
import type { Entry } from "./walk.ts";

/** Why an operation stopped by itself before its end. */
export type StopReason = "timeout" | "cancelled" | "max_count" | "max_bytes";

/** The context of one run: deadline, cancellation, error reporting, counters and the resume point. */
export interface RunContext {
  readonly signal: AbortSignal;
  /** The key after which to resume (from a cursor), or null. */
  readonly resumeAfter: string | null;
  /** Reports a per-path problem (it is streamed and collected; the run goes on). */
  error(info: ErrorInfo): void;
  /** Counts a file examined (total_files_searched; directories are not counted). */
  searched(n?: number): void;
  /**
   * The skip ledger, counted where the walk decides (a plain increment, e.g. `ctx.skipped.ignored++`). The
   * reasons that come with an error (binary, too_large, unreadable) are counted by the dispatcher from the
   * error's code, so an operation only reports the error.
   */
  readonly skipped: Skipped;
  /** Counts content bytes read (bytes_read). */
  read(bytes: number): void;
  /** True once the deadline passed or the request was cancelled; the op should return soon. */
  shouldStop(): boolean;
  /** Records that the op stopped early by itself, and why. */
  stop(reason: StopReason): void;
  /** Sets an operation-specific summary field (e.g. totals), merged into the result. */
  summary(key: string, value: unknown): void;
  /** Counts progress for long requests (files scanned). */
  readonly progress: (scanned: number) => void;
  /**
   * The most records an op should gather before yielding them as one batch (1: yield each record as it
   * comes, for a consumer that paces the walk record by record, like the library's streaming iterator).
   */
  readonly batch: number;
  /** The consumer reads only the paths of file records (no size, mtime or kinds): stats need not be read. */
  readonly pathsOnly?: boolean;
  /** A long-lived server's warm state (docs/decisions/0028-warm-index.md); absent in one-shot runs. */
  readonly warm?: WarmProvider;
  /**
   * Where results are pushed with no record made (engine/events.ts: find's entries, grep's plain lines), through
   * the dispatcher's bounds; absent outside a request.
   */
  readonly events?: Events<Entry>;
}

/**
 * Returns a run context that records nothing (errors, counts and bytes are dropped) and stops when asked to: for
 * a walk run outside a request (the warm index's build, tests, the floor programs).
 * @param stopped says when to stop (default: never)
 * @param batch the batch size it asks for (default 512)
 * @returns the context
 */
export function quietContext(stopped: () => boolean = () => false, batch = 512): RunContext {
  return {
    signal: new AbortController().signal,
    resumeAfter: null,
    error() {},
    searched() {},
    read() {},
    shouldStop: stopped,
    stop() {},
    summary() {},
    progress() {},
    batch,
    skipped: emptySkipped(),
  };
}

/** Returns a promise that resolves after pending I/O and timers had a chance to run. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Creates a counter that says when to yield to the event loop (every `every` calls or 25 ms).
 * @param every how many calls between yields at most
 * @returns a function returning true when the caller should `await tick()`
 */
export function yielder(every = 512): () => boolean {
  let n = 0;
  let last = performance.now();
  return () => {
    if (++n < every) return false;
    n = 0;
    const now = performance.now();
    if (now - last < 25) return false;
    last = now;
    return true;
  };
}
