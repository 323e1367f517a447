// Agent-style questions (#38), each answered by one grep call on a generated tree, each answer equal to an
// oracle computed with an independent tokenizer (the TypeScript compiler; python3's tokenize for Python files;
// tree-sitter's parsers for Go and Rust)
// and to the truth the generator wrote: TODO comments only (not the 'TODO' status string, a template literal or
// TODO_LIMIT); imports of a package in any form, not a mention in a comment or a string; empty catch blocks
// across lines, not inside template literals or comments.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prng, rglobJson, type TreeSpec, tempTree } from "../helpers.ts";
import { pythonRegions, tsRegions } from "./regions-oracle.ts";
import { treeSitterRegions } from "./regions-treesitter.ts";

type Question = "todo" | "import" | "catch";

/** A piece of a file: its text and, per question, the offsets of the lines (in the piece) that answer it. */
interface Piece {
  readonly text: string;
  readonly todo?: number[];
  readonly import?: number[];
  readonly catch?: number[];
}

const JS_PIECES: Piece[] = [
  { text: "// TODO: split this\n", todo: [0] },
  { text: "/* a note\n * TODO later */\n", todo: [1] },
  { text: 'const status = "TODO";\n' },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
  { text: "const label = `TODO ${n} left`; // done\n" },
  { text: "const TODO_LIMIT = 3;\n" },
  { text: 'import pad from "left-pad";\n', import: [0] },
  { text: "import { a, b } from 'left-pad';\n", import: [0] },
  { text: 'const p = require("left-pad");\n', import: [0] },
  { text: 'const lazy = await import("left-pad");\n', import: [0] },
  { text: 'export * from "left-pad";\n', import: [0] },
  { text: '// import old from "left-pad";\n' },
  { text: "const doc = \"import x from 'left-pad'\";\n" },
  { text: 'const tpl = `require("left-pad")`;\n' },
  { text: "try {\n  run();\n} catch (e) {\n}\n", catch: [2] },
  { text: "try { run(); } catch {\n\n}\n", catch: [0] },
  { text: "try { run(); } catch (err) { log(err); }\n" },
  { text: "const snippet = `try { x(); } catch (e) {\n}`;\n" },
  { text: "/* try { x(); } catch (e) {\n} */\n" },
  { text: "const re = /TODO|catch \\{\\}/;\n" },
];

const PY_PIECES: Piece[] = [
  { text: "# TODO: python note\n", todo: [0] },
  { text: 'status = "TODO"\n' },
  { text: 'doc = """\nTODO in a docstring\n"""\n' },
  { text: "TODO_LIMIT = 3  # TODO tune\n", todo: [0] },
  { text: "import left_pad\n", import: [0] },
  { text: "from left_pad import pad\n", import: [0] },
  { text: "# import left_pad\n" },
  { text: "s = 'from left_pad import pad'\n" },
];

// Go and Rust (oracle: tree-sitter's parsers): raw strings, nested block comments, an import in a raw string.
const GO_PIECES: Piece[] = [
  { text: "// TODO: go note\n", todo: [0] },
  { text: 'var status = "TODO"\n' },
  { text: "var raw = `\nTODO in a raw string // not a comment\n`\n" },
  { text: "/* a block\n   TODO later */\n", todo: [1] },
  { text: 'import pad "left-pad"\n', import: [0] },
  { text: '// import pad "left-pad"\n' },
  { text: 'var doc = `import pad "left-pad"`\n' },
];

const RS_PIECES: Piece[] = [
  { text: "// TODO: rust note\n", todo: [0] },
  { text: 'let s = r#"TODO "quoted" // not a comment"#;\n' },
  { text: "/* outer /* inner */ TODO still a comment */ let t = 1;\n", todo: [0] },
  { text: "let c = 'T'; let status = \"TODO\";\n" },
  { text: "fn f<'a>(x: &'a str) -> &'a str { x } // TODO lifetimes\n", todo: [0] },
];

