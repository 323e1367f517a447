/*! Regions: the shared machinery of the region lexers. A lexer classifies every UTF-16 unit of a decoded text
 * as code, comment or string (one byte each in a Uint8Array); this file holds the table-driven scanner most
 * language families use. Pure: it never reads a file and never allocates per character. */

/** A unit in a comment, its markers included (a unit in code, whitespace between tokens too, is 0). */
export const COMMENT = 1;
/** A unit in a string literal, its quotes (and prefix) included. */
export const STRING = 2;

/** Where a marker counts: anywhere, after white space or a shell separator, or with only white space before it on its line. */
type Place = "any" | "word" | "line" | "col0";

/** A marker that comments out the rest of its line. */
export interface LineRule {
  readonly text: string;
  readonly at: Place;
}

/** A block comment. */
interface BlockRule {
  readonly open: string;
  readonly close: string;
  readonly nested: boolean;
  readonly at: Place;
}

/** A string literal's delimiters and escapes. */
export interface QuoteRule {
  readonly open: string;
  readonly close: string;
  /** backslash: `\` escapes the next unit; double: the close doubled stands for itself; none: no escape. */
  readonly escape: "backslash" | "double" | "none";
  /** False: an unterminated literal ends at its line's end (the line break is code). */
  readonly multiline: boolean;
  /**
   * any: wherever it occurs; char: a character literal only when it holds one unit (or an escape), as 'x' or
   * '\n' (else the quote is code: Rust lifetimes, OCaml type variables, Ada attributes); value: YAML, only where
   * a scalar starts (first on the line or after `:`, `-`, `[`, `{`, `,`, `?`).
   */
  readonly at: "any" | "char" | "value";
  /** The literal's interpolations, when it has them (code inside the string, #37). */
  readonly holes?: Holes;
}

/**
 * A string literal's interpolations: the expression inside is code, lexed as the language's own code (a string
 * in it is a string, `"#{f("x")}"`); the delimiters (`#{` and `}`, `${`, `\(`, `$(`, a bare name's `$`) are
 * string, as a template literal's `${` and `}` in JavaScript.
 */
export interface Holes {
  /** Openers of a hole that runs to the matching `}` (or `)` for an opener ending with `(`). */
  readonly open: readonly string[];
  /**
   * `$name` is a hole too: "sigil", the `$` string and the name code (Kotlin, Dart, Scala, Groovy, shell);
   * "name", the `$` code with the name (PHP, where `$x` is the variable's name).
   */
  readonly dollar?: "sigil" | "name";
  /** `{{` and `}}` stand for braces, not holes (Python's f-strings, C#). */
  readonly doubled?: boolean;
  /**
   * The units that, at the hole's own level, start its format spec (string, with holes of its own): `!:` for
   * Python's conversion and spec (`{x!r:>{w}}`; `!=` is code), `:` for C#'s format (`{x:N2}`).
   */
  readonly spec?: string;
}

/**
 * Text the scanner must pass over when it reaches it: a heredoc's body, which starts on the line after its
 * opener, while the rest of the opener's line is still code. `start` is where the next body may start (after
 * the one pending, when a line opens two).
 */
export interface Later {
  /** Where the pending body starts (Infinity when none). */
  at: number;
  /** Where it ends: the scanner goes on there. */
  to: number;
}

/**
 * A hook for what tables cannot say (raw strings, long brackets, prefixes, heredocs): called at a unit its
 * `hookFirst` names; returns the end of the construct it classified in `out`, or -1 to let the tables decide.
 * A heredoc's hook fills its body, records it in `later` and returns the end of its opener.
 */
export type Hook = (t: string, i: number, out: Uint8Array, later: Later) => number;

