// Differential (#38): the region lexers of the language families beyond JavaScript/TypeScript and Python against
// independent tokenizers (test/diff/regions-treesitter.ts): tree-sitter's parsers for Go, Rust, Java, Kotlin, C,
// C++, C#, Ruby, PHP, shell, CSS, HTML, YAML, TOML (and Python once more), sql-parser-cst for SQL, python3's expat
// for XML. Every UTF-16 unit of every file classified the same, the agreement printed per language. The corpus:
// fixtures/regions (a realistic file per language with the hard cases: raw strings, nested comments, heredocs,
// interpolations, verbatim strings, block scalars), every file of those languages under node_modules, and the
// directories listed in RGLOB_REGIONS_CORPUS (separated by ':'), e.g. a checkout of another project.
// A file an independent tokenizer rejects (a syntax error, invalid test data) has no reference and is counted
// apart. The rules both sides share are in docs/decisions/0031-code-regions.md (heredocs, block scalars, macro
// bodies, quotes included in strings).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { languageOf } from "../../src/engine/languages.ts";
import { DOCSTRING, regionCursor, regionLexer, STRING } from "../../src/engine/regions/regions.ts";
import { ROOT } from "../helpers.ts";
import { GRAMMARS, sqlOnly, sqlRegions, treeSitterRegions, xmlRegions } from "./regions-treesitter.ts";

const FIXTURES = join(ROOT, "fixtures", "regions");
const LANGUAGES = [...Object.keys(GRAMMARS), "SQL", "XML"];

function filesUnder(dir: string, out: string[] = []): string[] {
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
    if (st.isDirectory()) {
      if (n !== ".git") filesUnder(p, out);
    } else if (st.isFile() && st.size < 2_000_000) {
      const lang = languageOf(n)?.name;
      if (lang !== undefined && LANGUAGES.includes(lang)) out.push(p);
    }
  }
  return out;
}

interface Tally {
  files: number;
  units: number;
  rejected: number;
  differing: string[];
}

function firstDiff(text: string, a: Uint8Array, b: Uint8Array): string | null {
  for (let i = 0; i < text.length; i++) {
    if (a[i] !== b[i])
      return `@${i} lexer=${a[i]} oracle=${b[i]} ${JSON.stringify(text.slice(Math.max(0, i - 30), i + 30))}`;
  }
  return null;
}

