/*! grep: plan → records. The walk (main thread) feeds batches of files to the search pool while it walks;
 * outcomes come back in any order and are re-ordered into walk order here, then turned into LineMatch or
 * GrepFile records. Global bounds (max_count, max_bytes) are decided here, in order, by look-ahead; limit and
 * max_output_bytes by the dispatcher. Waiting on workers polls the deadline, and the pool is terminated,
 * not awaited, when it passes. */

import { availableParallelism } from "node:os";
import type { ErrorCode } from "../../contract/errors.ts";
import { RglobError } from "../../contract/errors.ts";
import { REGION_NAMES } from "../../contract/regions.ts";
import type { SkippedWithRegions } from "../../contract/result.ts";
import { parseSize } from "../../engine/filter/size.ts";
import { breakdownKey, languageOf } from "../../engine/languages.ts";
import { compileWalk } from "../../engine/plan.ts";
import { regionLexer } from "../../engine/regions/regions.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { compileMatcher } from "../../engine/search/matcher.ts";
import { createPool } from "../../engine/search/pool.ts";
import { createSearcher, type FileOutcome, type SearchSpec } from "../../engine/search/search-file.ts";
import type { ContextOut, HitChunk, HitOut } from "../../engine/search/search-text.ts";
import { compareNames, type Entry, walk } from "../../engine/walk.ts";
import type { Emitted } from "../operation.ts";
import { classifyOperands } from "./operands.ts";
import type { GrepFile, GrepGroup, GrepInput, LineMatch } from "./schema.ts";

const BATCH = 32;
const MAX_IN_FLIGHT = 512;
/** Files at least this large (as the warm index knows them) are searched in a batch of their own. */
const LARGE_ALONE = 256 * 1024;
const POLL_MS = 50;

/** Separates the file key from the line part of a cursor key (NUL never occurs in a path). */
const SEP = "\u0000";

type Mode = "lines" | "files_with_matches" | "files_without_match" | "count";

/** Hits of a file given out before its outcome; `taken` (workers only) says they were consumed. */
interface PooledChunk {
  readonly chunk: HitChunk;
  readonly taken: (() => void) | null;
}

/** What comes of a file, piece by piece: chunks of hits, then its outcome. */
type Piece = PooledChunk | FileOutcome;

interface Item {
  readonly entry: Entry;
  /** Chunks a worker gave out that are not consumed yet. */
  readonly chunks: PooledChunk[];
  outcome: FileOutcome | null;
  /** The in-thread search of the file, once its turn came. */
  steps: Generator<HitChunk, FileOutcome> | null;
}

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

/**
 * Returns a match record without its context arrays (always empty when no context was asked for): they are
 * left out of the wire record, which keeps default results small.
 * @param h the match with empty `before` and `after`
 * @returns the record, keys in contract order
 */
function withoutContext(h: LineMatch): LineMatch {
  return {
    path: h.path,
    relative_path: h.relative_path,
    line_number: h.line_number,
    content: h.content,
    clipped: h.clipped,
    content_offset: h.content_offset,
    submatches: h.submatches,
    encoding: h.encoding,
  };
}

/** The walk key and the count of records given, from a file-mode cursor key ("root:rel" + SEP + count). */
function parseFileResume(key: string | null): { walk: string; count: number } | null {
  if (key === null) return null;
  const at = key.indexOf(SEP);
  if (at < 0) return { walk: key, count: 0 };
  return { walk: key.slice(0, at), count: givenCount(key.slice(at + 1)) };
}

/**
 * Completes the after-context of the last record max_count lets through with the lines of the hits that follow
 * it in its file, as grep prints them (as context, `-`): the record's context had stopped before the next match.
 * Only lines the hits hold are added (a match's lines, its own before- and after-context), in order and without
 * a gap.
 * @param last the last record given
 * @param hits the file's hits (of this chunk)
 * @param from the index of the first hit not given
 * @param after the lines of after-context asked for
 */
