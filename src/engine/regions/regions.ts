/*! Regions: which part of a source file each unit of its text lies in (code, comment, string literal or docstring), per
 * language of the built-in table (engine/languages.ts). One lexer per language family: JavaScript/TypeScript
 * has its own state machine (js.ts); the others are tables read by one scanner (scan.ts), with hooks for raw
 * strings, long brackets and character literals. grep's `in` option and count's comment lines both ask here.
 * Pure: never reads a file (docs/decisions/0031-code-regions.md). */
import { languageOf } from "../languages.ts";
import { DOCSTRING, type DocstringRule, markDocstrings } from "./docstrings.ts";
import { jsStart, scanJs } from "./js.ts";
import {
  COMMENT,
  type Holes,
  type Hook,
  heredoc,
  holeCode,
  holeyEnd,
  isIdent,
  type Later,
  type LineRule,
  lineEnd,
  type QuoteRule,
  quoteEnd,
  STRING,
  type Syntax,
  scanStart,
  scanWith,
  yamlBlock,
} from "./scan.ts";

export { REGION_NAMES, type RegionName } from "../../contract/regions.ts";
export { COMMENT, DOCSTRING, STRING };

/** A lexer: classifies a decoded text into a Uint8Array of region codes, one per UTF-16 unit (code 0, comment 1,
 * string 2, docstring 3). */
export type RegionLexer = (t: string) => Uint8Array;

/**
 * A lexer that goes only as far as asked: for a text, a function that classifies it up to a unit (going on from
 * where the previous call stopped) and gives the regions, final up to that unit at least. grep asks for each
 * match's first unit in turn, so a file is lexed up to its last match, not to its end.
 */
type RegionCursorLexer = (t: string) => (upTo: number) => Uint8Array;

const ln = (text: string, at: LineRule["at"] = "any"): LineRule => ({ text, at });
const blk = (open: string, close: string, nested = false, at: LineRule["at"] = "any") => ({
  open,
  close,
  nested,
  at,
});
const q = (
  open: string,
  esc: QuoteRule["escape"] = "backslash",
  multiline = false,
  close = open,
  at: QuoteRule["at"] = "any",
): QuoteRule => ({ open, close, escape: esc, multiline, at });
/** A quote rule whose literals have interpolations (#37). */
const hq = (rule: QuoteRule, holes: Holes): QuoteRule => ({ ...rule, holes });
/** `${…}` and `$name` (Kotlin, Dart, Scala, Groovy). */
const DOLLAR: Holes = { open: ["${"], dollar: "sigil" };
/** Ruby's `#{…}`. */
const RUBY_HOLES: Holes = { open: ["#{"] };
/** Shell's `$(…)`, `${…}`, backquotes and `$name` in a double-quoted string or a heredoc. */
const SHELL_HOLES: Holes = { open: ["$(", "${", "`"], dollar: "sigil" };
/** PHP's `{$x…}`, `${x}` and `$x`. */
const PHP_HOLES: Holes = { open: ["{$", "${"], dollar: "name" };

const C_COMMENTS = { line: [ln("//")], block: [blk("/*", "*/")] };
const C_NESTED = { line: [ln("//")], block: [blk("/*", "*/", true)] };
const DQ = q('"');
const SQ = q("'");
const RUST_DQ = q('"', "backslash", true);
const CHAR = q("'", "backslash", false, "'", "char");

/** C and C++: a literal's encoding prefix (u8, u, U, L) and C++'s R"delim( … )delim" (u8R, LR, uR, UR too). */
const cLiteral: Hook = (t, i, out) => {
  if (i > 0 && isIdent(t.charCodeAt(i - 1))) return -1;
  let j = i;
  if (t.startsWith("u8", j)) j += 2;
  else if (t[j] === "u" || t[j] === "U" || t[j] === "L") j++;
  const raw = t[j] === "R";
  if (raw) j++;
  const q = t.charCodeAt(j);
  if (j === i || (q !== 34 && (q !== 39 || raw))) return -1;
  let e: number;
  if (raw) {
    const open = t.indexOf("(", j + 1);
    if (open < 0 || open - (j + 1) > 16) return -1;
    const close = `)${t.slice(j + 1, open)}"`;
    const k = t.indexOf(close, open + 1);
    e = k < 0 ? t.length : k + close.length;
  } else e = quoteEnd(t, j + 1, q === 34 ? DQ : SQ);
  out.fill(STRING, i, e);
  return e;
};

