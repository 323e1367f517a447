// Independent tokenizers for the region lexers' differential tests beyond JavaScript/TypeScript and Python (those
// are in regions-oracle.ts): tree-sitter's parsers (web-tree-sitter, a devDependency, with the prebuilt grammars
// of tree-sitter-wasms and @tree-sitter-grammars/tree-sitter-yaml), sql-parser-cst for SQL, and python3's expat
// for XML. Each gives one region code per UTF-16 unit (0 code, 1 comment, 2 string), as src/engine/regions does.
// docs/decisions/0036-region-oracles.md says why these and which rules both sides share.
import { join } from "node:path";
import { Language, Parser, type TreeCursor } from "web-tree-sitter";
import { ROOT } from "../helpers.ts";

const COMMENT = 1;
const STRING = 2;

/** A grammar and the node types that are comments and string literals in it (each filled whole). */
interface Grammar {
  readonly wasm: string;
  readonly comment: readonly string[];
  readonly string: readonly string[];
  /** Heredoc nodes: their body is string from the line after the opener to the end of the delimiter. */
  readonly heredoc?: readonly string[];
  /**
   * A string's (or heredoc body's) children that are interpolations (#37): code, but for the delimiters the
   * node starts and ends with (`#{` `}`, `${` `}`, `$(` `)`, a name's `$`), which stay string; what is inside is
   * classified as anywhere else.
   */
  readonly holes?: readonly string[];
  /** Holes that are code whole, delimiters too (PHP's `$x`). */
  readonly wholeHoles?: readonly string[];
}

const WASMS = join(ROOT, "node_modules", "tree-sitter-wasms", "out");
const ts = (lang: string) => join(WASMS, `tree-sitter-${lang}.wasm`);

/**
 * Per language family (named as in src/engine/languages.ts), the tree-sitter grammar. A string literal is its
 * node whole (quotes, prefix, escapes), but for its interpolations' expressions (`holes`: `"${x}"` in Kotlin,
 * `$"{x}"` in C#, `"#{x}"` in Ruby, `"$(cmd)"` in shell, `f"{x}"` in Python), which are code, as the lexers
 * classify them; a format spec in a hole (Python's `!r:>{w}`, C#'s `:N2`) is string. Not mapped, so code on both sides: C's `<stdio.h>` after
 * #include, HTML/XML attribute values (markup lexes comments only), Ruby's regex literals and %w() arrays.
 */
export const GRAMMARS: Readonly<Record<string, Grammar>> = {
  Go: {
    wasm: ts("go"),
    comment: ["comment"],
    string: ["interpreted_string_literal", "raw_string_literal", "rune_literal"],
  },
  Rust: {
    wasm: ts("rust"),
    comment: ["line_comment", "block_comment"],
    string: ["string_literal", "raw_string_literal", "char_literal"],
  },
  Java: {
    wasm: ts("java"),
    comment: ["line_comment", "block_comment"],
    string: ["string_literal", "character_literal", "text_block"],
  },
  Kotlin: {
    wasm: ts("kotlin"),
    comment: ["line_comment", "multiline_comment"],
    string: ["string_literal", "character_literal"],
    holes: ["interpolated_expression", "interpolated_identifier"],
  },
  C: { wasm: ts("c"), comment: ["comment"], string: ["string_literal", "char_literal"] },
  "C++": {
    wasm: ts("cpp"),
    comment: ["comment"],
    string: ["string_literal", "char_literal", "raw_string_literal"],
  },
  "C#": {
    wasm: ts("c_sharp"),
    comment: ["comment"],
    string: [
      "string_literal",
      "verbatim_string_literal",
      "interpolated_string_expression",
      "character_literal",
      "raw_string_literal",
      "interpolation_format_clause",
    ],
    holes: ["interpolation"],
  },
  Ruby: {
    wasm: ts("ruby"),
    comment: ["comment"],
    string: ["string", "character", "subshell"],
    heredoc: ["heredoc_body"],
    holes: ["interpolation"],
  },
  PHP: {
    wasm: ts("php"),
    comment: ["comment"],
    string: ["string", "encapsed_string", "shell_command_expression"],
    heredoc: ["heredoc", "nowdoc"],
    // In "…" and heredocs: `$x`, `{$x…}` (the braces are the string's children), `${x}`.
    holes: ["variable_name", "subscript_expression", "member_access_expression", "dynamic_variable_name"],
    // `$x` is code whole (its `$` too), as the variable's name.
    wholeHoles: ["variable_name"],
  },
  Shell: {
    wasm: join(ROOT, "node_modules", "tree-sitter-bash", "tree-sitter-bash.wasm"),
    comment: ["comment"],
    string: ["string", "raw_string", "ansi_c_string", "translated_string"],
    heredoc: ["heredoc_body"],
    holes: ["command_substitution", "expansion", "simple_expansion"],
  },
  CSS: { wasm: ts("css"), comment: ["comment"], string: ["string_value"] },
  HTML: { wasm: ts("html"), comment: ["comment"], string: [] },
  YAML: {
    wasm: join(ROOT, "node_modules", "@tree-sitter-grammars", "tree-sitter-yaml", "tree-sitter-yaml.wasm"),
    comment: ["comment"],
    string: ["double_quote_scalar", "single_quote_scalar", "block_scalar"],
  },
  TOML: {
    wasm: join(ROOT, "node_modules", "@tree-sitter-grammars", "tree-sitter-toml", "tree-sitter-toml.wasm"),
    comment: ["comment"],
    string: ["string", "quoted_key"],
  },
  Python: {
    wasm: ts("python"),
    comment: ["comment"],
    string: ["string", "type_conversion", "format_specifier"],
    holes: ["interpolation", "format_expression"],
  },
};

