/*! Search: one large UTF-8 file in bounded memory. The file is read into a window of whole lines; each window
 * is searched as one text (search-text.ts) that also holds the context lines around it, then slid on; its hits
 * are given out before the next window is read. The window grows for a long line up to MAX_WINDOW; a line
 * longer than that is searched in overlapping slices and reported from the slice of its first match, clipped.
 * Synchronous; it runs in a worker or in the calling thread and never writes output. */
import { platform } from "../../platform/platform.ts";
import type { ByteBuffer } from "../bytes.ts";
import type { LineEvent } from "../events.ts";
import { codePointsAhead } from "./code-points.ts";
import {
  type CompiledMatcher,
  columns,
  foldCrlf,
  type HitChunk,
  isAsciiText,
  type LiteralFinder,
  makeHit,
  pushOnlyMatching,
  searchBytes,
  searchText,
  type TextOptions,
  type TextResult,
  type TextWindow,
} from "./search-text.ts";

/**
 * Files larger than this are searched by window; smaller ones are read whole. A window that stays in the
 * processor's cache is read and scanned about twice as fast as a whole file of tens of megabytes
 * (docs/decisions/0007-grep-workers.md).
 */
export const LARGE_FILE = 1024 * 1024;
/** The window a file is read through at first. */
const WINDOW = 1024 * 1024;
/** The most bytes of a file held at once: a window grows up to this for a long line; a longer one is over-long. */
const MAX_WINDOW = 16 * 1024 * 1024;

/** The window sizes of one search. */
interface WindowSizes {
  readonly initial: number;
  readonly max: number;
}
/** Bytes kept between two slices of an over-long line, so a match shorter than this is never cut in two. */
const OVERLAP = 64 * 1024;
/** Characters shown of an over-long line when max_columns does not ask for fewer. */
const LONG_LINE_COLUMNS = 4096;
/** Hits of an over-long line gathered before they go out (only_matching can give millions from one line). */
const LONG_LINE_CHUNK = 16384;

/** What a large-file search found (the caller fills the outcome): totals, and the hits not given out yet. */
interface LargeResult {
  /** Bytes read since the last chunk given out. */
  bytes: number;
  lines: number;
  matches: number;
  hits: LineEvent[];
}

/**
 * Runs a chunked search to its end, gathering every chunk into the result.
 * @param steps the search, as it yields chunks
 * @returns the result with every hit and every byte read
 */
export function drain<R extends { bytes: number; hits: LineEvent[] }>(steps: Generator<HitChunk, R>): R {
  const hits: LineEvent[] = [];
  let bytes = 0;
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) {
      for (const h of r.value.hits) hits.push(h);
      r.value.hits = hits;
      r.value.bytes += bytes;
      return r.value;
    }
    for (const h of r.value.hits) hits.push(h);
    bytes += r.value.bytes;
  }
}

/** The offset where the line `count` lines before the one starting at `at` starts (not below `floor`). */
function linesBack(buf: Buffer, at: number, count: number, floor: number): number {
  let p = at;
  for (let k = 0; k < count && p > floor; k++) {
    // (Buffer#lastIndexOf counts a negative offset from the end: the line before one at 1 starts at 0.)
    p = Math.max(floor, p >= 2 ? buf.lastIndexOf(10, p - 2) + 1 : 0);
  }
  return p;
}

/** Moves a slice's hit to line columns: the slice starts `cp` code points and `bytes` bytes into the line. */
function shiftHit(h: LineEvent, cp: number, bytes: number): LineEvent {
  h.content_offset += cp;
  for (const s of h.submatches) {
    s.start += cp;
    s.end += cp;
    s.byte_start += bytes;
    s.byte_end += bytes;
  }
  return h;
}

/** Code points in UTF-8 bytes: every byte that is not a continuation byte. */
function codePoints(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (((buf[i] as number) & 0xc0) !== 0x80) n++;
  return n;
}

/** The state of one large-file search: the window over the read buffer, and what was found so far. */
class LargeWindow {
  readonly out: LargeResult = { bytes: 0, lines: 0, matches: 0, hits: [] };
  /** The window's size (bytes the buffer is filled to). */
  size: number;
  buf: Buffer;
  /** Bytes of buf holding the file. */
  filled: number;
  eof = false;
  /** The last line number given (as a match or context). */
  shownUpTo = 0;
  readonly newlines: (from: number, to: number) => number;

  constructor(
    private readonly fd: number,
    private readonly store: ByteBuffer,
    length: number,
    private readonly sizes: WindowSizes,
  ) {
    this.size = Math.max(sizes.initial, length);
    this.buf = store.grow(this.size, length);
    this.filled = length;
    this.newlines = (from, to) => store.newlines(from, to);
  }

  /** Reads until the window is full or the file ends. */
  fill(): void {
    while (!this.eof && this.filled < this.size) {
      const n = platform.read(this.fd, this.buf.subarray(this.filled), this.size - this.filled, null);
      if (n <= 0) this.eof = true;
      else {
        this.filled += n;
        this.out.bytes += n;
      }
    }
  }

