/*! The bounds: the one decorator between what an operation gives (records it yields, entries and lines it pushes
 * through the events) and the sink. It applies limit by look-ahead (one result past it means `truncated`) and
 * max_output_bytes (measuring each record's JSON), remembers the last result's order key for next_cursor, counts
 * what it hands over, and says stop. It never writes output itself. */

import type { ErrorInfo } from "../contract/errors.ts";
import type { TruncatedReason } from "../contract/result.ts";
import type { Events, LineEvents } from "../engine/events.ts";
import type { Entry } from "../engine/walk.ts";
import { recordJson, type Sink } from "../sink/sink.ts";
import type { Emitted, Yielded } from "./operation.ts";
import { fileMatchOf } from "./walk-records.ts";
import { wireRecord } from "./wire-names.ts";

/** A walk entry's "file" record on its way to the bounds; its order key is read only for the last one. */
class EntryEmitted implements Emitted {
  readonly kind = "file";
  constructor(
    readonly record: object,
    private readonly entry: Entry,
  ) {}

  get key(): string {
    return this.entry.key;
  }
}

/** What the bounds of one dispatch are. */
interface BoundsOptions {
  /** The most results (Infinity: none; 0: the summary alone). */
  readonly limit: number;
  /** The most bytes of records' JSON, a newline each (Infinity: none). */
  readonly maxOut: number;
  /** Whether the run resumes from a cursor (lines are then not offered: they carry no order key). */
  readonly resumed: boolean;
  /** The sink takes records with the engine's lossless names (else their wire form). */
  readonly rawNames: boolean;
  /** Reports an error of the result (a page that cannot hold its first record). */
  readonly report: (info: ErrorInfo) => void;
  /** Counts the results handed over. */
  readonly tally: { emitted: number };
}

/** The bounds of one dispatch over one sink. */
export class Bounds {
  /** Why the bounds cut the result, or null. */
  cut: TruncatedReason | null = null;
  /** The last result handed to the sink; its key is read once at the end (a key may be built on demand). */
  last: Pick<Emitted, "key"> | null = null;
  private outBytes = 0;
  /** A limit of 0 asks for the summary alone: the run goes to its end and gives nothing; truncated then says
   * whether there was something. */
  private readonly summaryAlone: boolean;
  /** The sink's writer of entries, unless an output-size bound must measure each record's JSON. */
  private readonly writesEntry: ((e: Entry) => void) | undefined;
  /** The events the run pushes to. */
  readonly events: Events<Entry>;

  /**
   * @param sink where results go
   * @param o the bounds
   */
  constructor(
    private readonly sink: Sink,
    private readonly o: BoundsOptions,
  ) {
    this.summaryAlone = o.limit === 0;
    this.writesEntry = o.maxOut === Number.POSITIVE_INFINITY ? sink.entry : undefined;
    this.events = { entry: (e) => this.entry(e), lines: this.linesOf() };
  }

  /**
   * Passes one record through the bounds to the sink.
   * @param item the record
   * @returns false when the run must stop
   */
  offer(item: Emitted): boolean {
    const { o, sink } = this;
    const record = o.rawNames ? item.record : wireRecord(item.record);
    if (o.tally.emitted >= o.limit) {
      this.cut = "limit";
      return false;
    }
    if (o.maxOut !== Number.POSITIVE_INFINITY) {
      const size = Buffer.byteLength(recordJson(record)) + 1;
      if (this.outBytes + size > o.maxOut) {
        this.cut = "max_output_bytes";
        // A page that cannot hold even its first record would stop a pager silently: say so. The cursor (when
        // there is one) resumes here, and max_output_bytes may change between pages.
        if (o.tally.emitted === 0) {
          const where = (record as { path?: unknown }).path;
          // Reported, not counted as a skip: the record exists, the page cannot hold it.
          o.report({
            code: "TOO_LARGE",
            message: `the next record (${size} bytes of JSON) does not fit max_output_bytes (${o.maxOut}); call again with a larger max_output_bytes (and next_cursor, when set) to go on`,
            path: typeof where === "string" ? where : null,
          });
        }
        return false;
      }
      this.outBytes += size;
    }
    sink.record(item.kind, record);
    o.tally.emitted++;
    this.last = item;
    return true;
  }

  /**
   * The events' entry: the same bounds as a record's, the record made only for a sink that wants it.
   * @param e the walk entry
   * @returns false when the run must stop
   */
  entry(e: Entry): boolean {
    if (this.summaryAlone) {
      this.cut = "limit";
      return true;
    }
    const write = this.writesEntry;
    if (write === undefined) return this.offer(new EntryEmitted(fileMatchOf(e), e));
    if (this.o.tally.emitted >= this.o.limit) {
      this.cut = "limit"; // an entry past the limit: there is more (the look-ahead of the record path)
      return false;
    }
    write(e);
    this.o.tally.emitted++;
    this.last = e; // an entry's key is its record's order key
    return true;
  }

  /** The events' lines: the sink's, counted, when no bound can cut them and nothing is resumed; else none. */
  private linesOf(): LineEvents | null {
    const out = this.sink.lines;
    const o = this.o;
    if (
      out === undefined ||
      o.limit !== Number.POSITIVE_INFINITY ||
      o.maxOut !== Number.POSITIVE_INFINITY ||
      o.resumed
    )
      return null;
    const tally = o.tally;
    return {
      fileStart: (abs) => out.fileStart(abs),
      line: (n, buf, from, to) => {
        tally.emitted++;
        out.line(n, buf, from, to);
      },
      lineText: (n, text) => {
        tally.emitted++;
        out.lineText(n, text);
      },
      fileDecoded: (abs, encoding) => out.fileDecoded?.(abs, encoding),
    };
  }

  /**
   * Takes what a run yields until it ends or the bounds cut it (leaving the loop ends the run).
   * @param run the operation's run
   */
  async drain(run: AsyncIterable<Yielded>): Promise<void> {
    // An operation yields records one at a time or in batches (a batch costs one await, not one per record), and
    // pushes entries and lines through the events; an empty batch is a pause a consumer may pace the run at.
    outer: for await (const yielded of run) {
      if (this.summaryAlone) {
        if (!Array.isArray(yielded) || yielded.length > 0) this.cut = "limit";
        continue;
      }
      if (!Array.isArray(yielded)) {
        if (!this.offer(yielded as Emitted)) break;
        continue;
      }
      for (const item of yielded as readonly Emitted[]) if (!this.offer(item)) break outer;
    }
  }
}
