/*! Regions: the JavaScript/TypeScript lexer. One state machine with a stack of frames for what nests: a
 * template literal's `${…}`, a JSX element's tag, children and `{…}`. Regex literals are told from division by
 * the previous token, as a scanner without a parser does (a keyword or an operator before `/` starts one).
 * Pure: classifies a decoded text in place; never reads a file. */
import { COMMENT, isIdent, lineEnd, STRING } from "./scan.ts";

/** Words after which `/` starts a regex literal and `<` a JSX element (an expression is expected). */
const EXPRESSION_BEFORE = [
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
];
/** The same words by length (no string is made per identifier: they are compared in place). */
const BY_LENGTH: string[][] = [];
for (const w of EXPRESSION_BEFORE) {
  const words = BY_LENGTH[w.length] ?? [];
  words.push(w);
  BY_LENGTH[w.length] = words;
}

/** Whether t[i, j) is one of the words after which an expression is expected. */
function expressionBefore(t: string, i: number, j: number): boolean {
  const words = BY_LENGTH[j - i];
  if (words === undefined) return false;
  for (const w of words) if (t.startsWith(w, i)) return true;
  return false;
}

/** Fills [a, b) with a region: a loop for the short ranges most literals are (a call to fill costs more). */
function mark(out: Uint8Array, v: number, a: number, b: number): void {
  if (b - a > 16) out.fill(v, a, b);
  else for (let k = a; k < b; k++) out[k] = v;
}

/** Identifier units below 128 (letters, digits, `_`, `$`) and `\\` (a Unicode escape); every unit above is one. */
const WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (isIdent(c) || c === 92) WORD[c] = 1;

/** What a frame of the stack is: code in `${…}`, code in JSX's `{…}`, a JSX tag, a JSX element's children. */
const TEMPLATE = 0;
const JSX_EXPR = 1;
const JSX_TAG = 2;
const JSX_CHILDREN = 3;

/**
 * The end of a regex literal starting at i (`/…/flags`), or -1 when a line break comes first (then the `/` is
 * division).
 */
function regexEnd(t: string, i: number): number {
  const n = t.length;
  let j = i + 1;
  let inClass = false;
  while (j < n) {
    const c = t.charCodeAt(j);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return -1;
    if (c === 92) {
      j += 2;
      continue;
    }
    if (inClass) {
      if (c === 93) inClass = false;
    } else if (c === 91) inClass = true;
    else if (c === 47) {
      j++;
      while (j < n && isIdent(t.charCodeAt(j))) j++;
      return j;
    }
    j++;
  }
  return -1;
}

/** The end of a quoted string from its opening quote at i (unterminated: its line's end). */
function stringEnd(t: string, i: number): number {
  const q = t.charCodeAt(i);
  const n = t.length;
  let j = i + 1;
  while (j < n) {
    const c = t.charCodeAt(j);
    if (c === 92) {
      j += t.charCodeAt(j + 1) === 13 && t.charCodeAt(j + 2) === 10 ? 3 : 2;
      continue;
    }
    if (c === q) return j + 1;
    if (c === 10 || c === 13) return j;
    j++;
  }
  return n;
}

/**
 * Scans a template literal's text from `from` (after "`" or "}"): fills it as string up to its end ("`") or to
 * a substitution's "${" (both included).
 * @returns the offset after the part, and whether a substitution opened
 */
function templatePart(t: string, start: number, from: number, out: Uint8Array): [number, boolean] {
  const n = t.length;
  let j = from;
  while (j < n) {
    const c = t.charCodeAt(j);
    if (c === 92) {
      j += 2;
      continue;
    }
    if (c === 96) {
      out.fill(STRING, start, j + 1);
      return [j + 1, false];
    }
    if (c === 36 && t.charCodeAt(j + 1) === 123) {
      out.fill(STRING, start, j + 2);
      return [j + 2, true];
    }
    j++;
  }
  out.fill(STRING, start, n);
  return [n, false];
}

/** Where a scan stopped, to go on from there: the next unit, the stack of frames, whether a regex may start. */
interface JsState {
  i: number;
  readonly kinds: number[];
  readonly depths: number[];
  regexOk: boolean;
}

/** A scan's state before its first unit. */
export function jsStart(): JsState {
  return { i: -1, kinds: [], depths: [], regexOk: true };
}

/**
 * Takes one step inside a JSX element: in its tag (attributes, an expression, its end) or among its children (an
 * expression, a child element, the closing tag). Updates the frames and `st.regexOk`.
 * @param t the text
 * @param i the unit to read
 * @param out the regions
 * @param st the scan's state (its frames; regexOk is written)
 * @param tag whether the top frame is the element's tag (else its children)
 * @returns the unit after the step
 */
function jsxStep(t: string, i: number, out: Uint8Array, st: JsState, tag: boolean): number {
  const n = t.length;
  const { kinds, depths } = st;
  const c = t.charCodeAt(i);
  if (tag) {
    if (c === 34 || c === 39) {
      // An attribute's string: no escapes, may span lines.
      const j = t.indexOf(t[i] as string, i + 1);
      const e = j < 0 ? n : j + 1;
      out.fill(STRING, i, e);
      i = e;
    } else if (c === 123) {
      kinds.push(JSX_EXPR);
      depths.push(0);
      st.regexOk = true;
      i++;
    } else if (c === 47 && t.charCodeAt(i + 1) === 62) {
      // A self-closing element ends.
      kinds.pop();
      depths.pop();
      st.regexOk = false;
      i += 2;
    } else if (c === 62) {
      kinds[kinds.length - 1] = JSX_CHILDREN;
      i++;
    } else if (c === 47 && (t.charCodeAt(i + 1) === 47 || t.charCodeAt(i + 1) === 42)) {
      i = comment(t, i, out);
    } else i++;
    return i;
  }
  if (c === 123) {
    kinds.push(JSX_EXPR);
    depths.push(0);
    st.regexOk = true;
    i++;
  } else if (c === 60 && t.charCodeAt(i + 1) === 47) {
    // The closing tag ends the element.
    const j = t.indexOf(">", i);
    i = j < 0 ? n : j + 1;
    kinds.pop();
    depths.pop();
    st.regexOk = false;
  } else if (c === 60) {
    kinds.push(JSX_TAG);
    depths.push(0);
    i++;
  } else i++;
  return i;
}