  /** Adds a window's result to the file's. */
  take(r: TextResult): void {
    const out = this.out;
    out.lines += r.lines;
    out.matches += r.matches;
    for (const h of r.hits) out.hits.push(h);
    if (r.shownUpTo > this.shownUpTo) this.shownUpTo = r.shownUpTo;
  }

  /** Doubles the window, up to the largest; false when it is the largest already. */
  widen(): boolean {
    if (this.size >= this.sizes.max) return false;
    this.size = Math.min(this.sizes.max, this.size * 2);
    this.buf = this.store.grow(this.size, this.filled);
    return true;
  }

  /** Drops the first `n` bytes of the window (the rest moves to its start). */
  slide(n: number): void {
    this.buf.copyWithin(0, n, this.filled);
    this.filled -= n;
  }

  /** Gives out the hits so far (and the bytes read since the last chunk). */
  *giveOut(): Generator<HitChunk, void> {
    yield { bytes: this.out.bytes, hits: this.out.hits };
    this.out.bytes = 0;
    this.out.hits = [];
  }
}

/**
 * Searches a file from its current read position, starting with `length` bytes already in the store.
 * @param fd the open file
 * @param store the read buffer, holding the first bytes (any BOM already removed)
 * @param length bytes already in the store
 * @param m the compiled matcher (not multiline)
 * @param o result shaping
 * @param finderFor the byte path's literal finder over a window's bytes (null from it, or no finderFor: decode
 * the window)
 * @param sizes the first window and the largest it may grow to for a long line
 * @yields the hits of each window that has some, with the bytes read since the previous chunk
 * @returns the bytes read since the last chunk, the file's line and match counts, and any hits left
 */
export function* searchLarge(
  fd: number,
  store: ByteBuffer,
  length: number,
  m: CompiledMatcher,
  o: TextOptions,
  finderFor: ((bytes: Buffer) => LiteralFinder | null) | null,
  sizes: WindowSizes = { initial: WINDOW, max: MAX_WINDOW },
): Generator<HitChunk, LargeResult> {
  const w = new LargeWindow(fd, store, length, sizes);
  const out = w.out;
  const cap = o.firstOnly ? 1 : o.maxPerFile;
  let lineNo = 1; // the number of the line starting at buf[0]
  let ctx = 0; // bytes at the start of buf already searched (kept as before-context)
  while (out.lines < cap) {
    // The hits so far go out before more is read: memory stays bounded whatever the number of hits.
    if (out.hits.length > 0) yield* w.giveOut();
    w.fill();
    const lastNL = w.eof ? w.filled - 1 : w.buf.lastIndexOf(10, w.filled - 1);
    if (!w.eof && lastNL < ctx) {
      // No whole line after the context: the window grows to hold it.
      if (w.widen()) continue;
      // No whole line after the context, in the largest window: an over-long line starts at ctx.
      lineNo += w.newlines(0, ctx);
      w.slide(ctx);
      ctx = 0;
      const last = yield* longLine(w, m, o, lineNo);
      if (last) break;
      lineNo++;
      continue;
    }
    const whole = lastNL + 1;
    // Lines after `to` are only after-context here; they are searched with the next window.
    let to = w.eof ? whole : linesBack(w.buf, whole, o.after, ctx);
    if (to <= ctx) {
      // No new line has all its after-context in the window: grow it while it may, else search one line.
      if (w.widen()) continue;
      to = w.buf.indexOf(10, ctx) + 1;
    }
    searchWindow(w, m, { ...o, maxPerFile: o.maxPerFile - out.lines }, finderFor, { ctx, to, whole, lineNo });
    if (w.eof) break;
    // Keep the before-context of the next window. When it starts the window, nothing could slide out: the
    // window grows instead while it may, else the context is dropped.
    let keep = linesBack(w.buf, to, o.before, 0);
    if (keep === 0 && to > 0 && w.widen()) {
      ctx = to;
      continue;
    }
    if (keep === 0) keep = to;
    lineNo += w.newlines(0, keep);
    w.slide(keep);
    ctx = to - keep;
  }
  return out;
}

/** Where the lines of one window are: searched from ctx to `to`, context up to `whole`, numbered from lineNo. */
interface WindowLines {
  readonly ctx: number;
  readonly to: number;
  readonly whole: number;
  readonly lineNo: number;
}

/**
 * Searches the whole lines of a window: on its bytes when the literal finder can, else decoded.
 * @param w the window
 * @param m the compiled matcher
 * @param o result shaping (max_per_file less the lines found before)
 * @param finderFor the byte path's finder, or null
 * @param at where its lines are
 */