/** Rust: r"…", r#"…"#, br#"…"#, cr"…" (no escapes; as many '#' to close as to open); b"…", c"…" and b'x'. */
const rustRaw: Hook = (t, i, out) => {
  if (i > 0 && isIdent(t.charCodeAt(i - 1))) return -1;
  let j = i;
  if (t[j] === "b" || t[j] === "c") j++;
  if (t[j] !== "r") {
    // A prefixed literal with escapes: b"…" and c"…" as strings, b'x' as a character.
    if (j === i) return -1;
    let e = -1;
    if (t[j] === '"') e = quoteEnd(t, j + 1, RUST_DQ);
    else if (t[j] === "'" && t[i] === "b") {
      const k = t.indexOf("'", j + (t[j + 1] === "\\" ? 3 : 2));
      e = k < 0 || k > lineEnd(t, j) ? -1 : k + 1;
    }
    if (e < 0) return -1;
    out.fill(STRING, i, e);
    return e;
  }
  j++;
  let hashes = 0;
  while (t[j] === "#") {
    hashes++;
    j++;
  }
  if (t[j] !== '"') return -1;
  const close = `"${"#".repeat(hashes)}`;
  const k = t.indexOf(close, j + 1);
  const e = k < 0 ? t.length : k + close.length;
  out.fill(STRING, i, e);
  return e;
};

/** Swift: #"…"# raw strings (any number of '#'; """ inside them too). */
const swiftRaw: Hook = (t, i, out) => {
  let j = i;
  while (t[j] === "#") j++;
  if (t[j] !== '"') return -1;
  const hashes = "#".repeat(j - i);
  const multi = t.startsWith('"""', j);
  const close = (multi ? '"""' : '"') + hashes;
  const k = t.indexOf(close, j + (multi ? 3 : 1));
  const e = k < 0 ? t.length : k + close.length;
  out.fill(STRING, i, e);
  return e;
};

/** Lua: long brackets, [[ … ]], [==[ … ]==] as strings and --[[ … ]] as comments. */
const luaLong: Hook = (t, i, out) => {
  const comment = t.startsWith("--", i);
  const b = comment ? i + 2 : i;
  let j = b + 1;
  while (t[j] === "=") j++;
  if (t[b] !== "[" || t[j] !== "[") {
    // Not a long bracket: `--` comments out the rest of the line; a lone `[` is code.
    if (!comment) return -1;
    const e = lineEnd(t, i);
    out.fill(COMMENT, i, e);
    return e;
  }
  const close = `]${"=".repeat(j - b - 1)}]`;
  const k = t.indexOf(close, j + 1);
  const e = k < 0 ? t.length : k + close.length;
  out.fill(comment ? COMMENT : STRING, i, e);
  return e;
};

/** Zig: a line that continues a multiline string starts with \\ (the rest of the line is string). */
const zigLines: Hook = (t, i, out) => {
  if (t.charCodeAt(i + 1) !== 92) return -1;
  const e = lineEnd(t, i);
  out.fill(STRING, i, e);
  return e;
};

/** Skips an escaped unit: TeX's \%, Clojure's \; and \", Erlang's $" and $%, Lisp's #\; (code). */
const escapedUnit =
  (lead: string): Hook =>
  (t, i) => {
    if (!t.startsWith(lead, i)) return -1;
    const j = i + lead.length;
    return j < t.length ? j + (t.charCodeAt(j) === 92 ? 2 : 1) : -1;
  };

/** Haskell and Elm: `--` starts a comment unless the dashes are part of an operator (`-->`, `--+`). */
const haskellDashes: Hook = (t, i, out) => {
  if (t.charCodeAt(i + 1) !== 45) return -1;
  let j = i + 2;
  while (t.charCodeAt(j) === 45) j++;
  if (j < t.length && "!#$%&*+./<=>?@\\^|~:".includes(t[j] as string)) return j;
  const e = lineEnd(t, i);
  out.fill(COMMENT, i, e);
  return e;
};

/** PHP: `#` comments, but `#[` opens an attribute (code). */
const phpHash: Hook = (t, i, out) => {
  if (t.charCodeAt(i + 1) === 91) return i + 1;
  const e = lineEnd(t, i);
  out.fill(COMMENT, i, e);
  return e;
};

