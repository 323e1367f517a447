/*! Engine: the built-in language table (name, extensions, file names, comment markers) used by count to tell
 * code lines from comment lines. Pure data and lookups: it never reads a file. */

import type { ByKey } from "../contract/breakdown.ts";

/** A language: how its files are named and how its comments are written. */
export interface Language {
  readonly name: string;
  /** Markers that comment out the rest of a line ("//", "#", "--", ";"…). */
  readonly line: readonly string[];
  /** Block comment pairs [open, close] ("/*" "*\/", "<!--" "-->"…); they may span lines. */
  readonly block: ReadonlyArray<readonly [string, string]>;
  /** Block comments nest: an opener inside a comment opens another level (Haskell, Rust, Swift…). */
  readonly nested: boolean;
}

const C_LINE = ["//"];
const C_BLOCK: ReadonlyArray<readonly [string, string]> = [["/*", "*/"]];
const HASH = ["#"];
const NONE: ReadonlyArray<readonly [string, string]> = [];

/** [name, extensions (lowercase, no dot), exact file names, line markers, block pairs]. */
const TABLE: ReadonlyArray<
  readonly [
    string,
    readonly string[],
    readonly string[],
    readonly string[],
    ReadonlyArray<readonly [string, string]>,
  ]
> = [
  ["C", ["c", "h"], [], C_LINE, C_BLOCK],
  ["C++", ["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "ipp", "inl"], [], C_LINE, C_BLOCK],
  ["C#", ["cs"], [], C_LINE, C_BLOCK],
  ["Java", ["java"], [], C_LINE, C_BLOCK],
  ["Kotlin", ["kt", "kts"], [], C_LINE, C_BLOCK],
  ["Scala", ["scala", "sc"], [], C_LINE, C_BLOCK],
  ["Groovy", ["groovy", "gradle"], [], C_LINE, C_BLOCK],
  ["Go", ["go"], [], C_LINE, C_BLOCK],
  ["Rust", ["rs"], [], C_LINE, C_BLOCK],
  ["Swift", ["swift"], [], C_LINE, C_BLOCK],
  ["Objective-C", ["m", "mm"], [], C_LINE, C_BLOCK],
  ["Dart", ["dart"], [], C_LINE, C_BLOCK],
  ["JavaScript", ["js", "mjs", "cjs", "jsx"], [], C_LINE, C_BLOCK],
  ["TypeScript", ["ts", "mts", "cts", "tsx"], [], C_LINE, C_BLOCK],
  ["PHP", ["php", "phtml"], [], ["//", "#"], C_BLOCK],
  ["CSS", ["css"], [], [], C_BLOCK],
  ["SCSS", ["scss", "less"], [], C_LINE, C_BLOCK],
  ["Zig", ["zig"], [], C_LINE, NONE],
  ["Protocol Buffers", ["proto"], [], C_LINE, C_BLOCK],
  ["JSON", ["json", "jsonc", "json5"], [], C_LINE, C_BLOCK],
  ["Python", ["py", "pyi", "pyw"], [], HASH, NONE],
  ["Ruby", ["rb", "rake", "gemspec"], ["Rakefile", "Gemfile"], HASH, [["=begin", "=end"]]],
  ["Perl", ["pl", "pm"], [], HASH, [["=pod", "=cut"]]],
  ["Shell", ["sh", "bash", "zsh", "ksh", "fish"], [".bashrc", ".zshrc", ".profile"], HASH, NONE],
  ["PowerShell", ["ps1", "psm1", "psd1"], [], HASH, [["<#", "#>"]]],
  ["R", ["r"], [], HASH, NONE],
  ["Julia", ["jl"], [], HASH, [["#=", "=#"]]],
  ["Elixir", ["ex", "exs"], [], HASH, NONE],
  ["Nim", ["nim"], [], HASH, [["#[", "]#"]]],
  ["YAML", ["yml", "yaml"], [], HASH, NONE],
  ["TOML", ["toml"], [], HASH, NONE],
  ["INI", ["ini", "cfg", "conf", "properties"], [], ["#", ";"], NONE],
  ["Makefile", ["mk", "mak"], ["Makefile", "makefile", "GNUmakefile"], HASH, NONE],
  ["Dockerfile", ["dockerfile"], ["Dockerfile", "Containerfile"], HASH, NONE],
  ["CMake", ["cmake"], ["CMakeLists.txt"], HASH, [["#[[", "]]"]]],
  ["Nix", ["nix"], [], HASH, C_BLOCK],
  ["Terraform", ["tf", "tfvars", "hcl"], [], ["#", "//"], C_BLOCK],
  ["SQL", ["sql"], [], ["--"], C_BLOCK],
  [
    "Lua",
    ["lua"],
    [],
    ["--"],
    [
      ["--[[", "]]"],
      ["--[=[", "]=]"],
      ["--[==[", "]==]"],
      ["--[===[", "]===]"],
    ],
  ],
  ["Haskell", ["hs", "lhs"], [], ["--"], [["{-", "-}"]]],
  ["Elm", ["elm"], [], ["--"], [["{-", "-}"]]],
  ["Ada", ["adb", "ads"], [], ["--"], NONE],
  ["OCaml", ["ml", "mli"], [], [], [["(*", "*)"]]],
  ["F#", ["fs", "fsi", "fsx"], [], C_LINE, [["(*", "*)"]]],
  ["Erlang", ["erl", "hrl"], [], ["%"], NONE],
  ["TeX", ["tex", "sty", "cls"], [], ["%"], NONE],
  ["Lisp", ["lisp", "lsp", "cl", "el"], [], [";"], [["#|", "|#"]]],
  ["Clojure", ["clj", "cljs", "cljc", "edn"], [], [";"], NONE],
  ["Scheme", ["scm", "ss", "rkt"], [], [";"], [["#|", "|#"]]],
  ["Assembly", ["asm", "s"], [], [";", "#"], NONE],
  ["Fortran", ["f90", "f95", "f03", "f08"], [], ["!"], NONE],
  ["Visual Basic", ["vb", "bas", "vbs"], [], ["'"], NONE],
  ["HTML", ["html", "htm", "xhtml"], [], [], [["<!--", "-->"]]],
  ["XML", ["xml", "xsd", "xsl", "xslt", "svg", "plist", "csproj"], [], [], [["<!--", "-->"]]],
  [
    "Vue",
    ["vue"],
    [],
    C_LINE,
    [
      ["<!--", "-->"],
      ["/*", "*/"],
    ],
  ],
  [
    "Svelte",
    ["svelte"],
    [],
    C_LINE,
    [
      ["<!--", "-->"],
      ["/*", "*/"],
    ],
  ],
  ["Markdown", ["md", "markdown", "mdx"], [], [], [["<!--", "-->"]]],
  ["reStructuredText", ["rst"], [], [], NONE],
  ["Plain Text", ["txt", "text"], [], [], NONE],
  ["CSV", ["csv", "tsv"], [], [], NONE],
  ["Vim script", ["vim"], [".vimrc"], ['"'], NONE],
  ["Batch", ["bat", "cmd"], [], ["REM ", "rem ", "::"], NONE],
];

/** The languages whose block comments nest, by their specifications (count's rules name them). */
const NESTED_LANGUAGES: readonly string[] = ["Haskell", "Rust", "Swift", "Scala", "Kotlin", "OCaml", "Dart"];
const NESTED = new Set(NESTED_LANGUAGES);

/** The languages by extension and by exact file name. */
interface LanguageLookups {
  readonly byExt: Map<string, Language>;
  readonly byName: Map<string, Language>;
  /** By the language's own name ("Shell"), for a `#!` line's interpreter. */
  readonly byLanguage: Map<string, Language>;
  /** In the table's order: a language's number (languageNumber) is its place here + 1. */
  readonly list: readonly Language[];
  readonly numbers: Map<Language, number>;
}

/** Built on first use (module load stays cheap for commands that never ask for a language). */
let lookups: LanguageLookups | null = null;
function languageLookups(): LanguageLookups {
  if (lookups !== null) return lookups;
  const byExt = new Map<string, Language>();
  const byName = new Map<string, Language>();
  const byLanguage = new Map<string, Language>();
  const list: Language[] = [];
  const numbers = new Map<Language, number>();
  for (const [name, exts, names, line, block] of TABLE) {
    const lang: Language = { name, line, block, nested: NESTED.has(name) };
    for (const e of exts) byExt.set(e, lang);
    for (const n of names) byName.set(n, lang);
    byLanguage.set(name, lang);
    list.push(lang);
    numbers.set(lang, list.length);
  }
  lookups = { byExt, byName, byLanguage, list, numbers };
  return lookups;
}

/** The languages of the table, by name (for documentation and tests). */
export const LANGUAGE_NAMES: readonly string[] = TABLE.map((t) => t[0]);

/**
 * Returns the extension of a file name as count reports it: lowercase, with the dot ("" when none).
 * @param name a file name (no directory)
 * @returns ".ts", ".gz", or "" for "Makefile" and ".bashrc"
 */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/**
 * Returns a file's breakdown key (count --by, grep --by).
 * @param by what the breakdown groups by
 * @param rel the file's path relative to the base
 * @param name its name
 * @param language its language (from the built-in table), or null
 * @returns the extension ('(none)' without one), language ('(unknown)'), first directory ('.') or the path
 */
export function breakdownKey(by: ByKey, rel: string, name: string, language: string | null): string {
  if (by === "file") return rel;
  if (by === "ext") return extensionOf(name) || "(none)";
  if (by === "language") return language ?? "(unknown)";
  const slash = rel.indexOf("/");
  return slash < 0 ? "." : rel.slice(0, slash);
}

/**
 * Returns the language of a file from its name (exact names first, then the extension).
 * @param name a file name (no directory)
 * @returns the language, or null when the table does not know it
 */
export function languageOf(name: string): Language | null {
  const { byExt, byName } = languageLookups();
  const named = byName.get(name);
  if (named) return named;
  const ext = extensionOf(name);
  return ext === "" ? null : (byExt.get(ext.slice(1)) ?? null);
}

/**
 * File type names (as rg spells its types, where rg has one) for each language of the table, first the
 * name, then aliases. `--lang NAME` / `file_types` select the files of these languages; the file sets are the
 * table's extensions and names (so `count --by language` and a file type agree), not rg's globs.
 */
const TYPE_NAMES: Readonly<Record<string, readonly string[]>> = {
  C: ["c"],
  "C++": ["cpp"],
  "C#": ["cs", "csharp"],
  Java: ["java"],
  Kotlin: ["kotlin"],
  Scala: ["scala"],
  Groovy: ["groovy"],
  Go: ["go"],
  Rust: ["rust", "rs"],
  Swift: ["swift"],
  "Objective-C": ["objc"],
  Dart: ["dart"],
  JavaScript: ["js", "javascript"],
  TypeScript: ["ts", "typescript"],
  PHP: ["php"],
  CSS: ["css"],
  SCSS: ["scss"],
  Zig: ["zig"],
  "Protocol Buffers": ["protobuf"],
  JSON: ["json"],
  Python: ["py", "python"],
  Ruby: ["ruby", "rb"],
  Perl: ["perl"],
  Shell: ["sh", "shell"],
  PowerShell: ["ps", "powershell"],
  R: ["r"],
  Julia: ["julia"],
  Elixir: ["elixir"],
  Nim: ["nim"],
  YAML: ["yaml", "yml"],
  TOML: ["toml"],
  INI: ["ini", "config"],
  Makefile: ["make"],
  Dockerfile: ["docker"],
  CMake: ["cmake"],
  Nix: ["nix"],
  Terraform: ["terraform", "tf"],
  SQL: ["sql"],
  Lua: ["lua"],
  Haskell: ["haskell"],
  Elm: ["elm"],
  Ada: ["ada"],
  OCaml: ["ocaml"],
  "F#": ["fsharp"],
  Erlang: ["erlang"],
  TeX: ["tex"],
  Lisp: ["lisp"],
  Clojure: ["clojure"],
  Scheme: ["scheme"],
  Assembly: ["asm"],
  Fortran: ["fortran"],
  "Visual Basic": ["vb"],
  HTML: ["html"],
  XML: ["xml"],
  Vue: ["vue"],
  Svelte: ["svelte"],
  Markdown: ["md", "markdown"],
  reStructuredText: ["rst"],
  "Plain Text": ["txt"],
  CSV: ["csv"],
  "Vim script": ["vim"],
  Batch: ["bat", "batch"],
};

/** A file type: its name, aliases, the language it selects and that language's globs (for --type-list). */
interface FileType {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly language: string;
  readonly globs: readonly string[];
}

/** The file types in the table's order, and by name and alias. */
interface TypeTables {
  readonly list: readonly FileType[];
  readonly byName: Map<string, FileType>;
}

/** Built on first use, as the language lookups are. */
let types: TypeTables | null = null;
function typeTables(): TypeTables {
  if (types !== null) return types;
  const list = TABLE.map(([language, exts, names]): FileType => {
    const [name, ...aliases] = TYPE_NAMES[language] ?? [language.toLowerCase()];
    return {
      name: name as string,
      aliases,
      language,
      globs: [...exts.map((e) => `*.${e}`), ...names],
    };
  });
  const byName = new Map<string, FileType>();
  for (const t of list) for (const n of [t.name, ...t.aliases]) byName.set(n, t);
  types = { list, byName };
  return types;
}

/**
 * Returns every built-in file type, in the table's order (built on first use).
 * @returns the types
 */
export function fileTypes(): readonly FileType[] {
  return typeTables().list;
}

/**
 * Returns a built-in file type by its name or an alias.
 * @param name e.g. "py" or "python"
 * @returns the type, or undefined
 */
export function fileTypeNamed(name: string): FileType | undefined {
  return typeTables().byName.get(name);
}

/**
 * The languages an interpreter named by a `#!` line runs, by the interpreter's name with its version digits
 * dropped (`python3.12` → `python`), as GitHub's linguist reads shebangs.
 */
const INTERPRETERS: Readonly<Record<string, readonly string[]>> = {
  python: ["Python"],
  pypy: ["Python"],
  node: ["JavaScript"],
  nodejs: ["JavaScript"],
  "ts-node": ["TypeScript"],
  tsx: ["TypeScript"],
  deno: ["TypeScript", "JavaScript"],
  bun: ["TypeScript", "JavaScript"],
  sh: ["Shell"],
  bash: ["Shell"],
  zsh: ["Shell"],
  ksh: ["Shell"],
  dash: ["Shell"],
  ash: ["Shell"],
  fish: ["Shell"],
  ruby: ["Ruby"],
  perl: ["Perl"],
  php: ["PHP"],
  pwsh: ["PowerShell"],
  rscript: ["R"],
  julia: ["Julia"],
  elixir: ["Elixir"],
  lua: ["Lua"],
  luajit: ["Lua"],
  groovy: ["Groovy"],
  kscript: ["Kotlin"],
  scala: ["Scala"],
  swift: ["Swift"],
  dart: ["Dart"],
  gorun: ["Go"],
  "rust-script": ["Rust"],
  runghc: ["Haskell"],
  runhaskell: ["Haskell"],
  make: ["Makefile"],
  escript: ["Erlang"],
  ocaml: ["OCaml"],
  guile: ["Scheme"],
  racket: ["Scheme"],
  sbcl: ["Lisp"],
  clojure: ["Clojure"],
  bb: ["Clojure"],
  nim: ["Nim"],
};

/** Decodes a `#!` line (module-wide: made once). */
const lineDecoder = new TextDecoder();

/** The bytes of a `#!` line read, as Linux reads them (BINPRM_BUF_SIZE): a longer line is cut there. */
export const SHEBANG_MAX = 256;

/**
 * Returns the `#!` line a file's first bytes start with (after a UTF-8 byte order mark; up to its newline or
 * SHEBANG_MAX bytes, a CR before the newline dropped), for shebangLanguages and scriptLanguage: the --lang note,
 * count and grep read it alike.
 * @param head the file's first bytes (its first SHEBANG_MAX + 3 are enough)
 * @returns the line, or "" when the bytes start with no `#!`
 */
export function shebangLine(head: Uint8Array): string {
  const at = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  if (head.length < at + 2 || head[at] !== 0x23 || head[at + 1] !== 0x21) return "";
  const line = head.subarray(at, at + SHEBANG_MAX);
  const end = line.indexOf(0x0a);
  return lineDecoder.decode(line.subarray(0, end < 0 ? line.length : end)).replace(/\r$/, "");
}

/**
 * Returns the languages a file's first line names as its interpreter (`#!/usr/bin/env python3`,
 * `#!/bin/bash -e`, `#!/usr/bin/env -S deno run`), for the note that says which scripts a file type left out.
 * @param line the file's first line, without its newline
 * @returns the interpreter's name and its languages (none when the line is no `#!` or names no interpreter the
 *   table knows), or null when the line is no `#!`
 */
export function shebangLanguages(line: string): { interpreter: string; languages: readonly string[] } | null {
  if (!line.startsWith("#!")) return null;
  const words = line.slice(2).trim().split(/\s+/);
  let i = 0;
  const base = (w: string) => w.slice(w.lastIndexOf("/") + 1);
  if (base(words[0] ?? "") === "env") {
    i = 1;
    while (i < words.length && (words[i] as string).startsWith("-")) i++; // env -S, env -i
  }
  const interpreter = base(words[i] ?? "");
  const key = interpreter.toLowerCase().replace(/[\d.]+$/, "");
  return { interpreter, languages: INTERPRETERS[key] ?? [] };
}

/**
 * Returns the language of a file whose name gives none (languageOf is null: no extension, or one the table does
 * not know), by its first bytes: the language its `#!` line's interpreter runs (the first: `deno` and `bun` run
 * TypeScript first), as tokei and cloc read shebangs. The one rule count, grep's `in` and `--by language` share:
 * the name decides when it names a language, else the `#!` line (file types, `--lang`, select by name only).
 * @param head the file's first bytes (SHEBANG_MAX + 3 are enough)
 * @returns the language, or null when the bytes start with no `#!` or it names no interpreter the table knows
 */
export function scriptLanguage(head: Uint8Array): Language | null {
  const name = shebangLanguages(shebangLine(head))?.languages[0];
  return name === undefined ? null : (languageLookups().byLanguage.get(name) ?? null);
}

/**
 * Returns a language's number, as a worker's reply names it (a number both ways, never a name looked up again).
 * @param lang a language of the table, or null
 * @returns its place in the table + 1, or 0 for null
 */
export function languageNumber(lang: Language | null): number {
  return lang === null ? 0 : (languageLookups().numbers.get(lang) ?? 0);
}

/**
 * Returns the language of a number languageNumber gave.
 * @param n the number
 * @returns the language, or null for 0 (or a number of no language)
 */
export function languageNumbered(n: number): Language | null {
  return n > 0 ? (languageLookups().list[n - 1] ?? null) : null;
}
