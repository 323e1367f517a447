/*! Search: matching inside one decoded text. Finds the matching lines (a whole-text scan proposes a line, a
 * line-local match confirms it), numbers lines only where there is a hit, gives each selected line and the
 * grep-style context around it as line events (engine/events.ts), clips long lines. Synchronous: it runs in a worker (or in the calling thread) and never reads files; in the calling
 * thread it may hand matching lines to a writer of the output as it finds them (TextOptions.direct). */
import { isUtf8 } from "node:buffer";
import { RE2JS } from "re2js";
import { REGION_NAMES, REGION_TAG_BIT, type RegionName } from "../../contract/regions.ts";
import type { LineEvent, LineEvents, Submatch } from "../events.ts";
import { codePointCount, codePointsAhead, pairAt } from "./code-points.ts";
import { type MatcherSpec, WORD_OPEN } from "./matcher.ts";

/** How results are shaped, decided once per request. */
export interface TextOptions {
  readonly before: number;
  readonly after: number;
  /** Maximum matching lines per file (Infinity for none). */
  readonly maxPerFile: number;
  /** Maximum characters of a line in the output (Infinity for none). */
  readonly maxColumns: number;
  /** Stop at the first match (files_with_matches / files_without_match). */
  readonly firstOnly: boolean;
  /** Count only (no line records are built). */
  readonly countOnly: boolean;
  /**
   * Where matching lines go straight to the output instead of becoming hits (the human listing of plain lines,
   * in the calling thread): set only when the caller needs nothing of a hit but its line, with no context and
   * no limit; used where no line can be clipped and a match shows whole lines (directOf).
   */
  readonly direct?: LineEvents;
}

/** A submatch list of a context line: one shared, frozen empty list. */
const NO_SUBMATCHES: Submatch[] = Object.freeze([]) as unknown as Submatch[];

/**
 * Creates a "match" event (every one is made here, so all events have one shape).
 * @returns the event
 */
function matchEvent(
  line_number: number,
  content: string,
  clipped: boolean,
  content_offset: number,
  submatches: Submatch[],
): LineEvent {
  return { kind: "match", line_number, content, clipped, content_offset, submatches };
}

/** Line events of a large file so far, given out before the rest of it is read (bounded memory). */
export interface HitChunk {
  /** Content bytes read since the previous chunk of the file. */
  readonly bytes: number;
  /** Its line events, in order. */
  readonly hits: LineEvent[];
  /** A search worker's lines of the plain listing, packed (packed-lines.ts; absent: none). */
  readonly packed?: Uint8Array;
}

/** What a text search found. */
export interface TextResult {
  /** The line events: matches, and context lines around them, in order. */
  readonly hits: LineEvent[];
  /** Matching lines (selected lines with invert). */
  readonly lines: number;
  /** Matches (submatches; selected lines with invert). */
  readonly matches: number;
  /** The last line number given as a match or as context (0 for none). */
  readonly shownUpTo: number;
  /** With `in`: matches found that start outside the regions asked for, so left out (not with invert). */
  readonly dropped?: number;
}

/**
 * A part of a larger file, searched as one text of whole lines (see search-large.ts). Lines before `from` are
 * context only (already searched); lines starting at or after `to` are context only (searched next time).
 */
export interface TextWindow {
  /** Offset where the new lines start. */
  readonly from: number;
  /** Offset where lines stop being searched. */
  readonly to: number;
  /** The line number of the text's first line. */
  readonly firstLine: number;
  /** The last line number already given (before-context never repeats it). */
  readonly shownUpTo: number;
}

/** A match as the searcher reads it (a RegExpExecArray is one). */
interface Found {
  readonly index: number;
  readonly 0: string;
}

/** What the searcher needs of a global regex: a RegExp, or the linear-time engine behind the same calls. */
interface Finder {
  lastIndex: number;
  readonly unicode: boolean;
  exec(text: string): Found | null;
  test(text: string): boolean;
}

/**
 * The linear-time engine (RE2JS, ADR 0020) behind a global RegExp's exec/test/lastIndex: the search from
 * lastIndex, the leftmost-first match, lastIndex moved past it (0 after a miss). Spans are in UTF-16 units.
 */
class LinearFinder implements Finder {
  lastIndex = 0;
  readonly unicode = true;
  readonly #re: RE2JS;
  /** -w's emulation: the match is group 1, between the characters on each side that the regex consumes. */
  readonly #word: boolean;
  #input: string | null = null;
  #matcher: ReturnType<RE2JS["matcher"]> | null = null;

  constructor(source: string, ignoreCase: boolean) {
    this.#word = source.startsWith(WORD_OPEN);
    const re2 = this.#word ? source.slice(WORD_OPEN.length) : source;
    this.#re = RE2JS.compile(re2, RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0));
  }