/** For a hook that scans a literal nested in another (no heredoc can start there). */
const NO_LATER: Later = { at: Number.POSITIVE_INFINITY, to: 0 };

/**
 * The end of an interpolation's expression from just after its `{`: at the `}` that closes it, string
 * literals inside it passed over whole (`{a ? "x}" : b}`).
 */
function holeEnd(t: string, from: number, open: number, close: number, str: (k: number) => number): number {
  let depth = 1;
  let k = from;
  while (k < t.length) {
    const c = t.charCodeAt(k);
    if (c === open) depth++;
    else if (c === close && --depth === 0) return k + 1;
    else {
      const e = str(k);
      if (e > k) {
        k = e;
        continue;
      }
    }
    k++;
  }
  return t.length;
}

/**
 * C#: @"…" verbatim ("" for a quote), $"…{x}…" interpolated (a string inside a hole does not end it), $@"…",
 * @$"…", and """…""" raw strings with or without $ (as many quotes to close as to open). The whole literal is
 * string, its holes too.
 */
const csString: Hook = (t, i, out) => {
  if (i > 0 && isIdent(t.charCodeAt(i - 1))) return -1;
  let j = i;
  while (t[j] === "@" || t[j] === "$") j++;
  if (j === i || t[j] !== '"') return -1;
  const prefix = t.slice(i, j);
  const verbatim = prefix.includes("@");
  const holes = prefix.includes("$");
  let e: number;
  const spans: number[] = [];
  if (t.startsWith('"""', j)) {
    let k = j;
    while (t[k] === '"') k++;
    const close = t.slice(j, k);
    const c = t.indexOf(close, k);
    e = c < 0 ? t.length : c + close.length;
  } else if (!holes) e = quoteEnd(t, j + 1, q('"', "double", true));
  else {
    const n = t.length;
    e = n;
    for (let k = j + 1; k < n; ) {
      const c = t.charCodeAt(k);
      if (c === 92 && !verbatim) k += 2;
      else if (c === 34) {
        if (verbatim && t.charCodeAt(k + 1) === 34) k += 2;
        else {
          e = k + 1;
          break;
        }
      } else if ((c === 10 || c === 13) && !verbatim) {
        e = k;
        break;
      } else if (c === 123 && t.charCodeAt(k + 1) === 123) k += 2;
      else if (c === 123) {
        const a = k + 1;
        k = holeEnd(t, a, 123, 125, (x) => (t[x] === '"' ? csString(t, x, out, NO_LATER) : -1));
        spans.push(a, k - 1);
      } else k++;
    }
  }
  out.fill(STRING, i, e);
  // A hole's expression is code (#37), up to its format (`{x:N2}`: string); its `{` and `}` are string.
  for (let h = 0; h < spans.length; h += 2) {
    out.fill(0, spans[h] as number, spans[h + 1] as number);
    holeCode(t, spans[h] as number, 125, ":", CSHARP, out);
  }
  return e;
};
/** Shell: a double-quoted string's rule (its holes: SHELL_HOLES). */
const SHELL_DQ = q('"', "backslash", true);

/** Shell: $'…' (backslash escapes) and $"…" as strings, the `$` included; a $"…" has holes as "…" has. */
const shellDollar = (t: string, i: number, out: Uint8Array): number => {
  const c = t.charCodeAt(i + 1);
  if (c === 39) {
    const e = quoteEnd(t, i + 2, q("'", "backslash", true));
    out.fill(STRING, i, e);
    return e;
  }
  if (c === 34) return holeyEnd(t, i, i + 2, SHELL_DQ, SHELL_HOLES, SHELL, out);
  return -1;
};

/**
 * A heredoc body's holes (Ruby `#{…}`, shell `$(…)`, PHP `{$x}`), when its delimiter is not quoted: the body
 * is string already; each hole's expression is lexed as code.
 */
function heredocHoles(t: string, body: [number, number], holes: Holes, s: Syntax, out: Uint8Array): void {
  if (body[0] >= body[1]) return;
  out.fill(0, body[0], body[1]);
  holeyEnd(t, body[0], body[0], HEREDOC_BODY, holes, s, out, body[1]);
}
/** A heredoc body as holeyEnd reads it: no closer (its end is given), backslash escapes. */
const HEREDOC_BODY = q("", "backslash", true, "\u0000");