const PATTERNS: Record<Question, { args: string[]; re: RegExp }> = {
  todo: { args: ["TODO", "--in", "comment"], re: /TODO/g },
  import: {
    args: [
      "(\\bimport\\b|\\brequire\\b|\\bfrom\\b)[^'\"\\n;]*['\"]left-pad['\"]|\\b(import|from) left_pad\\b",
      "--in",
      "code",
    ],
    re: /(\bimport\b|\brequire\b|\bfrom\b)[^'"\n;]*['"]left-pad['"]|\b(import|from) left_pad\b/g,
  },
  catch: {
    args: ["-U", "catch\\s*(\\([^)]*\\))?\\s*\\{\\s*\\}", "--in", "code"],
    re: /catch\s*(\([^)]*\))?\s*\{\s*\}/g,
  },
};
const REGION: Record<Question, number> = { todo: 1, import: 0, catch: 0 };

/** The generated tree and, per question, the truth: `rel:line` of every answer. */
function generate(seed: number): { spec: TreeSpec; truth: Record<Question, string[]> } {
  const rnd = prng(seed);
  const spec: TreeSpec = {};
  const truth: Record<Question, string[]> = { todo: [], import: [], catch: [] };
  const exts = ["ts", "tsx", "js", "mjs", "py", "go", "rs"];
  for (let f = 0; f < 56; f++) {
    const ext = exts[f % exts.length] as string;
    const rel = `pkg${f % 4}/file${f}.${ext}`;
    const pieces = ext === "py" ? PY_PIECES : ext === "go" ? GO_PIECES : ext === "rs" ? RS_PIECES : JS_PIECES;
    const js = !["py", "go", "rs"].includes(ext);
    let text = js ? "async function main() {\n" : ext === "go" ? "package p\n" : "";
    let line = js || ext === "go" ? 2 : 1;
    for (let k = 0; k < 12; k++) {
      const p = pieces[Math.floor(rnd() * pieces.length)] as Piece;
      for (const q of ["todo", "import", "catch"] as const)
        for (const off of p[q] ?? []) truth[q].push(`${rel}:${line + off}`);
      text += p.text;
      line += p.text.split("\n").length - 1;
    }
    if (js) text += "}\n";
    spec[rel] = text;
  }
  return { spec, truth };
}

const { spec, truth } = generate(38);
const t = tempTree(spec);
afterAll(() => t.cleanup());

const sortKeys = (xs: string[]) => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The oracle: the question's regex on each file, a match kept where the independent tokenizer puts its start. */
async function oracle(q: Question): Promise<string[]> {
  const out: string[] = [];
  const rels = Object.keys(spec);
  const py = pythonRegions(rels.filter((r) => r.endsWith(".py")).map((r) => join(t.dir, r)));
  for (const rel of rels) {
    const text = readFileSync(join(t.dir, rel), "utf8");
    const regions = rel.endsWith(".py")
      ? (py.get(join(t.dir, rel))?.regions ?? null)
      : rel.endsWith(".go")
        ? await treeSitterRegions(text, "Go")
        : rel.endsWith(".rs")
          ? await treeSitterRegions(text, "Rust")
          : tsRegions(text, rel).regions;
    if (regions === null) throw new Error(`the tokenizer rejected ${rel}`);
    const re = new RegExp(PATTERNS[q].re.source, "g");
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (regions[m.index] !== REGION[q]) continue;
      out.push(`${rel}:${text.slice(0, m.index).split("\n").length}`);
    }
  }
  return sortKeys(out);
}

const hasPython = Bun.spawnSync(["python3", "--version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0;
if (!hasPython) console.warn("SKIPPED: python3 is not installed; the agent-style region cases did not run");

describe.skipIf(!hasPython)("agent-style questions, one call each (skipped without python3)", () => {
  test.each(["todo", "import", "catch"] as const)(
    "%s: the answer is the tokenizers' and the truth",
    async (q) => {
      const r = rglobJson<{ results: Array<{ relative_path: string; line_number: number }> }>(
        ["grep", ...PATTERNS[q].args, "--json"],
        { cwd: t.dir },
      );
      expect(r.run.code).toBe(0);
      const answer = sortKeys(r.json.results.map((m) => `${m.relative_path}:${m.line_number}`));
      expect(truth[q].length).toBeGreaterThan(10);
      // The tree holds answers in Go and Rust files too (catch: none there).
      const langs = { todo: [".go:", ".rs:"], import: [".go:"], catch: [] }[q];
      for (const l of langs) expect(truth[q].some((k) => k.includes(l))).toBe(true);
      expect(await oracle(q)).toEqual(sortKeys(truth[q]));
      expect(answer).toEqual(sortKeys(truth[q]));
    },
  );
});