  exec(text: string): Found | null {
    if (this.#input !== text || this.#matcher === null) {
      this.#matcher = this.#re.matcher(text);
      this.#input = text;
    }
    const m = this.#matcher;
    // With -w the character before lastIndex is where the match may start (consumed as its left side).
    const from = this.#word && this.lastIndex > 0 ? this.lastIndex - 1 : this.lastIndex;
    if (this.lastIndex > text.length || !m.find(from)) {
      this.lastIndex = 0;
      return null;
    }
    const a = this.#word ? m.start(1) : m.start();
    const b = this.#word ? m.end(1) : m.end();
    this.lastIndex = b;
    return { index: a, 0: text.slice(a, b) };
  }

  test(text: string): boolean {
    return this.exec(text) !== null;
  }
}

/** The RegExp objects of a matcher, built once per thread. */
export interface CompiledMatcher {
  readonly spec: MatcherSpec;
  /** Whole-text finder ('gm'). */
  readonly text: Finder;
  /** Line-local matcher ('g'). */
  readonly line: Finder;
  /** The UTF-16 spans of every match in a line (the line matcher, or indexOf for exact literals). */
  readonly spans: (line: string) => Array<[number, number]>;
  /**
   * Whether a whole-text match that stays within its line is that line's first match (a regex without
   * lookaround of the user's: it cannot see past a line's end, where the line matcher sees the end of input;
   * and without anchors: the whole-text `^`/`$` also hold next to a CR, U+2028 or U+2029 inside a line).
   */
  readonly firstFromText: boolean;
}

/**
 * Builds the RegExp objects of a matcher spec.
 * @param spec the spec
 * @returns the compiled matcher
 */
export function buildMatcher(spec: MatcherSpec): CompiledMatcher {
  const ignoreCase = spec.flags.includes("i");
  const line: Finder =
    spec.linear !== null
      ? new LinearFinder(spec.linear, ignoreCase)
      : new RegExp(spec.source, `${spec.flags}g`);
  return {
    spec,
    text:
      spec.linear !== null
        ? new LinearFinder(spec.linear, ignoreCase)
        : new RegExp(spec.source, `${spec.flags}gm`),
    line,
    spans: spec.exact !== null ? literalSpans(spec.exact) : (text) => lineSpans(line, text),
    firstFromText: spec.exact === null && !spec.lookaround && !spec.anchors,
  };
}

/**
 * Finds matches of literals as the regex `(?:a)|(?:b)|…` would: leftmost first, the earlier alternative on a
 * tie, no overlaps.
 * @param lits the literals (not empty)
 * @returns the span finder
 */
function literalSpans(lits: readonly string[]): (line: string) => Array<[number, number]> {
  if (lits.length === 1) {
    const lit = lits[0] as string;
    const n = lit.length;
    return (line) => {
      const out: Array<[number, number]> = [];
      for (let i = line.indexOf(lit); i >= 0; i = line.indexOf(lit, i + n)) out.push([i, i + n]);
      return out;
    };
  }
  return (line) => {
    const out: Array<[number, number]> = [];
    // Each literal's next occurrence at or after pos, searched again only once pos passes it (-1: none left),
    // so a line full of one literal and without another is scanned once per literal, not once per match.
    const next = lits.map((lit) => line.indexOf(lit));
    let pos = 0;
    for (;;) {
      let best = -1;
      let bestLen = 0;
      for (let k = 0; k < lits.length; k++) {
        let i = next[k] as number;
        if (i >= 0 && i < pos) {
          i = line.indexOf(lits[k] as string, pos);
          next[k] = i;
        }
        if (i >= 0 && (best < 0 || i < best)) {
          best = i;
          bestLen = (lits[k] as string).length;
        }
      }
      if (best < 0) return out;
      out.push([best, best + bestLen]);
      pos = best + bestLen;
    }
  };
}

const SURROGATE = /[\ud800-\udfff]/;
const NON_ASCII = /[^\x00-\x7f]/;

/** Converts a line's UTF-16 indices to code-point and UTF-8 byte columns. */
type Columns = { cp: (i: number) => number; bytes: (i: number) => number };
const same = (i: number) => i;
/** The columns of an ASCII line: UTF-16 index, code point and byte offsets are one number. */
const ASCII_COLUMNS: Columns = { cp: same, bytes: same };

/**
 * Column converter for one line: UTF-16 index → code points and UTF-8 bytes, cheap for ASCII lines. The columns
 * of a line's matches are asked for in increasing order, so the count goes on from the last index asked for
 * (from the start again only for an earlier one): a line with a match every few characters costs linear time.
 * Counting the whole prefix for every match made a 1 MB line with a million matches take over a minute.
 * Bytes are those of `Buffer.byteLength(line.slice(0, i))`: a lone surrogate is 3 (U+FFFD), a pair 4, and a
 * prefix that ends inside a pair keeps its high surrogate as a lone one.
 */
