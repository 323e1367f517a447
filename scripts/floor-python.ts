/*! The floor of `rglob count` on Python (#36): the smallest classifier of a Python file's lines, one pass over its
 * bytes, no decoding and no region array: blank, code, comment and docstring lines (a docstring is a string
 * statement of its own, ADR 0042: the first token of its logical line, outside brackets and not after a `\`
 * continuation, an r or u prefix or none, only white space and a comment after it and its adjacent literals).
 * Lines are told as rglob tells them (engine/lines.ts over engine/regions): a line holding a code or string
 * unit is code, one holding a docstring unit and otherwise only comments is a docstring line, else a comment
 * line. An f-string's replacement fields are followed only to find where it ends. floor-count.ts --python
 * runs it; bench-count.ts compares each file's counts with rglob's. Benchmarks only; never shipped. */

/** The counts of one file (comment lines, docstring lines included, are lines - blank - code). */
export interface PythonLines {
  lines: number;
  blank: number;
  code: number;
  docstring: number;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;
const identStart = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 128;
const ident = (c: number) => identStart(c) || (c >= 48 && c <= 57);
/** Each byte's part in code: 0 other, 1 white space, 2 a name's start, 3 a quote, 4 `#`, 5 a line feed,
 * 6 an opening bracket, 7 a closing one, 8 a backslash. */
const CODE = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if (isSpace(c)) CODE[c] = 1;
  else if (identStart(c)) CODE[c] = 2;
}
CODE[34] = CODE[39] = 3;
CODE[35] = 4;
CODE[10] = 5;
CODE[40] = CODE[91] = CODE[123] = 6;
CODE[41] = CODE[93] = CODE[125] = 7;
CODE[92] = 8;
/** 1 for the bytes of a name. */
const NAME = Uint8Array.from({ length: 256 }, (_, c) => (ident(c) ? 1 : 0));

/** Prefixes of a literal without fields (any prefix holding an f makes an f-string, as rglob's lexer reads it). */
const PREFIXES = new Set(["r", "u", "b", "br", "rb"]);

/** One file's pass: the line being classified, and the candidate docstring's lines waiting for its verdict. */
class Pass {
  readonly r: PythonLines = { lines: 0, blank: 0, code: 0, docstring: 0 };
  filled = false;
  coded = false;
  doc = false;
  lineStart: number;
  /** A candidate docstring is being read: its string units are neither code nor docstring yet. */
  pending = false;
  /** The candidate's completed non-blank lines. */
  pend = 0;
  /** Set by literalAt: the literal found has replacement fields. */
  fields = false;
  /** Set by literalAt at a name: where the name ends. */
  identEnd = 0;

  constructor(
    readonly b: Uint8Array,
    readonly n: number,
    from: number,
  ) {
    this.lineStart = from;
  }

  newline(i: number): void {
    const r = this.r;
    r.lines++;
    if (this.pending) {
      if (this.filled) this.pend++;
      else r.blank++;
    } else if (!this.filled) r.blank++;
    else if (this.coded) r.code++;
    else if (this.doc) r.docstring++;
    this.filled = this.coded = this.doc = false;
    this.lineStart = i + 1;
  }

  /** A string unit that is not white space on the current line. */
  stringUnit(): void {
    this.filled = true;
    if (!this.pending) this.coded = true;
  }

  /** The quote's offset when a literal starts at i (a quote, or a prefix before one), else -1; sets `fields`. */
  literalAt(i: number): number {
    const b = this.b;
    const c = b[i] as number;
    if (c === 34 || c === 39) {
      this.fields = false;
      return i;
    }
    if (!identStart(c)) return -1;
    let j = i + 1;
    while (j < this.n && NAME[b[j] as number] === 1) j++;
    this.identEnd = j;
    if (j >= this.n || (b[j] !== 34 && b[j] !== 39)) return -1;
    const p = String.fromCharCode(...b.subarray(i, j)).toLowerCase();
    this.fields = p.includes("f");
    return this.fields || (j - i <= 3 && PREFIXES.has(p)) ? j : -1;
  }

  /** The string units from `from` to `to` (no closer inside): each line break ends a line, each line after one
   * is filled when a unit that is not white space stands on it before the next break or `to`. */
  body(from: number, to: number): void {
    const b = this.b;
    for (let i = from; i < to; i++) {
      const c = b[i] as number;
      if (c === 10) this.newline(i);
      else if (!isSpace(c)) {
        if (!this.filled || (!this.pending && !this.coded)) this.stringUnit();
        // The rest of this line holds nothing new: on to its end.
        while (i + 1 < to && b[i + 1] !== 10) i++;
      }
    }
  }

  /** A literal from its quote at q: returns its end. */
  literal(q: number): number {
    const b = this.b;
    const n = this.n;
    const quote = b[q] as number;
    const triple = b[q + 1] === quote && b[q + 2] === quote;
    this.stringUnit();
    if (this.fields) return this.fieldsLiteral(q, quote, triple);
    let i = q + (triple ? 3 : 1);
    const from = i;
    while (i < n) {
      const c = b[i] as number;
      if (c === 92) i += b[i + 1] === 13 && b[i + 2] === 10 ? 3 : 2;
      else if (c === quote && (!triple || (b[i + 1] === quote && b[i + 2] === quote))) {
        this.body(from, i);
        this.stringUnit();
        return i + (triple ? 3 : 1);
      } else if ((c === 10 || c === 13) && !triple) {
        this.body(from, i);
        return i;
      } else i++;
    }
    this.body(from, n);
    return n;
  }