let ready: Promise<void> | null = null;
const parsers = new Map<string, Parser>();

async function parserFor(language: string): Promise<Parser> {
  ready ??= Parser.init();
  await ready;
  const hit = parsers.get(language);
  if (hit !== undefined) return hit;
  const g = GRAMMARS[language];
  if (g === undefined) throw new Error(`no tree-sitter grammar for ${language}`);
  const p = new Parser();
  p.setLanguage(await Language.load(g.wasm));
  parsers.set(language, p);
  return p;
}

/**
 * Classifies a text with tree-sitter's parser for its language: the nodes of the grammar's comment and string
 * types, each filled whole (a string's children too); everything else is code.
 * @returns the regions, or null when the parser recovered from a syntax error (no reference classification)
 */
export async function treeSitterRegions(text: string, language: string): Promise<Uint8Array | null> {
  const g = GRAMMARS[language] as Grammar;
  const tree = (await parserFor(language)).parse(text);
  if (tree === null) return null;
  try {
    if (tree.rootNode.hasError) return null;
    const out = new Uint8Array(text.length);
    const comment = new Set(g.comment);
    const string = new Set(g.string);
    const c: TreeCursor = tree.walk();
    // Depth first; a comment or a string is filled whole and its children are not visited. web-tree-sitter's
    // indices count UTF-16 units, as the lexers do.
    let down = true;
    while (true) {
      if (down) {
        // Named nodes only: PHP's type keyword `string` is an anonymous node of the same name.
        const type = c.nodeIsNamed ? c.nodeType : "";
        if (comment.has(type)) {
          // A line comment ends before its line break (tree-sitter-php takes the break after a comment that
          // ends with `?`).
          let e = c.endIndex;
          while (e > c.startIndex && (text[e - 1] === "\n" || text[e - 1] === "\r")) e--;
          out.fill(COMMENT, c.startIndex, e);
        } else if (string.has(type)) {
          let e = c.endIndex;
          // A YAML block scalar at the end of a file takes the last line break.
          if (type === "block_scalar") while (text[e - 1] === "\n" || text[e - 1] === "\r") e--;
          out.fill(STRING, c.startIndex, e);
          // A YAML block scalar's header may hold a comment (`run: |  # the script`).
          for (const k of c.currentNode.namedChildren)
            if (k !== null && comment.has(k.type)) out.fill(COMMENT, k.startIndex, k.endIndex);
          holesOf(c.currentNode, g, out);
        } else if (g.heredoc?.includes(type) === true) {
          heredocBody(text, c.currentNode, out);
          const node = c.currentNode;
          holesOf(node.namedChildren.find((k) => k?.type === "heredoc_body") ?? node, g, out);
        } else if (type === "preproc_arg") await macroBody(text, c.startIndex, c.endIndex, language, out);
        else if (c.gotoFirstChild()) continue;
      }
      if (c.gotoNextSibling()) {
        down = true;
        continue;
      }
      if (!c.gotoParent()) break;
      down = false;
    }
    c.delete();
    return out;
  } finally {
    tree.delete();
  }
}