export function columns(line: string): Columns {
  if (!NON_ASCII.test(line)) return ASCII_COLUMNS;
  const astral = SURROGATE.test(line);
  let at = 0;
  let cp = 0;
  let bytes = 0;
  /** Counts up to index i; true when i falls inside a surrogate pair (its high half then counts alone). */
  const advance = (i: number): boolean => {
    if (i < at) {
      at = 0;
      cp = 0;
      bytes = 0;
    }
    while (at < i) {
      const c = line.charCodeAt(at);
      if (c < 0x80) bytes++;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        const d = line.charCodeAt(at + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          if (at + 1 >= i) return true;
          cp++;
          bytes += 4;
          at += 2;
          continue;
        }
        bytes += 3;
      } else {
        bytes += 3;
        if (c >= 0xdc00 && c <= 0xdfff) {
          at++; // a lone low surrogate is not a code point of its own (as before: only high halves count)
          continue;
        }
      }
      cp++;
      at++;
    }
    return false;
  };
  return {
    cp: astral
      ? (i) => {
          const inside = advance(i);
          return inside ? cp + 1 : cp;
        }
      : same,
    bytes: (i) => {
      const inside = advance(i);
      return inside ? bytes + 3 : bytes;
    },
  };
}

/**
 * Finds the UTF-16 spans of every match in a line.
 * @param re the line-local matcher
 * @param line the line
 * @returns [start, end) spans
 */
function lineSpans(re: Finder, line: string): Array<[number, number]> {
  return spansAfter(re, line, [], 0);
}

/**
 * The index after an empty match at i: the next character, a whole surrogate pair with 'u' (an index inside a
 * pair would be moved back to its start by the regex, so the same empty match would be found forever).
 * @param re the regex
 * @param text the text searched
 * @param i the index of the empty match
 * @returns where to search on
 */
function stepOver(re: Finder, text: string, i: number): number {
  return re.unicode && pairAt(text, i) ? i + 2 : i + 1;
}

/**
 * Adds to `out` the spans of the matches in a line from index `from` on (`lineSpans` from 0). An empty match
 * where the previous match ended is not one, as in rg (Rust's regex crate): `.*` matches `a` once, not `a` and
 * the empty string after it, and `a*` in `ab` matches `a` and the empty string before the end only.
 * @returns out
 */
function spansAfter(
  re: Finder,
  line: string,
  out: Array<[number, number]>,
  from: number,
): Array<[number, number]> {
  re.lastIndex = from;
  let prevEnd = out.length > 0 ? (out[out.length - 1] as [number, number])[1] : -1;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    const s = m.index;
    const e = s + m[0].length;
    if (e !== s || s !== prevEnd) out.push([s, e]);
    prevEnd = e;
    if (e === s) {
      if (re.lastIndex >= line.length) break;
      re.lastIndex = stepOver(re, line, s);
    }
  }
  return out;
}

/**
 * Clips a line to at most `maxColumns` characters (code points, never half a surrogate pair) around a UTF-16
 * index: from a quarter of the window before it, or so that the window ends with the line.
 * @returns the text shown and the UTF-16 index where it starts in the line (the line itself when it fits)
 */
function clip(line: string, maxColumns: number, anchor: number): { text: string; from: number } {
  if (line.length <= maxColumns) return { text: line, from: 0 };
  const count = codePointCount(line);
  if (count <= maxColumns) return { text: line, from: 0 };
  const at = codePointCount(line.slice(0, anchor));
  const first = Math.max(0, Math.min(at - Math.floor(maxColumns / 4), count - maxColumns));
  const from = codePointsAhead(line, 0, first);
  return { text: line.slice(from, codePointsAhead(line, from, maxColumns)), from };
}

/** The event of a context line: the text's [s, e), line n, clipped to maxColumns. */
function contextLine(
  kind: "before" | "after",
  text: string,
  s: number,
  e: number,
  n: number,
  maxColumns: number,
): LineEvent {
  const line = text.slice(s, e);
  const shown = line.length <= maxColumns ? line : clip(line, maxColumns, 0).text;
  return {
    kind,
    line_number: n,
    content: shown,
    clipped: shown.length !== line.length,
    content_offset: 0,
    submatches: NO_SUBMATCHES,
  };
}

/**
 * Builds the hit of a matching line.
 * @param n its line number
 * @param content the line
 * @param spans its matches (UTF-16 spans)
 * @param maxColumns the most characters shown
 * @param ascii the caller knows the line is ASCII (columns need no conversion)
 * @returns the hit
 */