  /** An f-string: its text to the closer, a replacement field `{…}` followed to its `}` (`{{` is a brace). */
  fieldsLiteral(q: number, quote: number, triple: boolean): number {
    const b = this.b;
    const n = this.n;
    let i = q + (triple ? 3 : 1);
    while (i < n) {
      const c = b[i] as number;
      if (c === 92) {
        const e = i + (b[i + 1] === 13 && b[i + 2] === 10 ? 3 : 2);
        this.body(i, Math.min(e, n));
        i = e;
      } else if (c === quote && (!triple || (b[i + 1] === quote && b[i + 2] === quote))) {
        this.stringUnit();
        return i + (triple ? 3 : 1);
      } else if ((c === 10 || c === 13) && !triple) return i;
      else if ((c === 123 || c === 125) && b[i + 1] === c) {
        this.stringUnit();
        i += 2;
      } else if (c === 123) {
        this.stringUnit();
        i = this.field(i + 1);
        if (i < n && b[i] !== 10) {
          this.body(i, i + 1);
          i++;
        }
      } else {
        this.body(i, i + 1);
        i++;
      }
    }
    return n;
  }

  /** A replacement field from just after its `{`: returns its `}` (or a line end in its format spec). */
  field(from: number): number {
    const b = this.b;
    const n = this.n;
    let depth = 0;
    let i = from;
    while (i < n) {
      const c = b[i] as number;
      if (depth === 0 && c === 125) return i;
      if (c === 40 || c === 91 || c === 123) depth++;
      else if (c === 41 || c === 93 || c === 125) depth = Math.max(0, depth - 1);
      else if (depth === 0 && (c === 58 || (c === 33 && b[i + 1] !== 61))) {
        // The conversion and format spec, to the field's `}`; a `{…}` in it is a field.
        for (; i < n; i++) {
          const d = b[i] as number;
          if (d === 125 || d === 10 || d === 13) return i;
          if (d === 123) i = this.field(i + 1);
          else this.body(i, i + 1);
        }
        return n;
      } else {
        const q = this.literalAt(i);
        if (q >= 0) {
          i = this.literal(q);
          continue;
        }
      }
      this.body(i, i + 1);
      i++;
    }
    return n;
  }

  /** The code of the file, statement by statement. */
  run(from: number): PythonLines {
    const b = this.b;
    const n = this.n;
    let depth = 0;
    let continued = false;
    let statement = true;
    let i = from;
    while (i < n) {
      const c = b[i] as number;
      const k = CODE[c] as number;
      if (k === 1) {
        i++;
        continue;
      }
      if (k === 5) {
        this.newline(i);
        statement = depth === 0 && !continued;
        continued = false;
        i++;
        continue;
      }
      const first = statement;
      statement = false;
      if (k === 4) {
        this.filled = true;
        while (i < n && b[i] !== 10 && b[i] !== 13) i++;
        continue;
      }
      const q = k === 2 || k === 3 ? this.literalAt(i) : -1;
      if (q >= 0) {
        const plain = q === i || (q === i + 1 && "rRuU".includes(String.fromCharCode(c)));
        i = this.statementStrings(i, q, first && plain);
        continue;
      }
      this.filled = this.coded = true;
      if (k === 2) i = this.identEnd;
      else {
        if (k === 8) continued = true;
        else if (k === 6) depth++;
        else if (k === 7 && depth > 0) depth--;
        i++;
      }
    }
    if (this.lineStart < n) this.newline(n);
    return this.r;
  }

  /** Literals side by side from `start` (the first's quote at q); a candidate docstring gets its verdict after
   * them: white space and a comment only to its line's end. Returns where the run ends. */
  statementStrings(start: number, q: number, candidate: boolean): number {
    const b = this.b;
    const n = this.n;
    this.pending = candidate;
    this.pend = 0;
    let e = start;
    for (let at = q; at >= 0; ) {
      e = this.literal(at);
      let m = e;
      while (m < n && (b[m] === 32 || b[m] === 9)) m++;
      at = m < n ? this.literalAt(m) : -1;
    }
    if (!candidate) return e;
    this.pending = false;
    let m = e;
    while (m < n && isSpace(b[m] as number)) m++;
    if (m >= n || b[m] === 10 || b[m] === 35) {
      this.r.docstring += this.pend;
      this.doc = this.filled;
    } else {
      this.r.code += this.pend;
      this.coded = this.filled;
    }
    return e;
  }
}

/**
 * Classifies the lines of a Python text.
 * @param b the file's bytes
 * @param from where the text starts (after a byte order mark)
 * @param n where it ends
 * @returns its counts
 */
export function pythonLines(b: Uint8Array, from: number, n: number): PythonLines {
  return new Pass(b, n, from).run(from);
}
