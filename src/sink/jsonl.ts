/*! Sink: JSONL wire format. One JSON object per line, `kind` first: the operation's record kinds
 * ("file", "match", "context", "duplicate", …), "error" lines as problems happen, and exactly one final
 * {"kind":"summary", …} line with the result metadata (everything of the JSON result but `results`). */
import type { ErrorInfo } from "../contract/errors.ts";
import type { JsonlExpander } from "../ops/operation.ts";
import type { Sink, Summary } from "./sink.ts";

/** Writes JSONL lines to a text writer. */
export class JsonlSink implements Sink {
  constructor(
    private readonly write: (text: string) => void,
    private readonly expand?: JsonlExpander,
  ) {}

  record(kind: string, record: object): void {
    if (this.expand) {
      for (const [k, r] of this.expand(kind, record)) this.line(k, r);
      return;
    }
    this.line(kind, record);
  }

  private line(kind: string, record: object): void {
    const body = JSON.stringify(record);
    this.write(`{"kind":${JSON.stringify(kind)}${body.length > 2 ? "," : ""}${body.slice(1)}\n`);
  }

  error(info: ErrorInfo): void {
    this.write(`${JSON.stringify({ kind: "error", ...info })}\n`);
  }

  end(summary: Summary): void {
    this.write(`${JSON.stringify({ kind: "summary", ...summary })}\n`);
  }
}