export function makeHit(
  n: number,
  content: string,
  spans: Span[],
  maxColumns: number,
  ascii = false,
): LineEvent {
  const col = ascii ? ASCII_COLUMNS : columns(content);
  if (content.length <= maxColumns) {
    // The common case, kept lean: one object per submatch and the hit.
    const submatches: Submatch[] = new Array(spans.length);
    for (let k = 0; k < spans.length; k++) {
      const span = spans[k] as Span;
      const [s, e] = span;
      const sub: Submatch =
        col === ASCII_COLUMNS
          ? { start: s, end: e, byte_start: s, byte_end: e }
          : { start: col.cp(s), end: col.cp(e), byte_start: col.bytes(s), byte_end: col.bytes(e) };
      if (span[2] !== undefined) sub.region = REGION_NAMES[span[2]] as RegionName;
      submatches[k] = sub;
    }
    return matchEvent(n, content, false, 0, submatches);
  }
  const { text, from } = clip(content, maxColumns, spans[0]?.[0] ?? 0);
  const to = from + text.length;
  const submatches: Submatch[] = [];
  for (const span of spans) {
    const [s, e] = span;
    // Only the matches in the content shown (one that overlaps its edge is kept whole).
    if (text.length !== content.length && (s === e ? s < from || s > to : e <= from || s >= to)) continue;
    submatches.push({
      start: col.cp(s),
      end: col.cp(e),
      byte_start: col.bytes(s),
      byte_end: col.bytes(e),
      ...regionOf(span),
    });
  }
  return matchEvent(n, text, text.length !== content.length, from === 0 ? 0 : col.cp(from), submatches);
}

/** The hit of an ASCII line whose matches are a literal of `len` characters at the given offsets. */
function literalHit(n: number, line: string, at: readonly number[], len: number): LineEvent {
  const submatches: Submatch[] = new Array(at.length);
  for (let k = 0; k < at.length; k++) {
    const x = at[k] as number;
    submatches[k] = { start: x, end: x + len, byte_start: x, byte_end: x + len };
  }
  return matchEvent(n, line, false, 0, submatches);
}

/**
 * Says whether a decoded text is ASCII, from the length of the bytes it was decoded from: as many UTF-16 units
 * as bytes and no U+FFFD (a byte that is not UTF-8 decodes to one unit too). Then its offsets are byte offsets.
 * @param text the decoded text
 * @param bytes how many bytes it came from
 * @returns true when every byte was ASCII
 */
export function isAsciiText(text: string, bytes: number): boolean {
  return text.length === bytes && !text.includes("\ufffd");
}

export function pushOnlyMatching(
  hits: LineEvent[],
  n: number,
  line: string,
  spans: ReadonlyArray<Readonly<Span>>,
  col: Columns = columns(line),
): void {
  for (const span of spans) {
    const [s, e] = span;
    const sub = {
      start: col.cp(s),
      end: col.cp(e),
      byte_start: col.bytes(s),
      byte_end: col.bytes(e),
      ...regionOf(span),
    };
    hits.push(matchEvent(n, line.slice(s, e), false, col.cp(s), [sub]));
  }
}

/** Buffer#utf8Slice, where the runtime has it (Bun and Node do, undocumented). */
const utf8Slice = (
  Buffer.prototype as unknown as { utf8Slice?: (this: Buffer, s: number, e: number) => string }
).utf8Slice;

/**
 * Decodes bytes [s, e) as UTF-8 (invalid bytes as U+FFFD), as `buf.toString("utf8", s, e)` does: through
 * `utf8Slice` when there is one, about twice as fast on a short line (it skips the encoding argument).
 * @param buf the bytes
 * @param s the start
 * @param e the end
 * @returns the text
 */
const utf8Of: (buf: Buffer, s: number, e: number) => string =
  typeof utf8Slice === "function"
    ? (buf, s, e) => utf8Slice.call(buf, s, e)
    : (buf, s, e) => buf.toString("utf8", s, e);

/**
 * Folds CRLF line ends to LF (matching sees LF only, and content carries no `\r`).
 * @param text decoded text
 * @returns the text with every CRLF as LF
 */
export function foldCrlf(text: string): string {
  return text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
}

/**
 * Finds the next position (at or after `from`) where a prefilter literal occurs, or -1. Answers are cached, and
 * the cache serves any order of queries: a query before the one that filled it searches again.
 */
export type LiteralFinder = (from: number) => number;

/**
 * Creates a finder of case-sensitive literals in bytes (Buffer.indexOf, one cached position per literal).
 * @param buf the bytes
 * @param lits the literals as UTF-8 bytes
 * @returns the finder
 */
export function bytesFinder(buf: Buffer, lits: readonly Buffer[]): LiteralFinder {
  // Per literal: its first position at or after since[k] (valid for a query in [since[k], next[k]]).
  const next = lits.map(() => -2);
  const since = lits.map(() => 0);
  return (from) => {
    let best = -1;
    for (let k = 0; k < lits.length; k++) {
      let x = next[k] as number;
      if (x === -2 || from < (since[k] as number) || (x !== -1 && x < from)) {
        x = from >= buf.length ? -1 : buf.indexOf(lits[k] as Buffer, from);
        next[k] = x;
        since[k] = from;
      }
      if (x >= 0 && (best < 0 || x < best)) best = x;
    }
    return best;
  };
}

/**
 * Creates a finder of ASCII literals, case-insensitively, over a latin1 view of the bytes (one character per
 * byte, so string positions are byte positions).
 * @param buf the bytes
 * @param re a global, case-insensitive regex of the escaped literals
 * @returns the finder
 */
