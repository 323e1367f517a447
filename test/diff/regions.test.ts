// Differential (#38): the region lexers (src/engine/regions) against independent tokenizers, every UTF-16 unit
// of every file classified the same (code, comment, string). JavaScript/TypeScript: the TypeScript compiler's
// parser and scanner (test/diff/regions-oracle.ts) over every .ts/.tsx/.js/.mjs/.cjs file of this repository's
// src/, test/ and scripts/, a sample of node_modules, and hand-written cases of the hard parts (JSX, regex
// literals, template literals nested in substitutions). Python: python3's tokenize module over a sample of the
// standard library and the cases below (skipped loudly when python3 is missing).
// Documented rules, the same on both sides (so no divergence is left): a regex literal and JSX text are code; a
// template literal's `${` and `}` are string, the expression between them code; a shebang line is code (as count
// has counted it); a
// Python f-string's replacement fields are code, their `{` `}`, conversion and format spec string (#37): tokenize
// before 3.12 gives an f-string as one STRING token, so its units are compared with tree-sitter's Python grammar
// (test/diff/regions-treesitter.ts), the rest of the file with tokenize.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { languageOf } from "../../src/engine/languages.ts";
import { DOCSTRING, regionLexer, STRING } from "../../src/engine/regions/regions.ts";
import { ROOT } from "../helpers.ts";
import { FSTRING, pythonRegions, tsRegions } from "./regions-oracle.ts";
import { treeSitterRegions } from "./regions-treesitter.ts";

const JS_EXT = /\.(ts|tsx|js|mjs|cjs|jsx)$/;

function filesUnder(dir: string, keep: RegExp, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st === undefined) continue;
    if (st.isDirectory()) filesUnder(p, keep, out);
    else if (st.isFile() && keep.test(n) && st.size < 2_000_000) out.push(p);
  }
  return out;
}

/** The first unit where two classifications differ, with some text around it (for the failure message). */
function firstDiff(text: string, a: Uint8Array, b: Uint8Array): string | null {
  for (let i = 0; i < text.length; i++) {
    if (a[i] !== b[i])
      return `@${i} lexer=${a[i]} oracle=${b[i]} ${JSON.stringify(text.slice(Math.max(0, i - 30), i + 30))}`;
  }
  return null;
}

function lexerOf(name: string) {
  const lex = regionLexer(languageOf(name)?.name ?? null, name);
  if (lex === null) throw new Error(`no lexer for ${name}`);
  // A docstring (3) is a string to tokenize; which strings are docstrings: test/diff/docstrings.test.ts.
  return (t: string) => lex(t).map((r) => (r === DOCSTRING ? STRING : r));
}

interface Tally {
  files: number;
  units: number;
  differing: string[];
}

function compareJs(files: Array<{ name: string; text: string; label: string }>): Tally {
  const t: Tally = { files: 0, units: 0, differing: [] };
  for (const f of files) {
    const text = f.text.charCodeAt(0) === 0xfeff ? f.text.slice(1) : f.text;
    const oracle = tsRegions(text, f.name);
    // A file the TypeScript parser cannot parse has no reference classification.
    if (oracle.errors > 0) continue;
    const d = firstDiff(text, lexerOf(f.name)(text), oracle.regions);
    t.files++;
    t.units += text.length;
    if (d !== null) t.differing.push(`${f.label} ${d}`);
  }
  return t;
}

function report(what: string, t: Tally): void {
  const pct = t.files === 0 ? 0 : (100 * (t.files - t.differing.length)) / t.files;
  console.log(
    `regions ${what}: ${t.files} files, ${t.units} units, ${t.files - t.differing.length} identical (${pct.toFixed(2)}%)`,
  );
}

const JS_CASES: Record<string, string> = {
  "template.ts":
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
    "const a = `x ${b ? `in ${c + '}'} // no` : \"s\"} y`; // after\nconst d = `${{ k: 1 }.k}`;\n",
  "regex.js":
    "const r = /\\/\\/ not a comment [/*]/g.test(s) / 2;\nif (x) y = a / b / c; // division\nreturn /'/.source;\nconst z = (1) / 2 /* c */;\n",
  "jsx.jsx":
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
    "const e = <div className=\"a // b\" title='q'>\n  Don't // text, not a comment\n  {/* a comment */ x ? <b>it's</b> : 'str'}\n  <br/>{`t ${y}`}\n</div>;\nconst f = <>{a}</>;\n",
  "comp.tsx":
    "export function C(p: Props) {\n  return (\n    <ul>\n      {p.items.map((i) => (\n        <li key={i.id}>{i.name} // x</li>\n      ))}\n    </ul>\n  );\n}\n",
  "shebang.mjs": '#!/usr/bin/env node\n\'use strict\';\nconst s = "a\\"b"; /* multi\nline */\n',
  "keywords.ts": "function f() { return /re/i; }\nconst t = typeof /x/;\nconst q = a[0] / 2;\n",
};

