/*! Search: matcher compilation. Turns the grep patterns and flags into one serialisable MatcherSpec (a regex
 * source and flags plus the literal prefilter), once per request, in the calling thread, so a bad pattern
 * is a REGEX failure before anything is searched. Workers rebuild the RegExp from the spec. No I/O. */

import { RE2JS } from "re2js";
import { RglobError } from "../../contract/errors.ts";
import { repeatsGroup, toRe2, translatePattern } from "./dialect.ts";
import { requiredLiterals, scanSyntax } from "./literal.ts";

/** What the caller asks for. */
export interface MatcherOptions {
  readonly patterns: readonly string[];
  readonly fixedStrings: boolean;
  readonly ignoreCase: boolean;
  readonly smartCase: boolean;
  readonly wordRegexp: boolean;
  readonly lineRegexp: boolean;
  readonly invert: boolean;
  readonly multiline: boolean;
  readonly onlyMatching: boolean;
}

/** A compiled matcher, as plain data (it crosses to workers by structured clone). */
export interface MatcherSpec {
  /** The combined regex source. */
  readonly source: string;
  /** Regex flags without 'g' and 'm' ('i' and/or 'u'). */
  readonly flags: string;
  /** Prefilter: a file must contain one of these (as UTF-8 bytes) to be searched; null = no prefilter. */
  readonly literals: readonly string[] | null;
  /** True when the literals are compared ASCII case-insensitively. */
  readonly literalsIgnoreCase: boolean;
  /**
   * When the whole regex is an alternation of these literals, matched case-sensitively (no -i, -w, -x or -U):
   * a line's matches are then found with indexOf. Null otherwise.
   */
  readonly exact: readonly string[] | null;
  readonly invert: boolean;
  readonly multiline: boolean;
  readonly onlyMatching: boolean;
  /** Whether a pattern holds a lookaround of its own (`(?=`, `(?!`, `(?<=`, `(?<!`; not -w's, which never sees a newline). */
  readonly lookaround: boolean;
  /**
   * Whether the regex holds a `^` or `$` (a pattern's, or -x's): the whole-text scan ('m') also sees a line end
   * at a CR, U+2028 or U+2029, where a line (which ends at LF only) goes on.
   */
  readonly anchors: boolean;
  /**
   * The regex in RE2 syntax when it runs on the linear-time engine (it repeats a group, where JavaScriptCore's
   * backtracking can give up and answer "no match"; ADR 0020), else null.
   */
  readonly linear: string | null;
}

/** Regex syntax characters, escaped in a literal (not `-`: `\-` outside a class is an error in 'u' mode). */
const ESCAPE = /[.*+?^${}()|[\]\\/]/g;
/** A character that is not itself in a regex (outside a class). */
const REGEX_SYNTAX = /[.*+?^${}()|[\]\\]/;
const SURROGATE = /[\ud800-\udfff]/;
/** A pattern that is a literal spelt with escaped punctuation (`it\(`, `a\.b`): ASCII punctuation after a
 * backslash stands for itself in ripgrep's dialect, as in JavaScript's. */
