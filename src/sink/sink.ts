/*! Sinks: where the dispatcher sends records. A sink never reads the file system and never decides bounds;
 * the dispatcher has already cut the stream. */
import type { ErrorInfo } from "../contract/errors.ts";

/** The result summary passed to a sink at the end: the metadata plus operation-specific fields. */
export type Summary = Record<string, unknown>;

/** Receives records in order, errors as they happen, and the summary once at the end. */
export interface Sink {
  record(kind: string, record: object): void;
  error(info: ErrorInfo): void;
  end(summary: Summary): void;
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

/**
 * Fans records out to several sinks (e.g. a collector and a progress reporter).
 * @param sinks the sinks
 * @returns one sink
 */
export function teeSink(...sinks: Sink[]): Sink {
  return {
    record(k, r) {
      for (const s of sinks) s.record(k, r);
    },
    error(i) {
      for (const s of sinks) s.error(i);
    },
    end(summary) {
      for (const s of sinks) s.end(summary);
    },
  };
}
