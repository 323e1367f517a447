/*! The run context an operation and the engine share: deadline, cancellation, error reporting, counters, the
 * resume point, and the pacing that lets other requests in (tick, yielder). The engine's bottom: it imports only
 * the contract and the engine's own seams, never ops/ or a surface. */
import type { ErrorInfo } from "../contract/errors.ts";
import { emptySkipped, type Skipped, type TEXT_FACTS } from "../contract/result.ts";
import type { Events } from "./events.ts";
import type { GitPlaces } from "./ignore.ts";
import type { SearchSpec } from "./search/search-file.ts";
import type { Entry, WalkPlan } from "./walk-types.ts";

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
  summary(key: string | typeof TEXT_FACTS, value: unknown): void;
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
  /**
   * Walk workers on every walk that outgrows this many entries, or none (0); absent or null: the walk decides
   * (RGLOB_WALK_SPLIT, read into the Config: tests run the suite with workers on every walk, ADR 0009).
   */
  readonly walkSplit?: number | null;
  /** Walk entries between full collections while `rglob index` records a walk (RGLOB_TEST_RECORD_SLICE). */
  readonly recordSlice?: number | null;
  /** Internal failures are told with their detail on stderr (RGLOB_DEBUG, read into the Config). */
  readonly debug?: boolean;
  /** Where persisted indexes are kept (the Config's indexDir: RGLOB_CACHE_DIR's `index`, else the platform's). */
  readonly indexDir?: string;
  /** Where the warm servers' sockets are (the Config's socketDir), for `rglob index --status`. */
  readonly socketDir?: string;
  /** Where git's config files are looked for (the Config's git), for every walk the run compiles. */
  readonly git?: GitPlaces;
}

/** Where an answer's file list and candidates came from (reported in the summary as `source`). */
export type AnswerSource = "index" | "warm_list" | "cold";

/** What the warm state offers one grep run. */
export interface WarmGrep {
  /** Where this run's answer comes from (null: no warm state applies, and the result does not say). */
  readonly source: AnswerSource | null;
  /**
   * Walks the plan: the same entries, errors and counters as the walk itself, in the same order, but for the
   * files the index rules out when the run does not list files without a match (they would give nothing).
   * @param plan the compiled walk
   * @param ctx the run context
   * @param startAfter the cursor's walk key, or null
   * @returns the entries
   */
  walk(plan: WalkPlan, ctx: RunContext, startAfter: string | null): Iterator<Entry>;
  /**
   * Tells whether a file cannot match (the index holds it unchanged and without the pattern's trigrams): it is
   * then counted as searched with nothing found, without being read.
   * @param entry a file of the walk
   * @returns true when the file is ruled out
   */
  ruledOut(entry: Entry): boolean;
  /**
   * Returns a file's size as the index holds it (it may have changed since), or null when the index does not
   * hold it: the run gives a large file a batch of its own, so that two large files go to two workers.
   * @param entry a file of the walk
   */
  sizeOf(entry: Entry): number | null;
  /**
   * Tells whether a file is known binary, unchanged since a read found it so (a server's remembered verdict,
   * binary-verdicts.ts): it is then skipped as binary without being read. Absent: never.
   * @param entry a file of the walk
   */
  knownBinary?(entry: Entry): boolean;
  /**
   * Hears what a file's read found (binary or not), so that a verdict is kept or dropped.
   * @param entry the file
   * @param binary whether it was skipped as binary
   */
  read?(entry: Entry, binary: boolean): void;
}

/**
 * The ignored-entries look of a query that found nothing, remembered by a warm server (#36; index/look-memo.ts):
 * keyed by the look's input but its pattern, as the surface (surface/ignored.ts) makes it.
 */
export interface WarmLook {
  /**
   * Returns what a recorded look of this key said, when no file it read can hold the literals and the watch
   * vouches that none changed since; else null (the look runs).
   * @param key the look's input but its pattern
   * @param spec the look's search spec (a search with no literal an index can narrow by is never answered)
   */
  answer(key: string, spec: SearchSpec): unknown;
  /**
   * Returns a provider that runs a look as it runs cold while recording the files its walk gives, and the keep
   * that remembers what the look said (when it found nothing: its files are indexed between calls).
   * @param key the look's input but its pattern
   */
  recorder(key: string): WarmLookRecorder;
}

/** A look being recorded (WarmLook.recorder). */
export interface WarmLookRecorder {
  /** The provider the look runs with: the cold walk, every file read. */
  readonly provider: WarmProvider;
  /**
   * Remembers what the look said: its files are indexed between calls, kept when nothing changed meanwhile.
   * @param answer what the look said
   */
  keep(answer: unknown): void;
}

/** What a grep run asks of a warm state besides its candidates. */
export interface GrepNeeds {
  /** The run reads every file (max_bytes bounds it, or a condition of `also` is tested where nothing matched). */
  readonly readsAll: boolean;
  /** The run is given every file, ruled-out ones as found empty (it lists the files without a match). */
  readonly listsNonMatching: boolean;
  /**
   * The run is given, besides its candidates, the files whose name names no language with a lexer (lexedByName
   * is not true: grep's `in` counts or reads them as a cold run does).
   */
  readonly unlexed: boolean;
}

/** The warm state a server passes into its runs. */
export interface WarmProvider {
  /**
   * Returns what the warm state offers a grep run.
   * @param plan the run's compiled walk
   * @param spec the run's search spec
   * @param needs what the run asks besides its candidates
   * @returns the run's warm seam
   */
  grep(plan: WalkPlan, spec: SearchSpec, needs: GrepNeeds): WarmGrep;
  /**
   * Returns a walk of the plan from its start for the other walking operations (find, count, tree, top, stats,
   * dupes): a replay of a remembered walk, with the same entries, errors and counters in the same order as the
   * walk itself; or null when the walk cannot be remembered (then the operation walks cold).
   * @param plan the run's compiled walk
   * @returns a function that walks it with a run context, or null
   */
  walker(plan: WalkPlan): ((ctx: RunContext) => Iterator<Entry>) | null;
  /**
   * Returns the remembered ignored-entries looks of the root that holds the plan's base, or null (absent: none).
   * @param plan the look's compiled walk
   */
  look?(plan: WalkPlan): WarmLook | null;
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