/** A heredoc's delimiter word at j: bare, quoted ('EOF', "EOF") or escaped (\EOF); null when none. */
function heredocWord(t: string, j: number, first: RegExp): { word: string; end: number } | null {
  const c = t[j];
  if (c === "'" || c === '"') {
    const e = t.indexOf(c, j + 1);
    if (e < 0 || e > lineEnd(t, j)) return null;
    return { word: t.slice(j + 1, e), end: e + 1 };
  }
  let k = c === "\\" ? j + 1 : j;
  if (!first.test(t[k] ?? "")) return null;
  const s = k;
  while (k < t.length && isIdent(t.charCodeAt(k))) k++;
  return { word: t.slice(s, k), end: k };
}

/** Shell: `<<EOF` and `<<-EOF` (tabs before the delimiter) heredocs; `<<<` is a here-string (code). */
const shellHook: Hook = (t, i, out, later) => {
  if (t[i] === "$") return shellDollar(t, i, out);
  if (t[i] === '"') return holeyEnd(t, i, i + 1, SHELL_DQ, SHELL_HOLES, SHELL, out);
  if (t[i + 1] !== "<" || t[i + 2] === "<" || (i > 0 && t[i - 1] === "<")) return -1;
  let j = i + 2;
  const indented = t[j] === "-";
  if (indented) j++;
  while (t[j] === " " || t[j] === "\t") j++;
  const w = heredocWord(t, j, /[A-Za-z_]/);
  if (w === null || w.word === "") return -1;
  const body = heredoc(t, w.end, w.word, indented, out, later);
  // A quoted or escaped delimiter ('EOF', "EOF", \EOF) keeps the body as it is: no holes.
  if (!"'\"\\".includes(t[j] as string)) heredocHoles(t, body, SHELL_HOLES, SHELL, out);
  return w.end;
};

/** Ruby: `<<~ID`, `<<-ID` (indented delimiter) and `<<ID` (an upper-case or quoted delimiter) heredocs; `%Q{…}` and `%q{…}`. */
const rubyHeredoc: Hook = (t, i, out, later) => {
  if (t[i] === "%") return rubyPercent(t, i, out);
  if (t[i + 1] !== "<") return -1;
  let j = i + 2;
  const indented = t[j] === "~" || t[j] === "-";
  if (indented) j++;
  const w = heredocWord(t, j, indented ? /[A-Za-z_]/ : /[A-Z_]/);
  if (w === null || w.word === "") return -1;
  const body = heredoc(t, w.end, w.word, indented, out, later);
  // <<~'EOS' is raw; <<~EOS and <<~"EOS" have holes.
  if (t[j] !== "'") heredocHoles(t, body, RUBY_HOLES, RUBY, out);
  return w.end;
};

/** The closing unit of a percent literal's opening one (a bracket's pair, else itself). */
const PERCENT_CLOSE: Readonly<Record<string, string>> = { "{": "}", "(": ")", "[": "]", "<": ">" };

/**
 * Ruby: `%Q{…}` (holes `#{…}`) and `%q{…}` (none) strings, any bracket or punctuation delimiter, brackets
 * nesting (#37). A bare `%(…)` and `%w[…]` stay code (a `%` may be the modulo operator: an approximation).
 */
function rubyPercent(t: string, i: number, out: Uint8Array): number {
  const kind = t[i + 1];
  const open = t[i + 2] ?? "";
  if ((kind !== "Q" && kind !== "q") || (i > 0 && isIdent(t.charCodeAt(i - 1)))) return -1;
  if (open === "" || !"{([<|!/^~".includes(open)) return -1;
  const close = PERCENT_CLOSE[open] ?? open;
  const n = t.length;
  let seg = i;
  let depth = 0;
  let k = i + 3;
  let end = n;
  while (k < n) {
    const c = t[k];
    if (c === "\\") k += 2;
    else if (kind === "Q" && c === "#" && t[k + 1] === "{") {
      out.fill(STRING, seg, k + 2);
      k = holeCode(t, k + 2, 125, "", RUBY, out);
      seg = k;
      k++;
    } else if (c === close && depth === 0) {
      end = k + 1;
      break;
    } else {
      if (c === close) depth--;
      else if (c === open) depth++;
      k++;
    }
  }
  out.fill(STRING, seg, Math.min(end, n));
  return Math.min(end, n);
}

