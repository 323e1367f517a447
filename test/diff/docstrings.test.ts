// Docstrings (#37, docs/decisions/0042-docstrings.md) against independent judges, on generated Python files and a
// sample of python3's standard library:
// - Python's own ast: a docstring is a statement that is a str constant (not bytes, not an f-string), alone on
//   its lines (nothing but white space before it, white space or a comment after it) and not parenthesized;
// - Pygments' String.Doc tokens (a triple-quoted string that begins its line), on generated files whose strings
//   both rules classify alike (no single-quoted statement strings, no triple-quoted string inside brackets);
// - cloc's rule (every triple-quoted string a comment) on generated files where triple-quoted strings are only
//   docstrings: count's code, comment and blank lines are cloc's;
// and the CLI, the library and the MCP tool give the same counts and the same grep --in docstring matches.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { count, grepAll } from "../../src/agent/index.ts";
import { DOCSTRING, regionLexer } from "../../src/engine/regions/regions.ts";
import { rglobJson, skipWhen, tempTree } from "../helpers.ts";
import { startMcp } from "../surface/mcp-helpers.ts";
import { unitOffsets } from "./regions-oracle.ts";

const py = Bun.spawnSync(["python3", "-c", "import pygments; print(pygments.__version__)"], {
  stdout: "pipe",
  stderr: "pipe",
});
const noPython = Bun.spawnSync(["python3", "--version"], { stdout: "pipe", stderr: "pipe" }).exitCode !== 0;
const noPygments = py.exitCode !== 0;

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha", "it's", 'say "hi"', "# hash", "TODO", "x = 1", "'q'", "url://a", "tab\there", "ünï"];

/**
 * A generated Python file. `cloc` keeps triple-quoted strings to docstrings (so cloc's rule and count's agree);
 * otherwise assignments of triple-quoted strings and single-quoted statement strings are mixed in too.
 */
function genPython(seed: number, cloc: boolean): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const text = () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(WORDS)).join(" ");
  const q = () => pick(['"""', "'''"]);
  const doc = (ind: string) => {
    const quote = q();
    const prefix = pick(["", "", "r", "u", "R", "U"]);
    const body = text().replaceAll(quote[0] as string, "");
    if (r() < 0.5) return `${ind}${prefix}${quote}${body}${quote}${r() < 0.3 ? "  # note" : ""}\n`;
    const lines = Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      r() < 0.2 ? "" : `${ind}${text().replaceAll(quote[0] as string, "")}`,
    );
    return `${ind}${prefix}${quote}${body}\n${lines.join("\n")}\n${ind}${quote}\n`;
  };
  const stmt = (ind: string): string => {
    const k = Math.floor(r() * (cloc ? 6 : 8));
    if (k === 0) return `${ind}x = ${JSON.stringify(text())}  # ${text()}\n`;
    if (k === 1) return `${ind}# ${text()}\n`;
    if (k === 2) return `${ind}print(f"{x} ${text().replaceAll('"', "").replaceAll("{", "")}")\n`;
    if (k === 3) return "\n";
    if (k === 4) return `${ind}y = [\n${ind}    "a",\n${ind}    'b',\n${ind}]\n`;
    if (k === 5) return `${ind}z = b"bytes" + b'more'\n`;
    if (k === 6)
      return `${ind}s = ${q()}one\n${ind}two # not a comment\n${ind}${"'''"}\n`.replace(/'''\n$/, "'''\n");
    return `${ind}${JSON.stringify(text())}\n`;
  };
  let out = r() < 0.7 ? doc("") : "";
  out += "import os\n\n";
  for (let b = 0; b < 2 + Math.floor(r() * 4); b++) {
    if (r() < 0.3) out += "@decorator\n";
    if (r() < 0.5) {
      out += `def f${b}(a, b=1):\n`;
      if (r() < 0.3) out += "    # leading comment\n";
      if (r() < 0.8) out += doc("    ");
      for (let s = 0; s < 1 + Math.floor(r() * 4); s++) out += stmt("    ");
      out += "    return a\n\n";
    } else {
      out += `class C${b}:\n`;
      if (r() < 0.8) out += doc("    ");
      out += "    def m(self):\n";
      if (r() < 0.7) out += doc("        ");
      for (let s = 0; s < 1 + Math.floor(r() * 3); s++) out += stmt("        ");
      out += "        pass\n\n";
    }
  }
  return out;
}

