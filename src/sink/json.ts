/*! Sink: one JSON document (the operation's result model), written as the records come. */
import type { ErrorInfo } from "../contract/errors.ts";
import type { Entry } from "../engine/walk.ts";
import { fileMatchJsonOf } from "../ops/walk-records.ts";
import type { LinePieces } from "./jsonl.ts";
import { recordJson, type Sink, type Summary } from "./sink.ts";

/**
 * Writes the whole result as one JSON document, `{"results":[…],…summary}`: each record is turned into text
 * as it arrives and written out (memory stays flat however many records there are), and the summary closes
 * the document at the end. The text is that of JSON.stringify({ results, ...summary }). A request that fails
 * before its first record prints the failure envelope instead (nothing has been written yet).
 */
export class JsonSink implements Sink {
  /** Whether the document has begun (a failure can no longer be printed in its place). */
  opened = false;

  /**
   * Writes a walk entry as its FileMatch record's text with no record made (the events' entry), when the sink
   * was given a writer of pieces: the same bytes as the record's.
   */
  readonly entry?: (e: Entry) => void;

  /**
   * @param write where texts go
   * @param pieces the same output taking text in pieces (walk entries are then written without records)
   */
  constructor(
    private readonly write: (text: string) => void,
    pieces?: LinePieces,
  ) {
    if (pieces !== undefined) this.entry = (e) => this.file(e, pieces);
  }

  private file(e: Entry, out: LinePieces): void {
    const text = fileMatchJsonOf(e, this.opened ? ",{" : '{"results":[{');
    if (typeof text !== "string") this.record("file", text);
    else {
      this.opened = true;
      out.text(text);
      out.end();
    }
  }

  record(_kind: string, record: object): void {
    const text = recordJson(record);
    if (this.opened) this.write(`,${text}`);
    else {
      this.opened = true;
      this.write(`{"results":[${text}`);
    }
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const rest = JSON.stringify(summary);
    // "results" first; a summary never has that key.
    this.write(`${this.opened ? "]" : '{"results":[]'}${rest.length > 2 ? "," : ""}${rest.slice(1)}\n`);
  }
}
