/*! grep: its records, built from the search's line events (engine/events.ts) in this one place. A "match" event
 * becomes a LineMatch, with its file's path, relative path and encoding; a context event goes into the `before`
 * of the next match or the `after` of the last one, as its kind says (JSON results, the library and MCP carry
 * context inside the record; the JSONL stream gives each context line as a line of its own: jsonl.ts). The
 * modes that list files make a GrepFile per file. Records are made only for a consumer that takes records: the
 * human listing of plain lines writes the events' lines with none made. */

import type { LineEvent } from "../../engine/events.ts";
import type { ContextLine, GrepFile, LineMatch } from "./schema.ts";

/** The file the events are of, as its records name it. */
interface EventFile {
  readonly abs: string;
  readonly rel: string;
  readonly encoding: string;
  /** It began with a byte order mark. */
  readonly bom: boolean;
}

/** The context line of a context event (or of one line of a match given as context). */
function contextOf(line_number: number, content: string, clipped: boolean): ContextLine {
  return { line_number, content, clipped };
}

/**
 * Builds the "match" records of one file from its line events, in order. Context lines wait for the match they
 * come before; after-context goes to the record of the last match (with only_matching, the line's last match).
 */
export class LineRecords {
  /** Before-context waiting for its match. */
  private before: ContextLine[] = [];
  /** The record the next after-context belongs to (null: none, or its match was not given). */
  private last: LineMatch | null = null;

  /**
   * @param contextAsked whether records carry `before` and `after` (present only when context was asked for)
   */
  constructor(private readonly contextAsked: boolean) {}

  /**
   * Takes a context event.
   * @param ev a "before" or "after" event
   */
  context(ev: LineEvent): void {
    const line = contextOf(ev.line_number, ev.content, ev.clipped);
    if (ev.kind === "before") this.before.push(line);
    else this.last?.after?.push(line);
  }

  /** Drops a match that is not given (before a cursor), and the context that goes with it. */
  skip(): void {
    this.before = [];
    this.last = null;
  }

  /**
   * Builds the record of a match event.
   * @param ev the "match" event
   * @param f its file
   * @returns the record, keys in the model's order
   */
  match(ev: LineEvent, f: EventFile): LineMatch {
    if (!this.contextAsked)
      return {
        path: f.abs,
        relative_path: f.rel,
        line_number: ev.line_number,
        content: ev.content,
        clipped: ev.clipped,
        content_offset: ev.content_offset,
        submatches: ev.submatches,
        encoding: f.encoding,
        ...(f.bom ? { bom: true as const } : {}),
      };
    const rec: LineMatch = {
      path: f.abs,
      relative_path: f.rel,
      line_number: ev.line_number,
      content: ev.content,
      clipped: ev.clipped,
      content_offset: ev.content_offset,
      submatches: ev.submatches,
      before: this.before,
      after: [],
      encoding: f.encoding,
      ...(f.bom ? { bom: true as const } : {}),
    };
    this.before = [];
    this.last = rec;
    return rec;
  }
}

/**
 * Completes the after-context of the last record max_count lets through with the lines of the events that
 * follow it in its file, as grep prints them (as context, `-`): the record's context had stopped before the next
 * match. Lines are added in order and without a gap, a match's lines too; those it holds already are skipped.
 * @param last the last record given
 * @param events the file's events (of this batch)
 * @param from the index of the first event after the last record's own
 * @param after the lines of after-context asked for
 */
export function trailingContext(
  last: LineMatch,
  events: readonly LineEvent[],
  from: number,
  after: number,
): void {
  const spanned = last.content.split("\n").length;
  const reach = last.line_number + spanned - 1 + after;
  last.after ??= [];
  const out = last.after as ContextLine[];
  let shown = out.at(-1)?.line_number ?? last.line_number + spanned - 1;
  /** Adds the next line; false once the context is complete or a line is missing. */
  const add = (n: number, content: string, clipped: boolean): boolean => {
    if (n <= shown) return true; // given already
    if (shown >= reach || n !== shown + 1) return false;
    out.push(contextOf(n, content, clipped));
    shown++;
    return true;
  };
  for (let k = from; k < events.length && shown < reach; k++) {
    const ev = events[k] as LineEvent;
    if (ev.kind !== "match") {
      if (!add(ev.line_number, ev.content, ev.clipped)) return;
      continue;
    }
    const lines = ev.content.split("\n");
    for (let i = 0; i < lines.length; i++)
      if (!add(ev.line_number + i, lines[i] as string, ev.clipped)) return;
  }
}

/**
 * Builds the "file" record of a file in the modes that list files, or of a binary file searched as binary.
 * @param abs its path
 * @param rel its relative path
 * @param count its count (count modes), 0 (files_without_match), or null
 * @param decoded how it was read: its encoding when not UTF-8 without a byte order mark, its first NUL byte
 * @returns the record
 */
export function grepFileOf(
  abs: string,
  rel: string,
  count: number | null,
  decoded?: { readonly encoding: string; readonly bom?: true; readonly nul?: number },
): GrepFile {
  const rec: GrepFile = { path: abs, relative_path: rel, count };
  if (decoded === undefined) return rec;
  if (decoded.nul !== undefined) rec.binary_offset = decoded.nul;
  else {
    // Said for plain UTF-8 too (#37): a reader took an absent field for "unknown".
    rec.encoding = decoded.encoding;
    if (decoded.bom) rec.bom = true;
  }
  return rec;
}