const hasPython = Bun.spawnSync(["python3", "--version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0;

/** Compares every file; returns the tally per language. */
async function compare(files: readonly string[]): Promise<Map<string, Tally>> {
  const tallies = new Map<string, Tally>();
  const xml: Array<{ path: string; text: string }> = [];
  const check = (path: string, lang: string, text: string, oracle: Uint8Array | null) => {
    const t = tallies.get(lang) ?? { files: 0, units: 0, rejected: 0, differing: [] };
    tallies.set(lang, t);
    if (oracle === null) {
      t.rejected++;
      return;
    }
    const lex = regionLexer(lang, basename(path));
    if (lex === null) throw new Error(`no lexer for ${path}`);
    t.files++;
    t.units += text.length;
    // A docstring (3) is a string to the tokenizers; which strings are docstrings: test/diff/docstrings.test.ts.
    const d = firstDiff(
      text,
      lex(text).map((r) => (r === DOCSTRING ? STRING : r)),
      oracle,
    );
    if (d !== null) t.differing.push(`${relative(ROOT, path)} ${d}`);
  };
  for (const path of files) {
    const lang = languageOf(basename(path))?.name as string;
    let text = readFileSync(path, "utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (lang === "XML") {
      if (hasPython) xml.push({ path, text });
    } else if (lang === "SQL") {
      const sql = sqlOnly(text);
      check(path, lang, sql, sqlRegions(sql));
    } else check(path, lang, text, await treeSitterRegions(text, lang));
  }
  for (let k = 0; k < xml.length; k += 100) {
    const part = xml.slice(k, k + 100);
    const regions = xmlRegions(
      part.map((f) => f.path),
      part.map((f) => f.text),
    );
    part.forEach((f, n) => {
      check(f.path, "XML", f.text, regions[n] ?? null);
    });
  }
  return tallies;
}

function report(what: string, tallies: Map<string, Tally>): void {
  for (const [lang, t] of [...tallies].sort()) {
    const same = t.files - t.differing.length;
    const pct = t.files === 0 ? 0 : (100 * same) / t.files;
    console.log(
      `regions ${what} ${lang}: ${t.files} files, ${t.units} units, ${same} identical (${pct.toFixed(2)}%), ${t.rejected} rejected by the tokenizer`,
    );
  }
}

describe("region lexers vs tree-sitter, sql-parser-cst and expat, per language", () => {
  test("the hard cases (fixtures/regions): every language, every unit the same", async () => {
    const tallies = await compare(filesUnder(FIXTURES));
    report("fixtures", tallies);
    const want = LANGUAGES.filter((l) => l !== "XML" || hasPython);
    // Each language's file is read by its tokenizer (none rejected) and compared.
    const state = (l: string) => {
      const t = tallies.get(l);
      return `${l}: ${(t?.files ?? 0) > 0 ? "compared" : "missing"}, ${t?.rejected ?? 0} rejected`;
    };
    expect(want.map(state)).toEqual(want.map((l) => `${l}: compared, 0 rejected`));
    const differing = [...tallies.values()].flatMap((t) => t.differing);
    expect(differing).toEqual([]);
  });

  // The XML oracle is python3's expat: without python3 the two tests above leave XML out, and this one says so.
  test.skipIf(!hasPython)(
    "XML: the fixtures against expat, every unit the same (skipped without python3)",
    async () => {
      const tallies = await compare(
        filesUnder(FIXTURES).filter((f) => languageOf(basename(f))?.name === "XML"),
      );
      const t = tallies.get("XML");
      expect({ compared: (t?.files ?? 0) > 0, rejected: t?.rejected, differing: t?.differing }).toEqual({
        compared: true,
        rejected: 0,
        differing: [],
      });
    },
  );

  test("real files: node_modules and RGLOB_REGIONS_CORPUS, every unit of every file the same", async () => {
    const extra = (process.env.RGLOB_REGIONS_CORPUS ?? "").split(":").filter((d) => d !== "");
    const files = [join(ROOT, "node_modules"), ...extra].flatMap((d) => filesUnder(d));
    const tallies = await compare(files);
    report("real files", tallies);
    expect([...tallies.values()].reduce((n, t) => n + t.files, 0)).toBeGreaterThan(20);
    const differing = [...tallies.values()].flatMap((t) => t.differing);
    expect(differing).toEqual([]);
  }, 600_000);
});

describe("a lexer asked unit by unit, as grep asks match by match", () => {
  test("lexed in steps up to each asked unit: the same regions as lexed whole, every family", () => {
    // grep lexes a file only up to its last match (engine/search); each step must go on where the last stopped.
    const files = filesUnder(FIXTURES);
    files.push(
      ...readdirSync(join(ROOT, "src", "engine", "regions")).map((n) =>
        join(ROOT, "src", "engine", "regions", n),
      ),
    );
    let steps = 0;
    const differing: string[] = [];
    for (const path of files) {
      const name = basename(path);
      const lang = languageOf(name)?.name ?? null;
      const whole = regionLexer(lang, name);
      const cursor = regionCursor(lang, name);
      if (whole === null || cursor === null) continue;
      const text = readFileSync(path, "utf8");
      const expected = whole(text);
      const upTo = cursor(text);
      // Units asked in increasing order, a step of 1 to 97 units (deterministic), then the end.
      let got = upTo(0);
      for (let at = 0, k = 1; at < text.length; at += 1 + ((k * 37) % 97), k++) {
        got = upTo(at);
        steps++;
        if (got[at] !== expected[at]) {
          differing.push(`${relative(ROOT, path)} @${at}`);
          break;
        }
      }
      if (differing.length === 0 && !upTo(text.length).every((v, k) => v === expected[k]))
        differing.push(`${relative(ROOT, path)} at the end`);
    }
    expect(steps).toBeGreaterThan(1000);
    expect(differing).toEqual([]);
  });
});
