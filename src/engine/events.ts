/*! Events: the push contract from the engine to the output (ripgrep's `Sink`, crates/searcher/src/sink.rs). The
 * engine calls these as it finds results, in order; the dispatcher stands between the engine and the consumer as
 * the one decorator that bounds them (limit, max_output_bytes, cursor look-ahead) and says stop. Push, not pull:
 * the walk and the search run to the next result and hand it over with no record made, so a consumer that
 * writes bytes (the human listings, JSON and JSONL text) never pays for an object it would not read; records are
 * made only where records are wanted (the library, MCP, and any bound that must measure them). Records that an
 * operation builds itself (grep's matches with context, counts, groups) are yielded from its run as before. */
import type { RegionName } from "../contract/regions.ts";

/** One submatch of a line: code-point and UTF-8 byte columns from the start of its content. */
export interface Submatch {
  start: number;
  end: number;
  byte_start: number;
  byte_end: number;
  /** With `in` naming several regions: the region the match starts in. */
  region?: RegionName;
}

/**
 * What a line is to the search (ripgrep's SinkMatch and SinkContextKind): selected ("match"), or shown before or
 * after a match as context.
 */
export type LineKind = "match" | "before" | "after";

/**
 * A line event: a line the search selected, or one it shows around a selected line, with what the output needs
 * of it and nothing of the file (its path and encoding are the file's). The search gives a file's events in
 * line order, in batches (a file's, or a large file's window by window; with workers they cross threads as
 * data), and the output turns them into what it writes: grep's records are built from them in one place
 * (src/ops/grep/records.ts), a context line going into the `before` of the next match or the `after` of the
 * last one as its kind says.
 */
export interface LineEvent {
  readonly kind: LineKind;
  line_number: number;
  /** The line (a multiline match: its lines; only_matching: the match), clipped to max_columns. */
  content: string;
  clipped: boolean;
  /** Code points of the line before the content shown (a clipped line, only_matching); 0 for context. */
  content_offset: number;
  /** Its matches (none for context). */
  submatches: Submatch[];
}

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
  /**
   * The file whose lines were just given is not plain UTF-8: how it was decoded (`windows-1252`, `utf-16le+bom`,
   * the keys of grep's `encodings`), which its records would carry. Optional: for a consumer that names it.
   */
  fileDecoded?(abs: string, encoding: string): void;
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