/** A language family's syntax, as the table-driven scanner reads it. */
export interface Syntax {
  readonly line: readonly LineRule[];
  readonly block: readonly BlockRule[];
  readonly quotes: readonly QuoteRule[];
  /** Units that are part of an identifier besides letters, digits, `_` and non-ASCII ("'" in Haskell). */
  readonly identExtra?: string;
  /** String prefixes (lowercase) that may stand right before a quote: Python's r, b, f, rb… */
  readonly prefixes?: readonly string[];
  readonly hook?: Hook;
  /** The units the hook is called at. */
  readonly hookFirst?: string;
  /** A prefixed literal with holes: Python's f-strings (a prefix with `f`), Scala's `s"…"` (any identifier). */
  readonly prefixHoles?: { readonly test: (prefix: string) => boolean; readonly holes: Holes };
  /**
   * The scanner notes where logical lines start (brackets and `\` continuations followed in code) for a pass
   * that asks what starts a statement: Python's and Julia's docstrings (docstrings.ts), in the same scan.
   */
  readonly statements?: boolean;
}

/**
 * Tells whether a unit is part of an identifier (ASCII letters, digits, `_`, `$`, and anything non-ASCII).
 * @param c a UTF-16 unit
 * @returns true for identifier units
 */
export function isIdent(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 128
  );
}

/** 1 for the ASCII units isIdent takes (the scanner's name loop reads this table: no call per unit). */
const IDENT = Uint8Array.from({ length: 128 }, (_, c) => (isIdent(c) ? 1 : 0));

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12;
}

/**
 * Fills units [from, to) with a region: a short run (most strings and comments) by a loop, since a call of
 * TypedArray#fill costs more than a few stores; a longer one by fill.
 * @param out the regions
 * @param region the code to store
 * @param from the first unit
 * @param to the unit after the last
 */
function fillRegion(out: Uint8Array, region: number, from: number, to: number): void {
  if (to - from > 24) out.fill(region, from, to);
  else for (let k = from; k < to; k++) out[k] = region;
}

/** True when only blanks stand between the start of i's line and i. */
function lineStart(t: string, i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const c = t.charCodeAt(k);
    if (c === 10 || c === 13) return true;
    if (!isBlank(c)) return false;
  }
  return true;
}

function placed(t: string, i: number, at: Place): boolean {
  if (at === "any") return true;
  if (at === "col0") return i === 0 || t.charCodeAt(i - 1) === 10;
  if (at === "line") return lineStart(t, i);
  // word: first on its line, or after white space or a shell separator.
  if (i === 0) return true;
  const p = t.charCodeAt(i - 1);
  return p === 10 || p === 13 || isBlank(p) || p === 59 || p === 38 || p === 124 || p === 40 || p === 41;
}

/**
 * A heredoc's body: from the line after the opener (or after a body already pending on that line) to the end of
 * the first line that holds only the delimiter (after blanks when `indented`), filled as string and recorded in
 * `later`. The opener itself, and whatever follows the delimiter on its last line, stay code.
 * @param from where the opener's line goes on (the body starts on the next line)
 * @param tail the units that may follow the delimiter on its line (besides the line break): PHP's `;`, `,`, `)`
 */
export function heredoc(
  t: string,
  from: number,
  delim: string,
  indented: boolean,
  out: Uint8Array,
  later: Later,
  tail = false,
): [number, number] {
  const n = t.length;
  const next = (k: number) => {
    const e = lineEnd(t, k);
    return e + (t.charCodeAt(e) === 13 && t.charCodeAt(e + 1) === 10 ? 2 : 1);
  };
  const start = next(later.at === Number.POSITIVE_INFINITY ? from : later.to);
  if (start > n) return [n, n];
  let end = n;
  for (let k = start; k < n; ) {
    const e = lineEnd(t, k);
    let a = k;
    if (indented) while (a < e && isBlank(t.charCodeAt(a))) a++;
    if (
      t.startsWith(delim, a) &&
      (a + delim.length === e || (tail && !isIdent(t.charCodeAt(a + delim.length))))
    ) {
      end = a + delim.length;
      break;
    }
    k = next(k);
  }
  out.fill(STRING, start, end);
  if (later.at === Number.POSITIVE_INFINITY) later.at = start;
  later.to = end;
  return [start, end];
}

/** The end of a line comment starting at i: its line break (LF or CR) or the end of the text. */
export function lineEnd(t: string, i: number): number {
  for (let k = i; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c === 10 || c === 13) return k;
  }
  return t.length;
}

/**
 * Scans a block comment or nested comment from just after its opener.
 * @returns the offset after its closer, or the end of the text
 */
