/*! grep: compiled query → records. The files of the walk come from a FileSource (schedule.ts: searched in the
 * calling thread, or by workers and handed back in walk order) and become LineMatch or GrepFile records, or go
 * to the events' lines with no record made (the human listing of plain lines). Global bounds (max_count,
 * max_bytes) are decided here, in order, by look-ahead; limit and max_output_bytes by the dispatcher. A run
 * stopped by a deadline terminates its workers rather than awaiting them. */

import { availableParallelism } from "node:os";
import type { ErrorCode } from "../../contract/errors.ts";
import { REGION_TAG_BIT } from "../../contract/regions.ts";
import type { SkippedWithRegions } from "../../contract/result.ts";
import type { LineEvent, LineEvents } from "../../engine/events.ts";
import { breakdownKey, languageOf } from "../../engine/languages.ts";
import { lexedByName } from "../../engine/regions/regions.ts";
import type { RunContext } from "../../engine/run.ts";
import { encodingKey } from "../../engine/search/encoding.ts";
import { unpackLines } from "../../engine/search/packed-lines.ts";
import { createPool } from "../../engine/search/pool.ts";
import { createSearcher, type FileOutcome, type SearchSpec } from "../../engine/search/search-file.ts";
import { compareNames, type Entry, walk } from "../../engine/walk.ts";
import type { Emitted } from "../operation.ts";
import type { GrepQuery } from "./query.ts";
import { grepFileOf, LineRecords, trailingContext } from "./records.ts";
import {
  type FileSource,
  type Item,
  localSource,
  type Piece,
  type PooledChunk,
  pooledSource,
} from "./schedule.ts";
import type { GrepGroup, LineMatch } from "./schema.ts";

export { compileGrepWalk } from "./query.ts";

/** Separates the file key from the line part of a cursor key (NUL never occurs in a path). */
const SEP = "\u0000";

/** A match on its way to the dispatcher. Its cursor key is built only when asked for (for the last record). */
class MatchEmitted implements Emitted {
  readonly kind = "match";

  constructor(
    readonly record: LineMatch,
    private readonly file: string,
    private readonly line: number,
    private readonly sub: number,
    /** The records given so far in the query, this one included (all pages). */
    private readonly count: number,
  ) {}

  get key(): string {
    return `${this.file}${SEP}${this.line}${SEP}${this.sub}${SEP}${this.count}`;
  }
}

/** The walk key and the count of records given, from a file-mode cursor key ("root:rel" + SEP + count). */
function parseFileResume(key: string | null): { walk: string; count: number } | null {
  if (key === null) return null;
  const at = key.indexOf(SEP);
  if (at < 0) return { walk: key, count: 0 };
  return { walk: key.slice(0, at), count: givenCount(key.slice(at + 1)) };
}