describe("region lexer vs the TypeScript compiler", () => {
  test("hand-written cases of the hard parts: every unit the same", () => {
    const t = compareJs(Object.entries(JS_CASES).map(([name, text]) => ({ name, text, label: name })));
    report("TS/JS cases", t);
    expect(t.files).toBe(Object.keys(JS_CASES).length);
    expect(t.differing).toEqual([]);
  });

  test("this repository's src/, test/ and scripts/: every unit of every file the same", () => {
    const files = ["src", "test", "scripts"].flatMap((d) => filesUnder(join(ROOT, d), JS_EXT));
    const t = compareJs(
      files.map((p) => ({ name: p, text: readFileSync(p, "utf8"), label: relative(ROOT, p) })),
    );
    report("TS/JS repository", t);
    expect(t.files).toBeGreaterThan(200);
    expect(t.differing).toEqual([]);
  });

  test("a sample of node_modules packages: every unit of every file the same", () => {
    // Every fifth file of every package, in name order (deterministic); the whole of node_modules (2883 files,
    // 23 MB) was compared once by hand with the same result (docs/decisions/0031-code-regions.md).
    const all = filesUnder(join(ROOT, "node_modules"), JS_EXT).filter(
      (p) => !p.includes("/typescript/lib/") && !p.includes("/node_modules/.cache/"),
    );
    const files = all.filter((_, k) => k % 5 === 0);
    const t = compareJs(
      files.map((p) => ({ name: p, text: readFileSync(p, "utf8"), label: relative(ROOT, p) })),
    );
    report("TS/JS node_modules sample", t);
    expect(t.files).toBeGreaterThan(300);
    expect(t.differing).toEqual([]);
  });
});

const hasPython = Bun.spawnSync(["python3", "--version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0;
if (!hasPython) console.warn("SKIPPED: python3 is not installed; the Python differential test did not run");

const PY_CASES: Record<string, string> = {
  "strings.py":
    "x = '''a # not\n\"b\" '''  # comment\ny = rb'\\d' + f\"{z!r} # in\" + u'x'\ns = \"\"\"\n# doc\n\"\"\"\nt = 'it\\'s' # c\n",
  "cont.py": "a = (1 +  # one\n     2)\nb = \"x\\\ny\"\nc = F'''{d}'''\n",
};

describe.skipIf(!hasPython)("region lexer vs python3's tokenize (skipped without python3)", () => {
  test("hand-written cases and a sample of the standard library: every unit the same", async () => {
    const lib = Bun.spawnSync(["python3", "-c", "import os; print(os.path.dirname(os.__file__))"], {
      stdout: "pipe",
    })
      .stdout.toString()
      .trim();
    const sample = filesUnder(lib, /\.py$/)
      .filter((p) => !p.includes("site-packages"))
      .filter((_, k) => k % 4 === 0);
    const { mkdtempSync, writeFileSync, rmSync } = require("node:fs") as typeof import("node:fs");
    const tmp = mkdtempSync(join(require("node:os").tmpdir(), "rglob-py-"));
    try {
      const cases = Object.entries(PY_CASES).map(([n, text]) => {
        const p = join(tmp, n);
        writeFileSync(p, text);
        return p;
      });
      const lex = lexerOf("x.py");
      const t: Tally = { files: 0, units: 0, differing: [] };
      let fstrings = 0;
      const files = [...cases, ...sample];
      for (let k = 0; k < files.length; k += 100) {
        for (const [p, v] of pythonRegions(files.slice(k, k + 100))) {
          // A file tokenize rejects (Python 2 syntax left in the library's test data) has no reference.
          if (v === null) continue;
          // An f-string's units: as tree-sitter's Python grammar classifies them (a file it rejects is not compared).
          if (v.regions.includes(FSTRING)) {
            const ts = await treeSitterRegions(v.text, "Python");
            if (ts === null) continue;
            for (let u = 0; u < v.regions.length; u++)
              if (v.regions[u] === FSTRING) v.regions[u] = ts[u] as number;
            fstrings++;
          }
          t.files++;
          t.units += v.text.length;
          const d = firstDiff(v.text, lex(v.text), v.regions);
          if (d !== null) t.differing.push(`${p} ${d}`);
        }
      }
      report("Python", t);
      console.log(`Python: ${fstrings} files with f-strings, their units compared with tree-sitter`);
      expect(fstrings).toBeGreaterThan(10);
      expect(t.files).toBeGreaterThan(100);
      expect(t.differing).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