/**
 * Classifies a JavaScript or TypeScript text, from where a previous call stopped up to `upTo`: every unit
 * before the offset it stops at (past `upTo`, or the text's end) is classified for good.
 * @param t the decoded text
 * @param out one entry per unit, all CODE on entry
 * @param jsx whether `<` where an expression is expected opens a JSX element (.js, .jsx, .tsx; not .ts)
 * @param st where to start (jsStart() for the whole text); updated
 * @param upTo the last unit whose region is asked for (the text's end by default)
 */
export function scanJs(t: string, out: Uint8Array, jsx: boolean, st = jsStart(), upTo = t.length): void {
  const n = t.length;
  const stop = Math.min(n, upTo + 1);
  const { kinds, depths } = st;
  let regexOk = st.regexOk;
  /** Reads a template's text from the backquote or `}` at i; a `${` it ends with opens an expression. */
  const templateText = (at: number): number => {
    const [e, opened] = templatePart(t, at, at + 1, out);
    if (opened) {
      kinds.push(TEMPLATE);
      depths.push(0);
    }
    regexOk = opened;
    return e;
  };
  let i = st.i;
  // A shebang line is code, as count has always counted it (the interpreter's directive, not a comment; the
  // TypeScript scanner makes it trivia of its own).
  if (i < 0) i = t.startsWith("#!") ? lineEnd(t, 0) : 0;
  while (i < stop) {
    const top = kinds.length === 0 ? -1 : (kinds[kinds.length - 1] as number);
    const c = t.charCodeAt(i);
    if (top === JSX_TAG || top === JSX_CHILDREN) {
      st.regexOk = regexOk;
      i = jsxStep(t, i, out, st, top === JSX_TAG);
      regexOk = st.regexOk;
      continue;
    }
    // Code.
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12) {
      i++;
      continue;
    }
    if (c === 47) {
      const d = t.charCodeAt(i + 1);
      if (d === 47 || d === 42) {
        i = comment(t, i, out);
        continue;
      }
      if (regexOk) {
        const e = regexEnd(t, i);
        if (e > 0) {
          i = e;
          regexOk = false;
          continue;
        }
      }
      i++;
      regexOk = true;
      continue;
    }
    if (c === 34 || c === 39) {
      const e = stringEnd(t, i);
      mark(out, STRING, i, e);
      i = e;
      regexOk = false;
      continue;
    }
    if (c === 96) {
      i = templateText(i);
      continue;
    }
    if (c === 123) {
      if (depths.length > 0) depths[depths.length - 1] = (depths[depths.length - 1] as number) + 1;
      regexOk = true;
      i++;
      continue;
    }
    if (c === 125) {
      const d = depths.length === 0 ? -1 : (depths[depths.length - 1] as number);
      if (d === 0 && top === TEMPLATE) {
        kinds.pop();
        depths.pop();
        i = templateText(i);
        continue;
      }
      if (d === 0 && top === JSX_EXPR) {
        kinds.pop();
        depths.pop();
        i++;
        continue;
      }
      if (d > 0) depths[depths.length - 1] = d - 1;
      regexOk = true;
      i++;
      continue;
    }
    if (c === 60 && jsx && regexOk) {
      const d = t.charCodeAt(i + 1);
      if (d === 62 || (isIdent(d) && !(d >= 48 && d <= 57))) {
        kinds.push(JSX_TAG);
        depths.push(0);
        i++;
        continue;
      }
    }
    if (c >= 48 && c <= 57) {
      let j = i + 1;
      while (j < n) {
        const d = t.charCodeAt(j);
        if (!isIdent(d) && d !== 46) break;
        j++;
      }
      i = j;
      regexOk = false;
      continue;
    }
    if (isIdent(c) || c === 92) {
      let j = i + 1;
      while (j < n) {
        const d = t.charCodeAt(j);
        if (d < 128 && WORD[d] === 0) break;
        j++;
      }
      const prevDot = i > 0 && t.charCodeAt(i - 1) === 46;
      regexOk = !prevDot && expressionBefore(t, i, j);
      i = j;
      continue;
    }
    // `)` and `]` end an operand: a `/` after them divides. Any other punctuator expects an operand.
    regexOk = c !== 41 && c !== 93;
    i++;
  }
  st.i = i;
  st.regexOk = regexOk;
}

/** Fills a `//` or `/*` comment at i; returns its end. */
function comment(t: string, i: number, out: Uint8Array): number {
  let e: number;
  if (t.charCodeAt(i + 1) === 47) {
    e = i + 2;
    const n = t.length;
    while (e < n) {
      const c = t.charCodeAt(e);
      if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) break;
      e++;
    }
  } else {
    const j = t.indexOf("*/", i + 2);
    e = j < 0 ? t.length : j + 2;
  }
  mark(out, COMMENT, i, e);
  return e;
}