/** PHP: `#` comments but `#[` attributes; `<<<ID`, `<<<"ID"` heredocs and `<<<'ID'` nowdocs. */
const phpHook: Hook = (t, i, out, later) => {
  if (t[i] === "#") return phpHash(t, i, out, later);
  if (!t.startsWith("<<<", i)) return -1;
  let j = i + 3;
  while (t[j] === " " || t[j] === "\t") j++;
  const w = heredocWord(t, j, /[A-Za-z_]/);
  if (w === null || w.word === "") return -1;
  const body = heredoc(t, w.end, w.word, true, out, later, true);
  // A nowdoc (<<<'ID') has no holes.
  if (t[j] !== "'") heredocHoles(t, body, PHP_HOLES, PHP, out);
  return w.end;
};

const C: Syntax = { ...C_COMMENTS, quotes: [DQ, SQ], hook: cLiteral, hookFirst: "RuUL" };
const JAVA: Syntax = { ...C_COMMENTS, quotes: [q('"""', "backslash", true), DQ, SQ] };
const KOTLIN: Syntax = {
  ...C_NESTED,
  quotes: [hq(q('"""', "none", true), DOLLAR), hq(DQ, DOLLAR), SQ],
};
/** Scala: a literal with an interpolator before it (`s"…"`, `f"…"`, `raw"…"`, any name) has holes. */
const SCALA: Syntax = {
  ...C_NESTED,
  quotes: [q('"""', "none", true), DQ, SQ],
  prefixes: [],
  prefixHoles: { test: () => true, holes: DOLLAR },
};
const GROOVY: Syntax = {
  ...C_COMMENTS,
  quotes: [hq(q('"""', "backslash", true), DOLLAR), q("'''", "backslash", true), hq(DQ, DOLLAR), SQ],
};
const CSHARP: Syntax = {
  ...C_COMMENTS,
  quotes: [q('"""', "none", true), DQ, SQ],
  hook: csString,
  hookFirst: "@$",
};
const GO: Syntax = { ...C_COMMENTS, quotes: [q("`", "none", true), DQ, SQ] };
const RUST: Syntax = {
  ...C_NESTED,
  quotes: [RUST_DQ, CHAR],
  hook: rustRaw,
  hookFirst: "rbc",
};
const SWIFT: Syntax = {
  ...C_NESTED,
  quotes: [hq(q('"""', "backslash", true), { open: ["\\("] }), hq(DQ, { open: ["\\("] })],
  hook: swiftRaw,
  hookFirst: "#",
};
const DART: Syntax = {
  ...C_NESTED,
  quotes: [
    hq(q('"""', "backslash", true), DOLLAR),
    hq(q("'''", "backslash", true), DOLLAR),
    hq(DQ, DOLLAR),
    hq(SQ, DOLLAR),
  ],
  // r"…" is raw: no escapes, no holes.
  prefixes: ["r"],
};
const PHP: Syntax = {
  line: [ln("//")],
  block: [blk("/*", "*/")],
  quotes: [hq(q('"', "backslash", true), PHP_HOLES), q("'", "backslash", true), q("`", "backslash", true)],
  hook: phpHook,
  hookFirst: "#<",
};
const CSS: Syntax = { line: [], block: [blk("/*", "*/")], quotes: [DQ, SQ] };
const SCSS: Syntax = { ...C_COMMENTS, quotes: [DQ, SQ] };
const ZIG: Syntax = { line: [ln("//")], block: [], quotes: [DQ, SQ], hook: zigLines, hookFirst: "\\" };
const JSONC: Syntax = { ...C_COMMENTS, quotes: [DQ] };
const PYTHON: Syntax = {
  line: [ln("#")],
  block: [],
  quotes: [q('"""', "backslash", true), q("'''", "backslash", true), DQ, SQ],
  prefixes: ["r", "u", "b", "f", "br", "rb", "fr", "rf"],
  // f-strings: replacement fields are code, their conversion and format spec string (`{x!r:>{w}}`).
  prefixHoles: { test: (p) => p.includes("f"), holes: { open: ["{"], doubled: true, spec: "!:" } },
  statements: true,
};
const RUBY: Syntax = {
  line: [ln("#")],
  block: [blk("=begin", "=end", false, "col0")],
  quotes: [hq(q('"', "backslash", true), RUBY_HOLES), q("'", "backslash", true)],
  hook: rubyHeredoc,
  hookFirst: "<%",
};
const PERL: Syntax = {
  line: [ln("#")],
  block: [blk("=pod", "=cut", false, "col0"), blk("=head", "=cut", false, "col0")],
  quotes: [q('"', "backslash", true), q("'", "backslash", true)],
};
const SHELL: Syntax = {
  line: [ln("#", "word")],
  block: [],
  quotes: [q('"', "backslash", true), q("'", "none", true)],
  hook: shellHook,
  hookFirst: '$"<',
};
const POWERSHELL: Syntax = {
  line: [ln("#")],
  block: [blk("<#", "#>")],
  quotes: [q('"', "double", true), q("'", "double", true)],
};
const HASH_DQ_SQ: Syntax = {
  line: [ln("#")],
  block: [],
  quotes: [q('"', "backslash", true), q("'", "backslash", true)],
};
const JULIA: Syntax = {
  line: [ln("#")],
  block: [blk("#=", "=#", true)],
  quotes: [q('"""', "backslash", true), q('"', "backslash", true), CHAR],
  statements: true,
};
const ELIXIR: Syntax = {
  line: [ln("#")],
  block: [],
  quotes: [
    q('"""', "backslash", true),
    q("'''", "backslash", true),
    q('"', "backslash", true),
    q("'", "backslash", true),
  ],
};
const NIM: Syntax = {
  line: [ln("#")],
  block: [blk("#[", "]#", true)],
  quotes: [q('"""', "none", true), DQ, CHAR],
};
const YAML: Syntax = {
  line: [ln("#", "word")],
  block: [],
  quotes: [q('"', "backslash", true, '"', "value"), q("'", "double", true, "'", "value")],
  hook: yamlBlock,
  hookFirst: "|>",
};
const TOML: Syntax = {
  line: [ln("#")],
  block: [],
  quotes: [q('"""', "backslash", true), q("'''", "none", true), DQ, q("'", "none")],
};
const INI: Syntax = { line: [ln("#", "line"), ln(";", "line")], block: [], quotes: [] };
const MAKE: Syntax = { line: [ln("#")], block: [], quotes: [] };
const DOCKER: Syntax = { line: [ln("#", "line")], block: [], quotes: [] };
const CMAKE: Syntax = {
  line: [ln("#")],
  block: [blk("#[[", "]]"), blk("#[=[", "]=]")],
  quotes: [q('"', "backslash", true)],
};
const NIX: Syntax = {
  line: [ln("#")],
  block: [blk("/*", "*/")],
  quotes: [q('"', "backslash", true), q("''", "none", true)],
};
const TERRAFORM: Syntax = { line: [ln("#"), ln("//")], block: [blk("/*", "*/")], quotes: [DQ] };
/** PostgreSQL: $$ … $$ and $tag$ … $tag$ dollar-quoted strings ($1 is a parameter: code). */
const sqlDollar: Hook = (t, i, out) => {
  if (i > 0 && isIdent(t.charCodeAt(i - 1))) return -1;
  let j = i + 1;
  const c = t.charCodeAt(j);
  if (c >= 48 && c <= 57) return -1;
  while (j < t.length && t[j] !== "$" && isIdent(t.charCodeAt(j))) j++;
  if (t[j] !== "$") return -1;
  const tag = t.slice(i, j + 1);
  const k = t.indexOf(tag, j + 1);
  const e = k < 0 ? t.length : k + tag.length;
  out.fill(STRING, i, e);
  return e;
};
const SQL: Syntax = {
  line: [ln("--")],
  block: [blk("/*", "*/")],
  quotes: [q("'", "double", true)],
  hook: sqlDollar,
  hookFirst: "$",
};
const LUA: Syntax = { line: [], block: [], quotes: [DQ, SQ], hook: luaLong, hookFirst: "-[" };
const HASKELL: Syntax = {
  line: [],
  block: [blk("{-", "-}", true)],
  quotes: [DQ, CHAR],
  identExtra: "'",
  hook: haskellDashes,
  hookFirst: "-",
};
const ADA: Syntax = { line: [ln("--")], block: [], quotes: [q('"', "double"), CHAR] };
const OCAML: Syntax = {
  line: [],
  block: [blk("(*", "*)", true)],
  quotes: [q('"', "backslash", true), CHAR],
  identExtra: "'",
};
const FSHARP: Syntax = {
  line: [ln("//")],
  block: [blk("(*", "*)", true)],
  quotes: [q('"""', "none", true), q('"', "backslash", true), CHAR],
  identExtra: "'",
};
const ERLANG: Syntax = {
  line: [ln("%")],
  block: [],
  quotes: [q('"', "backslash", true)],
  hook: escapedUnit("$"),
  hookFirst: "$",
};
const TEX: Syntax = { line: [ln("%")], block: [], quotes: [], hook: escapedUnit("\\"), hookFirst: "\\" };
const LISP: Syntax = {
  line: [ln(";")],
  block: [blk("#|", "|#", true)],
  quotes: [q('"', "backslash", true)],
  hook: escapedUnit("#\\"),
  hookFirst: "#",
};
const CLOJURE: Syntax = {
  line: [ln(";")],
  block: [],
  quotes: [q('"', "backslash", true)],
  hook: escapedUnit("\\"),
  hookFirst: "\\",
};
const ASM: Syntax = { line: [ln(";"), ln("#", "line")], block: [], quotes: [DQ] };
const FORTRAN: Syntax = { line: [ln("!")], block: [], quotes: [q('"', "double"), q("'", "double")] };
const VB: Syntax = {
  line: [ln("'"), ln("REM ", "line"), ln("rem ", "line")],
  block: [],
  quotes: [q('"', "double")],
};
const MARKUP: Syntax = { line: [], block: [blk("<!--", "-->")], quotes: [] };
const VIM: Syntax = { line: [ln('"', "line")], block: [], quotes: [] };
const BATCH: Syntax = {
  line: [ln("REM ", "line"), ln("rem ", "line"), ln("::", "line")],
  block: [],
  quotes: [],
};

