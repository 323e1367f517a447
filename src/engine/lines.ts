/*! Engine: line counting. A file whose language has a region lexer (engine/regions, shared with grep's `in`)
 * is read whole, decoded and lexed: a comment line is one whose every non-blank unit lies in a comment. Other
 * files (and files over LEX_MAX) are read in chunks into one reused buffer, line ends found with a native byte
 * search, and each line classified as blank, comment or code with the language's markers, without decoding.
 * Only platform/ touches the file. */
import { basename } from "node:path";
import { type ErrorInfo, fsErrorInfo } from "../contract/errors.ts";
import { type Confinement, type ListedFile, platform } from "../platform/platform.ts";
import { createByteBuffer, releaseByteBuffer } from "./bytes.ts";
import { type Language, SHEBANG_MAX, scriptLanguage } from "./languages.ts";
import { COMMENT, commentMarkers, DOCSTRING, type RegionLexer, regionLexer } from "./regions/regions.ts";
import { sniffUtf16 } from "./search/encoding.ts";

/** The counts of one file. */
interface LineCounts {
  /** Lines: newline bytes, plus one for a last line without a newline. */
  readonly lines: number;
  /** Lines holding something other than white space. */
  readonly nonBlank: number;
  /** Non-blank lines holding something outside comments and docstrings. */
  readonly code: number;
  /** Non-blank lines holding only docstrings (and comments), at least one docstring unit (engine/regions). */
  readonly docstring: number;
  /** Bytes read (the file size). */
  readonly bytes: number;
  /** The language its `#!` line named, when the caller gave none (a name of no known language), else null. */
  readonly shebang: Language | null;
}

/** What counting one file gave: counts, a binary file (not counted) or a problem. */
export type CountOutcome =
  | { readonly kind: "counted"; readonly counts: LineCounts }
  | { readonly kind: "binary"; readonly bytes: number }
  | { readonly kind: "error"; readonly info: ErrorInfo; readonly bytes: number };

/** How text is encoded: ASCII-compatible bytes (UTF-8, Latin-1, …) or 16-bit units. */
export type TextWidth = "bytes" | "utf-16le" | "utf-16be";

/** Options of a line counter. */
export interface LineCounterOptions {
  /** Bytes at the start of a file searched for a NUL to call it binary (0 = never binary). */
  readonly binaryProbe: number;
  /** The encoding's unit width; UTF-16 is also detected from a byte order mark. */
  readonly width: TextWidth;
  /** What each file opened must be (the walk plan's), or null. */
  readonly confine: Confinement | null;
}

