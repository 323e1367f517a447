/*! Search: the pattern dialect. Reads a grep pattern written in ripgrep's syntax (which JavaScript's regex
 * syntax mostly shares) and writes the JavaScript source that means the same thing, or refuses the construct
 * with REGEX: never a source that silently means something else. Also writes the RE2 spelling of a JavaScript
 * source for the linear-time engine (docs/decisions/0020-regex-dialect-and-linear-engine.md). Pure; no I/O. */
import { RglobError } from "../../contract/errors.ts";

/** Inline flags in effect in a group (ripgrep's `(?imsU)`). */
interface Flags {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
  readonly U: boolean;
}

/** One open group while translating. */
interface Frame {
  flags: Flags;
  /** `(?i:`/`(?-i:` wrappers opened by a bare `(?i)` in this group: closed at its `|` and `)`, reopened after `|`. */
  wrappers: string[];
}

/** POSIX bracket classes, ASCII only (as ripgrep's), as ranges of code points. */
const POSIX: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>> = {
  alnum: [
    [48, 57],
    [65, 90],
    [97, 122],
  ],
  alpha: [
    [65, 90],
    [97, 122],
  ],
  ascii: [[0, 127]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 31],
    [127, 127],
  ],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [
    [33, 47],
    [58, 64],
    [91, 96],
    [123, 126],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[65, 90]],
  word: [
    [48, 57],
    [65, 90],
    [95, 95],
    [97, 122],
  ],
  xdigit: [
    [48, 57],
    [65, 70],
    [97, 102],
  ],
};

/** Escaped letters that mean the same in both dialects (or are JavaScript-only and kept: \c, \k, \u). */
const SAME_LETTERS = new Set([
  "d",
  "D",
  "s",
  "S",
  "w",
  "W",
  "b",
  "B",
  "n",
  "r",
  "t",
  "f",
  "v",
  "c",
  "k",
  "u",
]);
/** Characters that stay escaped in a JavaScript 'u' source (outside a class; `-` too inside one). */
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
/** Why some escapes are refused, in the message. */
const REFUSED_HINT: Readonly<Record<string, string>> = {
  h: "it means hex digit in some dialects and horizontal space in others; write [0-9A-Fa-f] or [ \\t]",
  Z: "write \\z (end of line; end of text with multiline)",
  "<": "write \\b, or use -w",
  ">": "write \\b, or use -w",
  Q: "use -F for a literal",
  E: "use -F for a literal",
};

function refuse(pattern: string, construct: string, why: string): never {
  const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
  throw new RglobError("REGEX", `bad pattern '${shown}': ${construct} ${why}`);
}

/** The \u escape(s) of a code point (a surrogate pair above U+FFFF), valid with and without the 'u' flag. */
function unitEscape(cp: number): string {
  const hex = (n: number) => `\\u${n.toString(16).padStart(4, "0")}`;
  if (cp <= 0xffff) return hex(cp);
  const v = cp - 0x10000;
  return hex(0xd800 + (v >> 10)) + hex(0xdc00 + (v & 0x3ff));
}

function rangesSource(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([a, b]) => (a === b ? unitEscape(a) : `${unitEscape(a)}-${unitEscape(b)}`)).join("");
}

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