/** Each language of the table (by name) and its syntax; the JavaScript family is "js" or "jsx". */
const SYNTAX: Readonly<Record<string, Syntax | "js" | "jsx">> = {
  C: C,
  "C++": C,
  "C#": CSHARP,
  Java: JAVA,
  Kotlin: KOTLIN,
  Scala: SCALA,
  Groovy: GROOVY,
  Go: GO,
  Rust: RUST,
  Swift: SWIFT,
  "Objective-C": C,
  Dart: DART,
  JavaScript: "jsx",
  TypeScript: "js",
  PHP: PHP,
  CSS: CSS,
  SCSS: SCSS,
  Zig: ZIG,
  "Protocol Buffers": { ...C_COMMENTS, quotes: [DQ, SQ] },
  JSON: JSONC,
  Python: PYTHON,
  Ruby: RUBY,
  Perl: PERL,
  Shell: SHELL,
  PowerShell: POWERSHELL,
  R: HASH_DQ_SQ,
  Julia: JULIA,
  Elixir: ELIXIR,
  Nim: NIM,
  YAML: YAML,
  TOML: TOML,
  INI: INI,
  Makefile: MAKE,
  Dockerfile: DOCKER,
  CMake: CMAKE,
  Nix: NIX,
  Terraform: TERRAFORM,
  SQL: SQL,
  Lua: LUA,
  Haskell: HASKELL,
  Elm: HASKELL,
  Ada: ADA,
  OCaml: OCAML,
  "F#": FSHARP,
  Erlang: ERLANG,
  TeX: TEX,
  Lisp: LISP,
  Clojure: CLOJURE,
  Scheme: LISP,
  Assembly: ASM,
  Fortran: FORTRAN,
  "Visual Basic": VB,
  HTML: MARKUP,
  XML: MARKUP,
  Vue: MARKUP,
  Svelte: MARKUP,
  Markdown: MARKUP,
  "Vim script": VIM,
  Batch: BATCH,
};