interface Markers {
  readonly line: readonly Uint8Array[];
  readonly open: readonly Uint8Array[];
  readonly close: readonly Uint8Array[];
  /** The openers and closers as latin1 strings: Buffer#indexOf searches a string needle fastest. */
  readonly openText: readonly string[];
  readonly closeText: readonly string[];
  /** 1 for bytes that may start a marker or a string literal: the only bytes the code scan stops at. */
  readonly special: Uint8Array;
  /** Block comments nest (an opener inside one opens another level). */
  readonly nested: boolean;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const markerCache = new WeakMap<Language, Markers>();

function markersOf(lang: Language): Markers {
  let m = markerCache.get(lang);
  if (m) return m;
  const line = lang.line.map(ascii);
  const open = lang.block.map((b) => ascii(b[0]));
  const close = lang.block.map((b) => ascii(b[1]));
  const special = new Uint8Array(256);
  for (const x of [...line, ...open]) special[x[0] as number] = 1;
  for (const q of [34, 39, 96]) special[q] = 1;
  m = {
    line,
    open,
    close,
    openText: lang.block.map((b) => b[0]),
    closeText: lang.block.map((b) => b[1]),
    special,
    nested: lang.nested,
  };
  markerCache.set(lang, m);
  return m;
}

const INITIAL = 256 * 1024;
/** Per language, the bytes of the markers without which a file has no comment (engine/regions). */
const markerBytes = new Map<string, readonly Buffer[]>();
function markerBytesOf(language: string): readonly Buffer[] {
  let m = markerBytes.get(language);
  if (m === undefined) {
    m = (commentMarkers(language) ?? []).map((x) => Buffer.from(x, "utf8"));
    markerBytes.set(language, m);
  }
  return m;
}

/** The largest file read whole to be lexed (engine/regions); a larger one is classified by the markers. */
const LEX_MAX = 64 * 1024 * 1024;
/**
 * The longest line held whole (the buffer grows up to this). A longer line (a minified bundle, a 1 GiB line) is
 * classified by its first MAX_LINE bytes and the rest is only scanned for its end: memory stays bounded.
 */
const MAX_LINE = 8 * 1024 * 1024;

function isSpace(b: number): boolean {
  return b === 32 || b === 9 || b === 13 || b === 11 || b === 12;
}

function at(buf: Uint8Array, i: number, end: number, m: Uint8Array): boolean {
  if (i + m.length > end) return false;
  for (let k = 0; k < m.length; k++) if (buf[i + k] !== m[k]) return false;
  return true;
}

/**
 * Creates a reusable line counter (one per run: it owns one read buffer that grows only for very long lines).
 */
export class LineCounter {
  /** The read buffer; its kernel finds line ends (the scan runs over it from offset 0). */
  private readonly store = createByteBuffer(INITIAL);
  private lines = 0;
  private blank = 0;
  private code = 0;
  private docstring = 0;
  /** Index of the open block comment pair, or -1. */
  private inBlock = -1;
  /** Levels of the open block comment (more than 1 only in a language whose comments nest). */
  private depth = 0;
  private markers: Markers | null = null;
  /** The region lexer of the file's language (engine/regions), or null: then the markers classify lines. */
  private lexer: RegionLexer | null = null;
  /** The file's language, when it has a region lexer. */
  private lexed: string | null = null;
  /** The language the file's `#!` line named (a file given no language), or null. */
  private shebang: Language | null = null;
  /** The scanned chunk. */
  private chunk: Uint8Array = new Uint8Array(0);
  /** The chunk as a Buffer (same memory) for native multi-byte searches, made on first use. */
  private chunkView: Buffer | null = null;
  /** Offset of the nearest block opener (any pair) at or after the last search in the chunk (-1: search again). */
  private nextOpen = -1;
  /** Offset of the next closer of the open block in the chunk (-1: search again). */
  private nextClose = -1;
  /** Offset of the next opener of the open block's pair in the chunk, where comments nest (-1: search again). */
  private nextNest = -1;

  /**
   * Creates a line counter.
   * @param opts binary probe size and text width
   */
  constructor(private readonly opts: LineCounterOptions) {}