function blockEnd(t: string, from: number, open: string, close: string, nested: boolean): number {
  if (!nested) {
    const j = t.indexOf(close, from);
    return j < 0 ? t.length : j + close.length;
  }
  let depth = 1;
  let i = from;
  while (depth > 0) {
    const c = t.indexOf(close, i);
    if (c < 0) return t.length;
    const o = t.indexOf(open, i);
    if (o >= 0 && o < c) {
      depth++;
      i = o + open.length;
    } else {
      depth--;
      i = c + close.length;
    }
  }
  return i;
}

/**
 * Scans a string literal's body from just after its opener.
 * @returns the offset after its closer (or its line's end when unterminated and single-line, or the text's end)
 */
export function quoteEnd(t: string, from: number, q: QuoteRule): number {
  const n = t.length;
  // The rule's fields read once: the loop below runs for every unit of every string.
  const close = q.close;
  const len = close.length;
  const c0 = close.charCodeAt(0);
  const backslash = q.escape === "backslash";
  const doubled = q.escape === "double";
  const multiline = q.multiline;
  let i = from;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (c === 92 && backslash) {
      // A CRLF after a backslash is one line continuation.
      i += t.charCodeAt(i + 1) === 13 && t.charCodeAt(i + 2) === 10 ? 3 : 2;
      continue;
    }
    if ((c === 10 || c === 13) && !multiline) return i;
    if (c === c0 && (len === 1 || t.startsWith(close, i))) {
      if (doubled && t.startsWith(close, i + len)) {
        i += 2 * len;
        continue;
      }
      return i + len;
    }
    i++;
  }
  return n;
}

/** The end of a character literal at i ('x', '\n', '\u{1F600}'), or -1 when the quote is not one. */
function charEnd(t: string, i: number): number {
  const c = t.charCodeAt(i + 1);
  if (c === 92) {
    const j = t.indexOf("'", i + 3);
    const nl = lineEnd(t, i + 1);
    return j >= 0 && j < nl ? j + 1 : -1;
  }
  if (Number.isNaN(c) || c === 10 || c === 13 || c === 39) return -1;
  const w = c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  return t.charCodeAt(i + 1 + w) === 39 ? i + 2 + w : -1;
}

/** The indentation (blanks) of the line that holds i, and where that line starts. */
function indentOf(t: string, i: number): { start: number; indent: number } {
  let s = i;
  while (s > 0 && t.charCodeAt(s - 1) !== 10 && t.charCodeAt(s - 1) !== 13) s--;
  let k = s;
  while (k < t.length && isBlank(t.charCodeAt(k))) k++;
  return { start: s, indent: k - s };
}

/**
 * Whether a YAML quote or block indicator at i starts a scalar: after `:`, `-`, `[`, `{`, `,`, `?` on its line,
 * or first on its line unless that line goes on a plain scalar of the line before (more indented than it, and
 * that line does not end with one of those indicators: `text\n    'more text'` is one plain scalar).
 */
function valueStart(t: string, i: number, out: Uint8Array): boolean {
  let k = i - 1;
  for (; k >= 0; k--) {
    const c = t.charCodeAt(k);
    if (c === 10 || c === 13) break;
    if (isBlank(c)) continue;
    if (c === 58 || c === 45 || c === 63) return true;
    // `[`, `{` and `,` start a scalar in a flow collection only, not inside a plain one (`f(a, 'b')`).
    return (c === 91 || c === 123 || c === 44) && inFlow(t, k);
  }
  if (k < 0) return true;
  // First on its line: the previous line with something besides blanks and comments decides.
  const mine = i - (k + 1);
  for (; k >= 0; k--) {
    const c = t.charCodeAt(k);
    if (c === 10 || c === 13 || isBlank(c) || out[k] === 1) continue;
    const prev = indentOf(t, k).indent;
    if (mine <= prev) return true;
    return c === 58 || c === 45 || c === 91 || c === 123 || c === 44 || c === 63 || out[k] === 2;
  }
  return true;
}

