/*! Sink: JSONL wire format. One JSON object per line, `kind` first: the operation's record kinds
 * ("file", "match", "context", "duplicate", …), "error" lines as problems happen, and exactly one final
 * {"kind":"summary", …} line with the result metadata (everything of the JSON result but `results`). */
import type { ErrorInfo } from "../contract/errors.ts";
import type { JsonlExpander } from "../ops/operation.ts";
import { recordJsonAfter, type Sink, type Summary } from "./sink.ts";

/** Writes JSONL lines to a text writer. */
export class JsonlSink implements Sink {
  constructor(
    private readonly write: (text: string) => void,
    private readonly expand?: JsonlExpander,
  ) {}

  record(kind: string, record: object): void {
    const lines = this.expand?.(kind, record) ?? null;
    if (lines === null) this.line(kind, record);
    else for (const [k, r] of lines) this.line(k, r);
  }

  /** The '{"kind":…,' opening of each kind's lines, built once per kind. */
  private readonly heads = new Map<string, string>();

  private line(kind: string, record: object): void {
    let head = this.heads.get(kind);
    if (head === undefined) {
      head = `{"kind":${JSON.stringify(kind)},`;
      this.heads.set(kind, head);
    }
    this.write(`${recordJsonAfter(record, head)}\n`);
  }

  error(info: ErrorInfo): void {
    this.write(`${JSON.stringify({ kind: "error", ...info })}\n`);
  }

  end(summary: Summary): void {
    this.write(`${JSON.stringify({ kind: "summary", ...summary })}\n`);
  }
}
