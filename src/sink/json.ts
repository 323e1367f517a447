/*! Sink: one JSON document (the operation's result model) written at the end. */
import type { ErrorInfo } from "../contract/errors.ts";
import type { Sink, Summary } from "./sink.ts";

/** Collects records and writes the whole result as one JSON document. */
export class JsonSink implements Sink {
  private readonly results: object[] = [];

  constructor(private readonly write: (text: string) => void) {}

  record(_kind: string, record: object): void {
    this.results.push(record);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    this.write(`${JSON.stringify({ results: this.results, ...summary })}\n`);
  }
}