  /**
   * Counts the lines of a file.
   * @param path absolute path of a regular file
   * @param lang its language (null: only lines and blank lines are told apart; every other line is code)
   * @param listed where the walk listed it: while its directory is still open the file is opened from that
   *   descriptor (platform.openListed, ADR 0029) instead of by path with a check of what was opened
   * @returns the counts, or binary, or the problem met
   */
  count(path: string, lang: Language | null, listed: ListedFile | null = null): CountOutcome {
    this.lines = 0;
    this.blank = 0;
    this.code = 0;
    this.docstring = 0;
    this.inBlock = -1;
    this.shebang = null;
    this.useLanguage(lang, path);
    let fd: number;
    try {
      fd =
        listed === null
          ? platform.open(path, this.opts.confine)
          : platform.openListed(path, this.opts.confine, listed);
    } catch (err) {
      return { kind: "error", info: fsErrorInfo(err, path), bytes: 0 };
    }
    let total = 0;
    try {
      let carry = 0;
      let first = true;
      // True while the rest of an over-long line, already counted, is skipped up to its newline.
      let skipping = false;
      for (;;) {
        if (carry === this.store.bytes.length) {
          if (carry < MAX_LINE) this.store.grow(carry * 2, carry);
          else {
            this.line(this.store.bytes, 0, carry);
            carry = 0;
            skipping = true;
          }
        }
        const buf = this.store.bytes;
        const n = platform.read(fd, carry === 0 ? buf : buf.subarray(carry), buf.length - carry, null);
        total += n;
        let start = 0;
        if (skipping) {
          const nl = buf.subarray(0, n).indexOf(10);
          if (nl < 0) {
            if (n < buf.length) break; // the end of the file, inside the long line
            continue;
          }
          skipping = false;
          start = nl + 1;
        }
        if (first) {
          first = false;
          const width = this.widthOf(buf, n);
          if (width !== "bytes") return this.countWide(fd, buf.slice(0, n), width, total);
          const probe = Math.min(n, this.opts.binaryProbe);
          if (probe > 0 && buf.subarray(0, probe).indexOf(0) >= 0) {
            // UTF-16 text without a byte order mark, by grep's and --saved-as's sniff (ADR 0041): counted as such.
            const order =
              this.opts.width === "bytes" ? sniffUtf16(buf, probe, probe === n && n < buf.length) : null;
            if (order !== null) return this.countWide(fd, buf.slice(0, n), order, total);
            return { kind: "binary", bytes: total };
          }
          if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
          // A name of no known language: a `#!` line naming a known interpreter gives it (scriptLanguage: the
          // rule grep's `in` and `--by language` share).
          if (lang === null && buf[start] === 0x23 && buf[start + 1] === 0x21)
            this.readShebang(buf.subarray(0, Math.min(n, start + SHEBANG_MAX)), path);
          // A language with a region lexer is classified by it, as grep's `in` sees the file.
          // (A file over LEX_MAX is counted by the markers, line by line, in bounded memory.)
          if (this.lexer !== null && (n < buf.length || platform.fstat(fd).size <= LEX_MAX))
            return this.countLexed(fd, n, start, total);
        }
        const avail = carry + n;
        // A short read of a regular file means its end: skip the extra read that would return 0.
        if (n < buf.length - carry) {
          if (avail > start) this.scan(buf.subarray(0, avail), start, true);
          break;
        }
        const done = this.scan(buf.subarray(0, avail), start, false);
        carry = avail - done;
        if (carry > 0) buf.copyWithin(0, done, avail);
      }
    } catch (err) {
      return { kind: "error", info: fsErrorInfo(err, path), bytes: total };
    } finally {
      try {
        platform.close(fd);
      } catch {}
    }
    return { kind: "counted", counts: this.result(total) };
  }