export function caselessFinder(buf: Buffer, re: RegExp): LiteralFinder {
  const text = buf.toString("latin1");
  let found = -2;
  let since = 0;
  return (from) => {
    if (found !== -2 && from >= since && (found === -1 || found >= from)) return found;
    re.lastIndex = from;
    const m = re.exec(text);
    found = m === null ? -1 : m.index;
    since = from;
    return found;
  };
}

/**
 * Searches UTF-8 bytes line by line where a prefilter literal occurs, decoding only those lines (no context,
 * no inversion, no multiline: the caller checks). A matching line always holds a literal, so none is missed.
 * @param buf the file's bytes (after any BOM)
 * @param find the literal finder
 * @param m the compiled matcher
 * @param o result shaping
 * @param newlines counts the newline bytes of buf[from, to) (for line numbers)
 * @param win the part of buf to search, when buf is a window of a larger file
 * @returns hits, matching line count and match count
 */
export function searchBytes(
  buf: Buffer,
  find: LiteralFinder,
  m: CompiledMatcher,
  o: TextOptions,
  newlines: (from: number, to: number) => number,
  win?: TextWindow,
): TextResult {
  const len = buf.length;
  const cap = o.firstOnly ? 1 : o.maxPerFile;
  const stop = win?.to ?? len;
  const hits: LineEvent[] = [];
  let lines = 0;
  let matches = 0;
  let countedTo = 0;
  let lineNo = win?.firstLine ?? 1;
  let from = win?.from ?? 0;
  // One exact literal: the finder's occurrences in a line are its matches (a UTF-8 literal occurs in the
  // bytes where it occurs in the decoded text), so lines are counted without decoding them, and an ASCII
  // line's spans are those byte offsets. The occurrence past a line is the finder's cached answer for the next.
  const single = m.spec.exact !== null && m.spec.exact.length === 1 ? (m.spec.exact[0] as string) : null;
  const litLen = single === null ? 0 : Buffer.byteLength(single);
  const at: number[] = [];
  const writer = directOf(o, m);
  while (lines < cap && from < len) {
    const p = find(from);
    if (p < 0) break;
    const s = p === 0 ? 0 : buf.lastIndexOf(10, p - 1) + 1;
    if (s >= stop) break;
    let e = buf.indexOf(10, p);
    if (e < 0) e = len;
    // Only a CR before LF is not part of the line (a CR that ends the file is).
    const lineEnd = e < len && e > s && buf[e - 1] === 13 ? e - 1 : e;
    if (single !== null) {
      at.length = 0;
      for (let q = p; q >= 0 && q + litLen <= lineEnd; q = find(q + litLen)) at.push(q - s);
      if (at.length === 0 || o.countOnly || o.firstOnly) {
        if (at.length > 0) {
          lines++;
          matches += at.length;
        }
        from = e + 1;
        continue;
      }
      if (writer !== null) {
        lines++;
        matches += at.length;
        lineNo += newlines(countedTo, s);
        countedTo = s;
        if (isUtf8(buf.subarray(s, lineEnd))) writer.line(lineNo, buf, s, lineEnd);
        else writer.lineText(lineNo, utf8Of(buf, s, lineEnd));
        from = e + 1;
        continue;
      }
    }
    const line = utf8Of(buf, s, lineEnd);
    // One UTF-16 unit per byte and no replacement character: every byte was ASCII.
    const ascii = isAsciiText(line, lineEnd - s);
    // An exact literal in an ASCII line that is not clipped: its submatches are the offsets found (no spans).
    const direct = single !== null && ascii && line.length <= o.maxColumns && !m.spec.onlyMatching;
    const spans = direct
      ? null
      : single !== null && ascii
        ? at.map((x): [number, number] => [x, x + litLen])
        : m.spans(line);
    const count = spans === null ? at.length : spans.length;
    if (count > 0) {
      lines++;
      matches += count;
      if (!o.countOnly && !o.firstOnly) {
        lineNo += newlines(countedTo, s);
        countedTo = s;
        if (writer !== null) writer.lineText(lineNo, line);
        else if (spans === null) hits.push(literalHit(lineNo, line, at, litLen));
        else if (m.spec.onlyMatching) pushOnlyMatching(hits, lineNo, line, spans);
        else hits.push(makeHit(lineNo, line, spans, o.maxColumns, ascii));
      }
    }
    from = e + 1;
  }
  return { hits, lines, matches, shownUpTo: hits.at(-1)?.line_number ?? 0 };
}

/**
 * Where a search writes its matching lines itself (TextOptions.direct): when the caller asks, no line can be
 * clipped and a line is all a match shows. Then every line of the file goes there (window after window of a
 * large one), so they keep their order; otherwise null.
 * @param o result shaping
 * @param m the compiled matcher
 * @returns the writer, or null
 */
function directOf(o: TextOptions, m: CompiledMatcher): LineEvents | null {
  return o.direct !== undefined &&
    !o.countOnly &&
    !o.firstOnly &&
    !m.spec.onlyMatching &&
    !m.spec.multiline &&
    o.maxColumns === Number.POSITIVE_INFINITY
    ? o.direct
    : null;
}