/**
 * Returns the region lexer of a file, from its language and name.
 * @param language the language's name in the built-in table (or null when the table does not know the file)
 * @param name the file's name (TypeScript's .tsx and JavaScript's files allow JSX; .ts does not)
 * @returns the lexer, or null when the language has no code regions (plain text, CSV, reStructuredText) or is
 *   unknown: such a file is never taken as all code
 */
export function regionLexer(language: string | null, name: string): RegionLexer | null {
  const cursor = regionCursor(language, name);
  return cursor === null ? null : (t) => cursor(t)(t.length);
}

/**
 * Whether grep's `in` can lex a file by its name: true when its name names a language with a lexer, false when
 * one without (skipped.unknown_language, never read), null when it names none (its `#!` line decides: it is read).
 * @param name the file's name (no directory)
 * @returns true, false or null
 */
export function lexedByName(name: string): boolean | null {
  const lang = languageOf(name);
  return lang === null ? null : regionLexer(lang.name, name) !== null;
}

/**
 * Returns the region lexer of a file that lexes only as far as asked (see RegionCursorLexer).
 * @param language the language's name in the built-in table (or null when the table does not know the file)
 * @param name the file's name
 * @returns the lexer, or null as regionLexer gives null
 */
export function regionCursor(language: string | null, name: string): RegionCursorLexer | null {
  if (language === null) return null;
  const s = SYNTAX[language];
  if (s === undefined) return null;
  if (s === "js" || s === "jsx") {
    const jsx = s === "jsx" || name.toLowerCase().endsWith(".tsx");
    return (t) => {
      const out = new Uint8Array(t.length);
      const st = jsStart();
      return (upTo) => {
        if (st.i <= upTo && st.i < t.length) scanJs(t, out, jsx, st, upTo);
        return out;
      };
    };
  }
  const doc = DOCSTRINGS[language];
  if (doc !== undefined) {
    // A docstring is told by what follows its string (the rest of its line, the next statement): lexed whole.
    return (t) => {
      let out: Uint8Array | null = null;
      return () => {
        if (out === null) {
          out = new Uint8Array(t.length);
          const starts: number[] = [];
          scanWith(t, s, out, scanStart(), t.length, doc === "elixir" ? null : starts);
          markDocstrings(t, out, doc, starts);
        }
        return out;
      };
    };
  }
  return (t) => {
    const out = new Uint8Array(t.length);
    const st = scanStart();
    return (upTo) => {
      if (st.i <= upTo && st.i < t.length) scanWith(t, s, out, st, upTo);
      return out;
    };
  };
}

