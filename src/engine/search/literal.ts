/*! Search: literal prefilter extraction. Finds strings that every match of a regex must contain, so a file
 * whose raw bytes hold none of them is skipped before any decoding. Conservative: when unsure it returns
 * null (no prefilter), never a literal that a match could lack. Pure; no I/O. */

const QUANT_OPTIONAL = new Set(["?", "*"]);
const META = new Set([".", "^", "$", "[", "(", ")", "|", "\\", "*", "+", "?", "{", "}"]);

/**
 * Calls visit with each character of a regex source that is syntax: not escaped and not inside a character
 * class (whose opening '[' is not passed either).
 * @param src the regex source
 * @param from where to start
 * @param visit returns true to stop at this character
 * @returns the index where visit stopped, or src.length
 */
export function scanSyntax(src: string, from: number, visit: (c: string, i: number) => boolean): number {
  let inClass = false;
  for (let i = from; i < src.length; i++) {
    const c = src[i] as string;
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (visit(c, i)) return i;
  }
  return src.length;
}

/**
 * Splits a regex source on its top-level '|' (outside groups and classes).
 * @param src the regex source
 * @returns the alternatives
 */
function topLevelAlternatives(src: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  scanSyntax(src, 0, (c, i) => {
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(src.slice(start, i));
      start = i + 1;
    }
    return false;
  });
  out.push(src.slice(start));
  return out;
}

function skipGroup(src: string, i: number): number {
  let depth = 0;
  const close = scanSyntax(src, i, (c) => {
    if (c === "(") depth++;
    else if (c === ")") return --depth === 0;
    return false;
  });
  return close < src.length ? close + 1 : src.length;
}

function skipClass(src: string, i: number): number {
  for (i++; i < src.length; i++) {
    if (src[i] === "\\") i++;
    else if (src[i] === "]") return i + 1;
  }
  return src.length;
}

const HEX = /^[0-9A-Fa-f]+$/;
const LONE_SURROGATE = /[\ud800-\udfff]/;

/**
 * Reads the escape at src[i] (a backslash): the one character it stands for when it is a literal, else null
 * (a class, an assertion, a back-reference, or an escape not worth decoding: a literal run ends there), and the
 * index after it. Line ends (\n, \r) are never literal text: CRLF is folded before matching, so a raw CR or LF
 * need not be where the decoded text has one. A lone surrogate is not literal text either (it has no UTF-8).
 * @param src the regex source
 * @param i the index of the backslash
 * @param unicode whether the source is compiled with the 'u' flag
 * @returns the literal (or null) and the index after the escape
 */
function escapeAt(src: string, i: number, unicode: boolean): { text: string | null; next: number } {
  const e = src[i + 1];
  if (e === undefined) return { text: null, next: src.length };
  const after = i + 2;
  const until = (close: string) => {
    const end = src.indexOf(close, after);
    return end < 0 ? src.length : end + 1;
  };
  switch (e) {
    case "t":
      return { text: "\t", next: after };
    case "f":
      return { text: "\f", next: after };
    case "v":
      return { text: "\v", next: after };
    case "x": {
      const hex = src.slice(after, after + 2);
      return hex.length === 2 && HEX.test(hex)
        ? { text: String.fromCharCode(Number.parseInt(hex, 16)), next: after + 2 }
        : { text: null, next: after };
    }
    case "u": {
      if (src[after] === "{") {
        // \u{…} is a code point with 'u'; without it, 'u' repeated (the braces are a quantifier).
        const next = until("}");
        const hex = src.slice(after + 1, next - 1);
        if (!unicode || !HEX.test(hex)) return { text: null, next };
        const cp = Number.parseInt(hex, 16);
        return {
          text: cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : null,
          next,
        };
      }
      const hex = src.slice(after, after + 4);
      if (hex.length < 4 || !HEX.test(hex)) return { text: null, next: after };
      const unit = Number.parseInt(hex, 16);
      if (unit < 0xd800 || unit > 0xdfff) return { text: String.fromCharCode(unit), next: after + 4 };
      // A surrogate is literal text only as the first half of an escaped pair.
      const low = src.slice(after + 6, after + 10);
      if (unit <= 0xdbff && src.startsWith("\\u", after + 4) && low.length === 4 && HEX.test(low)) {
        const l = Number.parseInt(low, 16);
        if (l >= 0xdc00 && l <= 0xdfff) return { text: String.fromCharCode(unit, l), next: after + 10 };
      }
      return { text: null, next: after + 4 };
    }
    case "c": {
      const letter = src.charCodeAt(after);
      const isLetter = (letter >= 65 && letter <= 90) || (letter >= 97 && letter <= 122);
      return isLetter
        ? { text: String.fromCharCode(letter % 32), next: after + 1 }
        : { text: null, next: after };
    }
    case "k":
      // \k<name>: a back-reference (the name is not text).
      return { text: null, next: src[after] === "<" ? until(">") : after };
    case "p":
    case "P":
      // \p{…}: a property class.
      return { text: null, next: src[after] === "{" ? until("}") : after };
  }
  if (e >= "0" && e <= "9") {
    // \0 alone is NUL; otherwise a back-reference or (without 'u') an octal escape: all its digits belong to it.
    let next = after;
    while (next < src.length && src.charCodeAt(next) >= 48 && src.charCodeAt(next) <= 57) next++;
    return { text: e === "0" && next === after ? "\0" : null, next };
  }
  // Other letters are classes (\d \w \s), assertions (\b \B), line ends (\n \r) or identity escapes (not
  // worth it); anything else is the character itself (\. \/ \- \é).
  if ((e >= "A" && e <= "Z") || (e >= "a" && e <= "z")) return { text: null, next: after };
  const cp = src.codePointAt(i + 1) as number;
  const ch = String.fromCodePoint(cp);
  return { text: LONE_SURROGATE.test(ch) ? null : ch, next: i + 1 + ch.length };
}