function trailingContext(last: LineMatch, hits: readonly HitOut[], from: number, after: number): void {
  const spanned = last.content.split("\n").length;
  const reach = last.line_number + spanned - 1 + after;
  last.after ??= [];
  const out = last.after as ContextOut[];
  let shown = out.at(-1)?.line_number ?? last.line_number + spanned - 1;
  /** Adds the next line; false once the context is complete or a line is missing. */
  const add = (line: ContextOut): boolean => {
    if (line.line_number <= shown) return true; // given already
    if (shown >= reach || line.line_number !== shown + 1) return false;
    out.push(line);
    shown++;
    return true;
  };
  for (let k = from; k < hits.length && shown < reach; k++) {
    const h = hits[k] as HitOut;
    for (const c of h.before) if (!add(c)) return;
    const lines = h.content.split("\n");
    for (let i = 0; i < lines.length; i++)
      if (!add({ line_number: h.line_number + i, content: lines[i] as string, clipped: h.clipped })) return;
    for (const c of h.after) if (!add(c)) return;
  }
}

/** The count of records given, from a cursor key's last part (0 when absent, as in an older cursor, or bad). */
function givenCount(text: string | undefined): number {
  const n = Number(text ?? 0);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** The outcome of a file the warm index rules out: searched, nothing found, nothing read. */
function ruledOut(): FileOutcome {
  return { bytes: 0, skip: null, error: null, lines: 0, matches: 0, hits: [], encoding: "utf-8" };
}

function modeOf(input: GrepInput): Mode {
  const modes = [
    input.files_with_matches,
    input.files_without_match,
    input.count || input.count_matches,
  ].filter(Boolean).length;
  if (modes > 1) {
    throw new RglobError(
      "BAD_PREDICATE",
      "files_with_matches, files_without_match and count exclude each other",
    );
  }
  if (input.files_with_matches) return "files_with_matches";
  if (input.files_without_match) return "files_without_match";
  if (input.count || input.count_matches) return "count";
  return "lines";
}

/**
 * Returns the largest size of a file grep reads: rglob's sizes ('10k' = 10240), or fd's signed form for at most
 * ('-10k' = 10000, fd's units). fd's '+10k' means at least 10000 bytes, which no maximum is: refused, where it
 * used to lift every limit.
 */
function maxFileSizeOf(value: GrepInput["max_file_size"]): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  const b = parseSize(value, "max_file_size");
  if (b.sign === "+")
    throw new RglobError(
      "BAD_PREDICATE",
      `max_file_size: '${value}' is fd's "at least ${b.bytes} bytes", and a maximum cannot be a minimum; give the largest size to search: 10k (10240 bytes), 10kb (10000), or fd's -10k (at most 10000)`,
    );
  return b.bytes;
}

/**
 * Builds the search spec of a request (compiling the matcher: a bad regex throws here).
 * @param input validated grep input
 * @param patterns every pattern
 * @returns the spec and the mode
 */
export function searchSpecOf(
  input: GrepInput,
  patterns: readonly string[],
): { spec: SearchSpec; mode: Mode } {
  const mode = modeOf(input);
  const matcher = compileMatcher({
    patterns,
    fixedStrings: input.fixed_strings,
    ignoreCase: input.ignore_case,
    smartCase: input.smart_case,
    wordRegexp: input.word_regexp,
    lineRegexp: input.line_regexp,
    invert: input.invert_match,
    multiline: input.multiline,
    onlyMatching: input.only_matching,
  });
  if (input.encoding !== undefined) {
    try {
      new TextDecoder(input.encoding as ConstructorParameters<typeof TextDecoder>[0]);
    } catch {
      throw new RglobError("BAD_PREDICATE", `encoding: '${input.encoding}' is not a known TextDecoder label`);
    }
  }
  const ctxN = input.context ?? 0;
  const spec: SearchSpec = {
    matcher,
    text: {
      before: input.before_context ?? ctxN,
      after: input.after_context ?? ctxN,
      maxPerFile: input.max_per_file ?? Number.POSITIVE_INFINITY,
      maxColumns: input.max_columns ?? Number.POSITIVE_INFINITY,
      firstOnly: mode === "files_with_matches" || mode === "files_without_match",
      countOnly: mode === "count",
    },
    binaryAsText: input.text,
    sniffBytes: input.binary_sniff_bytes,
    encoding: input.encoding ?? null,
    maxFileSize: maxFileSizeOf(input.max_file_size),
    confine: null,
    regions: regionBits(input.in),
  };
  return { spec, mode };
}

/** grep's `in` as the searcher's bits (bit r keeps region r; 0 keeps every match). */
function regionBits(names: GrepInput["in"]): number {
  let bits = 0;
  for (const n of names ?? []) bits |= 1 << REGION_NAMES.indexOf(n);
  return bits;
}

/** A file left out by `in` because no lexer knows its language: counted in the ledger, never read. */
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