/** The languages with docstrings, and the rule of each (docs/decisions/0042-docstrings.md). */
const DOCSTRINGS: Readonly<Record<string, DocstringRule>> = {
  Python: "python",
  Julia: "julia",
  Elixir: "elixir",
};

/** The languages whose lexer marks docstrings (for documentation and tests). */
export const DOCSTRING_LANGUAGES: readonly string[] = Object.keys(DOCSTRINGS);

/** Texts one of which a file must hold to have a docstring, per rule (count need not lex a file with none). */
const DOCSTRING_MARKERS: Readonly<Record<DocstringRule, readonly string[]>> = {
  python: ['"', "'"],
  julia: ['"'],
  elixir: ["@doc", "@moduledoc", "@typedoc"],
};

/** Units that may open a comment by a hook, beyond the tables' markers. */
const HOOK_COMMENTS = new Map<Syntax, readonly string[]>([
  [LUA, ["--"]],
  [HASKELL, ["--"]],
  [PHP, ["#"]],
]);

/**
 * The texts one of which a file must hold for its lexer to find a comment or a docstring in it (`//` and `/*`
 * for JavaScript): a file with none of them has neither, and count need not lex it.
 * @param language the language's name in the built-in table
 * @returns the markers, or null when the language has no region lexer
 */
export function commentMarkers(language: string): readonly string[] | null {
  const s = SYNTAX[language];
  if (s === undefined) return null;
  if (s === "js" || s === "jsx") return ["//", "/*"];
  const doc = DOCSTRINGS[language];
  return [
    ...s.line.map((r) => r.text),
    ...s.block.map((b) => b.open),
    ...(HOOK_COMMENTS.get(s) ?? []),
    ...(doc === undefined ? [] : DOCSTRING_MARKERS[doc]),
  ];
}

/**
 * Tells whether a language's block comments nest as its lexer reads them (`#= a #= b =# c =#` is one comment in
 * Julia): count's rules name these languages from here, never from a list written by hand.
 * @param language the language's name in the built-in table
 * @returns true when one of its block comments nests
 */
export function blockCommentsNest(language: string): boolean {
  const s = SYNTAX[language];
  return s !== undefined && s !== "js" && s !== "jsx" && s.block.some((b) => b.nested);
}

/** The languages of the built-in table that have a region lexer (for documentation and tests). */
export const LEXED_LANGUAGES: readonly string[] = Object.keys(SYNTAX);
