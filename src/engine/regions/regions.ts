/*! Regions: which part of a source file each unit of its text lies in (code, comment or string literal), per
 * language of the built-in table (engine/languages.ts). One lexer per language family: JavaScript/TypeScript
 * has its own state machine (js.ts); the others are tables read by one scanner (scan.ts), with hooks for raw
 * strings, long brackets and character literals. grep's `in` option and count's comment lines both ask here.
 * Pure: never reads a file (docs/decisions/0031-code-regions.md). */
import { scanJs } from "./js.ts";
import {
  CODE,
  COMMENT,
  type Hook,
  isIdent,
  type LineRule,
  lineEnd,
  type QuoteRule,
  quoteEnd,
  STRING,
  type Syntax,
  scanWith,
} from "./scan.ts";

export { REGION_NAMES, type RegionName } from "../../contract/regions.ts";
export { CODE, COMMENT, STRING };

/** A lexer: classifies a decoded text into a Uint8Array of region codes, one per UTF-16 unit. */
export type RegionLexer = (t: string) => Uint8Array;

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

const C_COMMENTS = { line: [ln("//")], block: [blk("/*", "*/")] };
const C_NESTED = { line: [ln("//")], block: [blk("/*", "*/", true)] };
const DQ = q('"');
const SQ = q("'");
const CHAR = q("'", "backslash", false, "'", "char");

/** The identifier before i (letters only), for a raw string's prefix. */
function wordBefore(t: string, i: number): string {
  let k = i;
  while (k > 0 && isIdent(t.charCodeAt(k - 1))) k--;
  return t.slice(k, i);
}

/** C++: R"delim( … )delim" (and u8R, LR, uR, UR). */
const cppRaw: Hook = (t, i, out) => {
  if (t.charCodeAt(i + 1) !== 34) return -1;
  const before = wordBefore(t, i);
  if (!["", "u8", "L", "u", "U"].includes(before)) return -1;
  const open = t.indexOf("(", i + 2);
  if (open < 0 || open - (i + 2) > 16) return -1;
  const close = `)${t.slice(i + 2, open)}"`;
  const j = t.indexOf(close, open + 1);
  const e = j < 0 ? t.length : j + close.length;
  out.fill(STRING, i - before.length, e);
  return e;
};

/** Rust: r"…", r#"…"#, br#"…"#, cr"…" (no escapes; as many '#' to close as to open). */
const rustRaw: Hook = (t, i, out) => {
  if (i > 0 && isIdent(t.charCodeAt(i - 1))) return -1;
  let j = i;
  if (t[j] === "b" || t[j] === "c") j++;
  if (t[j] !== "r") return -1;
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

/** C#: @"…" and $@"…" verbatim strings ("" for a quote). */
const csVerbatim: Hook = (t, i, out) => {
  let j = i;
  while (t[j] === "@" || t[j] === "$") j++;
  if (j === i || t[j] !== '"' || !t.slice(i, j).includes("@")) return -1;
  const e = quoteEnd(t, j + 1, q('"', "double", true));
  out.fill(STRING, i, e);
  return e;
};

const C: Syntax = { ...C_COMMENTS, quotes: [DQ, SQ], hook: cppRaw, hookFirst: "R" };
const JAVA: Syntax = { ...C_COMMENTS, quotes: [q('"""', "backslash", true), DQ, SQ] };
const KOTLIN: Syntax = { ...C_NESTED, quotes: [q('"""', "none", true), DQ, SQ] };
const GROOVY: Syntax = {
  ...C_COMMENTS,
  quotes: [q('"""', "backslash", true), q("'''", "backslash", true), DQ, SQ],
};
const CSHARP: Syntax = {
  ...C_COMMENTS,
  quotes: [q('"""', "none", true), DQ, SQ],
  hook: csVerbatim,
  hookFirst: "@$",
};
const GO: Syntax = { ...C_COMMENTS, quotes: [q("`", "none", true), DQ, SQ] };
const RUST: Syntax = {
  ...C_NESTED,
  quotes: [q('"', "backslash", true), CHAR],
  hook: rustRaw,
  hookFirst: "rbc",
};
const SWIFT: Syntax = {
  ...C_NESTED,
  quotes: [q('"""', "backslash", true), DQ],
  hook: swiftRaw,
  hookFirst: "#",
};
const DART: Syntax = {
  ...C_NESTED,
  quotes: [q('"""', "backslash", true), q("'''", "backslash", true), DQ, SQ],
  prefixes: ["r"],
};
const PHP: Syntax = {
  line: [ln("//")],
  block: [blk("/*", "*/")],
  quotes: [q('"', "backslash", true), q("'", "backslash", true), q("`", "backslash", true)],
  hook: phpHash,
  hookFirst: "#",
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
};
const RUBY: Syntax = {
  line: [ln("#")],
  block: [blk("=begin", "=end", false, "col0")],
  quotes: [q('"', "backslash", true), q("'", "backslash", true)],
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
const SQL: Syntax = { line: [ln("--")], block: [blk("/*", "*/")], quotes: [q("'", "double", true)] };
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
  Scala: KOTLIN,
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
  if (language === null) return null;
  const s = SYNTAX[language];
  if (s === undefined) return null;
  if (s === "js" || s === "jsx") {
    const jsx = s === "jsx" || name.toLowerCase().endsWith(".tsx");
    return (t) => {
      const out = new Uint8Array(t.length);
      scanJs(t, out, jsx);
      return out;
    };
  }
  return (t) => {
    const out = new Uint8Array(t.length);
    scanWith(t, s, out);
    return out;
  };
}

/** The languages of the built-in table that have a region lexer (for documentation and tests). */
export const LEXED_LANGUAGES: readonly string[] = Object.keys(SYNTAX);