/** Whether the value that holds k on its line is a flow collection: its first unit (after `key: ` or `- `) is `[` or `{`. */
function inFlow(t: string, k: number): boolean {
  const { start, indent } = indentOf(t, k);
  let v = start + indent;
  while (t.charCodeAt(v) === 45 && isBlank(t.charCodeAt(v + 1))) {
    v += 2;
    while (isBlank(t.charCodeAt(v))) v++;
  }
  for (let j = v; j < k; j++) {
    if (t.charCodeAt(j) === 58 && isBlank(t.charCodeAt(j + 1))) {
      v = j + 1;
      while (isBlank(t.charCodeAt(v))) v++;
      break;
    }
  }
  const c = t.charCodeAt(v);
  return c === 91 || c === 123;
}

/**
 * A YAML block scalar (`|`, `>-`, `|2+` …) at i, in a value's place: string from its indicator to the end of its
 * last line that is not blank (its lines: those after it that are blank or more indented than its own line), a
 * comment after the indicator excepted. Returns its end, or -1 when i is no block indicator.
 */
export function yamlBlock(t: string, i: number, out: Uint8Array): number {
  if (!valueStart(t, i, out)) return -1;
  let j = i + 1;
  while (j < t.length && /[-+0-9]/.test(t[j] as string)) j++;
  const e0 = lineEnd(t, j);
  let h = j;
  while (h < e0 && isBlank(t.charCodeAt(h))) h++;
  if (h < e0 && (t[h] !== "#" || h === j)) return -1;
  // The block's lines are more indented than the key it is the value of (`- key: |` counts the `- `).
  const { start, indent } = indentOf(t, i);
  let own = start + indent;
  let dash = own;
  while (t.charCodeAt(own) === 45 && isBlank(t.charCodeAt(own + 1))) {
    dash = own;
    own += 2;
    while (isBlank(t.charCodeAt(own))) own++;
  }
  // `- |`: the block is the entry itself, more indented than its dash.
  own = (own >= i ? dash : own) - start;
  let end = j;
  let k = e0;
  while (k < t.length) {
    k += t.charCodeAt(k) === 13 && t.charCodeAt(k + 1) === 10 ? 2 : 1;
    const e = lineEnd(t, k);
    let a = k;
    while (a < e && isBlank(t.charCodeAt(a))) a++;
    if (a < e) {
      if (a - k <= own) break;
      end = e;
    }
    k = e;
  }
  out.fill(STRING, i, Math.max(end, j));
  if (h < e0) out.fill(COMMENT, h, e0);
  return Math.max(end, e0);
}

/** A compiled syntax: its rules plus the table of units that may start one. */
interface Compiled {
  readonly syntax: Syntax;
  /** 1 for units that may start a rule, 2 for the units a statements syntax follows (STATEMENT_UNITS). */
  readonly first: Uint8Array;
  readonly hookAt: Uint8Array;
  readonly identAt: Uint8Array;
  readonly quotes: readonly QuoteRule[];
  /** The quotes without holes, and with the prefix holes (same order): made once, not per literal. */
  readonly plain: readonly QuoteRule[];
  readonly holey: readonly QuoteRule[] | null;
}

/** What a statements syntax follows in code: brackets, a backslash and the line feed. */
const STATEMENT_UNITS = "()[]{}\\\n";

const compiledCache = new WeakMap<Syntax, Compiled>();

function compile(s: Syntax): Compiled {
  const hit = compiledCache.get(s);
  if (hit !== undefined) return hit;
  const first = new Uint8Array(128);
  const hookAt = new Uint8Array(128);
  const identAt = new Uint8Array(128);
  for (const r of s.line) first[r.text.charCodeAt(0)] = 1;
  for (const b of s.block) first[b.open.charCodeAt(0)] = 1;
  for (const q of s.quotes) first[q.open.charCodeAt(0)] = 1;
  for (const ch of s.hookFirst ?? "") {
    first[ch.charCodeAt(0)] = 1;
    hookAt[ch.charCodeAt(0)] = 1;
  }
  // Identifiers are skipped whole (a quote inside one is not a string: Haskell's x', and prefixes are found).
  if (s.identExtra !== undefined || s.prefixes !== undefined) {
    for (let c = 0; c < 128; c++) if (isIdent(c) && !(c >= 48 && c <= 57)) identAt[c] = 1;
    for (let c = 0; c < 128; c++) if (identAt[c] === 1 && hookAt[c] !== 1) first[c] = 1;
  }
  if (s.statements === true) for (const ch of STATEMENT_UNITS) first[ch.charCodeAt(0)] = 2;
  // Longer openers first (""" before ").
  const quotes = [...s.quotes].sort((a, b) => b.open.length - a.open.length);
  // The same objects where they have no holes: every call that reads a rule sees one shape.
  const plain = quotes.map((q) => {
    if (q.holes === undefined) return q;
    const { holes: _, ...p } = q;
    return p;
  });
  const h = s.prefixHoles?.holes;
  const holey = h === undefined ? null : quotes.map((q) => ({ ...q, holes: h }));
  const c: Compiled = { syntax: s, first, hookAt, identAt, quotes, plain, holey };
  compiledCache.set(s, c);
  return c;
}

