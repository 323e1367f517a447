/*! Search: matcher compilation. Turns the grep patterns and flags into one serialisable MatcherSpec (a regex
 * source and flags plus the literal prefilter), once per request, in the calling thread, so a bad pattern
 * is a REGEX failure before anything is searched. Workers rebuild the RegExp from the spec. No I/O. */
import { RglobError } from "../../contract/errors.ts";
import { requiredLiterals } from "./literal.ts";

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
}

/** Regex syntax characters, escaped in a literal (not `-`: `\-` outside a class is an error in 'u' mode). */
const ESCAPE = /[.*+?^${}()|[\]\\/]/g;
/** A character that is not itself in a regex (outside a class). */
const REGEX_SYNTAX = /[.*+?^${}()|[\]\\]/;
const SURROGATE = /[\ud800-\udfff]/;

/**
 * Escapes a string for use as a literal in a JavaScript regex.
 * @param text the literal text
 * @returns the regex source matching exactly text
 */
export function escapeRegex(text: string): string {
  return text.replace(ESCAPE, "\\$&");
}

function hasUpper(pattern: string, fixed: boolean): boolean {
  const text = fixed ? pattern : pattern.replace(/\\./g, "");
  return /\p{Lu}/u.test(text);
}

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
    const src = o.fixedStrings ? escapeRegex(p) : p;
    if (!o.fixedStrings && tryCompile(src, "u") !== null) {
      const err = tryCompile(src, "");
      if (err !== null) throw new RglobError("REGEX", `bad pattern '${p}': ${err}`);
      unicode = false;
    }
    parts.push(src);
  }
  let source = parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(?:${p})`).join("|");
  if (o.wordRegexp) {
    const w = unicode ? "[\\p{L}\\p{N}_]" : "[A-Za-z0-9_]";
    source = `(?<!${w})(?:${source})(?!${w})`;
  }
  if (o.lineRegexp) source = `^(?:${source})$`;
  const flags = `${ignoreCase ? "i" : ""}${unicode ? "u" : ""}`;
  const err = tryCompile(source, flags);
  if (err !== null) throw new RglobError("REGEX", `bad pattern: ${err}`);

  let literals: string[] | null = [];
  for (const p of o.patterns) {
    const lits = o.fixedStrings ? (p === "" ? null : [p]) : requiredLiterals(p);
    if (lits === null) {
      literals = null;
      break;
    }
    literals.push(...lits);
  }
  // Case-insensitive prefiltering is done on bytes, so it only holds for ASCII literals.
  if (literals !== null && ignoreCase && literals.some((l) => /[^\x20-\x7e]/.test(l))) literals = null;
  if (literals !== null) literals = [...new Set(literals)];
  const exact =
    !ignoreCase &&
    !o.wordRegexp &&
    !o.lineRegexp &&
    !o.multiline &&
    o.patterns.every((p) => p !== "" && !SURROGATE.test(p) && (o.fixedStrings || !REGEX_SYNTAX.test(p)))
      ? [...o.patterns]
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
    lookaround: !o.fixedStrings && o.patterns.some((p) => /\(\?<?[=!]/.test(p)),
  };
}