/**
 * The holes of a string or heredoc body (Grammar.holes): code from after the anonymous children a hole starts
 * with (`#{`, `${`, `$`) to before the one it ends with (`}`, `)`), what is inside classified as anywhere else.
 */
function holesOf(node: import("web-tree-sitter").Node, g: Grammar, out: Uint8Array): void {
  for (const k of node.children) {
    if (k === null || !k.isNamed || g.holes?.includes(k.type) !== true) continue;
    const kids = k.children.filter((x) => x !== null);
    let a = k.startIndex;
    let i = 0;
    while (
      i < kids.length &&
      !(kids[i] as import("web-tree-sitter").Node).isNamed &&
      g.wholeHoles?.includes(k.type) !== true
    ) {
      a = (kids[i] as import("web-tree-sitter").Node).endIndex;
      i++;
    }
    const last = kids[kids.length - 1];
    const b = last !== undefined && !last.isNamed && i < kids.length ? last.startIndex : k.endIndex;
    out.fill(0, a, b);
    for (const x of kids) if (x.isNamed) classify(x, g, out);
  }
}

/** Classifies a node and what it holds as the main walk does (comments, strings with their holes, code). */
function classify(n: import("web-tree-sitter").Node, g: Grammar, out: Uint8Array): void {
  if (g.comment.includes(n.type)) out.fill(COMMENT, n.startIndex, n.endIndex);
  else if (g.string.includes(n.type)) {
    out.fill(STRING, n.startIndex, n.endIndex);
    holesOf(n, g, out);
  } else for (const k of n.children) if (k?.isNamed) classify(k, g, out);
}

/**
 * A heredoc's body as the lexers define it (docs/decisions/0031-code-regions.md): from the first unit of the line
 * after the opener to the end of the closing delimiter. The grammars draw it each their own way: bash's
 * heredoc_body stops before the delimiter's line (heredoc_end is its sibling), Ruby's starts at the opener
 * line's break, PHP's heredoc and nowdoc nodes hold the opener `<<<EOT` too.
 */
function heredocBody(text: string, node: import("web-tree-sitter").Node, out: Uint8Array): void {
  let a = node.startIndex;
  let b = node.endIndex;
  if (node.type === "heredoc" || node.type === "nowdoc") {
    const body = node.namedChildren.find((k) => k?.type === "heredoc_body" || k?.type === "nowdoc_body");
    if (body === undefined || body === null) return;
    a = body.startIndex;
  } else {
    const end = node.nextSibling;
    if (end?.type === "heredoc_end" && end.endIndex > b) b = end.endIndex;
    // bash's body of a `<<-` heredoc starts after the tabs of its first line.
    while (a > 0 && (text[a - 1] === "\t" || text[a - 1] === " ")) a--;
  }
  if (text[a] === "\r") a++;
  if (text[a] === "\n" && (a === 0 || text[a - 1] !== "\n")) a++;
  out.fill(STRING, a, b);
}

/**
 * C and C++: the grammar keeps a macro's body (`#define N 2 // two`) as raw text, its comments and strings
 * included; the body is parsed again on its own (error recovery kept: an expression is no translation unit,
 * but the grammar's lexer still finds its comments and literals) and those nodes are taken.
 */