/** Python's judges for a set of files: the ast's docstring spans and Pygments' String.Doc spans, in UTF-16 units. */
function judges(files: readonly string[], pygments: boolean) {
  const script = `
import sys, ast, json, io
out = {}
usepyg = sys.argv[1] == "1"
if usepyg:
    from pygments.lexers import PythonLexer
    from pygments.token import String
for path in sys.argv[2:]:
    try:
        text = open(path, encoding="utf-8").read()
        tree = ast.parse(text)
    except Exception:
        out[path] = None
        continue
    lines = io.StringIO(text).readlines()
    starts = [0]
    for l in lines:
        starts.append(starts[-1] + len(l))
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            v = node.value
            # ast columns are UTF-8 byte offsets within the line.
            sl = lines[v.lineno - 1].encode("utf-8")
            el = lines[v.end_lineno - 1].encode("utf-8")
            sc = len(sl[:v.col_offset].decode("utf-8"))
            ec = len(el[:v.end_col_offset].decode("utf-8"))
            before = lines[v.lineno - 1][:sc]
            after = lines[v.end_lineno - 1][ec:].strip()
            if before.strip() == "" and (after == "" or after.startswith("#")) and node.col_offset == v.col_offset \\
                    and text[starts[v.lineno - 1] + sc] not in "(":
                spans.append([starts[v.lineno - 1] + sc, starts[v.end_lineno - 1] + ec])
    pyg = []
    if usepyg:
        pending = None
        for i, tok, val in PythonLexer().get_tokens_unprocessed(text):
            if tok in String.Affix:
                pending = i
            elif tok in String.Doc:
                pyg.append([pending if pending is not None else i, i + len(val)])
                pending = None
            else:
                pending = None
    out[path] = {"text": text, "ast": spans, "pyg": pyg}
print(json.dumps(out))
`;
  const r = Bun.spawnSync(["python3", "-c", script, pygments ? "1" : "0", ...files], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  const parsed = JSON.parse(r.stdout.toString()) as Record<
    string,
    { text: string; ast: Array<[number, number]>; pyg: Array<[number, number]> } | null
  >;
  const res = new Map<string, { text: string; ast: Uint8Array; pyg: Uint8Array } | null>();
  for (const [p, v] of Object.entries(parsed)) {
    if (v === null) {
      res.set(p, null);
      continue;
    }
    const units = unitOffsets(v.text);
    const u = units[units.length - 1] as number;
    const mark = (spans: Array<[number, number]>) => {
      const m = new Uint8Array(u);
      for (const [s, e] of spans) m.fill(1, units[s] as number, units[e] as number);
      return m;
    };
    res.set(p, { text: v.text, ast: mark(v.ast), pyg: mark(v.pyg) });
  }
  return res;
}

/** Our docstring units (1) of a text; white space is left out of the comparison (the judges differ on it). */
function ours(text: string): Uint8Array {
  const lex = regionLexer("Python", "a.py");
  if (lex === null) throw new Error("no Python lexer");
  return lex(text).map((r) => (r === DOCSTRING ? 1 : 0));
}

function firstDiff(text: string, a: Uint8Array, b: Uint8Array): string | null {
  for (let i = 0; i < text.length; i++) {
    if (/\s/.test(text[i] as string)) continue;
    if (a[i] !== b[i])
      return `@${i} rglob=${a[i]} judge=${b[i]} ${JSON.stringify(text.slice(Math.max(0, i - 40), i + 40))}`;
  }
  return null;
}

const GEN = 60;
const gen: Record<string, string> = {};
const clocGen: Record<string, string> = {};
for (let i = 0; i < GEN; i++) {
  gen[`g${i}.py`] = genPython(1000 + i, false);
  clocGen[`c${i}.py`] = genPython(5000 + i, true);
}
let g = { dir: "", cleanup: () => {} };
let c = { dir: "", cleanup: () => {} };
beforeAll(() => {
  g = tempTree(gen);
  c = tempTree(clocGen);
});
afterAll(() => {
  g.cleanup();
  c.cleanup();
});

describe("docstrings against Python's ast", () => {
  skipWhen(noPython && "python3 is not installed")(
    "generated files and the standard library: every docstring unit the same",
    () => {
      const lib = Bun.spawnSync(["python3", "-c", "import os; print(os.path.dirname(os.__file__))"], {
        stdout: "pipe",
      })
        .stdout.toString()
        .trim();
      const std = readdirSync(lib)
        .filter((f) => f.endsWith(".py"))
        .sort()
        .map((f) => join(lib, f));
      const files = [...Object.keys(gen).map((f) => join(g.dir, f)), ...std];
      let compared = 0;
      const differing: string[] = [];
      for (let k = 0; k < files.length; k += 80)
        for (const [p, v] of judges(files.slice(k, k + 80), false)) {
          if (v === null) continue;
          compared++;
          const d = firstDiff(v.text, ours(v.text), v.ast);
          if (d !== null) differing.push(`${p} ${d}`);
        }
      console.log(
        `docstrings vs ast: ${compared} files (${GEN} generated), ${compared - differing.length} identical`,
      );
      expect(compared).toBeGreaterThan(GEN + 100);
      expect(differing).toEqual([]);
    },
    120_000,
  );
});

describe("docstrings against Pygments' String.Doc", () => {
  skipWhen(noPygments && "python3 has no pygments module")(
    "generated files with triple-quoted docstrings: every unit the same",
    () => {
      const files = Object.keys(clocGen).map((f) => join(c.dir, f));
      const differing: string[] = [];
      let compared = 0;
      for (const [p, v] of judges(files, true)) {
        if (v === null) continue;
        compared++;
        const d = firstDiff(v.text, ours(v.text), v.pyg);
        if (d !== null) differing.push(`${p} ${d}`);
      }
      console.log(
        `docstrings vs Pygments ${py.stdout.toString().trim()}: ${compared} files, ${compared - differing.length} identical`,
      );
      expect(compared).toBe(GEN);
      expect(differing).toEqual([]);
    },
    60_000,
  );
});

/** cloc's rule on a file whose triple-quoted strings are all docstrings: each line is code, comment or blank. */
function clocCount(text: string): { code: number; comment: number; blank: number } {
  const n = { code: 0, comment: 0, blank: 0 };
  let open: string | null = null;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const s = line.trim();
    if (s === "") {
      n.blank++;
      continue;
    }
    if (open !== null) {
      const k = s.indexOf(open);
      if (k >= 0) open = null;
      n.comment++;
      continue;
    }
    if (s.startsWith("#")) {
      n.comment++;
      continue;
    }
    const m = /^[rRuU]?('''|""")/.exec(s);
    if (m !== null) {
      const quote = m[1] as string;
      if (s.indexOf(quote, m[0].length) < 0) open = quote;
      n.comment++;
      continue;
    }
    n.code++;
  }
  return n;
}

interface Row {
  relative_path: string;
  code: number;
  comment: number;
  blank: number;
}
interface Counted {
  results: Row[];
  totals: { code: number; comment: number; docstring: number; blank: number; lines: number };
  breakdown: Array<Row & { key: string; docstring: number }> | null;
}

describe("count against cloc's rule, and the three surfaces", () => {
  test("generated files: count's code, comment and blank lines are cloc's, file by file", () => {
    const { json } = rglobJson<Counted>(["count", "--json"], { cwd: c.dir });
    expect(json.results.length).toBe(GEN);
    for (const r of json.results) {
      const want = clocCount(readFileSync(join(c.dir, r.relative_path), "utf8"));
      expect({ f: r.relative_path, code: r.code, comment: r.comment, blank: r.blank }).toEqual({
        f: r.relative_path,
        ...want,
      });
    }
    // tokei's convention from the same call: the docstring lines move to code.
    const tokei = rglobJson<Counted>(["count", "--json", "--docstrings", "code"], { cwd: c.dir }).json;
    expect(json.totals.docstring).toBeGreaterThan(0);
    expect(tokei.totals.code).toBe(json.totals.code + json.totals.docstring);
    expect(tokei.totals.comment).toBe(json.totals.comment - json.totals.docstring);
    expect(tokei.totals.docstring).toBe(json.totals.docstring);
  });

  test("the CLI, the library and the MCP tool give the same counts and docstring matches", async () => {
    const cli = rglobJson<Counted>(["count", "--json", "--by", "language"], { cwd: g.dir }).json;
    const cliCode = rglobJson<Counted>(["count", "--json", "--by", "language", "--docstrings", "code"], {
      cwd: g.dir,
    }).json;
    const lib = await count({ base: g.dir, by: "language" });
    const libCode = await count({ base: g.dir, by: "language", docstrings: "code" });
    expect(lib.totals).toEqual(cli.totals as unknown as typeof lib.totals);
    expect(lib.breakdown).toEqual(cli.breakdown as unknown as typeof lib.breakdown);
    expect(libCode.totals).toEqual(cliCode.totals as unknown as typeof libCode.totals);
    const grepCli = rglobJson<{ results: Array<{ relative_path: string; line_number: number }> }>(
      ["grep", "TODO", "--in", "docstring", "--json"],
      { cwd: g.dir },
    ).json.results.map((m) => `${m.relative_path}:${m.line_number}`);
    const grepLib = (await grepAll({ base: g.dir, pattern: "TODO", in: ["docstring"] })).results.map(
      (m) =>
        `${(m as { relative_path: string }).relative_path}:${(m as { line_number: number }).line_number}`,
    );
    expect(grepCli.length).toBeGreaterThan(0);
    expect(grepLib).toEqual(grepCli);
    // comment keeps the docstrings' matches (code does with --docstrings code); string never holds them.
    const hits = (...args: string[]) =>
      new Set(
        rglobJson<{ results: Array<{ relative_path: string; line_number: number }> }>(
          ["grep", "TODO", "--json", ...args],
          { cwd: g.dir },
        ).json.results.map((m) => `${m.relative_path}:${m.line_number}`),
      );
    const inComment = hits("--in", "comment");
    const inString = hits("--in", "string");
    const inCode = hits("--in", "code");
    const inCodeDocs = hits("--in", "code", "--docstrings", "code");
    for (const h of grepCli) {
      expect({ h, comment: inComment.has(h), string: inString.has(h), code: inCodeDocs.has(h) }).toEqual({
        h,
        comment: true,
        string: false,
        code: true,
      });
    }
    expect(inCodeDocs.size).toBe(inCode.size + grepCli.length);
    const s = await startMcp(["--root", g.dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "count", by: "language", docstrings: "code" },
      })) as CallToolResult;
      const sc = res.structuredContent as unknown as Counted;
      expect(sc.totals).toEqual(cliCode.totals);
      expect(sc.breakdown).toEqual(cliCode.breakdown);
      const gr = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "TODO", in: ["docstring"], limit: 1000 },
      })) as CallToolResult;
      const hits = (
        gr.structuredContent as { results: Array<{ relative_path: string; line_number: number }> }
      ).results;
      expect(hits.map((m) => `${m.relative_path}:${m.line_number}`)).toEqual(grepCli);
    } finally {
      await s.close();
    }
  }, 60_000);
});