/** Where a scan stopped, to go on from there: the next unit to read and a heredoc's body still ahead. */
interface ScanState {
  i: number;
  readonly later: Later;
}

/** A scan's state before its first unit. */
export function scanStart(): ScanState {
  return { i: 0, later: { at: Number.POSITIVE_INFINITY, to: 0 } };
}

/**
 * Classifies the units of a text with a table-driven syntax, from where a previous call stopped up to `upTo`:
 * every unit before the returned offset (which is past `upTo`, or the text's end) is classified for good.
 * @param t the decoded text
 * @param s the syntax
 * @param out one entry per unit of t, all CODE on entry; comments and strings are filled in
 * @param st where to start (scanStart() for the whole text); updated
 * @param upTo the last unit whose region is asked for (the text's end by default)
 * @param starts for a statements syntax scanned whole from its start: receives the offset of each logical line's
 *   first token when a quote is among its first three units (a string may start there: the docstring pass)
 */
export function scanWith(
  t: string,
  s: Syntax,
  out: Uint8Array,
  st = scanStart(),
  upTo = t.length,
  starts: number[] | null = null,
): void {
  const cs = compile(s);
  const { first, hookAt, identAt, quotes } = cs;
  const extra = s.identExtra ?? "";
  const prefixes = s.prefixes;
  const n = t.length;
  const later = st.later;
  let i = st.i;
  const stop = Math.min(n, upTo + 1);
  // Brackets open and a `\` continuation in code since the last line feed (statements syntaxes, with `starts`).
  let depth = 0;
  let continued = false;
  if (starts !== null) i = statementAt(t, i, starts);
  // Where a heredoc's body starts, read once and again after each hook call (only a hook records one).
  let laterAt = later.at;
  outer: while (i < stop) {
    if (i >= laterAt) {
      // A heredoc's body (already filled in) is passed over.
      if (i < later.to) i = later.to;
      laterAt = later.at = Number.POSITIVE_INFINITY;
      continue;
    }
    const c = t.charCodeAt(i);
    if (c >= 128 || first[c] === 0) {
      i++;
      continue;
    }
    if (first[c] === 2) {
      i++;
      if (starts === null) continue;
      if (c === 10) {
        if (depth === 0 && !continued) i = statementAt(t, i, starts);
        continued = false;
      } else if (c === 92) continued = true;
      else if (c === 40 || c === 91 || c === 123) depth++;
      else if (depth > 0) depth--;
      continue;
    }
    if (hookAt[c] === 1 && s.hook !== undefined) {
      const j = s.hook(t, i, out, later);
      laterAt = later.at;
      if (j > i) {
        i = j;
        continue;
      }
    }
    if (identAt[c] === 1) {
      let j = i + 1;
      while (j < n) {
        const d = t.charCodeAt(j);
        if (d < 128 && IDENT[d] === 0 && (extra === "" || !extra.includes(t[j] as string))) break;
        j++;
      }
      // A prefix is short and right before a quote: only then is a string made of it.
      if (prefixes !== undefined && j < n && first[t.charCodeAt(j)] === 1) {
        const e = prefixedLiteral(t, i, j, cs, out);
        if (e >= 0) {
          i = e;
          continue;
        }
      }
      i = j;
      continue;
    }
    for (const b of s.block) {
      if (c === b.open.charCodeAt(0) && t.startsWith(b.open, i) && placed(t, i, b.at)) {
        let e: number;
        if (b.at === "col0") {
          // Ruby's =begin … =end and Perl's POD: the closer is a line of its own.
          const j = t.indexOf(`\n${b.close}`, i);
          e = j < 0 ? n : lineEnd(t, j + 1);
        } else e = blockEnd(t, i + b.open.length, b.open, b.close, b.nested);
        fillRegion(out, COMMENT, i, e);
        i = e;
        continue outer;
      }
    }
    for (const r of s.line) {
      if (c === r.text.charCodeAt(0) && t.startsWith(r.text, i) && placed(t, i, r.at)) {
        const e = lineEnd(t, i);
        fillRegion(out, COMMENT, i, e);
        i = e;
        continue outer;
      }
    }
    for (const q of quotes) {
      if (c !== q.open.charCodeAt(0) || !t.startsWith(q.open, i)) continue;
      if (q.at === "value" && !valueStart(t, i, out)) continue;
      if (q.holes !== undefined) {
        i = literal(t, i, i + q.open.length, q, s, out);
        continue outer;
      }
      const e = q.at === "char" ? charEnd(t, i) : quoteEnd(t, i + q.open.length, q);
      if (e < 0) continue;
      fillRegion(out, STRING, i, e);
      i = e;
      continue outer;
    }
    i++;
  }
  st.i = i;
}

