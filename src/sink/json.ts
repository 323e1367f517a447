/*! Sink: one JSON document (the operation's result model) written at the end. */
import type { ErrorInfo } from "../contract/errors.ts";
import { RECORD_JSON, recordJson, type Sink, type Summary } from "./sink.ts";

/**
 * Collects records and writes the whole result as one JSON document. A record with its own serialiser (the
 * walk's FileMatch) is turned into text as it arrives, so its lazily read stats are those of the walk and
 * the JSON costs a few string joins; other records are kept as objects and stringified at the end.
 */
export class JsonSink implements Sink {
  private readonly results: (object | string)[] = [];

  constructor(private readonly write: (text: string) => void) {}

  record(_kind: string, record: object): void {
    this.results.push(RECORD_JSON in record ? recordJson(record) : record);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const parts = this.results.map((r) => (typeof r === "string" ? r : JSON.stringify(r)));
    this.results.length = 0;
    const rest = JSON.stringify(summary);
    // Same text as JSON.stringify({ results, ...summary }) ("results" first; a summary never has that key).
    this.write(`{"results":[${parts.join(",")}]${rest.length > 2 ? "," : ""}${rest.slice(1)}\n`);
  }
}
