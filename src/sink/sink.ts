/*! Sinks: where the dispatcher sends records. A sink never reads the file system and never decides bounds;
 * the dispatcher has already cut the stream. */
import type { ErrorInfo } from "../contract/errors.ts";
import type { LineEvents } from "../engine/events.ts";
import type { Entry } from "../engine/walk.ts";

/**
 * The key of a record's own serialiser: a record whose prototype has this method returns from it exactly what
 * JSON.stringify would, only faster (FileMatch records of the walk have one). Its argument replaces the
 * opening brace, so a JSONL line can put its `kind` first without copying the text.
 */
export const RECORD_JSON: unique symbol = Symbol("rglob.recordJson");

type OwnJson = { [RECORD_JSON]?: (head?: string) => string };

/**
 * Returns the JSON text of a record, through its own serialiser when it has one.
 * @param record the record
 * @returns the same text as JSON.stringify(record)
 */
export function recordJson(record: object): string {
  const own = (record as OwnJson)[RECORD_JSON];
  return own === undefined ? JSON.stringify(record) : own.call(record);
}

/**
 * Returns the JSON text of a record with its opening brace replaced by `head` (which ends in '{' or ',').
 * @param record the record
 * @param head the text before its first key, e.g. '{"kind":"file",'
 * @returns the text, as `head` + JSON.stringify(record).slice(1) for a record with at least one key
 */
export function recordJsonAfter(record: object, head: string): string {
  const own = (record as OwnJson)[RECORD_JSON];
  if (own !== undefined) return own.call(record, head);
  const body = JSON.stringify(record);
  return body.length > 2 ? head + body.slice(1) : `${head.slice(0, -1)}}`;
}

/** The result summary passed to a sink at the end: the metadata plus operation-specific fields. */
export type Summary = Record<string, unknown>;

/** Receives records in order, errors as they happen, and the summary once at the end. */
export interface Sink {
  record(kind: string, record: object): void;
  error(info: ErrorInfo): void;
  /** Hears of a skipped binary file that is counted, not listed as an error (list_binary off). */
  binarySkipped?(info: ErrorInfo): void;
  end(summary: Summary): void;
  /** True when it reads only the paths of file records (the walk then need not read stats ahead). */
  readonly pathsOnly?: boolean;
  /**
   * Hears the compiled query once, before the run gives anything (an operation with a query layer: grep's human
   * printer takes its matcher from it, as ripgrep's printer is built with the searcher's matcher).
   */
  begin?(query: object): void;
  /**
   * Writes a walk entry (the events' `entry`, past the dispatcher's bounds) as it would write its "file" record
   * (FileMatch), with no record made; present only on a sink that writes that record's text itself.
   */
  readonly entry?: ((e: Entry) => void) | undefined;
  /**
   * Takes grep's matching lines as the search finds them (the events' `lines`), writing them as it would write
   * their "match" records; present only on a sink that shows nothing of a match but its file, number and line.
   * Read after `begin`. The dispatcher offers them to a run only when no bound can cut the output.
   */
  readonly lines?: LineEvents | undefined;
}

/** A sink that builds the result object (library, MCP and `--json`). */
export class CollectSink implements Sink {
  readonly results: object[] = [];
  result: Record<string, unknown> | null = null;

  record(_kind: string, record: object): void {
    this.results.push(record);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    this.result = { results: this.results, ...summary };
  }
}