/** Blank units before a statement's first token (the docstring pass's, a byte order mark included). */
function statementBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xfeff;
}

/**
 * At a logical line's start: passes its blank units (code, and nothing a scan stops at) and notes its first
 * token's offset in `starts` when a quote is among its first three units (a string, or a prefixed one, may start
 * there); returns that offset.
 */
function statementAt(t: string, from: number, starts: number[]): number {
  let k = from;
  while (k < t.length && statementBlank(t.charCodeAt(k))) k++;
  for (let q = k; q < k + 3 && q < t.length; q++) {
    const c = t.charCodeAt(q);
    if (c === 34 || c === 39) {
      starts.push(k);
      break;
    }
  }
  return k;
}

/**
 * A name from i to j, right before a quote: the literal it prefixes when the syntax takes that prefix (a string,
 * or one with holes: an f-string); returns the literal's end, or -1. Out of scanWith's loop, so that the code of
 * the holes (which lexes their expressions with scanWith again) is not compiled into it.
 */
function prefixedLiteral(t: string, i: number, j: number, cs: Compiled, out: Uint8Array): number {
  const s = cs.syntax;
  const prefix = t.slice(i, j).toLowerCase();
  const holes = s.prefixHoles?.test(prefix) === true ? s.prefixHoles.holes : undefined;
  if (holes === undefined && !(j - i <= 3 && s.prefixes?.includes(prefix) === true)) return -1;
  const { quotes, plain, holey } = cs;
  for (let x = 0; x < quotes.length; x++) {
    if (t.startsWith((quotes[x] as QuoteRule).open, j)) {
      const q = (holes !== undefined && holey !== null ? holey : plain)[x] as QuoteRule;
      if (q.holes !== undefined) return holeyEnd(t, i, j + q.open.length, q, q.holes, s, out);
      const e = quoteEnd(t, j + q.open.length, q);
      fillRegion(out, STRING, i, e);
      return e;
    }
  }
  return -1;
}

/** Fills a literal from `start` (its prefix or opener) whose body starts at `from`; returns its end. */
function literal(t: string, start: number, from: number, q: QuoteRule, s: Syntax, out: Uint8Array): number {
  if (q.holes === undefined) {
    const e = quoteEnd(t, from, q);
    fillRegion(out, STRING, start, e);
    return e;
  }
  return holeyEnd(t, start, from, q, q.holes, s, out);
}

/** Whether a unit may start a name after `$` (a letter or `_`). */
function nameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128;
}

/**
 * Scans a string literal with interpolations, as quoteEnd does, and fills it: its text and the holes'
 * delimiters as string, each hole's expression lexed as code of the syntax.
 * @param start where the literal starts (its prefix or opener)
 * @param from where its body starts
 * @param limit where to stop when no closer comes first (a heredoc body's end)
 * @returns the offset after its closer (or where an unterminated one ends, as quoteEnd)
 */