function validUnicode(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

/** Where translatePattern is in the pattern, shared by the readers of its escapes and classes. */
interface Reader {
  readonly pattern: string;
  readonly multiline: boolean;
  /** The index of the next unread character. */
  i: number;
}

/**
 * Reads the escape at the reader's place (a backslash) and moves past it.
 * @param r the reader
 * @param inClass whether the escape is inside a bracket class
 * @returns its JavaScript source
 */
function readEscape(r: Reader, inClass: boolean): string {
  const { pattern, multiline } = r;
  const e = pattern[r.i + 1];
  if (e === undefined) refuse(pattern, "a trailing \\", "escapes nothing");
  const cp = pattern.codePointAt(r.i + 1) as number;
  const ch = String.fromCodePoint(cp);
  r.i += 1 + ch.length;
  if (e === "A" && !inClass) return multiline ? "(?<![\\s\\S])" : "(?<![^\\n])";
  if (e === "z" && !inClass) return multiline ? "(?![\\s\\S])" : "(?![^\\n])";
  if (e === "a") return "\\x07";
  if (e === "x") {
    if (pattern[r.i] === "{") {
      const end = pattern.indexOf("}", r.i);
      const hex = end < 0 ? "" : pattern.slice(r.i + 1, end);
      const v = /^[0-9A-Fa-f]{1,6}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
      if (v < 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        refuse(pattern, `\\x{${hex}}`, "is not a Unicode scalar value");
      r.i = end + 1;
      return unitEscape(v);
    }
    return "\\x";
  }
  if (e === "p" || e === "P") {
    let name: string;
    if (pattern[r.i] === "{") {
      const end = pattern.indexOf("}", r.i);
      if (end < 0) refuse(pattern, `\\${e}{`, "is not closed");
      name = pattern.slice(r.i + 1, end);
      r.i = end + 1;
    } else {
      name = pattern[r.i] ?? "";
      r.i++;
    }
    for (const form of [name, `Script=${name}`]) {
      const src = `\\${e}{${form}}`;
      if (validUnicode(src)) return src;
    }
    refuse(pattern, `\\${e}{${name}}`, "is not a Unicode property JavaScript knows");
  }
  if (e >= "0" && e <= "9") return `\\${e}`;
  if (SAME_LETTERS.has(e)) return `\\${e}`;
  if (/[A-Za-z<>]/.test(e)) {
    refuse(pattern, `\\${e}`, `is not supported: ${REFUSED_HINT[e] ?? "it has no equivalent here"}`);
  }
  // Punctuation (and any other character) escaped: the character itself.
  if (JS_SYNTAX.has(ch) || (inClass && ch === "-")) return `\\${ch}`;
  return ch;
}

/**
 * Reads a bracket class at the reader's place ('[') and moves past it.
 * @param r the reader
 * @returns its items (without brackets) and negation
 */
function classItems(r: Reader): { negated: boolean; items: string } {
  const { pattern } = r;
  const n = pattern.length;
  r.i++;
  let negated = false;
  if (pattern[r.i] === "^") {
    negated = true;
    r.i++;
  }
  let items = "";
  if (pattern[r.i] === "]") {
    items += "\\]";
    r.i++;
  }
  for (;;) {
    if (r.i >= n) refuse(pattern, "a '['", "is not closed");
    const c = pattern[r.i] as string;
    if (c === "]") {
      r.i++;
      return { negated, items };
    }
    if (c === "[" && pattern[r.i + 1] === ":") {
      const end = pattern.indexOf(":]", r.i + 2);
      let name = end < 0 ? "" : pattern.slice(r.i + 2, end);
      const neg = name.startsWith("^");
      if (neg) name = name.slice(1);
      const ranges = POSIX[name];
      // Not a POSIX class name: a nested class starting with ':' (as ripgrep reads it), below.
      if (ranges !== undefined) {
        items += rangesSource(neg ? complement(ranges) : ranges);
        r.i = end + 2;
        continue;
      }
    }
    if (c === "[") {
      const inner = classItems(r);
      if (inner.negated) refuse(pattern, "a negated class inside a class", "is not supported");
      items += inner.items;
      continue;
    }
    if ((c === "&" || c === "~" || c === "-") && pattern[r.i + 1] === c && c !== "-") {
      refuse(pattern, `'${c}${c}' in a class`, "(class set operations) is not supported");
    }
    if (c === "-" && pattern[r.i + 1] === "-") {
      refuse(pattern, "'--' in a class", "(class set operations) is not supported");
    }
    if (c === "\\") {
      items += readEscape(r, true);
      continue;
    }
    const cp = pattern.codePointAt(r.i) as number;
    const ch = String.fromCodePoint(cp);
    items += ch === "/" ? "\\/" : ch;
    r.i += ch.length;
  }
}

/**
 * Translates a ripgrep-dialect pattern into a JavaScript regex source of the same meaning.
 * @param pattern the pattern as typed
 * @param multiline whether the search is multiline (-U): `\A`/`\z` and `(?-m)` anchors then mean the text's ends
 * @returns the JavaScript source (compiled with 'u' where it can be)
 * @throws RglobError REGEX naming a construct that has no exact JavaScript equivalent
 */
export function translatePattern(pattern: string, multiline: boolean): string {
  const stack: Frame[] = [{ flags: { i: false, m: true, s: false, U: false }, wrappers: [] }];
  const top = () => stack[stack.length - 1] as Frame;
  let out = "";
  const r: Reader = { pattern, multiline, i: 0 };
  const n = pattern.length;

  /** Writes a quantifier's laziness under (?U) (which swaps greedy and lazy). */
  const laziness = () => {
    const lazy = pattern[r.i] === "?";
    if (lazy) r.i++;
    if (lazy !== top().flags.U) out += "?";
  };

  while (r.i < n) {
    const c = pattern[r.i] as string;
    const f = top().flags;
    if (c === "\\") {
      out += readEscape(r, false);
    } else if (c === "[") {
      const { negated, items } = classItems(r);
      out += `[${negated ? "^" : ""}${items}]`;
    } else if (c === ".") {
      out += f.s ? "[\\s\\S]" : "[^\\n]";
      r.i++;
    } else if ((c === "^" || c === "$") && multiline && !f.m) {
      out += c === "^" ? "(?<![\\s\\S])" : "(?![\\s\\S])";
      r.i++;
    } else if (c === "*" || c === "+" || c === "?") {
      out += c;
      r.i++;
      laziness();
    } else if (c === "{" && /^\{\d+(,\d*)?\}/.test(pattern.slice(r.i))) {
      const end = pattern.indexOf("}", r.i);
      out += pattern.slice(r.i, end + 1);
      r.i = end + 1;
      laziness();
    } else if (c === "|") {
      const w = top().wrappers;
      out += `${")".repeat(w.length)}|${w.join("")}`;
      r.i++;
    } else if (c === ")") {
      const frame = stack.pop();
      if (frame === undefined || stack.length === 0) refuse(pattern, "a ')'", "closes no group");
      out += `${")".repeat(frame.wrappers.length)})`;
      r.i++;
    } else if (c === "(") {
      const flagMatch = /^\(\?([a-zA-Z]*(?:-[a-zA-Z]*)?)([:)])/.exec(pattern.slice(r.i));
      if (pattern.startsWith("(?P<", r.i)) {
        out += "(?<";
        r.i += 4;
        stack.push({ flags: f, wrappers: [] });
      } else if (flagMatch !== null && (flagMatch[1] as string) !== "") {
        const spec = flagMatch[1] as string;
        const next = { ...f };
        let on = true;
        for (const ch of spec) {
          if (ch === "-") on = false;
          else if (ch === "i" || ch === "m" || ch === "s" || ch === "U") next[ch] = on;
          else if (ch === "u" && on) {
            // Unicode is on already.
          } else if (ch === "x")
            refuse(pattern, "(?x)", "(verbose mode) is not supported; remove the spaces");
          else if (ch === "u") refuse(pattern, "(?-u)", "(byte matching) is not supported");
          else refuse(pattern, `the inline flag '${ch}'`, "is not supported (ripgrep knows i m s U u x)");
        }
        const caseChange = next.i !== f.i ? (next.i ? "(?i:" : "(?-i:") : "";
        r.i += flagMatch[0].length;
        if (flagMatch[2] === ":") {
          out += caseChange === "" ? "(?:" : caseChange;
          stack.push({ flags: next, wrappers: [] });
        } else {
          const frame = top();
          frame.flags = next;
          if (caseChange !== "") {
            frame.wrappers.push(caseChange);
            out += caseChange;
          }
        }
      } else {
        // (, (?:, (?<name>, lookarounds: the same in both dialects (copied whole: under (?U) the '?' of
        // `(?:` is not a quantifier).
        let len = 1;
        if (pattern[r.i + 1] === "?")
          len = pattern[r.i + 2] === "<" && /[=!]/.test(pattern[r.i + 3] ?? "") ? 4 : 3;
        out += pattern.slice(r.i, r.i + len);
        r.i += len;
        stack.push({ flags: f, wrappers: [] });
      }
    } else {
      const cp = pattern.codePointAt(r.i) as number;
      const ch = String.fromCodePoint(cp);
      out += ch;
      r.i += ch.length;
    }
  }
  if (stack.length !== 1) refuse(pattern, "a '('", "is not closed");
  out += ")".repeat(top().wrappers.length);
  return out;
}

/**
 * Says whether a JavaScript regex source repeats a group (a group followed by `*`, `+` or `{…}`):
 * JavaScriptCore counts backtracking only through such groups, and gives up (answering "no match") when the
 * count runs out. An optional group (`?`) is not counted (measured: slow, never cut short; ADR 0020); a
 * bounded `{n,m}` was not cut short either, but is kept here, to be safe.
 * @param source the JavaScript source
 * @returns true when some group is repeated
 */
export function repeatsGroup(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === ")") {
      const q = source[i + 1];
      if (q === "*" || q === "+" || (q === "{" && /^\{\d/.test(source.slice(i + 1)))) return true;
    }
  }
  return false;
}

/** JavaScript's \s (ECMAScript WhiteSpace and LineTerminator), in RE2 class syntax. */
const JS_SPACE =
  "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/** The lookarounds that translatePattern writes for anchors, and their RE2 spelling. */
const ANCHORS: ReadonlyArray<readonly [string, string]> = [
  ["(?<![^\\n])", "(?m:^)"],
  ["(?![^\\n])", "(?m:$)"],
  ["(?<![\\s\\S])", "\\A"],
  ["(?![\\s\\S])", "\\z"],
];

/**
 * Writes a JavaScript regex source (as translatePattern writes it) in RE2 syntax with the same meaning, for
 * the linear-time engine (compiled there with multi-line anchors, as the whole-text finder's 'm').
 * @param source the JavaScript source
 * @returns the RE2 source, or null when it holds what RE2 cannot do (a back-reference or another lookaround)
 */
export function toRe2(source: string): string | null {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; ) {
    const c = source[i] as string;
    if (!inClass && source.startsWith("[\\s\\S]", i)) {
      out += "(?s:.)";
      i += 6;
      continue;
    }
    if (!inClass && c === "(") {
      const anchor = ANCHORS.find(([js]) => source.startsWith(js, i));
      if (anchor !== undefined) {
        out += anchor[1];
        i += anchor[0].length;
        continue;
      }
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i) || source.startsWith("(?<=", i))
        return null;
      if (source.startsWith("(?<!", i)) return null;
      if (source.startsWith("(?<", i)) {
        out += "(?P<";
        i += 3;
        continue;
      }
    }
    if (c === "\\") {
      const e = source[i + 1] ?? "";
      if (e === "u") {
        let cp: number;
        let next: number;
        if (source[i + 2] === "{") {
          const end = source.indexOf("}", i);
          cp = Number.parseInt(source.slice(i + 3, end), 16);
          next = end + 1;
        } else {
          cp = Number.parseInt(source.slice(i + 2, i + 6), 16);
          next = i + 6;
          const low = source.startsWith("\\u", next)
            ? Number.parseInt(source.slice(next + 2, next + 6), 16)
            : -1;
          if (cp >= 0xd800 && cp <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            next += 6;
          }
        }
        if (!Number.isFinite(cp) || (cp >= 0xd800 && cp <= 0xdfff)) return null;
        out += `\\x{${cp.toString(16)}}`;
        i = next;
        continue;
      }
      if (e === "x") {
        out += `\\x{${source.slice(i + 2, i + 4)}}`;
        i += 4;
        continue;
      }
      if (e === "c") {
        out += `\\x{${((source.charCodeAt(i + 2) % 32) as number).toString(16)}}`;
        i += 3;
        continue;
      }
      if (e === "0" && !/[0-9]/.test(source[i + 2] ?? "")) {
        out += "\\x{0}";
        i += 2;
        continue;
      }
      if ((e >= "1" && e <= "9") || e === "k") return null;
      if (e === "p" || e === "P") {
        const end = source.indexOf("}", i);
        const name = source.slice(i + 3, end).replace(/^(Script|sc|General_Category|gc)=/, "");
        out += `\\${e}{${name}}`;
        i = end + 1;
        continue;
      }
      if (e === "s") out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (e === "S") {
        if (inClass) return null;
        out += `[^${JS_SPACE}]`;
      } else if (e === "/") out += "/";
      else out += `\\${e}`;
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c === "[" ? "\\[" : c;
    } else {
      if (c === "[") {
        inClass = true;
        out += c;
        if (source[i + 1] === "^") {
          out += "^";
          i++;
        }
        i++;
        continue;
      }
      out += c;
    }
    i++;
  }
  return out;
}