/**
 * Returns the longest run of literal characters that every match of one alternative must contain.
 * @param alt a regex source without top-level '|'
 * @param unicode whether it is compiled with the 'u' flag
 * @returns the literal, or "" when there is none
 */
function requiredRun(alt: string, unicode: boolean): string {
  let best = "";
  let run = "";
  const flush = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < alt.length; ) {
    const c = alt[i] as string;
    let atom: string | null = null;
    let next = i + 1;
    if (c === "\\") {
      const esc = escapeAt(alt, i, unicode);
      atom = esc.text;
      next = esc.next;
    } else if (c === "[") {
      next = skipClass(alt, i);
    } else if (c === "(") {
      next = skipGroup(alt, i);
    } else if (c === "\n" || c === "\r") {
      // A line end in the text may be a CRLF in the bytes.
    } else if (!META.has(c)) {
      // A whole code point (a surrogate pair is one atom: a quantifier never leaves half of it required).
      const cp = alt.codePointAt(i) as number;
      atom = String.fromCodePoint(cp);
      next = i + atom.length;
      if (LONE_SURROGATE.test(atom)) atom = null;
    }
    // What follows the atom decides whether it is required and whether the run may continue.
    const q = alt[next];
    if (q !== undefined && QUANT_OPTIONAL.has(q)) {
      flush();
      next++;
      if (alt[next] === "?") next++;
    } else if (q === "{") {
      const close = alt.indexOf("}", next);
      const body = close < 0 ? "" : alt.slice(next + 1, close);
      const min = Number(body.split(",")[0]);
      if (atom !== null && Number.isInteger(min) && min >= 1) run += atom;
      flush();
      next = close < 0 ? alt.length : close + 1;
      if (alt[next] === "?") next++;
    } else if (q === "+") {
      if (atom !== null) run += atom;
      flush();
      next++;
      if (alt[next] === "?") next++;
    } else if (atom !== null) {
      run += atom;
    } else {
      flush();
    }
    i = next;
  }
  flush();
  return best;
}

/**
 * Returns literals one of which every match of a regex contains (a prefilter), or null when none is known.
 * @param source the regex source (JavaScript syntax)
 * @param unicode whether it is compiled with the 'u' flag (\u{…} is a code point only then)
 * @returns the literals (any may occur), or null
 */
export function requiredLiterals(source: string, unicode = true): string[] | null {
  const alts = topLevelAlternatives(source);
  const out: string[] = [];
  for (const alt of alts) {
    const lit = requiredRun(alt, unicode);
    if (lit === "") return null;
    out.push(lit);
  }
  return out;
}
