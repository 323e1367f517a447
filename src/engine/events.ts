/*! Events: the push contract from the engine to the output (ripgrep's `Sink`, crates/searcher/src/sink.rs). The
 * engine calls these as it finds results, in order; the dispatcher stands between the engine and the consumer as
 * the one decorator that bounds them (limit, max_output_bytes, cursor look-ahead) and says stop. Push, not pull:
 * the walk and the search run to the next result and hand it over with no record made, so a consumer that
 * writes bytes (the human listings, JSON and JSONL text) never pays for an object it would not read; records are
 * made only where records are wanted (the library, MCP, and any bound that must measure them). Records that an
 * operation builds itself (grep's matches with context, counts, groups) are yielded from its run as before. */

/**
 * Matching lines as the search finds them (grep's plain listing, in the calling thread), each written as its
 * "match" record would be with no record made. Offered only where no bound can cut the output and nothing is
 * resumed, so they cannot say stop: a deadline or a cancellation stops the search between windows.
 */
export interface LineEvents {
  /** The file the next lines are of (its absolute path, as the walk gives it). */
  fileStart(abs: string): void;
  /** A line whose bytes [from, to) of buf are valid UTF-8 (its line end left out). */
  line(n: number, buf: Uint8Array, from: number, to: number): void;
  /** A line given as its decoded text (bytes that are not valid UTF-8 shown as U+FFFD, as in a record). */
  lineText(n: number, text: string): void;
}

/**
 * What the engine pushes to the output through the run context. Generic in the walk entry (engine/walk.ts's
 * Entry) so this contract imports nothing: the engine's bottom.
 */
export interface Events<Entry> {
  /**
   * A walk entry that is a result (find's "file" record, made only for a consumer that wants records).
   * @returns false when the run must stop (a bound is reached: one entry past it was offered)
   */
  entry(e: Entry): boolean;
  /** Where matching lines go as they are found, or null when they must become records. */
  readonly lines: LineEvents | null;
}

/** Events that take every entry and no lines: for a run outside a request. */
export const NO_EVENTS: Events<unknown> = { entry: () => true, lines: null };