/**
 * Numbers lines of a text by counting newlines forward only: each call must ask for an offset at or after the
 * previous one.
 * @param text the text
 * @param first the number of its first line
 * @param newlines counts the newlines in [from, to) when the text's offsets are those of bytes it can count
 * @returns the line number of the line starting at an offset
 */
function lineCounter(
  text: string,
  first: number,
  newlines?: (from: number, to: number) => number,
): (s: number) => number {
  let numberedAt = 0;
  let numbered = first;
  if (newlines !== undefined)
    return (s) => {
      numbered += newlines(numberedAt, s);
      numberedAt = s;
      return numbered;
    };
  return (s) => {
    for (let i = numberedAt; ; ) {
      const nl = text.indexOf("\n", i);
      if (nl < 0 || nl >= s) break;
      numbered++;
      i = nl + 1;
    }
    numberedAt = s;
    return numbered;
  };
}

/**
 * grep's `in` option for one text: a match is kept when the region of its first unit is one asked for (code,
 * comment, string; engine/regions). The text is lexed when its first match asks, so only files with a match pay.
 */
export interface RegionKeep {
  /** Bit r set: keep a match that starts in region r (CODE 0, COMMENT 1, STRING 2, DOCSTRING 3); REGION_TAG_BIT
   * set: each match says its region. */
  readonly keep: number;
  /** The text's regions, one per UTF-16 unit, final up to unit `at` at least (lexed only that far). */
  readonly map: (at: number) => Uint8Array;
}

/**
 * Tells whether a match starting at an offset is kept. An empty match at the end of the text takes the region of
 * code.
 */
function keptAt(rk: RegionKeep, at: number): boolean {
  const map = rk.map(at);
  return ((rk.keep >> (at < map.length ? (map[at] as number) : 0)) & 1) === 1;
}

/** Whether `in` names more than one region: then each match says the region it starts in. */
function tags(rk: RegionKeep): boolean {
  return (rk.keep & REGION_TAG_BIT) !== 0;
}

/** The region code of the unit at an offset (code past the end of the text). */
function regionAt(rk: RegionKeep, at: number): number {
  const map = rk.map(at);
  return at < map.length ? (map[at] as number) : 0;
}

/** The spans of a line (offsets from its start s) that start in a region asked for, each with its region when
 * `in` names several. */
function keptSpans(rk: RegionKeep, s: number, spans: Array<[number, number]>): Span[] {
  if (tags(rk)) {
    const out: Span[] = [];
    for (const [a, b] of spans) {
      const r = regionAt(rk, s + a);
      if (((rk.keep >> r) & 1) === 1) out.push([a, b, r]);
    }
    return out;
  }
  let all = true;
  for (const [a] of spans) if (!keptAt(rk, s + a)) all = false;
  return all ? spans : spans.filter(([a]) => keptAt(rk, s + a));
}

/** A match's UTF-16 span [start, end), and, when `in` names several regions, the code of the region it starts in. */
type Span = [number, number, number?];

/** A submatch's region field: its name when the span carries one (`in` naming several regions), else nothing. */
function regionOf(span: Readonly<Span>): { region: RegionName } | undefined {
  const r = span[2];
  return r === undefined ? undefined : { region: REGION_NAMES[r] as RegionName };
}

/** A selected record's place in the text: its first line number, offsets and spans (from s). */
interface Located {
  readonly n: number;
  /** The last line it spans (n, but with multiline; a multiline record grows while matches join it). */
  last: number;
  readonly s: number;
  /** The end of its last line (a multiline record's lines hold newlines in between). */
  e: number;
  readonly spans: Span[];
}

/**
 * Searches one decoded text (LF line ends; CRLF already folded).
 * @param text the file's text
 * @param m the compiled matcher
 * @param o result shaping
 * @param win the part of the text to search, when it is a window of a larger file
 * @param asciiBytes given when the text is ASCII and each of its offsets is the offset of the same byte in the
 * caller's buffer (no CRLF was folded): it counts the newline bytes in [from, to), so lines are numbered by
 * the SIMD kernel instead of one `indexOf` per line, and columns need no conversion
 * @returns hits, matching line count and match count
 */