function searchWindow(
  w: LargeWindow,
  m: CompiledMatcher,
  o: TextOptions,
  finderFor: ((bytes: Buffer) => LiteralFinder | null) | null,
  at: WindowLines,
): void {
  const { ctx, to, whole, lineNo } = at;
  const buf = w.buf;
  const view = buf.subarray(0, whole);
  const finder = finderFor === null ? null : finderFor(view);
  if (finder !== null) {
    const win: TextWindow = { from: ctx, to, firstLine: lineNo, shownUpTo: w.shownUpTo };
    w.take(searchBytes(view, finder, m, o, w.newlines, win));
    return;
  }
  const head = foldCrlf(buf.toString("utf8", 0, ctx));
  const body = foldCrlf(buf.toString("utf8", ctx, to));
  const tail = foldCrlf(buf.toString("utf8", to, whole));
  const win: TextWindow = {
    from: head.length,
    to: head.length + body.length,
    firstLine: lineNo,
    shownUpTo: w.shownUpTo,
  };
  const text = head + body + tail;
  // As long as the window's bytes and no U+FFFD (for an invalid byte): ASCII, no CRLF folded, so its
  // offsets are the window's byte offsets and the kernel numbers its lines.
  const ascii = isAsciiText(text, whole);
  w.take(searchText(text, m, o, win, ascii ? w.newlines : undefined));
}

/**
 * Searches the over-long line at buf[0]; leaves the bytes after it at buf[0]. True at the end of the file.
 * Every slice is searched, so all the line's matches are counted (and given, with only_matching); a match in
 * the overlap of two slices counts once, by its byte offset in the line. Without only_matching the line is one
 * clipped record from the slice of its first match. Hits go out in chunks while the line is read, so memory
 * stays bounded however many matches it holds. Invert and the file modes need only the line's verdict.
 */
function* longLine(
  w: LargeWindow,
  m: CompiledMatcher,
  o: TextOptions,
  n: number,
): Generator<HitChunk, boolean> {
  const out = w.out;
  const shown = Math.min(o.maxColumns, LONG_LINE_COLUMNS);
  const invert = m.spec.invert;
  const searchAll = !invert && !o.firstOnly;
  const each = m.spec.onlyMatching && searchAll && !o.countOnly;
  let first = true;
  let byteOffset = 0; // bytes of the line before buf[0]
  let cpOffset = 0; // code points of the line before buf[0]
  let matched = false;
  let countedTo = 0; // byte offset in the line where the last match counted ends
  let headContent: string | null = null;
  while (true) {
    w.fill();
    const buf = w.buf;
    const nl = buf.subarray(0, w.filled).indexOf(10);
    const final = w.eof || nl >= 0;
    let end = nl >= 0 ? nl : w.filled;
    if (!matched || searchAll) {
      if (!final) while (end > 0 && ((buf[end] as number) & 0xc0) === 0x80) end--;
      let text = buf.toString("utf8", 0, end);
      // Only a CR before LF is not part of the line (a CR that ends the file is).
      if (nl >= 0 && text.endsWith("\r")) text = text.slice(0, -1);
      headContent ??= text.slice(0, codePointsAhead(text, 0, shown));
      // A match touching a slice's cut edge is left to the neighbouring slice, which holds it whole; one in
      // the overlap with the previous slice was counted there.
      const col = columns(text);
      const spans = m
        .spans(text)
        .filter(
          ([a, b]) =>
            (first || a > 0) && (final || b < text.length) && byteOffset + col.bytes(a) >= countedTo,
        );
      if (spans.length > 0) {
        countedTo = byteOffset + col.bytes((spans[spans.length - 1] as [number, number])[1]);
        if (!invert) {
          if (!matched) out.lines++;
          out.matches += spans.length;
          if (each) {
            // In chunks: a slice can hold millions of matches.
            for (let i = 0; i < spans.length; i += LONG_LINE_CHUNK) {
              const hits: LineEvent[] = [];
              pushOnlyMatching(hits, n, text, spans.slice(i, i + LONG_LINE_CHUNK), col);
              for (const h of hits) out.hits.push(shiftHit(h, cpOffset, byteOffset));
              if (out.hits.length >= LONG_LINE_CHUNK) yield* w.giveOut();
            }
          } else if (!matched && !o.countOnly && !o.firstOnly) {
            const h = makeHit(n, text, spans, shown);
            h.clipped = true;
            out.hits.push(shiftHit(h, cpOffset, byteOffset));
          }
        }
        matched = true;
      }
    }
    // For files_with_matches / files_without_match the line's verdict settles the file: stop reading here.
    if (matched && o.firstOnly) return true;
    if (final) {
      if (invert && !matched) {
        out.lines++;
        out.matches++;
        if (!o.countOnly && !o.firstOnly) {
          const h = makeHit(n, headContent ?? "", [], shown);
          h.clipped = true;
          out.hits.push(h);
        }
      }
      if (nl >= 0) {
        w.slide(nl + 1);
        return w.eof && w.filled === 0;
      }
      w.filled = 0;
      return true;
    }
    if (out.hits.length > 0) yield* w.giveOut();
    // Slide, keeping an overlap while the line is still searched.
    const searching = !matched || searchAll;
    let keep = searching ? Math.max(0, end - Math.min(OVERLAP, w.size >> 2)) : w.filled;
    while (keep < w.filled && ((buf[keep] as number) & 0xc0) === 0x80) keep++;
    if (searching) cpOffset += codePoints(buf, 0, keep);
    byteOffset += keep;
    w.slide(keep);
    first = false;
  }
}