/** The count of records given, from a cursor key's last part (0 when absent, as in an older cursor, or bad). */
function givenCount(text: string | undefined): number {
  const n = Number(text ?? 0);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/**
 * The outcome of a file the warm index rules out: searched, nothing found, nothing read. Its encoding is plain
 * UTF-8: the index holds only such files (a BOM, bytes that are not UTF-8, a NUL or UTF-16 keep a file out of it,
 * read by every query), which `encodings` does not count, from an index or not.
 */
function ruledOut(): FileOutcome {
  return { bytes: 0, skip: null, error: null, lines: 0, matches: 0, hits: [], encoding: "utf-8" };
}

/**
 * The outcome of a file a warm server knows binary, unchanged since a read found it so: skipped as binary (as the
 * read would), nothing read.
 */
function knownBinary(): FileOutcome {
  return {
    bytes: 0,
    skip: "binary",
    error: { code: "BINARY", message: "binary file (NUL byte); use text to search it" },
    lines: 0,
    matches: 0,
    hits: [],
    encoding: "utf-8",
  };
}

/** How many paths `not_utf8` names. */
const NOT_UTF8_NAMED = 10;

/** A file left out by `in` because no lexer knows its language by its name: counted in the ledger, never read. */
function unknownLanguage(): FileOutcome {
  return {
    bytes: 0,
    skip: "unknown_language",
    error: null,
    lines: 0,
    matches: 0,
    hits: [],
    encoding: "utf-8",
  };
}

function parseResume(key: string | null): { file: string; line: number; sub: number; count: number } | null {
  if (key === null) return null;
  const parts = key.split(SEP);
  if (parts.length !== 3 && parts.length !== 4) return null;
  // The fourth part counts the records given before the cursor, so max_count holds across pages.
  return {
    file: parts[0] as string,
    line: Number(parts[1]),
    sub: Number(parts[2]),
    count: givenCount(parts[3]),
  };
}

/**
 * Returns the default number of search workers: 2 (at most the cores) on a machine with four cores or more,
 * or whenever a deadline is set and the pattern is a regex, since only a worker can be stopped in the middle
 * of a regex that never returns (an exact literal is found with indexOf, window by window, and the deadline
 * is checked between windows); otherwise none. On two cores matching in the calling thread was as fast or
 * faster in every case measured (docs/decisions/0007-grep-workers.md, 0010).
 * @param deadline whether the request has a timeout
 * @param literal whether the pattern is an exact literal
 * @returns the number of workers
 */
function defaultThreads(deadline: boolean, literal: boolean): number {
  const cores = availableParallelism();
  return cores >= 4 || (deadline && !literal) ? Math.min(2, Math.max(1, cores)) : 0;
}

/** The resume points of a cursor: inside a file's lines (lines mode), or after a file record (file modes). */
interface Resume {
  readonly lines: ReturnType<typeof parseResume>;
  readonly files: ReturnType<typeof parseFileResume>;
}

/**
 * The run's counters: totals, the breakdown groups, the read skips, content bytes (max_bytes) and the records
 * given in the query (max_count, across pages); and the summary fields they become.
 */
/** How many of the files searched as UTF-16 the summary names. */
const UTF16_SHOWN = 20;

class GrepTally {
  readonly totals = { matches: 0, lines: 0, files: 0 };
  /** The files searched as UTF-16 (a BOM, or sniffed without one: ADR 0039), the first UTF16_SHOWN (utf16_files). */
  private readonly utf16: string[] = [];
  /** With `in`: the matches found outside the regions asked for, and their files (left_out_by_in). */
  readonly leftOut = { matches: 0, files: 0 };
  /** With `also`: the files a condition left out (left_out_by_also). */
  private leftOutByAlso = 0;
  private readonly groups = new Map<string, GrepGroup>();
  private readonly skipped = { binary: 0, too_large: 0, unreadable: 0, unknown_language: 0 };
  /** Files read, by how they were decoded (encodings), and those read as UTF-8 that are not (not_utf8). */
  private readonly encodings: Record<string, number> = {};
  private readonly notUtf8: string[] = [];
  private readonly ledger: SkippedWithRegions;
  private readonly keyOf: ((e: Entry, o: FileOutcome) => string) | null;
  private bytes = 0;
  private readonly maxBytes: number;
  /** The records given so far in the query (all pages), for max_count. */
  given: number;
  readonly maxCount: number;
  /** Whether the run stopped by its own bound (its workers stay usable). */
  boundStop = false;

  constructor(
    private readonly ctx: RunContext,
    private readonly q: GrepQuery,
    given: number,
  ) {
    const by = q.input.by;
    this.keyOf =
      by === undefined
        ? null
        : // A file's language by the rule count uses: its name's, else its `#!` line's (FileOutcome.language).
          (e: Entry, o: FileOutcome) =>
            breakdownKey(by, e.rel, e.name, (o.language ?? languageOf(e.name))?.name ?? null);
    this.ledger = ctx.skipped;
    if (q.spec.regions !== 0) this.ledger.unknown_language = 0;
    this.given = given;
    this.maxCount = q.input.max_count ?? Number.POSITIVE_INFINITY;
    this.maxBytes = q.input.max_bytes ?? Number.POSITIVE_INFINITY;
  }

  /** Stops the run by one of its own bounds. */
  stop(reason: "max_bytes" | "max_count"): void {
    this.boundStop = true;
    this.ctx.stop(reason);
  }

  /** Accounts for content bytes; false when max_bytes stops the run before them. */
  account(n: number): boolean {
    if (this.bytes + n > this.maxBytes) {
      this.stop("max_bytes");
      return false;
    }
    this.bytes += n;
    this.ctx.read(n);
    return true;
  }

  /** Hears whether each file read was binary (a warm server's verdicts), or null. */
  read: ((e: Entry, binary: boolean) => void) | null = null;

  /** Counts a file's outcome: its error, its skip, its matches, its breakdown group. */
  report(e: Entry, o: FileOutcome): void {
    this.read?.(e, o.skip === "binary");
    if (o.error !== null) {
      this.ctx.error({ code: o.error.code as ErrorCode, message: o.error.message, path: e.abs });
    }
    if (o.skip === "unknown_language") {
      this.skipped.unknown_language++;
      this.ledger.unknown_language = (this.ledger.unknown_language ?? 0) + 1;
    } else if (o.skip !== null) this.skipped[o.skip]++;
    else if (o.encoding !== "") {
      const key =
        o.nul !== undefined
          ? "binary"
          : o.invalid
            ? "invalid-utf-8"
            : encodingKey(o.encoding, o.bom === true);
      // Plain UTF-8, the common case, is not counted: the files an index rules out unread are all plain UTF-8
      // (it holds no other kind), so every count here is a cold run's, from an index too.
      if (key !== "utf-8") this.encodings[key] = (this.encodings[key] ?? 0) + 1;
      if (o.invalid && this.notUtf8.length < NOT_UTF8_NAMED) this.notUtf8.push(e.rel);
    }
    if (o.encoding.startsWith("utf-16") && this.q.spec.encoding === null && this.utf16.length < UTF16_SHOWN)
      this.utf16.push(e.rel);
    if (o.excluded) this.leftOutByAlso++;
    this.totals.matches += o.matches;
    this.totals.lines += o.lines;
    if (o.dropped) {
      this.leftOut.matches += o.dropped;
      this.leftOut.files++;
    }
    if (o.lines > 0) this.totals.files++;
    if (this.keyOf !== null && o.lines > 0) {
      const key = this.keyOf(e, o);
      const g = this.groups.get(key);
      if (g === undefined)
        this.groups.set(key, {
          key,
          total_matches: o.matches,
          matched_lines: o.lines,
          files_with_matches: 1,
        });
      else {
        g.total_matches += o.matches;
        g.matched_lines += o.lines;
        g.files_with_matches++;
      }
    }
  }

  /** Sets the summary fields: totals, read skips, and the breakdown when asked for. */
  summarize(): void {
    const ctx = this.ctx;
    ctx.summary("total_matches", this.totals.matches);
    ctx.summary("matched_lines", this.totals.lines);
    ctx.summary("files_with_matches", this.totals.files);
    // unknown_language is in the ledger only when `in` asked for regions.
    const { unknown_language, ...readSkips } = this.skipped;
    ctx.summary("files_skipped", this.q.spec.regions === 0 ? readSkips : this.skipped);
    ctx.summary("encodings", this.encodings);
    if (this.notUtf8.length > 0) ctx.summary("not_utf8", this.notUtf8);
    // With `all` no match is left out: the field (and its note) would say nothing.
    const every = this.q.input.in?.includes("all") === true;
    if (this.q.spec.regions !== 0 && !this.q.spec.matcher.invert && !every)
      ctx.summary("left_out_by_in", this.leftOut);
    if (this.q.spec.conditions !== undefined) ctx.summary("left_out_by_also", this.leftOutByAlso);
    if (this.utf16.length > 0) ctx.summary("utf16_files", this.utf16);
    // Ordered as count's breakdown: most lines first, then by key (code points).
    if (this.keyOf !== null)
      ctx.summary(
        "breakdown",
        [...this.groups.values()].sort(
          (a, b) => b.matched_lines - a.matched_lines || compareNames(a.key, b.key),
        ),
      );
  }
}

/**
 * Returns the searcher of a binary file named as a root: searched all the same, as rg searches a file it is given
 * by name, and given as binary (`binary_offset`; human: "binary file matches"), as with `binary`; binary files
 * met by the walk are skipped unless `binary` or `text`.
 */
class NamedBinary {
  private searcher: ReturnType<typeof createSearcher> | null = null;

  constructor(private readonly spec: SearchSpec) {}

  /** The outcome of a file, searched again as binary when it is a binary file named as a root. */
  outcome(e: Entry, o: FileOutcome): FileOutcome {
    if (o.skip !== "binary" || e.depth !== 0 || this.spec.binaryAsText) return o;
    this.searcher ??= createSearcher({ ...this.spec, binaryMode: true });
    return this.searcher.search(e.abs);
  }

  release(): void {
    this.searcher?.release();
  }
}

/** What the lines of one file need from the run. */
interface LinesRun {
  readonly source: FileSource;
  readonly tally: GrepTally;
  readonly named: NamedBinary;
  readonly resume: ReturnType<typeof parseResume>;
  /** Lines of after-context asked for. */
  readonly after: number;
  /** Whether any context was asked for (records keep their context arrays). */
  readonly contextAsked: boolean;
  /** The most records gathered per yield. */
  readonly batch: number;
  /** Where the plain listing's lines go (a worker's packed lines too), or null when they become records. */
  readonly direct: LineEvents | null;
}

/** What fileLines gives its driver: records to pass on, or a piece to wait for (with workers). */
type LinesStep = Emitted | Emitted[] | Promise<Piece | null>;

/**
 * Gives the "match" records of one file, chunk by chunk (one await per chunk, not per line). A synchronous
 * generator, driven by runGrep: it yields the promise of a piece to be awaited there, so a file searched in this
 * thread costs no promise (an async generator per file cost more than the search of most files).
 * @param item the file
 * @param run what the run shares
 * @yields batches of records, a record held back, or a piece to wait for (the answer comes back from next())
 * @returns false when a bound stopped the run
 */
function* fileLines(item: Item, run: LinesRun): Generator<LinesStep, boolean, Piece | null | undefined> {
  const { source, tally, resume, after } = run;
  const e = item.entry;
  let sub = 0;
  let lastLine = -1;
  const fileKey = e.key;
  const isResumed = resume !== null && fileKey === resume.file;
  // With after-context, a file's last record so far is held back until its next hit is seen: if max_count
  // stops the run there, its context goes on through the hits not given, as grep prints it.
  let held: Emitted | null = null;
  const records = new LineRecords(run.contextAsked);
  let started = false;
  // The hits of a large file come in chunks, each before more of it is read; then its outcome.
  for (
    let q = source.piece(item), p = q instanceof Promise ? ((yield q) ?? null) : q;
    p !== null;
    q = source.piece(item), p = q instanceof Promise ? ((yield q) ?? null) : q
  ) {
    const chunk = "chunk" in p ? p.chunk : null;
    const o = chunk === null ? run.named.outcome(e, p as FileOutcome) : null;
    if (!tally.account(chunk !== null ? chunk.bytes : (o as FileOutcome).bytes)) {
      if (held !== null) yield held;
      return false;
    }
    if (o !== null) tally.report(e, o);
    // A file not in plain UTF-8 whose lines went straight to the output: its encoding, as its records say (#36).
    if (
      o !== null &&
      o.lines > 0 &&
      run.direct?.fileDecoded !== undefined &&
      o.nul === undefined &&
      !o.invalid
    ) {
      const key = encodingKey(o.encoding, o.bom === true);
      if (key !== "utf-8" && key !== "") run.direct.fileDecoded(e.abs, key);
    }
    // A worker's lines of the plain listing, written as the search in this thread would have (ADR 0049).
    const packed = chunk !== null ? chunk.packed : (o as FileOutcome).packed;
    if (packed !== undefined && run.direct !== null) {
      if (!started) run.direct.fileStart(e.abs);
      started = true;
      unpackLines(run.direct, packed);
    }
    // Only UTF-8 files are searched window by window.
    const file = {
      abs: e.abs,
      rel: e.rel,
      encoding: o !== null ? o.encoding : "utf-8",
      bom: o?.bom === true,
    };
    let recs: Emitted[] = held === null ? [] : [held];
    held = null;
    // A binary file searched as binary (-uuu) is one record that says so, never its lines (as rg prints it).
    if (o !== null && o.nul !== undefined && o.lines > 0 && !isResumed) {
      if (tally.given >= tally.maxCount) {
        if (recs.length > 0) yield recs;
        tally.stop("max_count");
        return false;
      }
      tally.given++;
      recs.push({
        kind: "file",
        record: grepFileOf(e.abs, e.rel, null, o),
        key: `${fileKey}${SEP}0${SEP}0${SEP}${tally.given}`,
      });
      yield recs;
      break;
    }
    const events = chunk !== null ? chunk.hits : (o as FileOutcome).hits;
    // The index after the last event made a record in this batch (trailing context goes on from there).
    let givenTo = 0;
    for (let k = 0; k < events.length; k++) {
      const h = events[k] as LineEvent;
      if (h.kind !== "match") {
        records.context(h);
        continue;
      }
      sub = h.line_number === lastLine ? sub + 1 : 0;
      lastLine = h.line_number;
      if (
        isResumed &&
        (h.line_number < resume.line || (h.line_number === resume.line && sub <= resume.sub))
      ) {
        records.skip();
        continue;
      }
      // max_count counts matching lines: with only_matching, a line's further matches go with its first.
      const newLine = sub === 0;
      if (newLine && tally.given >= tally.maxCount) {
        const last = recs.at(-1);
        if (last !== undefined && after > 0)
          trailingContext(last.record as LineMatch, events, givenTo, after);
        if (recs.length > 0) yield recs;
        tally.stop("max_count");
        return false;
      }
      if (newLine) tally.given++;
      recs.push(new MatchEmitted(records.match(h, file), fileKey, h.line_number, sub, tally.given));
      givenTo = k + 1;
      if (recs.length >= run.batch + (after > 0 ? 1 : 0)) {
        const last = after > 0 ? (recs.pop() as Emitted) : null;
        yield recs;
        recs = last === null ? [] : [last];
      }
    }
    if (o === null && after > 0 && recs.length > 0) held = recs.pop() as Emitted;
    if (recs.length > 0) yield recs;
    if (o !== null) break;
    (p as PooledChunk).taken?.();
  }
  if (held !== null) yield held;
  return true;
}

/**
 * Returns the "file" record of a file in the modes that list files (or null when it is not listed), or "stop"
 * when max_count stops the run before it.
 * @param q the query
 * @param e the file
 * @param o its outcome
 * @param tally the run's counters
 * @returns the record, null, or "stop"
 */
function fileRecord(q: GrepQuery, e: Entry, o: FileOutcome, tally: GrepTally): Emitted | null | "stop" {
  if (o.skip !== null || o.error !== null || o.excluded) return null;
  const { mode, input } = q;
  const listed =
    mode === "files_without_match" ? o.lines === 0 : o.lines > 0 || (mode === "count" && input.include_zero);
  if (!listed) return null;
  if (tally.given >= tally.maxCount) {
    tally.stop("max_count");
    return "stop";
  }
  tally.given++;
  // -c -o and --count-matches count matches, as rg does; -c alone counts lines.
  const count =
    mode === "count"
      ? input.only_matching || input.count_matches
        ? o.matches
        : o.lines
      : mode === "files_without_match"
        ? 0
        : null;
  return { kind: "file", record: grepFileOf(e.abs, e.rel, count, o), key: `${e.key}${SEP}${tally.given}` };
}

/**
 * Returns where a run resumes: inside a file's lines, or after a file record.
 * @param q the query
 * @param key the cursor's order key, or null
 * @returns the resume points
 */
function resumeOf(q: GrepQuery, key: string | null): Resume {
  return {
    lines: q.mode === "lines" ? parseResume(key) : null,
    // A file record's key is its walk key and the records given so far (so max_count holds across pages).
    files: q.mode !== "lines" ? parseFileResume(key) : null,
  };
}

/**
 * Runs grep.
 * @param q the compiled query
 * @param ctx the run context
 * @yields "match" records (LineMatch) or "file" records (GrepFile), in walk order
 */
export async function* runGrep(q: GrepQuery, ctx: RunContext): AsyncGenerator<Emitted | Emitted[]> {
  const { input, spec, plan, mode } = q;
  for (const e of q.rootErrors) ctx.error(e);
  const resume = resumeOf(q, ctx.resumeAfter);
  const threads =
    input.threads ?? defaultThreads(input.timeout_seconds !== undefined, spec.matcher.exact !== null);
  // Workers search ahead of the consumer; without them each file is searched when its turn comes. The plain
  // listing's lines are written as they are found, or as workers packed them (ADR 0049): no record per line.
  const direct = directLines(q, ctx, resume);
  const deadline = input.timeout_seconds !== undefined;
  const pool =
    threads > 0
      ? createPool(spec, threads, ctx.debug === true, direct === null ? null : { batched: !deadline })
      : null;
  const local =
    pool === null
      ? createSearcher(direct === null ? spec : { ...spec, text: { ...spec.text, direct } })
      : null;
  const named = new NamedBinary(spec);
  // A server's warm state: a remembered walk and the files its index rules out (never read, nothing found).
  const warm =
    ctx.warm?.grep(plan, spec, {
      // A run that tests `also` on files without a match reads every file: one the index rules out for the
      // pattern is still listed or left out by the conditions.
      readsAll: input.max_bytes !== undefined || spec.conditions?.everyFile === true,
      // Given every file (those it rules out as found empty) when the run lists the files without a match.
      listsNonMatching: mode === "files_without_match",
      // With `in`, besides its candidates, the files whose name names no language with a lexer (lexedByName),
      // which it counts (skipped.unknown_language) or reads for their `#!` line as a cold run does.
      unlexed: spec.regions !== 0,
    }) ?? null;
  if (warm !== null && warm.source !== null) ctx.summary("source", warm.source);
  const tally = new GrepTally(ctx, q, resume.lines?.count ?? resume.files?.count ?? 0);
  tally.read = warm?.read?.bind(warm) ?? null;
  // A page resumed inside a file walks from that file on, the file included when the walk still gives it: a
  // cursor's path is never opened unless the walk gives it (its key is checked against the roots first).
  const walkAfter = resume.files !== null ? resume.files.walk : ctx.resumeAfter;
  const entries: Iterator<Entry> =
    resume.lines !== null
      ? walk(plan, ctx, resume.lines.file, true)
      : warm !== null
        ? warm.walk(plan, ctx, walkAfter)
        : walk(plan, ctx, walkAfter);
  // With `in`, a file whose name names a language no lexer knows is left out before it is read
  // (skipped.unknown_language); one whose name names none is read for its `#!` line (the searcher leaves it out
  // when that names no language with a lexer), an index's verdict aside: its answer is then the cold one.
  const unlexed = spec.regions === 0 ? null : (e: Entry) => lexedByName(e.name);
  const itemOf = (entry: Entry): Item => {
    const lexed = unlexed?.(entry);
    return {
      entry,
      chunks: [],
      outcome:
        lexed === false
          ? unknownLanguage()
          : lexed === null
            ? null
            : warm?.ruledOut(entry)
              ? ruledOut()
              : warm?.knownBinary?.(entry)
                ? knownBinary()
                : null,
      steps: null,
    };
  };
  const source =
    pool !== null
      ? pooledSource(entries, itemOf, ctx, {
          pool,
          allSearched: warm === null && spec.regions === 0,
          sizeOf: (e) => warm?.sizeOf(e) ?? 0,
        })
      : localSource(entries, itemOf, ctx, local as ReturnType<typeof createSearcher>, (abs) =>
          direct?.fileStart(abs),
        );
  const lines: LinesRun = {
    source,
    tally,
    named,
    resume: resume.lines,
    after: spec.text.after,
    contextAsked: spec.text.before > 0 || spec.text.after > 0,
    batch: ctx.batch,
    direct,
  };
  let finished = false;
  let current: Item | null = null;
  try {
    for (
      let n = source.next(), item = n instanceof Promise ? await n : n;
      item !== null;
      n = source.next(), item = n instanceof Promise ? await n : n
    ) {
      current = item;
      if (mode === "lines") {
        const steps = fileLines(item, lines);
        let r = steps.next();
        while (!r.done) {
          if (r.value instanceof Promise) r = steps.next(await r.value);
          else {
            yield r.value;
            r = steps.next();
          }
        }
        if (!r.value) return;
        continue;
      }
      const found = await source.outcome(item);
      if (found === null) break;
      const o = named.outcome(item.entry, found);
      if (!tally.account(o.bytes)) return;
      tally.report(item.entry, o);
      const rec = fileRecord(q, item.entry, o, tally);
      if (rec === "stop") return;
      if (rec !== null) yield rec;
    }
    finished = true;
  } finally {
    // An in-thread search stopped inside a file closes it.
    current?.steps?.return(undefined as unknown as FileOutcome);
    // With count, the grand total stays exact when the consumer stops early (limit): finish counting.
    if (!finished && mode === "count" && !ctx.shouldStop()) await countRest(source, tally);
    pool?.close(tally.boundStop || !ctx.shouldStop());
    local?.release();
    named.release();
    // A walk stopped early (a limit, a deadline) closes the directories it holds open.
    entries.return?.(undefined);
    tally.summarize();
  }
}

/**
 * Counts the files the consumer did not take (count mode stopped by a limit), so the grand total stays exact.
 * @param source the run's files
 * @param tally the run's counters
 */
async function countRest(source: FileSource, tally: GrepTally): Promise<void> {
  for (let item = await source.next(); item !== null; item = await source.next()) {
    const o = await source.outcome(item);
    if (o === null || !tally.account(o.bytes)) break;
    tally.report(item.entry, o);
  }
}

/**
 * Returns the events' lines when this run may write plain lines there as the search finds them: the consumer
 * takes them (ctx.events.lines), nothing of a hit is wanted but its line, no bound can cut inside a file, and
 * nothing is resumed; else null.
 * @param q the query
 * @param ctx the run context
 * @param resume the run's resume points
 * @returns the lines, or null
 */
function directLines(q: GrepQuery, ctx: RunContext, resume: Resume): LineEvents | null {
  const lines = ctx.events?.lines ?? null;
  const { input, spec } = q;
  return lines !== null &&
    q.mode === "lines" &&
    spec.text.before === 0 &&
    spec.text.after === 0 &&
    !input.only_matching &&
    input.max_count === undefined &&
    input.max_bytes === undefined &&
    resume.lines === null &&
    // `also`: a file's lines are given once its conditions are known.
    spec.conditions === undefined &&
    // `in` naming several regions: each match line shows its regions, from the records' submatches.
    (spec.regions & REGION_TAG_BIT) === 0
    ? lines
    : null;
}