export function searchText(
  text: string,
  m: CompiledMatcher,
  o: TextOptions,
  win?: TextWindow,
  asciiBytes?: (from: number, to: number) => number,
  regions?: RegionKeep,
): TextResult {
  const len = text.length;
  // The text after a final newline is not a line (as in grep); an empty file has no lines.
  const end = len > 0 && text.charCodeAt(len - 1) === 10 ? len - 1 : len;
  if (m.spec.multiline) return searchMultiline(text, end, m, o, regions);
  const cap = o.firstOnly ? 1 : o.maxPerFile;
  const start = win?.from ?? 0;
  const stop = win?.to ?? len + 1;
  const found: Located[] = [];
  let lines = 0;
  let matches = 0;
  let dropped = 0;
  const lineNumberOf = lineCounter(text, win?.firstLine ?? 1, asciiBytes);
  if (len === 0) return { hits: [], lines: 0, matches: 0, shownUpTo: 0 };
  if (m.spec.invert) {
    let s = start;
    let n = lineNumberOf(start) - 1;
    while (s <= end && s < stop && lines < cap) {
      let e = text.indexOf("\n", s);
      if (e < 0) e = len;
      n++;
      m.line.lastIndex = 0;
      // With regions, a line is selected when none of its matches starts in a region asked for.
      const selected =
        regions === undefined
          ? !m.line.test(text.slice(s, e))
          : keptSpans(regions, s, m.spans(text.slice(s, e))).length === 0;
      if (selected) {
        lines++;
        matches++;
        if (!o.countOnly) found.push({ n, last: n, s, e, spans: [] });
      }
      if (e >= end) break;
      s = e + 1;
    }
  } else {
    let pos = start;
    while (pos <= end && lines < cap) {
      m.text.lastIndex = pos;
      const hit = m.text.exec(text);
      if (hit === null) break;
      const s = hit.index === 0 ? 0 : text.lastIndexOf("\n", hit.index - 1) + 1;
      if (s === len && end !== len) break; // the empty tail after a final newline
      if (s >= stop) break;
      let e = text.indexOf("\n", hit.index);
      if (e < 0) e = len;
      const line = text.slice(s, e);
      const a = hit.index - s;
      const b = a + hit[0].length;
      // The whole-text match is the line's first when the pattern cannot tell a line's end from the text's
      // (no lookaround of its own) and the match stays in the line: only the rest of the line is matched again.
      const all =
        m.firstFromText && hit.index + hit[0].length <= e
          ? spansAfter(m.line, line, [[a, b]], b > a ? b : stepOver(m.line, line, a))
          : m.spans(line);
      const spans = regions === undefined ? all : keptSpans(regions, s, all);
      dropped += all.length - spans.length;
      if (spans.length > 0) {
        lines++;
        matches += spans.length;
        if (!o.countOnly) {
          const n = lineNumberOf(s);
          found.push({ n, last: n, s, e, spans });
        }
      }
      pos = e + 1;
    }
  }
  if (o.countOnly || o.firstOnly)
    return { hits: [], lines, matches, shownUpTo: 0, ...(dropped > 0 ? { dropped } : {}) };
  const writer = directOf(o, m);
  if (writer !== null) {
    for (const f of found) writer.lineText(f.n, text.slice(f.s, f.e));
    return {
      hits: [],
      lines,
      matches,
      shownUpTo: found.at(-1)?.last ?? 0,
      ...(dropped > 0 ? { dropped } : {}),
    };
  }
  const { hits, shownUpTo } = hitsOf(text, end, found, m, o, win, asciiBytes !== undefined);
  return { hits, lines, matches, shownUpTo, ...(dropped > 0 ? { dropped } : {}) };
}

/**
 * Builds the hits of the records found in a text, with grep-style context: groups merge, a line is given once
 * (an earlier record's after-context wins), and past a window's end a line the next window selects is not
 * context.
 */
function hitsOf(
  text: string,
  end: number,
  found: readonly Located[],
  m: CompiledMatcher,
  o: TextOptions,
  win: TextWindow | undefined,
  ascii = false,
): { hits: LineEvent[]; shownUpTo: number } {
  const len = text.length;
  const stop = win?.to ?? len + 1;
  const hits: LineEvent[] = [];
  let shownUpTo = win?.shownUpTo ?? 0; // last line number already given (as a match or context)
  let shownEnd = -1; // its end offset
  const only = m.spec.onlyMatching && !m.spec.invert;
  for (let k = 0; k < found.length; k++) {
    const f = found[k] as Located;
    const line = text.slice(f.s, f.e);
    // With only_matching a line gives one event per match: its before-context comes before the first, its
    // after-context after the last (rg prints context lines with -o too, and every line with --passthru -o).
    if (only && (f.spans.length === 0 || (o.before === 0 && o.after === 0))) {
      pushOnlyMatching(hits, f.n, line, f.spans, ascii ? ASCII_COLUMNS : columns(line));
      continue;
    }
    if (o.before > 0) {
      const from = hits.length;
      let e = f.s - 1;
      for (let n = f.n - 1; n > shownUpTo && n >= f.n - o.before && e >= 0; n--) {
        const s = text.lastIndexOf("\n", e - 1) + 1;
        hits.push(contextLine("before", text, s, e, n, o.maxColumns));
        e = s - 1;
      }
      // Found backwards: in line order.
      if (hits.length - from > 1) reverseFrom(hits, from);
    }
    if (only) pushOnlyMatching(hits, f.n, line, f.spans, ascii ? ASCII_COLUMNS : columns(line));
    else hits.push(makeHit(f.n, line, f.spans, o.maxColumns, ascii));
    shownUpTo = f.last;
    shownEnd = f.e;
    if (o.after > 0) {
      const next = found[k + 1];
      let s = shownEnd + 1;
      for (let n = f.last + 1; n <= f.last + o.after && s <= end && (next === undefined || n < next.n); n++) {
        if (s === len && end !== len) break;
        let e = text.indexOf("\n", s);
        if (e < 0) e = len;
        // Past the window, a line that the next window will select is not context.
        if (s >= stop) {
          m.line.lastIndex = 0;
          if (m.line.test(text.slice(s, e)) !== m.spec.invert) break;
        }
        hits.push(contextLine("after", text, s, e, n, o.maxColumns));
        shownUpTo = n;
        shownEnd = e;
        if (e >= len) break;
        s = e + 1;
      }
    }
  }
  return { hits, shownUpTo };
}

