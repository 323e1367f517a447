// Differential (#37): string interpolation. A hole's expression is code and a string nested in it is a string
// (`"x #{f("y")} z"` in Ruby: f code, y string), in every language whose lexer has holes, compared with Pygments'
// token types (python3 -m pygments' lexers, one process) on generated lines. The comparison is per word: each
// word Pygments gives a String token is string to the lexer, each in a Comment token comment, each in any other
// token code. Pygments' own departures, said here once: PHP's `"$x"` is one String.Interpol token (the lexer
// makes `$x` code, as `{$x}` and tree-sitter's PHP grammar do); Kotlin's string nested in a hole is a Name token
// (not generated here; tree-sitter's Kotlin grammar agrees with the lexer on fixtures/regions); Ruby's heredocs,
// C# and Groovy interpolation are not split by Pygments (heredocs and C# are compared with tree-sitter in
// regions-langs.test.ts; Groovy, Ruby heredocs and the rest have hand-written cases below).
import { describe, expect, test } from "bun:test";
import { DOCSTRING, regionLexer, STRING } from "../../src/engine/regions/regions.ts";
import { prng } from "../helpers.ts";

const hasPygments =
  Bun.spawnSync(["python3", "-c", "import pygments"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0;
if (!hasPygments)
  console.warn("SKIPPED: python3's pygments is not installed; the interpolation differential did not run");

const REGION = ["code", "comment", "string", "string"] as const;

/** Generated lines per language: string text, holes with names, calls with nested strings, brackets. */
function generate(lang: string, seed: number, n: number): string {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const words = ["alpha", "orders_legacy", "beta", "gamma_2", "delta", "x"];
  const w = () => `${pick(words)}${Math.floor(rnd() * 9)}`;
  const text = () => Array.from({ length: 1 + Math.floor(rnd() * 3) }, w).join(" ");
  const lines: string[] = lang === "PHP" ? ["<?php"] : [];
  for (let i = 0; i < n; i++) {
    const a = w();
    const b = w();
    const c = w();
    switch (lang) {
      case "Ruby":
        lines.push(
          pick([
            `${a} = "${text()} #{${b}} ${text()}"`,
            `${a} = "${text()} #{${b}("${c}")} ${text()}"`,
            `${a} = "#{${b}[${c}] + ${w()}} ${text()}" # ${text()}`,
            `${a} = %Q{${text()} #{${b}("${c}")} ${text()}} + %q(${text()} #{${w()}})`,
          ]),
        );
        break;
      case "Python":
        lines.push(
          pick([
            `${a} = f"${text()} {${b}} ${text()}"`,
            `${a} = f"{${b}['${c}']} {{${text()}}} {${w()}!r}"`,
            `${a} = f'{${b}:>{${c}}} ${text()}'  # ${text()}`,
            `${a} = rf"{${b} + ${c}} ${text()}"`,
          ]),
        );
        break;
      case "Kotlin":
        lines.push(
          pick([`val ${a} = "${text()} \${${b}(${c})} ${text()}"`, `val ${a} = "${text()} $${b} ${text()}"`]),
        );
        break;
      case "Swift":
        lines.push(
          pick([
            `let ${a} = "${text()} \\(${b}) ${text()}"`,
            `let ${a} = "${text()} \\(${b}("${c}")) ${text()}"`,
          ]),
        );
        break;
      case "Dart":
        lines.push(
          pick([
            `var ${a} = "${text()} \${${b}('${c}')} ${text()}";`,
            `var ${a} = '${text()} $${b} ${text()}';`,
          ]),
        );
        break;
      case "Scala":
        lines.push(
          pick([
            `val ${a} = s"${text()} \${${b}("${c}")} ${text()}"`,
            `val ${a} = s"${text()} $${b} ${text()}"`,
          ]),
        );
        break;
      case "PHP":
        lines.push(
          pick([`$${a} = "${text()} {$${b}['${c}']} ${text()}";`, `$${a} = "${text()} \${${b}} ${text()}";`]),
        );
        break;
      case "Shell":
        lines.push(
          pick([`${a}="${text()} $(${b} "${c}") ${text()}"`, `${a}="${text()} \${${b}} $${c} ${text()}"`]),
        );
        break;
    }
  }
  return `${lines.join("\n")}\n`;
}

const PYGMENTS: Readonly<Record<string, string>> = {
  Ruby: "ruby",
  Python: "python",
  Kotlin: "kotlin",
  Swift: "swift",
  Dart: "dart",
  Scala: "scala",
  PHP: "php",
  Shell: "bash",
};
const NAMES: Readonly<Record<string, string>> = {
  Ruby: "t.rb",
  Python: "t.py",
  Kotlin: "t.kt",
  Swift: "t.swift",
  Dart: "t.dart",
  Scala: "t.scala",
  PHP: "t.php",
  Shell: "t.sh",
};

/** Per text, each word's offset and region as Pygments' tokens say. */
function pygmentsWords(
  cases: ReadonlyArray<{ lexer: string; text: string }>,
): Array<Array<[number, string]>> {
  const script = `
import sys, json, re
from pygments.lexers import get_lexer_by_name
from pygments.token import String, Comment
out = []
for c in json.load(sys.stdin):
    words = []
    pos = 0
    for tok, val in get_lexer_by_name(c["lexer"], stripnl=False, ensurenl=False).get_tokens(c["text"]):
        kind = "string" if tok in String else "comment" if tok in Comment else "code"
        # PHP's "$x": one String.Interpol token; the variable is code (see the header).
        if tok in String.Interpol and re.fullmatch(r"\\$\\w+", val):
            kind = "code"
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", val):
            words.append([pos + m.start(), kind])
        pos += len(val)
    out.append(words)
print(json.dumps(out))
`;
  const r = Bun.spawnSync(["python3", "-c", script], {
    stdin: Buffer.from(JSON.stringify(cases)),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return JSON.parse(r.stdout.toString());
}

describe.skipIf(!hasPygments)("interpolation: region lexers vs Pygments (skipped without pygments)", () => {
  test("generated lines in 8 languages: every word's region the same", () => {
    const langs = Object.keys(PYGMENTS);
    const cases = langs.flatMap((lang) =>
      [1, 2, 3].map((seed) => ({
        lang,
        lexer: PYGMENTS[lang] as string,
        text: generate(lang, seed * 37, 60),
      })),
    );
    const oracle = pygmentsWords(cases);
    const differing: string[] = [];
    let words = 0;
    const holes = new Map<string, number>();
    cases.forEach((c, k) => {
      const regions = regionLexer(c.lang, NAMES[c.lang] as string)?.(c.text) as Uint8Array;
      for (const [at, want] of oracle[k] as Array<[number, string]>) {
        // The PHP open tag is markup to Pygments, code to the lexer.
        if (c.lang === "PHP" && c.text.startsWith("php", at)) continue;
        words++;
        const got = REGION[regions[at] as number];
        if (
          want === "code" &&
          c.text[at - 1] !== "$" &&
          /["'`]/.test(c.text.slice(0, at).split("\n").pop() ?? "")
        )
          holes.set(c.lang, (holes.get(c.lang) ?? 0) + 1);
        if (got !== want) {
          const line = c.text.slice(c.text.lastIndexOf("\n", at) + 1, c.text.indexOf("\n", at));
          differing.push(`${c.lang} @${at} lexer=${got} pygments=${want}: ${line}`);
        }
      }
    });
    console.log(
      `interpolation differential: ${words} words in ${cases.length} texts, ${differing.length} differing`,
    );
    expect(differing.slice(0, 10)).toEqual([]);
    // Every language had holes with code in them (the generator reached them).
    for (const lang of langs) expect(holes.get(lang) ?? 0).toBeGreaterThan(10);
  });
});

/** Hand-written cases: each marked word's region (the first occurrence of the word in the text). */
const CASES: ReadonlyArray<[lang: string, name: string, text: string, want: Record<string, string>]> = [
  [
    "Ruby",
    "t.rb",
    'a = "#{orders_legacy}"\nb = "x #{f("nested")} y"\n',
    { orders_legacy: "code", f: "code", nested: "string", x: "string" },
  ],
  ["Ruby", "t.rb", "d = <<~EOS\n  hi #{heredoc_hole} there\nEOS\n", { heredoc_hole: "code", hi: "string" }],
  ["Ruby", "t.rb", "d = <<~'EOS'\n  #{raw_hole}\nEOS\n", { raw_hole: "string" }],
  ["Ruby", "t.rb", "s = 'single #{not_a_hole}'\n", { not_a_hole: "string" }],
  [
    "Ruby",
    "t.rb",
    'c = %Q{a #{pq("s")} {b} c} + y % 2\nd = %q(raw #{rawq} (n)) + w\n',
    {
      pq: "code",
      s: "string",
      b: "string",
      y: "code",
      raw: "string",
      rawq: "string",
      n: "string",
      w: "code",
    },
  ],
  [
    "Python",
    "t.py",
    'v = f"{{escaped}} {hole:>{width}} {conv!r} {a != b}"\n',
    { escaped: "string", hole: "code", width: "code", conv: "code", r: "string", b: "code" },
  ],
  ["Python", "t.py", 'v = "{not_f}" + rb"{raw}"\n', { not_f: "string", raw: "string" }],
  ["Python", "t.py", 'v = f"""\n{multi_hole}\n"""\n', { multi_hole: "code" }],
  [
    "Groovy",
    "t.groovy",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with interpolations as test data
    'def a = "x ${f("nested")} $name y ${\'q\'}"\n',
    { f: "code", nested: "string", name: "code", y: "string" },
  ],
  ["Groovy", "t.groovy", "def a = 'single $plain'\n", { plain: "string" }],
  [
    "C#",
    "t.cs",
    'var a = $"x {f("nested")} {{lit}} {b,3:N2} y";\n',
    { f: "code", nested: "string", lit: "string", b: "code", N2: "string" },
  ],
  ["C#", "t.cs", 'var a = @"verbatim {not_hole}";\n', { not_hole: "string" }],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with interpolations as test data
  ["Dart", "t.dart", "var a = r'$raw ${raw2}';\n", { raw: "string", raw2: "string" }],
  ["Scala", "t.scala", 'val a = "plain $not_hole"\n', { not_hole: "string" }],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with interpolations as test data
  ["Kotlin", "t.kt", 'val a = """raw ${hole} $name"""\n', { raw: "string", hole: "code", name: "code" }],
  ["Swift", "t.swift", 'let a = "x \\(f("nested")) y"\n', { f: "code", nested: "string" }],
  [
    "PHP",
    "t.php",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with interpolations as test data
    '<?php $a = "x {$b["k"]} $c y ${d}";\n$h = <<<EOT\n  {$e} $f\nEOT;\n$n = <<<\'EOT\'\n $nowdoc\nEOT;\n',
    { b: "code", k: "string", c: "code", y: "string", d: "code", e: "code", f: "code", nowdoc: "string" },
  ],
  [
    "Shell",
    "t.sh",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with interpolations as test data
    'a="x $(f "nested") ${b} $c y `g "h"`"\ncat <<EOF\n$(cmd) $v\nEOF\ncat <<\'EOF\'\n$quoted\nEOF\n',
    {
      f: "code",
      nested: "string",
      b: "code",
      c: "code",
      g: "code",
      h: "string",
      cmd: "code",
      v: "code",
      quoted: "string",
    },
  ],
];

describe("interpolation: hand-written cases per language", () => {
  test.each(CASES.map((c) => [`${c[0]}: ${JSON.stringify(c[2]).slice(0, 50)}`, c] as const))("%s", (_, c) => {
    const [lang, name, text, want] = c;
    const regions = regionLexer(lang, name)?.(text) as Uint8Array;
    const got: Record<string, string> = {};
    for (const word of Object.keys(want)) {
      const at = text.search(new RegExp(`(?<![A-Za-z0-9_])${word}(?![A-Za-z0-9_])`));
      const r = regions[at] as number;
      got[word] = r === DOCSTRING ? "string" : (REGION[r] ?? "?");
    }
    expect(got).toEqual(want);
    expect(STRING).toBe(2);
  });
});
