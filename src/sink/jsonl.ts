/*! Sink: JSONL wire format. One JSON object per line, `kind` first: the operation's record kinds
 * ("file", "match", "context", "duplicate", …), "error" lines as problems happen, and exactly one final
 * {"kind":"summary", …} line with the result metadata (everything of the JSON result but `results`). */
import type { ErrorInfo } from "../contract/errors.ts";
import type { Entry } from "../engine/walk.ts";
import type { JsonlExpander } from "../ops/operation.ts";
import { fileMatchJsonOf } from "../ops/walk-records.ts";
import { recordJsonAfter, type Sink, type Summary } from "./sink.ts";

/** A writer that takes a line in pieces, written into its buffer at once (the CLI's stdout). */
export interface LinePieces {
  text(text: string): void;
  byte(b: number): void;
  /** Ends a line written in pieces. */
  end(): void;
}

/** Writes JSONL lines to a text writer. */
export class JsonlSink implements Sink {
  /**
   * Writes a walk entry as its "file" line with no record made (the events' entry), when the sink was given a
   * writer of pieces: the same bytes as the record's line.
   */
  readonly entry?: (e: Entry) => void;

  /**
   * @param write where whole texts go
   * @param expand the operation's JSONL expansion of its records (grep's context lines)
   * @param pieces the same output taking a line in pieces (walk entries are then written without records)
   */
  constructor(
    private readonly write: (text: string) => void,
    private readonly expand?: JsonlExpander,
    pieces?: LinePieces,
  ) {
    if (pieces !== undefined) {
      const head = this.headOf("file");
      this.entry = (e) => this.fileLine(e, head, pieces);
    }
  }

  private fileLine(e: Entry, head: string, out: LinePieces): void {
    const text = fileMatchJsonOf(e, head);
    if (typeof text !== "string") this.record("file", text);
    else {
      out.text(text);
      out.byte(10);
      out.end();
    }
  }

  record(kind: string, record: object): void {
    const lines = this.expand?.(kind, record) ?? null;
    if (lines === null) this.line(kind, record);
    else for (const [k, r] of lines) this.line(k, r);
  }

  /** The '{"kind":…,' opening of each kind's lines, built once per kind. */
  private readonly heads = new Map<string, string>();

  private headOf(kind: string): string {
    let head = this.heads.get(kind);
    if (head === undefined) {
      head = `{"kind":${JSON.stringify(kind)},`;
      this.heads.set(kind, head);
    }
    return head;
  }

  private line(kind: string, record: object): void {
    this.write(`${recordJsonAfter(record, this.headOf(kind))}\n`);
  }

  error(info: ErrorInfo): void {
    this.write(`${JSON.stringify({ kind: "error", ...info })}\n`);
  }

  end(summary: Summary): void {
    this.write(`${JSON.stringify({ kind: "summary", ...summary })}\n`);
  }
}
