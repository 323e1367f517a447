/*! Regions: docstrings, a pass over a lexed text that turns the string literals that document (Python's, Julia's,
 * Elixir's) from string (2) into docstring (3). The rule of each language is in
 * docs/decisions/0042-docstrings.md; pure, as the lexers are. */
import { COMMENT, STRING } from "./scan.ts";

/** A unit in a docstring: a string literal that documents, its quotes and prefix included. */
export const DOCSTRING = 3;

/** Which pass a language takes. */
export type DocstringRule = "python" | "julia" | "elixir";

const isBlank = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xfeff;

/** The end of the string run that starts at i (adjacent literals with nothing between them are one run). */
function runEnd(out: Uint8Array, i: number): number {
  let k = i;
  while (k < out.length && out[k] === STRING) k++;
  return k;
}

/** Whether only white space and a comment follow unit `from` on its line. */
function restIsBlank(t: string, out: Uint8Array, from: number): boolean {
  for (let k = from; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c === 10) return true;
    if (isBlank(c)) continue;
    return out[k] === COMMENT;
  }
  return true;
}

/**
 * Python's string prefix before a quote: a docstring may have r and u (any case), never b or f (Python does not
 * take bytes or an f-string as a docstring: `__doc__` stays None).
 */
function docPrefix(t: string, i: number): boolean {
  let k = i;
  while (k < t.length && k - i <= 2) {
    const c = t[k] as string;
    if (c === '"' || c === "'") return true;
    if (!"rRuU".includes(c)) return false;
    k++;
  }
  return false;
}

/** Julia: the line after a docstring starts what it documents (a definition, a `const`, a macro call). */
const JULIA_DOCUMENTED =
  /^[ \t]*(?:function|macro|struct|mutable[ \t]+struct|abstract[ \t]+type|primitive[ \t]+type|module|baremodule|const|global|@[A-Za-z_]|[A-Za-z_][A-Za-z0-9_!.]*(?:\{[^}\n]*\})?\([^\n]*\)[ \t]*(?:where[^\n=]*)?=[^=])/;

/** The text of the next line that is neither blank nor only a comment, after unit `from`. */
function nextStatementLine(t: string, out: Uint8Array, from: number): string {
  let k = t.indexOf("\n", from);
  while (k >= 0 && k + 1 < t.length) {
    const s = k + 1;
    let e = t.indexOf("\n", s);
    if (e < 0) e = t.length;
    let j = s;
    while (j < e && isBlank(t.charCodeAt(j))) j++;
    if (j < e && out[j] !== COMMENT) return t.slice(s, e);
    k = e < t.length ? e : -1;
  }
  return "";
}

/**
 * Python and Julia: a string literal that is a statement of its own (the first token of its logical line, outside
 * brackets and not after a `\` continuation, with only white space and a comment after it on the line where it
 * ends) is a docstring. Julia asks too that the next statement be a definition, as its docstrings stand before
 * what they document (a lone string in a function body is its value). The scanner found the logical lines'
 * starts in the same scan that lexed the text (scan.ts, a statements syntax): only those are looked at here.
 */
function statementStrings(t: string, out: Uint8Array, julia: boolean, starts: readonly number[]): void {
  const n = t.length;
  for (const k of starts) {
    if (k >= n || out[k] !== STRING) continue;
    let e = runEnd(out, k);
    // Python: adjacent literals on one line are one string ("a" "b").
    while (!julia) {
      let m = e;
      while (m < n && (t.charCodeAt(m) === 32 || t.charCodeAt(m) === 9)) m++;
      if (m === e || m >= n || out[m] !== STRING) break;
      e = runEnd(out, m);
    }
    if (
      (julia ? t[k] === '"' : docPrefix(t, k)) &&
      restIsBlank(t, out, e) &&
      (!julia || JULIA_DOCUMENTED.test(nextStatementLine(t, out, e - 1)))
    )
      out.fill(DOCSTRING, k, e);
  }
}

/** Elixir: the string after `@doc`, `@moduledoc` or `@typedoc` (a `~S`/`~s` sigil too), the attribute included. */
const ELIXIR_DOC = /@(?:moduledoc|typedoc|doc)[ \t]+(?:~[sS])?(?=["'])/g;

function elixirDocs(t: string, out: Uint8Array): void {
  ELIXIR_DOC.lastIndex = 0;
  for (let m = ELIXIR_DOC.exec(t); m !== null; m = ELIXIR_DOC.exec(t)) {
    const q = m.index + m[0].length;
    if (out[m.index] !== 0 || out[q] !== STRING) continue;
    out.fill(DOCSTRING, m.index, runEnd(out, q));
  }
}

/**
 * Marks the docstrings of a lexed text.
 * @param t the text
 * @param out its regions (code, comment, string), lexed whole; docstring units become DOCSTRING
 * @param rule the language's rule
 * @param starts Python and Julia: the statement starts the scan noted (scanWith's `starts`)
 */
export function markDocstrings(
  t: string,
  out: Uint8Array,
  rule: DocstringRule,
  starts: readonly number[],
): void {
  if (rule === "elixir") elixirDocs(t, out);
  else statementStrings(t, out, rule === "julia", starts);
}