async function macroBody(
  text: string,
  a: number,
  b: number,
  language: string,
  out: Uint8Array,
): Promise<void> {
  const g = GRAMMARS[language] as Grammar;
  // The stringizing and pasting operators `#` and `##` are blanked first: `"a" #x "b"` would read as a directive.
  const tree = (await parserFor(language)).parse(text.slice(a, b).replace(/#/g, " "));
  if (tree === null) return;
  const walk = (n: import("web-tree-sitter").Node): void => {
    if (n.isNamed && g.comment.includes(n.type)) out.fill(COMMENT, a + n.startIndex, a + n.endIndex);
    else if (n.isNamed && g.string.includes(n.type)) out.fill(STRING, a + n.startIndex, a + n.endIndex);
    else for (const k of n.children) if (k !== null) walk(k);
  };
  walk(tree.rootNode);
  tree.delete();
}

/** The offsets of a text's UTF-16 units by UTF-8 byte offset (for tokenizers that count bytes). */
function unitsByByte(text: string): Int32Array {
  const bytes = Buffer.byteLength(text, "utf8");
  const map = new Int32Array(bytes + 1);
  let b = 0;
  for (let u = 0; u < text.length; u++) {
    const c = text.charCodeAt(u);
    const w =
      c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
    for (let k = 0; k < w; k++) map[b + k] = u;
    b += w;
  }
  map[bytes] = text.length;
  return map;
}

/**
 * Classifies SQL with sql-parser-cst (PostgreSQL dialect, comments and ranges kept): comments, and string
 * literals (`'…'`, `E'…'`, `$$…$$`) are strings; a quoted identifier (`"name"`) is code, as the SQL lexer has it.
 * @returns the regions, or null when the parser rejects the text
 */
export function sqlRegions(text: string): Uint8Array | null {
  const { parse } = require("sql-parser-cst") as typeof import("sql-parser-cst");
  let cst: unknown;
  try {
    cst = parse(text, { dialect: "postgresql", includeComments: true, includeRange: true });
  } catch {
    return null;
  }
  const out = new Uint8Array(text.length);
  const seen = new Set<unknown>();
  const visit = (n: unknown): void => {
    if (n === null || typeof n !== "object" || seen.has(n)) return;
    seen.add(n);
    if (Array.isArray(n)) {
      for (const k of n) visit(k);
      return;
    }
    const node = n as { type?: string; range?: [number, number] } & Record<string, unknown>;
    if (node.range !== undefined) {
      const [a, b] = node.range;
      if (node.type === "line_comment" || node.type === "block_comment") out.fill(COMMENT, a, b);
      else if (node.type === "string_literal") out.fill(STRING, a, b);
    }
    for (const [k, v] of Object.entries(node)) if (k !== "range") visit(v);
  };
  visit(cst);
  return out;
}

/** psql's meta-commands (`\\echo …` lines of an extension script) blanked: they are not SQL (both sides get this text). */
export function sqlOnly(text: string): string {
  return text.replace(/^\\.*$/gm, (m) => " ".repeat(m.length));
}

/**
 * Classifies XML files with python3's expat parser: a comment's span from the byte index of its event to the
 * length of `<!--…-->`; everything else is code (the markup lexer classifies comments only).
 * @param files absolute paths
 * @returns per file, its text's regions (null when expat rejected it)
 */
export function xmlRegions(files: readonly string[], texts: readonly string[]): Array<Uint8Array | null> {
  const script = `
import sys, json
from xml.parsers import expat
res = []
for path in sys.argv[1:]:
    spans = []
    p = expat.ParserCreate()
    def on_comment(data, p=p, spans=spans):
        spans.append([p.CurrentByteIndex, p.CurrentByteIndex + len(("<!--" + data + "-->").encode("utf-8"))])
    p.CommentHandler = on_comment
    try:
        with open(path, "rb") as f:
            p.ParseFile(f)
        res.append(spans)
    except Exception:
        res.append(None)
print(json.dumps(res))
`;
  const r = Bun.spawnSync(["python3", "-c", script, ...files], { stdout: "pipe", stderr: "pipe" });
  const parsed = JSON.parse(r.stdout.toString()) as Array<Array<[number, number]> | null>;
  return parsed.map((spans, k) => {
    if (spans === null) return null;
    const text = texts[k] as string;
    const units = unitsByByte(text);
    const out = new Uint8Array(text.length);
    for (const [a, b] of spans) out.fill(COMMENT, units[a] as number, units[b] as number);
    return out;
  });
}