  /**
   * Counts a file whose language has a region lexer: reads the rest of it, decodes it (UTF-8) and lexes it; a
   * comment line is a line whose every non-blank unit lies in a comment, so count and grep's `in` agree.
   * @param fd the open file, its first `n` bytes in the store
   * @param n the bytes read so far (the first read, not at its end when it filled the buffer)
   * @param start where the text starts (after a byte order mark)
   * @param readSoFar bytes read so far
   */
  private countLexed(fd: number, n: number, start: number, readSoFar: number): CountOutcome {
    let buf = this.store.bytes;
    let len = n;
    let total = readSoFar;
    // A short first read is the whole file (a regular file), as in count().
    if (n === buf.length) {
      for (;;) {
        if (len === buf.length) buf = this.store.grow(buf.length * 2, len);
        const k = platform.read(fd, buf.subarray(len), buf.length - len, null);
        if (k <= 0) break;
        len += k;
        total += k;
      }
    }
    const bytes = Buffer.from(buf.buffer, buf.byteOffset + start, len - start);
    // A file with no comment marker has no comment line: its lines are told blank or code on the bytes, as
    // below on the text (a blank unit is an ASCII one either way), without decoding or lexing it.
    if (markerBytesOf(this.lexed as string).every((m) => bytes.indexOf(m) < 0)) {
      this.countBytes(bytes);
      return { kind: "counted", counts: this.result(total) };
    }
    const text = bytes.toString("utf8");
    const regions = (this.lexer as RegionLexer)(text);
    const end = text.length;
    let lines = 0;
    let blank = 0;
    let code = 0;
    let docstring = 0;
    // The comment or docstring run met last: its region and its end (a docstring's runs over its lines).
    let run = -1;
    let runTo = 0;
    for (let i = 0; i < end; ) {
      let e = text.indexOf("\n", i);
      if (e < 0) e = end;
      let filled = false;
      let coded = false;
      let doc = false;
      for (let k = i; k < e; k++) {
        if (isSpace(text.charCodeAt(k))) continue;
        filled = true;
        const r = regions[k];
        if (r !== COMMENT && r !== DOCSTRING) {
          coded = true;
          break;
        }
        if (r === DOCSTRING) doc = true;
        // Past the run at once: its units are neither code nor blank-breaking, one region check each.
        if (r !== run || k >= runTo) {
          let j = k + 1;
          while (j < end && regions[j] === r) j++;
          run = r;
          runTo = j;
        }
        k = runTo - 1;
      }
      lines++;
      if (!filled) blank++;
      else if (coded) code++;
      else if (doc) docstring++;
      i = e + 1;
    }
    this.lines = lines;
    this.blank = blank;
    this.code = code;
    this.docstring = docstring;
    return { kind: "counted", counts: this.result(total) };
  }

  /** Counts lines and blank lines of a text without comments, on its bytes; every other line is code. */
  private countBytes(bytes: Buffer): void {
    const end = bytes.length;
    let lines = 0;
    let blank = 0;
    for (let i = 0; i < end; ) {
      let e = bytes.indexOf(10, i);
      if (e < 0) e = end;
      let k = i;
      while (k < e && isSpace(bytes[k] as number)) k++;
      lines++;
      if (k === e) blank++;
      i = e + 1;
    }
    this.lines = lines;
    this.blank = blank;
    this.code = lines - blank;
  }

  /** Gives its read buffer back for the thread's next one (see releaseByteBuffer); not used afterwards. */
  release(): void {
    releaseByteBuffer(this.store);
  }

  private result(bytes: number): LineCounts {
    return {
      lines: this.lines,
      nonBlank: this.lines - this.blank,
      code: this.code,
      docstring: this.docstring,
      bytes,
      shebang: this.shebang,
    };
  }

  /** Classes the file's lines by a language's markers or region lexer (none: every non-blank line is code). */
  private useLanguage(lang: Language | null, path: string): void {
    this.markers = lang ? markersOf(lang) : null;
    this.lexer = lang === null ? null : regionLexer(lang.name, basename(path));
    this.lexed = this.lexer === null || lang === null ? null : lang.name;
  }

  /** Takes the language a `#!` first line names (its first SHEBANG_MAX bytes read), when the table knows it. */
  private readShebang(head: Uint8Array, path: string): void {
    const found = scriptLanguage(head);
    if (found === null) return;
    this.shebang = found;
    this.useLanguage(found, path);
  }