/**
 * Searches a whole text with a pattern that may span lines. A record is a match's lines; a match that starts
 * within them joins that record as one more submatch. A record counts as one matching line (ripgrep's -c
 * counts matches in multiline mode), and with invert every line outside all records is selected. Context as
 * for lines.
 */
function searchMultiline(
  text: string,
  end: number,
  m: CompiledMatcher,
  o: TextOptions,
  regions: RegionKeep | undefined,
): TextResult {
  const cap = o.firstOnly ? 1 : o.maxPerFile;
  const invert = m.spec.invert;
  const found: Located[] = [];
  let matches = 0;
  let dropped = 0;
  const lineNumberOf = lineCounter(text, 1);
  let last: Located | null = null;
  const re = m.text;
  re.lastIndex = 0;
  let prevEnd = -1;
  // With `in` naming several regions, each match says the one it starts in.
  const tagged = (span: Span, a: number): Span =>
    regions !== undefined && tags(regions) ? [span[0], span[1], regionAt(regions, a)] : span;
  for (let hit = re.exec(text); hit !== null; hit = re.exec(text)) {
    const a = hit.index;
    const b = a + hit[0].length;
    if (b === a) re.lastIndex = stepOver(re, text, a);
    if (a === text.length && end !== text.length) break;
    // An empty match where the previous one ended is not one, as in rg (spansAfter).
    if (b === a && a === prevEnd) continue;
    prevEnd = b;
    // With regions, a match is kept by the region of its first unit, wherever it ends.
    if (regions !== undefined && !keptAt(regions, a)) {
      dropped++;
      continue;
    }
    const lineEnd = (): number => {
      const e = b > a && text.charCodeAt(b - 1) === 10 ? b - 1 : text.indexOf("\n", b);
      return e < 0 ? text.length : e;
    };
    matches++;
    if (last !== null && a <= last.e) {
      // It starts within the lines of the previous record: one more submatch, and the record takes in the
      // lines it reaches past them. (Nothing is scanned when it ends within them: a long line with many
      // matches costs linear time.)
      if (b > last.e) {
        const e = lineEnd();
        for (let i = text.indexOf("\n", last.e); i >= 0 && i < e; i = text.indexOf("\n", i + 1)) last.last++;
        last.e = Math.max(last.e, e);
      }
      last.spans.push(tagged([a - last.s, b - last.s], a));
      continue;
    }
    const s = a === 0 ? 0 : text.lastIndexOf("\n", a - 1) + 1;
    let e = lineEnd();
    if (e < s) e = s;
    if (!invert && found.length >= cap) {
      matches--;
      break;
    }
    const n = lineNumberOf(s);
    let lastLine = n;
    for (let i = text.indexOf("\n", s); i >= 0 && i < e; i = text.indexOf("\n", i + 1)) lastLine++;
    last = { n, last: lastLine, s, e, spans: [tagged([a - s, Math.min(b, e) - s], a)] };
    found.push(last);
  }
  if (!invert) {
    if (o.countOnly || o.firstOnly)
      return { hits: [], lines: found.length, matches, shownUpTo: 0, ...(dropped > 0 ? { dropped } : {}) };
    return {
      ...hitsOf(text, end, found, m, o, undefined),
      lines: found.length,
      matches,
      ...(dropped > 0 ? { dropped } : {}),
    };
  }
  // Invert: the lines no record covers.
  const outside: Located[] = [];
  let r = 0;
  let n = 1;
  for (let s = 0; s <= end && outside.length < cap && text.length > 0; n++) {
    let e = text.indexOf("\n", s);
    if (e < 0) e = text.length;
    while (r < found.length && (found[r] as Located).last < n) r++;
    const rec = found[r];
    if (rec === undefined || rec.n > n) outside.push({ n, last: n, s, e, spans: [] });
    if (e >= end) break;
    s = e + 1;
  }
  const lines = outside.length;
  if (o.countOnly || o.firstOnly) return { hits: [], lines, matches: lines, shownUpTo: 0 };
  return { ...hitsOf(text, end, outside, m, o, undefined), lines, matches: lines };
}

/** Reverses the items of a list from an index on, in place. */
function reverseFrom<T>(list: T[], from: number): void {
  for (let i = from, j = list.length - 1; i < j; i++, j--) {
    const t = list[i] as T;
    list[i] = list[j] as T;
    list[j] = t;
  }
}