/**
 * Compiles grep's walk: files only, named files past the globs, entries that open from their directory.
 * @param input validated grep input
 * @param paths the roots (classified operands and `paths`)
 * @param globs the glob filters
 * @param cwd the directory relative paths are taken from
 * @returns the compiled walk
 */
export function compileGrepWalk(
  input: GrepInput,
  paths: string[],
  globs: string[],
  cwd: string,
): ReturnType<typeof compileWalk> {
  return compileWalk(
    { ...input, paths, patterns: globs },
    { filesOnly: true, namedFilesPastGlobs: true, cwd },
  );
}

/**
 * Runs grep.
 * @param input validated grep input
 * @param ctx the run context
 * @yields "match" records (LineMatch) or "file" records (GrepFile), in walk order
 */
export async function* runGrep(input: GrepInput, ctx: RunContext): AsyncGenerator<Emitted | Emitted[]> {
  const cwd = process.cwd();
  const { patterns, paths, globs } = classifyOperands(input, cwd);
  const { spec: unconfined, mode } = searchSpecOf(input, patterns);
  const { plan, rootErrors } = compileGrepWalk(input, paths, globs, cwd);
  const spec: SearchSpec = { ...unconfined, confine: plan.confine };
  for (const e of rootErrors) ctx.error(e);

  const resume = mode === "lines" ? parseResume(ctx.resumeAfter) : null;
  // A file record's key is its walk key and the records given so far (so max_count holds across pages).
  const fileResume = mode !== "lines" ? parseFileResume(ctx.resumeAfter) : null;
  const walkAfter = fileResume !== null ? fileResume.walk : ctx.resumeAfter;
  const threads =
    input.threads ?? defaultThreads(input.timeout_seconds !== undefined, spec.matcher.exact !== null);
  // Workers search ahead of the consumer; without them each file is searched when its turn comes, window by
  // window, so a file's hits never pile up in memory.
  const pool = threads > 0 ? createPool(spec, threads) : null;
  // A sink that writes plain lines itself takes them from the search in this thread, as they are found
  // (DirectLines): nothing of a hit is wanted but its line, no bound can cut inside a file, nothing is resumed.
  const direct =
    ctx.lines !== undefined &&
    pool === null &&
    mode === "lines" &&
    spec.text.before === 0 &&
    spec.text.after === 0 &&
    !input.only_matching &&
    input.max_count === undefined &&
    input.max_bytes === undefined &&
    resume === null
      ? ctx.lines
      : null;
  const local =
    pool === null
      ? createSearcher(direct === null ? spec : { ...spec, text: { ...spec.text, direct } })
      : null;
  // A binary file named as a root is searched all the same, as rg searches a file it is given by name (its
  // human output then says "binary file matches"); binary files met by the walk are skipped. Its lines are
  // records (the human output says so instead of showing them).
  let asText: ReturnType<typeof createSearcher> | null = null;
  const named = (e: Entry, o: FileOutcome): FileOutcome => {
    if (o.skip !== "binary" || e.depth !== 0 || spec.binaryAsText) return o;
    asText ??= createSearcher({ ...spec, binaryAsText: true });
    return asText.search(e.abs);
  };
  // A server's warm state: a remembered walk and the files its index rules out (never read, nothing found).
  const warm =
    ctx.warm?.grep(plan, spec, input.max_bytes !== undefined, mode === "files_without_match") ?? null;
  if (warm !== null && warm.source !== null) ctx.summary("source", warm.source);

  const totals = { matches: 0, lines: 0, files: 0 };
  // With `by`: the totals per breakdown key (files with a match only).
  const by = input.by;
  const keyOf =
    by === undefined ? null : (e: Entry) => breakdownKey(by, e.rel, e.name, languageOf(e.name)?.name ?? null);
  const groups = new Map<string, GrepGroup>();
  const skipped: { binary: number; too_large: number; unreadable: number; unknown_language: number } = {
    binary: 0,
    too_large: 0,
    unreadable: 0,
    unknown_language: 0,
  };
  let bytes = 0;
  let emittedLines = resume?.count ?? fileResume?.count ?? 0;
  const maxCount = input.max_count ?? Number.POSITIVE_INFINITY;
  const after = spec.text.after;
  const contextAsked = spec.text.before > 0 || after > 0;
  const maxBytes = input.max_bytes ?? Number.POSITIVE_INFINITY;

  // The pipeline: walk → batches → pool; `queue` holds files in walk order until their outcome is consumed.
  const queue: Item[] = [];
  let head = 0;
  let batch: Item[] = [];
  let inFlight = 0;
  /** Files whose outcome the consumer has taken (with workers). */
  let consumed = 0;
  let batches = 0;
  let wake: (() => void) | null = null;
  let woken = false;
  const wakeUp = () => {
    woken = true;
    wake?.();
  };
  const flush = () => {
    if (batch.length === 0 || pool === null) return;
    const items = batch;
    batch = [];
    batches++;
    const toSearch = warm === null && spec.regions === 0 ? items : items.filter((i) => i.outcome === null);
    if (toSearch.length === 0) return;
    inFlight += toSearch.length;
    pool.submit(
      toSearch.map((i) => i.entry.abs),
      (k, outcome) => {
        (toSearch[k] as Item).outcome = outcome;
        inFlight--;
        wakeUp();
      },
      (k, chunk, taken) => {
        (toSearch[k] as Item).chunks.push({ chunk, taken });
        wakeUp();
      },
    );
  };
  // A page resumed inside a file walks from that file on, the file included when the walk still gives it: a
  // cursor's path is never opened unless the walk gives it (its key is checked against the roots first).
  const entries: Iterator<Entry> =
    resume !== null
      ? walk(plan, ctx, resume.file, true)
      : warm !== null
        ? warm.walk(plan, ctx, walkAfter)
        : walk(plan, ctx, walkAfter);
  let walkDone = false;
  // With `in`, a file no lexer knows is left out before it is read (skipped.unknown_language).
  const unlexed =
    spec.regions === 0 ? null : (e: Entry) => regionLexer(languageOf(e.name)?.name ?? null, e.name) === null;
  const ledger: SkippedWithRegions = ctx.skipped;
  if (unlexed !== null) ledger.unknown_language = 0;
  const itemOf = (entry: Entry): Item => ({
    entry,
    chunks: [],
    outcome: unlexed?.(entry) ? unknownLanguage() : warm?.ruledOut(entry) ? ruledOut() : null,
    steps: null,
  });
  const due = yielder(BATCH * 4);
  /** Pulls walk entries into batches (a few batches at a time, so outcomes are consumed while walking). */
  const feed = () => {
    let n = 0;
    while (n < BATCH * 4) {
      const r = entries.next();
      if (r.done) {
        walkDone = true;
        break;
      }
      const item = itemOf(r.value);
      queue.push(item);
      // A file the warm index knows to be large is a batch of its own: the next goes to another worker.
      const large = item.outcome === null && (warm?.sizeOf(item.entry) ?? 0) >= LARGE_ALONE;
      if (large) flush();
      batch.push(item);
      // Batches grow 1, 2, 4 … BATCH, so a search of a few (large) files still uses every worker.
      if (large || batch.length >= Math.min(BATCH, 1 << batches)) flush();
      n++;
    }
    flush();
  };
  /** Sleeps until a worker answers or POLL_MS pass (so the deadline is checked while workers run). */
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, POLL_MS);
      wake = () => {
        woken = false;
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  /** Waits while workers search: feeds the walk to them meanwhile. False when the run must stop. */
  const waitForWorkers = async (): Promise<boolean> => {
    if (ctx.shouldStop()) return false;
    // Files in flight grow with the files consumed, up to MAX_IN_FLIGHT: a search that stops after a few
    // records (a small limit) does not walk and search hundreds of files ahead for nothing.
    if (!walkDone && inFlight < Math.min(MAX_IN_FLIGHT, 2 * BATCH + 2 * consumed)) {
      feed();
      if (due()) await tick();
      return true;
    }
    flush();
    await sleep();
    return true;
  };
  /** The next file of an in-thread search from the walk (after the pause for the event loop when one is due). */
  const pull = (): Item | null => {
    const r = entries.next();
    return r.done ? null : itemOf(r.value);
  };
  /**
   * The next file in walk order (with workers: once it has a chunk or its outcome); null at the end or on a stop.
   * In the calling thread it is no promise unless a pause for the event loop is due: an await per file cost
   * about a microsecond of the search of a small file.
   */
  const next = (): Item | null | Promise<Item | null> => {
    if (local !== null) {
      const first = head < queue.length ? (queue[head++] as Item) : null;
      if (first !== null) return first;
      if (ctx.shouldStop()) return null;
      if (due()) return tick().then(pull);
      return pull();
    }
    return nextFromWorkers();
  };
  const nextFromWorkers = async (): Promise<Item | null> => {
    while (true) {
      // Outcomes already in are still delivered after a stop: they are what was found before it.
      if (head < queue.length) {
        const item = queue[head] as Item;
        if (item.outcome !== null || item.chunks.length > 0) {
          queue[head] = undefined as unknown as Item;
          head++;
          consumed++;
          if (head > 4096 && head * 2 > queue.length) {
            queue.splice(0, head);
            head = 0;
          }
          return item;
        }
      }
      if (walkDone && head >= queue.length) return null;
      if (!(await waitForWorkers())) return null;
    }
  };
  /** The next piece of a file: hits given out before its end, or its outcome; null when the run must stop. In
   * the calling thread it is no promise (the search runs here and now). */
  const piece = (item: Item): Piece | null | Promise<Piece | null> => {
    if (local !== null) {
      if (item.outcome !== null) return item.outcome; // ruled out by the warm index
      // Between two windows of a file too, a deadline or a cancellation stops the run.
      if (item.steps !== null && ctx.shouldStop()) return null;
      if (item.steps === null) {
        direct?.file(item.entry.abs);
        item.steps = local.steps(item.entry.abs, item.entry);
      }
      const r = item.steps.next();
      return r.done ? r.value : { chunk: r.value, taken: null };
    }
    return pieceFromWorkers(item);
  };
  const pieceFromWorkers = async (item: Item): Promise<Piece | null> => {
    while (true) {
      const c = item.chunks.shift();
      if (c !== undefined) return c;
      if (item.outcome !== null) return item.outcome;
      if (!(await waitForWorkers())) return null;
    }
  };
  /** The outcome of a file, with the bytes of any chunks before it (modes that list files give out no hits). */
  const outcomeOf = async (item: Item): Promise<FileOutcome | null> => {
    let early = 0;
    for (let p = await piece(item); p !== null; p = await piece(item)) {
      if (!("chunk" in p)) return { ...p, bytes: p.bytes + early };
      early += p.chunk.bytes;
      p.taken?.();
    }
    return null;
  };
  const report = (item: Item, o: FileOutcome) => {
    if (o.error !== null) {
      ctx.error({ code: o.error.code as ErrorCode, message: o.error.message, path: item.entry.abs });
    }
    if (o.skip === "unknown_language") {
      skipped.unknown_language++;
      ledger.unknown_language = (ledger.unknown_language ?? 0) + 1;
    } else if (o.skip !== null) skipped[o.skip]++;
    totals.matches += o.matches;
    totals.lines += o.lines;
    if (o.lines > 0) totals.files++;
    if (keyOf !== null && o.lines > 0) {
      const key = keyOf(item.entry);
      const g = groups.get(key);
      if (g === undefined)
        groups.set(key, { key, total_matches: o.matches, matched_lines: o.lines, files_with_matches: 1 });
      else {
        g.total_matches += o.matches;
        g.matched_lines += o.lines;
        g.files_with_matches++;
      }
    }
  };
  // A run that stops by its own bounds leaves its workers usable; one stopped by a deadline or a cancellation
  // may have one stuck in a regex, so they are terminated.
  let boundStop = false;
  const stopHere = (reason: "max_bytes" | "max_count") => {
    boundStop = true;
    ctx.stop(reason);
  };
  /** Accounts for content bytes; false when max_bytes stops the run before them. */
  const account = (n: number): boolean => {
    if (bytes + n > maxBytes) {
      stopHere("max_bytes");
      return false;
    }
    bytes += n;
    ctx.read(n);
    return true;
  };

  let finished = false;
  let current: Item | null = null;
  try {
    for (
      let n = next(), item = n instanceof Promise ? await n : n;
      item !== null;
      n = next(), item = n instanceof Promise ? await n : n
    ) {
      current = item;
      const e = item.entry;
      if (mode === "lines") {
        let sub = 0;
        let lastLine = -1;
        const fileKey = e.key;
        const isResumed = resume !== null && fileKey === resume.file;
        // With after-context, a file's last record so far is held back until its next hit is seen: if max_count
        // stops the run there, its context goes on through the hits not given, as grep prints it.
        let held: Emitted | null = null;
        // The hits of a large file come in chunks, each before more of it is read; then its outcome.
        for (
          let q = piece(item), p = q instanceof Promise ? await q : q;
          p !== null;
          q = piece(item), p = q instanceof Promise ? await q : q
        ) {
          const chunk = "chunk" in p ? p.chunk : null;
          const o = chunk === null ? named(e, p as FileOutcome) : null;
          if (!account(chunk !== null ? chunk.bytes : (o as FileOutcome).bytes)) {
            if (held !== null) yield held;
            return;
          }
          if (o !== null) report(item, o);
          // Only UTF-8 files are searched window by window.
          const encoding = o !== null ? o.encoding : "utf-8";
          // A chunk's records go to the dispatcher together (one await per chunk, not per line).
          let recs: Emitted[] = held === null ? [] : [held];
          held = null;
          const hits = chunk !== null ? chunk.hits : (o as FileOutcome).hits;
          for (let k = 0; k < hits.length; k++) {
            const h = hits[k] as HitOut;
            sub = h.line_number === lastLine ? sub + 1 : 0;
            lastLine = h.line_number;
            if (
              isResumed &&
              (h.line_number < resume.line || (h.line_number === resume.line && sub <= resume.sub))
            )
              continue;
            // max_count counts matching lines: with only_matching, a line's further matches go with its first.
            const newLine = sub === 0;
            if (newLine && emittedLines >= maxCount) {
              const last = recs.at(-1);
              if (last !== undefined && after > 0) trailingContext(last.record as LineMatch, hits, k, after);
              if (recs.length > 0) yield recs;
              stopHere("max_count");
              return;
            }
            if (newLine) emittedLines++;
            // The hit has the record's keys in its order: filled in, it is the record.
            h.path = e.abs;
            h.relative_path = e.rel;
            h.encoding = encoding;
            const rec = contextAsked ? (h as LineMatch) : withoutContext(h as LineMatch);
            recs.push(new MatchEmitted(rec, fileKey, h.line_number, sub, emittedLines));
            if (recs.length >= ctx.batch + (after > 0 ? 1 : 0)) {
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
        continue;
      }
      const found = await outcomeOf(item);
      if (found === null) break;
      const o = named(e, found);
      if (!account(o.bytes)) return;
      report(item, o);
      if (o.skip !== null || o.error !== null) continue;
      const listed =
        mode === "files_without_match"
          ? o.lines === 0
          : o.lines > 0 || (mode === "count" && input.include_zero);
      if (!listed) continue;
      if (emittedLines >= maxCount) {
        stopHere("max_count");
        return;
      }
      emittedLines++;
      const rec: GrepFile = {
        path: e.abs,
        relative_path: e.rel,
        // -c -o and --count-matches count matches, as rg does; -c alone counts lines.
        count:
          mode === "count"
            ? input.only_matching || input.count_matches
              ? o.matches
              : o.lines
            : mode === "files_without_match"
              ? 0
              : null,
      };
      yield { kind: "file", record: rec, key: `${e.key}${SEP}${emittedLines}` };
    }
    finished = true;
  } finally {
    // An in-thread search stopped inside a file closes it.
    current?.steps?.return(undefined as unknown as FileOutcome);
    // With count, the grand total stays exact when the consumer stops early (limit): finish counting.
    if (!finished && mode === "count" && !ctx.shouldStop()) {
      for (let item = await next(); item !== null; item = await next()) {
        const o = await outcomeOf(item);
        if (o === null || !account(o.bytes)) break;
        report(item, o);
      }
    }
    pool?.close(boundStop || !ctx.shouldStop());
    local?.release();
    // Assigned in `named` (a closure), which the compiler's narrowing does not see.
    (asText as ReturnType<typeof createSearcher> | null)?.release();
    // A walk stopped early (a limit, a deadline) closes the directories it holds open.
    entries.return?.(undefined);
    ctx.summary("total_matches", totals.matches);
    ctx.summary("matched_lines", totals.lines);
    ctx.summary("files_with_matches", totals.files);
    // unknown_language is in the ledger only when `in` asked for regions.
    const { unknown_language, ...readSkips } = skipped;
    ctx.summary("files_skipped", spec.regions === 0 ? readSkips : skipped);
    // Ordered as count's breakdown: most lines first, then by key (code points).
    if (keyOf !== null)
      ctx.summary(
        "breakdown",
        [...groups.values()].sort((a, b) => b.matched_lines - a.matched_lines || compareNames(a.key, b.key)),
      );
  }
}