const ESCAPED_LITERAL = /^(?:[^.*+?^${}()|[\]\\]|\\[!-/:-@[-`{-~])+$/;

/**
 * Returns the literal a regex pattern stands for when it holds no syntax but escaped punctuation, else null.
 * @param p the pattern
 * @returns the literal, or null
 */
function literalOf(p: string): string | null {
  if (!REGEX_SYNTAX.test(p)) return p;
  return ESCAPED_LITERAL.test(p) ? p.replace(/\\(.)/g, "$1") : null;
}

/**
 * Returns the literals a regex pattern is an alternation of (`a|b\.c`, each a literal as literalOf reads it),
 * else null. The alternation matches where the earliest of them does, the first listed on a tie, as the
 * literal search does (search-text.ts literalSpans).
 * @param p the pattern
 * @returns the literals, or null
 */
function literalsOf(p: string): string[] | null {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < p.length; i++) {
    if (p[i] === "\\") i++;
    else if (p[i] === "|") {
      parts.push(p.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(p.slice(from));
  const out: string[] = [];
  for (const part of parts) {
    const lit = literalOf(part);
    if (lit === null || lit === "") return null;
    out.push(lit);
  }
  return out;
}

/**
 * Escapes a string for use as a literal in a JavaScript regex.
 * @param text the literal text
 * @returns the regex source matching exactly text
 */
function escapeRegex(text: string): string {
  return text.replace(ESCAPE, "\\$&");
}

function hasUpper(pattern: string, fixed: boolean): boolean {
  const text = fixed ? pattern : pattern.replace(/\\./g, "");
  return /\p{Lu}/u.test(text);
}

/**
 * Lists the capture groups of a regex source in order: a group's name, or null for a numbered one.
 * @param src the regex source
 * @returns one entry per capture group
 */
function captureGroups(src: string): Array<string | null> {
  const out: Array<string | null> = [];
  scanSyntax(src, 0, (c, i) => {
    if (c !== "(") return false;
    if (src[i + 1] !== "?") out.push(null);
    else if (src[i + 2] === "<" && src[i + 3] !== "=" && src[i + 3] !== "!") {
      const end = src.indexOf(">", i + 3);
      out.push(src.slice(i + 3, end < 0 ? src.length : end));
    }
    return false;
  });
  return out;
}

/**
 * Says whether a regex source holds `^` or `$` outside a class (an anchor).
 * @param src the regex source
 * @returns true when it has an anchor
 */
function hasAnchor(src: string): boolean {
  return scanSyntax(src, 0, (c) => c === "^" || c === "$") < src.length;
}

/**
 * Rewrites a legacy (non-'u') decimal escape that is not a back-reference (its number is over the pattern's
 * groups) as what it stands for, so that it stays so among more groups: `\8`/`\9` are the digit, others an
 * octal escape of up to three digits (value up to 0o377), the digits after it literal.
 * @param digits the escape's digits (not starting with 0)
 * @returns the source for the same text
 */
function legacyDecimal(digits: string): string {
  if (digits[0] === "8" || digits[0] === "9") return digits;
  const most = (digits[0] as string) <= "3" ? 3 : 2;
  let k = 1;
  while (k < most && k < digits.length && (digits[k] as string) <= "7") k++;
  const code = Number.parseInt(digits.slice(0, k), 8);
  return `\\x${code.toString(16).padStart(2, "0")}${digits.slice(k)}`;
}

/**
 * Rewrites one of several patterns for their alternation: its numbered back-references move by the groups of
 * the patterns before it, its group names (definitions and `\k<…>`) are renamed where given, and escapes that
 * would change meaning among the other patterns' groups (a legacy octal `\12`, a legacy `\k`) are spelt out.
 * @param src the pattern's source
 * @param groups its capture groups (captureGroups of src)
 * @param offset the capture groups of the patterns before it
 * @param rename new names for some of its group names
 * @param unicode whether the regex is compiled with 'u'
 * @returns the source to put in the alternation
 */
function rebase(
  src: string,
  groups: ReadonlyArray<string | null>,
  offset: number,
  rename: ReadonlyMap<string, string>,
  unicode: boolean,
): string {
  const named = groups.some((g) => g !== null);
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === "\\") {
      const e = src[i + 1] ?? "";
      if (!inClass && e >= "1" && e <= "9") {
        let j = i + 2;
        while (j < src.length && src.charCodeAt(j) >= 48 && src.charCodeAt(j) <= 57) j++;
        const digits = src.slice(i + 1, j);
        const n = Number(digits);
        out += n <= groups.length ? `\\${n + offset}` : legacyDecimal(digits);
        i = j - 1;
        continue;
      }
      if (!inClass && e === "k") {
        const end = src.indexOf(">", i + 3);
        if (named && src[i + 2] === "<" && end > 0) {
          const name = src.slice(i + 3, end);
          out += `\\k<${rename.get(name) ?? name}>`;
          i = end;
          continue;
        }
        if (!unicode && !named) {
          // Without 'u' and named groups, \k is the letter; among named groups it would be a reference.
          out += "k";
          i++;
          continue;
        }
      }
      out += c + e;
      i++;
      continue;
    }
    if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (
      c === "(" &&
      src[i + 1] === "?" &&
      src[i + 2] === "<" &&
      src[i + 3] !== "=" &&
      src[i + 3] !== "!"
    ) {
      const end = src.indexOf(">", i + 3);
      if (end > 0) {
        const name = src.slice(i + 3, end);
        out += `(?<${rename.get(name) ?? name}>`;
        i = end;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/**
 * Joins several regex patterns into one alternation in which each keeps its meaning: back-references are
 * renumbered past the groups of the patterns before it (`-e '(a)' -e '(b)\1'`: the second's \1 is its own
 * group, the regex's 2nd), and a group name used by an earlier pattern too is renamed in the later one (a name
 * may appear only once in a regex).
 * @param patterns the regex sources (two or more)
 * @param unicode whether the regex is compiled with 'u'
 * @returns the alternation's source
 */
function alternation(patterns: readonly string[], unicode: boolean): string {
  const groupsOf = patterns.map(captureGroups);
  const taken = new Set<string>();
  for (const groups of groupsOf) for (const g of groups) if (g !== null) taken.add(g);
  const seen = new Set<string>();
  let offset = 0;
  const parts: string[] = [];
  for (let k = 0; k < patterns.length; k++) {
    const p = patterns[k] as string;
    const groups = groupsOf[k] as Array<string | null>;
    const rename = new Map<string, string>();
    for (const g of groups) {
      if (g === null) continue;
      if (seen.has(g)) {
        let name = `${g}$${k}`;
        while (taken.has(name)) name += "$";
        taken.add(name);
        rename.set(g, name);
      }
    }
    for (const g of groups) if (g !== null) seen.add(g);
    parts.push(
      `(?:${offset === 0 && rename.size === 0 && unicode ? p : rebase(p, groups, offset, rename, unicode)})`,
    );
    offset += groups.length;
  }
  return parts.join("|");
}

/**
 * Decides whether a regex runs on the linear-time engine: one that repeats a group does (JavaScriptCore gives
 * up on heavy backtracking through repeated groups and answers "no match", without an error), when RE2 can
 * express it; when it cannot (a back-reference, a lookaround), the pattern is refused rather than risk a
 * silent miss. -x anchors the RE2 regex; -w, whose lookarounds RE2 lacks, consumes the character on each side
 * instead (`(?:\A|[^W])(X)(?:[^W]|\z)`): the searcher then reads the match as group 1 (LinearFinder).
 * @param core the patterns' regex source (JavaScript), without -w's and -x's wrapping
 * @param ignoreCase whether it is matched case-insensitively
 * @param wrap "line" for -x, "word"/"ascii-word" for -w (Unicode or ASCII word characters), else null
 * @returns the RE2 source, or null when the backtracking engine is safe for it
 * @throws RglobError REGEX when neither engine can be trusted with it
 */
function linearSource(
  core: string,
  ignoreCase: boolean,
  wrap: "line" | "word" | "ascii-word" | null,
): string | null {
  if (!repeatsGroup(core)) return null;
  const inner = toRe2(core);
  let err = "it holds a back-reference or a lookaround, which the linear-time engine does not do";
  if (inner !== null) {
    const nonWord = wrap === "ascii-word" ? "[^A-Za-z0-9_]" : "[^\\p{L}\\p{N}_]";
    const re2 =
      wrap === "line"
        ? `^(?:${inner})$`
        : wrap !== null
          ? `${WORD_OPEN}(?:\\A|${nonWord})(${inner})(?:${nonWord}|\\z)`
          : inner;
    try {
      RE2JS.compile(
        re2.startsWith(WORD_OPEN) ? re2.slice(WORD_OPEN.length) : re2,
        RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0),
      );
      return re2;
    } catch (e) {
      err = `the linear-time engine does not take it (${e instanceof Error ? e.message : String(e)})`;
    }
  }
  throw new RglobError(
    "REGEX",
    `bad pattern: it repeats a group, where the backtracking engine can give up without saying so, and ${err}`,
  );
}

/** Marks an RE2 source whose match is its group 1 (-w's emulation; stripped before compiling). */
export const WORD_OPEN = "(?#w)";

function tryCompile(source: string, flags: string): string | null {
  try {
    new RegExp(source, flags);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Compiles grep patterns into a matcher spec.
 * @param o the patterns and matching flags
 * @returns the spec
 * @throws RglobError REGEX for a pattern that does not compile, BAD_PREDICATE when there is no pattern
 */
export function compileMatcher(o: MatcherOptions): MatcherSpec {
  if (o.patterns.length === 0) throw new RglobError("BAD_PREDICATE", "grep needs a pattern");
  // A newline character in a pattern can only match a newline, which a line never holds: without multiline such
  // a pattern would silently find nothing (ripgrep refuses it too; grep -F would read it as several patterns).
  if (!o.multiline) {
    const withNewline = o.patterns.find((p) => p.includes("\n"));
    if (withNewline !== undefined) {
      throw new RglobError(
        "REGEX",
        `bad pattern '${withNewline.replace(/\n/g, "\\n")}': it holds a newline, which no single line does; use multiline (-U) to match across lines, or one -e per line for alternatives`,
      );
    }
  }
  const ignoreCase = o.ignoreCase || (o.smartCase && !o.patterns.some((p) => hasUpper(p, o.fixedStrings)));
  // 'u' gives \p{…} and code-point semantics; patterns written for non-Unicode mode (e.g. '\-') fall back.
  let unicode = true;
  const parts: string[] = [];
  for (const p of o.patterns) {
    const src = o.fixedStrings ? escapeRegex(p) : translatePattern(p, o.multiline);
    if (!o.fixedStrings && tryCompile(src, "u") !== null) {
      const err = tryCompile(src, "");
      if (err !== null) throw new RglobError("REGEX", `bad pattern '${p}': ${err}`);
      unicode = false;
    }
    parts.push(src);
  }
  let source =
    parts.length === 1
      ? (parts[0] as string)
      : o.fixedStrings
        ? parts.map((p) => `(?:${p})`).join("|")
        : alternation(parts, unicode);
  const core = source;
  if (o.wordRegexp) {
    const w = unicode ? "[\\p{L}\\p{N}_]" : "[A-Za-z0-9_]";
    source = `(?<!${w})(?:${source})(?!${w})`;
  }
  if (o.lineRegexp) source = `^(?:${source})$`;
  const flags = `${ignoreCase ? "i" : ""}${unicode ? "u" : ""}`;
  const err = tryCompile(source, flags);
  if (err !== null)
    throw new RglobError(
      "REGEX",
      parts.length > 1 ? `bad patterns: they do not combine into one regex: ${err}` : `bad pattern: ${err}`,
    );

  const wrap = o.lineRegexp ? "line" : o.wordRegexp ? (unicode ? "word" : "ascii-word") : null;
  const linear = o.fixedStrings ? null : linearSource(core, ignoreCase, wrap);

  let literals: string[] | null = [];
  for (let k = 0; k < o.patterns.length; k++) {
    const p = o.patterns[k] as string;
    const lits = o.fixedStrings ? (p === "" ? null : [p]) : requiredLiterals(parts[k] as string, unicode);
    if (lits === null) {
      literals = null;
      break;
    }
    literals.push(...lits);
  }
  // Case-insensitive prefiltering is done on bytes, so it only holds for ASCII literals.
  if (literals !== null && ignoreCase && literals.some((l) => /[^\x20-\x7e]/.test(l))) literals = null;
  // An invalid UTF-8 byte decodes to U+FFFD, which the raw bytes need not hold (EF BF BD): such a literal
  // cannot be looked for in them.
  if (literals?.some((l) => l.includes("\ufffd"))) literals = null;
  if (literals !== null) literals = [...new Set(literals)];
  // Literals spelt as regexes (`it\(`, `a|b`) are found as literals too.
  const perPattern = o.patterns.map((p) => (o.fixedStrings ? [p] : literalsOf(p)));
  const asLiterals = perPattern.every((l) => l !== null) ? (perPattern as string[][]).flat() : null;
  const exact =
    !ignoreCase &&
    !o.wordRegexp &&
    !o.lineRegexp &&
    !o.multiline &&
    asLiterals?.every((p) => p !== "" && !SURROGATE.test(p))
      ? asLiterals
      : null;
  return {
    source,
    flags,
    literals: o.invert ? null : literals,
    literalsIgnoreCase: ignoreCase,
    exact,
    invert: o.invert,
    multiline: o.multiline,
    onlyMatching: o.onlyMatching,
    lookaround: !o.fixedStrings && parts.some((p) => /\(\?<?[=!]/.test(p)),
    anchors: o.lineRegexp || (!o.fixedStrings && parts.some(hasAnchor)),
    linear,
  };
}