export function holeyEnd(
  t: string,
  start: number,
  from: number,
  q: QuoteRule,
  h: Holes,
  s: Syntax,
  out: Uint8Array,
  limit = t.length,
): number {
  const n = limit;
  const c0 = q.close.charCodeAt(0);
  let seg = start;
  let i = from;
  let end = n;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (h.doubled === true && (c === 123 || c === 125) && t.charCodeAt(i + 1) === c) {
      i += 2;
      continue;
    }
    const opener =
      c === 36 || c === 35 || c === 123 || c === 92 || c === 96
        ? h.open.find((o) => t.startsWith(o, i))
        : undefined;
    if (opener !== undefined) {
      // PHP's `{$x}`: the `{` is string, the variable code.
      const body = opener === "{$" ? i + 1 : i + opener.length;
      fillRegion(out, STRING, seg, body);
      const close = opener.endsWith("(") ? 41 : opener === "`" ? 96 : 125;
      i = holeCode(t, body, close, h.spec ?? "", s, out);
      seg = i;
      if (i < n) i++;
      continue;
    }
    if (c === 92 && q.escape === "backslash") {
      i += t.charCodeAt(i + 1) === 13 && t.charCodeAt(i + 2) === 10 ? 3 : 2;
      continue;
    }
    if ((c === 10 || c === 13) && !q.multiline) {
      end = i;
      break;
    }
    if (c === c0 && (q.close.length === 1 || t.startsWith(q.close, i))) {
      if (q.escape === "double" && t.startsWith(q.close, i + q.close.length)) {
        i += 2 * q.close.length;
        continue;
      }
      end = i + q.close.length;
      break;
    }
    if (h.dollar !== undefined && c === 36 && nameStart(t.charCodeAt(i + 1))) {
      // PHP's `$x` is code whole; elsewhere the `$` is string, the name code.
      out.fill(STRING, seg, h.dollar === "name" ? i : i + 1);
      let j = i + 2;
      while (j < n && isIdent(t.charCodeAt(j)) && t.charCodeAt(j) !== 36) j++;
      seg = i = j;
      continue;
    }
    i++;
  }
  fillRegion(out, STRING, seg, Math.min(end, n));
  return Math.min(end, n);
}

/**
 * Lexes a hole's expression as code of the syntax, from just after its opener to the bracket that closes it
 * (brackets inside it counted; a string or comment in it lexed whole, so a bracket there does not count).
 * @param close the closing unit (`}`, `)` or a backquote)
 * @param spec the units that start a format spec at the hole's level (Holes.spec), or ""
 * @returns the offset of the closing unit (the text's end when there is none)
 */
export function holeCode(
  t: string,
  from: number,
  close: number,
  spec: string,
  s: Syntax,
  out: Uint8Array,
): number {
  const n = t.length;
  const st = scanStart();
  let depth = 0;
  let i = from;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (depth === 0 && c === close) return i;
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) depth = Math.max(0, depth - 1);
    else if (
      depth === 0 &&
      (c === 58 || c === 33) &&
      spec.includes(t[i] as string) &&
      !(c === 33 && t.charCodeAt(i + 1) === 61)
    )
      return formatSpec(t, i, spec, s, out);
    else {
      // One token of the language: a string (holes of its own), a comment, a name.
      st.i = i;
      scanWith(t, s, out, st, i);
      i = Math.max(st.i, i + 1);
      continue;
    }
    i++;
  }
  return n;
}

/** Python: a replacement field's conversion and format spec from its `!` or `:` to the field's `}`: string, its
 * nested fields (`{x:>{w}}`) holes. Returns the offset of that `}`. */
function formatSpec(t: string, from: number, spec: string, s: Syntax, out: Uint8Array): number {
  const n = t.length;
  let seg = from;
  let i = from;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (c === 125 || c === 10 || c === 13) break;
    if (c === 123) {
      out.fill(STRING, seg, i + 1);
      i = holeCode(t, i + 1, 125, spec, s, out);
      seg = i;
      if (i < n) i++;
      continue;
    }
    i++;
  }
  out.fill(STRING, seg, i);
  return i;
}