  private widthOf(buf: Uint8Array, n: number): TextWidth {
    if (n >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return "utf-16le";
    if (n >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return "utf-16be";
    return this.opts.width;
  }

  /** UTF-16: reads the rest, maps each 16-bit unit to one byte (units above 0xFF become 'x'), then scans. */
  private countWide(fd: number, head: Uint8Array, width: TextWidth, readSoFar: number): CountOutcome {
    const parts: Uint8Array[] = [head];
    let total = readSoFar;
    let size = head.length;
    for (;;) {
      const buf = this.store.bytes;
      const n = platform.read(fd, buf, buf.length, null);
      if (n === 0) break;
      parts.push(buf.slice(0, n));
      total += n;
      size += n;
    }
    const all = new Uint8Array(size);
    let off = 0;
    for (const p of parts) {
      all.set(p, off);
      off += p.length;
    }
    const units = size >> 1;
    // The narrowed text goes where the scan and its line-end kernel read: the store, from offset 0.
    const narrow = this.store.grow(units, 0).subarray(0, units);
    const le = width === "utf-16le";
    for (let i = 0; i < units; i++) {
      const a = all[2 * i] as number;
      const b = all[2 * i + 1] as number;
      const u = le ? a | (b << 8) : (a << 8) | b;
      narrow[i] = u < 256 ? u : 0x78;
    }
    // Binary in UTF-16: a NUL unit (not a NUL byte) within the probe.
    const probeUnits = Math.min(units, this.opts.binaryProbe >> 1);
    for (let i = 0; i < probeUnits; i++) {
      if (all[2 * i] === 0 && all[2 * i + 1] === 0) return { kind: "binary", bytes: total };
    }
    const firstUnit =
      units > 0
        ? le
          ? (all[0] as number) | ((all[1] as number) << 8)
          : ((all[0] as number) << 8) | (all[1] as number)
        : 0;
    const start = firstUnit === 0xfeff ? 1 : 0;
    if (units > start) this.scan(narrow, start, true);
    return { kind: "counted", counts: this.result(total) };
  }

  /**
   * Counts the complete lines of buf[start..) (and the last partial line at the end of the file).
   * @returns the offset of the first byte not consumed (the start of an incomplete last line)
   */
  private scan(buf: Uint8Array, start: number, eof: boolean): number {
    const end = buf.length;
    this.chunk = buf;
    this.chunkView = null;
    this.nextOpen = -1;
    this.nextClose = -1;
    this.nextNest = -1;
    const m = this.markers;
    const special = m?.special;
    const hasBlock = m !== null && m.open.length > 0;
    // The common line is decided here without a call: blank, or code whose first byte cannot start a marker
    // or a quote with no block opener ahead on the line. Everything else goes through line().
    let lines = 0;
    let blank = 0;
    let code = 0;
    let s = start;
    // Line ends come from the kernel in batches (buf is the store's bytes from offset 0).
    const store = this.store;
    let k = 0;
    let found = 0;
    while (s < end) {
      if (k === found) {
        found = store.lineEnds(s, end);
        k = 0;
      }
      let e: number;
      if (k < found) e = store.ends[k++] as number;
      else {
        if (!eof) break;
        e = end;
      }
      let i = s;
      let b = 0;
      while (i < e) {
        b = buf[i] as number;
        if (b !== 32 && b !== 9 && b !== 13 && b !== 11 && b !== 12) break;
        i++;
      }
      if (i === e) {
        lines++;
        blank++;
      } else if (special === undefined) {
        lines++;
        code++;
      } else if (
        this.inBlock < 0 &&
        special[b] !== 1 &&
        (!hasBlock || !this.openerBefore(i, e, m as Markers))
      ) {
        lines++;
        code++;
      } else {
        this.line(buf, s, e);
      }
      s = e + 1;
    }
    this.lines += lines;
    this.blank += blank;
    this.code += code;
    return s < end ? s : end;
  }

  private line(buf: Uint8Array, s: number, e: number): void {
    this.lines++;
    let i = s;
    while (i < e && isSpace(buf[i] as number)) i++;
    if (i === e) {
      this.blank++;
      return;
    }
    const m = this.markers;
    if (m === null) {
      this.code++;
      return;
    }
    const hasBlock = m.open.length > 0;
    if (this.inBlock < 0) {
      // Fast path: decide from the first token, then ask a native search whether a block opener lies ahead
      // on this line; only such lines (and lines inside a block) need the byte-by-byte scan below.
      const b = buf[i] as number;
      if (m.special[b] === 1) {
        for (const om of m.open) {
          if (b === om[0] && at(buf, i, e, om)) {
            this.slow(buf, i, e, m);
            return;
          }
        }
        for (const lm of m.line) if (b === lm[0] && at(buf, i, e, lm)) return;
      }
      if (!hasBlock || !this.openerBefore(i, e, m)) {
        this.code++;
        return;
      }
    }
    this.slow(buf, i, e, m);
  }

  private get view(): Buffer {
    this.chunkView ??= Buffer.from(this.chunk.buffer, this.chunk.byteOffset, this.chunk.length);
    return this.chunkView;
  }

  /** True when a block opener starts in [i, e) (cached per pair: amortised linear over the chunk). */
  private openerBefore(i: number, e: number, m: Markers): boolean {
    if (this.nextOpen < i) {
      const view = this.view;
      let next = view.length;
      for (const text of m.openText) {
        const at = view.indexOf(text, i, "latin1");
        if (at >= 0 && at < next) next = at;
      }
      this.nextOpen = next;
    }
    return this.nextOpen < e;
  }

  /** The byte-by-byte scan of a non-blank line from its first token: quotes, markers, blocks. */
  private slow(buf: Uint8Array, from: number, e: number, m: Markers): void {
    let i = from;
    let code = false;
    const hasBlock = m.open.length > 0;
    let quote = 0;
    while (i < e) {
      if (this.inBlock >= 0) {
        const close = m.close[this.inBlock] as Uint8Array;
        // The close marker's next offset is cached like the openers', so a long block costs one search.
        let j = this.nextClose;
        if (j < i) {
          j = this.view.indexOf(m.closeText[this.inBlock] as string, i, "latin1");
          if (j < 0) j = this.view.length;
          this.nextClose = j;
        }
        if (m.nested) {
          // An opener of the same pair before the closer opens another level (cached like the closer).
          let o = this.nextNest;
          if (o < i) {
            o = this.view.indexOf(m.openText[this.inBlock] as string, i, "latin1");
            if (o < 0) o = this.view.length;
            this.nextNest = o;
          }
          if (o < j && o < e) {
            this.depth++;
            i = o + (m.open[this.inBlock] as Uint8Array).length;
            continue;
          }
        }
        if (j >= e) break;
        i = j + close.length;
        if (--this.depth === 0) this.inBlock = -1;
        continue;
      }
      if (quote !== 0) {
        // Inside a string literal (it ends at the line end): only its closing quote matters.
        while (i < e) {
          const c = buf[i] as number;
          if (c === quote) break;
          i += c === 92 ? 2 : 1;
        }
        quote = 0;
        i++;
        if (i < e) while (i < e && m.special[buf[i] as number] !== 1) i++;
        continue;
      }
      const b = buf[i] as number;
      if (isSpace(b)) {
        i++;
        continue;
      }
      if (m.special[b] === 1) {
        // Block openers first: some start with a line marker (Lua "--[[", CMake "#[[", Julia "#=").
        let hit = false;
        for (let k = 0; k < m.open.length; k++) {
          const om = m.open[k] as Uint8Array;
          if (b === om[0] && at(buf, i, e, om)) {
            this.inBlock = k;
            this.depth = 1;
            this.nextClose = -1;
            this.nextNest = -1;
            i += om.length;
            hit = true;
            break;
          }
        }
        if (hit) continue;
        for (const lm of m.line) {
          if (b === lm[0] && at(buf, i, e, lm)) {
            hit = true;
            break;
          }
        }
        if (hit) break;
        if (b === 34 || b === 39 || b === 96) quote = b;
      }
      code = true;
      if (!hasBlock) break;
      i++;
      // Skip ordinary code bytes quickly: only markers and quotes can change the state.
      if (quote === 0) while (i < e && m.special[buf[i] as number] !== 1) i++;
    }
    if (code) this.code++;
  }
}
