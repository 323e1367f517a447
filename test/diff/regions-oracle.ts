// Independent tokenizers for the region lexers' differential tests: the TypeScript compiler's parser and
// scanner (a devDependency) for JavaScript and TypeScript, Python's own tokenize module for Python.
// Each gives one region code per UTF-16 unit (0 code, 1 comment, 2 string), as src/engine/regions does.
import ts from "typescript";

const CODE = 0;
const COMMENT = 1;
const STRING = 2;

const STRING_KINDS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

function scriptKind(name: string): ts.ScriptKind {
  if (name.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (/\.(m|c)?ts$/.test(name)) return ts.ScriptKind.TS;
  return ts.ScriptKind.JSX;
}

/**
 * Classifies a JavaScript or TypeScript text with the TypeScript compiler: the parser decides what is a regex,
 * a template part or JSX; every token's trivia gives the comments (getTrailingCommentRanges and getLeadingCommentRanges).
 * String literals and template heads, middles and tails (their `${` and `}` included) are strings; a regex
 * literal, JSX text and a shebang line are code.
 * @returns the regions, and whether the parser reported syntax errors (such a file is not compared)
 */
export function tsRegions(text: string, name: string): { regions: Uint8Array; errors: number } {
  const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, scriptKind(name));
  const out = new Uint8Array(text.length);
  // The comments in a token's trivia [pos, start): those on the previous token's line are "trailing", the
  // others "leading"; both are comments.
  const comments = (pos: number, start: number) => {
    for (const r of ts.getTrailingCommentRanges(text, pos) ?? [])
      if (r.end <= start) out.fill(COMMENT, r.pos, r.end);
    for (const r of ts.getLeadingCommentRanges(text, pos) ?? [])
      if (r.end <= start) out.fill(COMMENT, r.pos, r.end);
  };
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    // A JSDoc comment is a child of the node it documents (the end-of-file token's too, in a file of comments
    // only): it is trivia here, so a node whose only children are JSDoc is a leaf.
    const isDoc = (k: ts.Node) =>
      k.kind >= ts.SyntaxKind.FirstJSDocNode && k.kind <= ts.SyntaxKind.LastJSDocNode;
    const kids = node.getChildren(sf).filter((k) => !isDoc(k));
    if (kids.length === 0 || STRING_KINDS.has(node.kind)) {
      // JSX text has no trivia: `// x` in it is text.
      if (node.kind === ts.SyntaxKind.JsxText) return;
      const start = node.getStart(sf);
      comments(node.pos, start);
      if (STRING_KINDS.has(node.kind)) out.fill(STRING, start, node.end);
      // JSX attribute strings are StringLiteral nodes too.
      return;
    }
    for (const k of kids) visit(k);
  };
  visit(sf);
  const diags = (sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics ?? [];
  return { regions: out, errors: diags.length };
}

/**
 * Classifies Python files with python3's tokenize module (one process for many files); an f-string's units are
 * FSTRING (tokenize gives its replacement fields no tokens before Python 3.12).
 * @param files absolute paths
 * @returns per file, the regions of its text as decoded by Python (null when tokenize failed on it)
 */
export function pythonRegions(
  files: readonly string[],
): Map<string, { text: string; regions: Uint8Array } | null> {
  const script = `
import sys, tokenize, io, json
out = {}
for path in sys.argv[1:]:
    try:
        with open(path, 'rb') as f:
            raw = f.read()
        text = raw.decode('utf-8')
        if text.startswith('\\ufeff'):
            text = text[1:]
        lines = io.StringIO(text).readlines()
        starts = [0]
        for l in lines:
            starts.append(starts[-1] + len(l))
        spans = []
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                (sl, sc), (el, ec) = tok.start, tok.end
                kind = 1 if tok.type == tokenize.COMMENT else 2
                # An f-string is one token before Python 3.12: its replacement fields are told by another oracle.
                prefix = tok.string[:len(tok.string) - len(tok.string.lstrip('rRbBuUfF'))]
                if kind == 2 and 'f' in prefix.lower():
                    kind = 9
                spans.append([kind, starts[sl-1] + sc, starts[el-1] + ec])
        out[path] = {"text": text, "spans": spans}
    except Exception as e:
        out[path] = None
print(json.dumps(out))
`;
  const r = Bun.spawnSync(["python3", "-c", script, ...files], { stdout: "pipe", stderr: "pipe" });
  const parsed = JSON.parse(r.stdout.toString()) as Record<
    string,
    { text: string; spans: Array<[number, number, number]> } | null
  >;
  const res = new Map<string, { text: string; regions: Uint8Array } | null>();
  for (const [p, v] of Object.entries(parsed)) {
    if (v === null) {
      res.set(p, null);
      continue;
    }
    // Python counts code points; the lexer counts UTF-16 units: map the offsets.
    const units = unitOffsets(v.text);
    const u = units[units.length - 1] as number;
    const regions = new Uint8Array(u);
    for (const [kind, s, e] of v.spans) regions.fill(kind, units[s] as number, units[e] as number);
    res.set(p, { text: v.text, regions });
  }
  return res;
}

/**
 * The region pythonRegions gives an f-string's units: tokenize before Python 3.12 makes an f-string one token,
 * so which of its units are a replacement field's code is left to tree-sitter's Python grammar (#37).
 */
const FSTRING = 9;

export { CODE, COMMENT, FSTRING, STRING };

/**
 * Returns the UTF-16 offset of each code point of a text, and its length last: Python's offsets count code points,
 * the lexers count UTF-16 units.
 * @param text the text
 * @returns the offsets (one more than the code points)
 */
export function unitOffsets(text: string): number[] {
  const units: number[] = [];
  let u = 0;
  for (const ch of text) {
    units.push(u);
    u += ch.length;
  }
  units.push(u);
  return units;
}
