// Differential: ripgrep's regex dialect (#22) and patterns on which JavaScriptCore's backtracking gives up (#21
// item 9): each pattern finds the lines rg finds, or is refused with REGEX naming the construct; never a silently
// different result. Expected lines are also written out here (and, for the pathological patterns, computed by an
// independent line check), so the tests hold without rg; the rg comparison skips loudly when rg is missing.
// Documented divergences: rglob accepts JavaScript syntax too (lookarounds, back-references, \u0041, \cA, escaped
// punctuation such as \- or \/), which rg refuses; it refuses what it cannot translate exactly and rg takes
// (verbose (?x), a negated class nested in a class, (?-u) byte matching, Unicode property names JavaScript lacks).
import { afterAll, describe, expect, test } from "bun:test";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

const LINES = [
  "ab", // 1
  "ab cd", // 2
  "A1", // 3
  "]x", // 4
  "  tab\there", // 5
  "RR", // 6
  "foo.bar", // 7
  "cr\rinside", // 8
  "ls\u2028inside", // 9
  "ps\u2029inside", // 10
  "Greek αβγ", // 11
  "Rx", // 12
];
const tree = tempTree({ "f.txt": `${LINES.join("\n")}\n` });
afterAll(() => tree.cleanup());

function ours(pattern: string, extra: string[] = []): number[] {
  const { json, run } = rglobJson<{ results: Array<{ line_number: number }> }>(
    ["grep", ...extra, "--json", "-e", pattern, "f.txt"],
    { cwd: tree.dir },
  );
  expect(run.code === 0 || run.code === 1).toBe(true);
  return json.results.map((r) => r.line_number);
}

// [pattern, expected line numbers (as rg 13 finds them), extra flags]
const TABLE: Array<[string, number[], string[]?]> = [
  ["[[:upper:]]", [3, 6, 11, 12]],
  ["^[[:upper:]][[:digit:]]$", [3]],
  ["[[:^alpha:][:space:]]x", [4]],
  ["\\x{52}", [6, 12]],
  ["\\x{3b1}", [11]],
  ["(?i)rr", [6]],
  ["(?i)^rr|^ab$", [1, 6]],
  ["a(?i:B)", [1, 2, 5]],
  ["(?i:R)x", [12]],
  ["\\Aab", [1, 2]],
  ["ab\\z", [1]],
  ["(?s)r.in", [8]],
  ["s.inside", [9, 10]],
  ["cr.inside", [8]],
  ["^.{9}$", [8, 9, 10, 11]],
  ["[]x]x", [4]],
  ["^[]x]", [4]],
  ["(?P<w>ab) c", [2]],
  ["\\pL\\d", [3]],
  ["\\p{Greek}{3}", [11]],
  ["(?U)a.+", [1, 2, 5, 7]],
  ["foo\\.bar", [7]],
  ["\\t", [5]],
];

const REFUSED: Array<[string, string]> = [
  ["\\h", "\\h"],
  ["(?x) a b", "(?x)"],
  ["[a&&b]", "&&"],
  ["\\<ab", "\\<"],
  ["\\Z", "\\Z"],
  ["[[^a]b]", "negated class"],
  ["(?-u)a", "(?-u)"],
  ["\\p{NoSuchProperty}", "NoSuchProperty"],
];

describe("rg's regex dialect: the lines rg finds (#22, #21 item 15)", () => {
  test.each(TABLE)("%p", (pattern, expected, extra = []) => {
    expect(ours(pattern, extra)).toEqual(expected);
  });
  test.each(REFUSED)("%p is refused with REGEX naming %p, exit 2", (pattern, construct) => {
    const run = rglob(["grep", "--json", "-e", pattern, "f.txt"], { cwd: tree.dir });
    expect(run.code).toBe(2);
    const body = JSON.parse(run.stdout) as { ok: boolean; error: { code: string; message: string } };
    expect(body.error.code).toBe("REGEX");
    expect(body.error.message).toContain(construct);
  });
  test("with -U, \\A and \\z are the ends of the text and (?s) lets . cross a newline", () => {
    const t = tempTree({ "m.txt": "ab\nab\ncd\n" });
    try {
      const count = (p: string) =>
        rglobJson<{ results: unknown[] }>(["grep", "-U", "--json", "-e", p, "m.txt"], { cwd: t.dir }).json
          .results.length;
      expect(count("\\Aab")).toBe(1);
      expect(count("cd\\n\\z")).toBe(1);
      expect(count("ab\\z")).toBe(0);
      expect(count("(?s)b.a")).toBe(1);
      expect(count("b.a")).toBe(0);
    } finally {
      t.cleanup();
    }
  });
});

/** Lines that hold a 'b' after a run of 'a's that is not followed by one (the shape that defeats backtracking). */
function pathological(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 61; i++) out.push(`${"a".repeat(30 + (i % 15))}c b`);
  out.push(`${"a".repeat(40)}c x`, `${"a".repeat(40)}c`, "plain", "aa aaa_ aaa");
  return out;
}
const PATHO = pathological();
const ptree = tempTree({ "p.txt": `${PATHO.join("\n")}\n` });
afterAll(() => ptree.cleanup());

/** An independent check, linear by construction: what each pattern means, written as a plain test of a line. */
const PATTERNS: Array<[string, (line: string) => boolean]> = [
  ["(a*)*b", (l) => l.includes("b")],
  ["x|(a+)+b", (l) => l.includes("x") || /a+b/.test(l)],
  ["(a|aa)+c x", (l) => l.includes("ac x")],
  ["(?:a+)+c$", (l) => /ac$/.test(l)],
  ["((a+)+)c b", (l) => l.includes("ac b")],
];

describe("patterns that defeat backtracking find every line (#21 item 9)", () => {
  test.each(PATTERNS)("%p", (pattern, check) => {
    const expected = PATHO.flatMap((l, i) => (check(l) ? [i + 1] : []));
    expect(expected.length).toBeGreaterThan(0);
    const { json, run } = rglobJson<{ results: Array<{ line_number: number }>; errors: unknown[] }>(
      ["grep", "--json", "-e", pattern, "p.txt"],
      { cwd: ptree.dir },
    );
    expect(run.code).toBe(0);
    expect(json.errors).toEqual([]);
    expect(json.results.map((r) => r.line_number)).toEqual(expected);
  });
  test("a repeated group with what the linear-time engine cannot run is refused, never half-searched", () => {
    for (const p of ["(a+)+\\1", "(?:(?=a)a+)+b"]) {
      const run = rglob(["grep", "--json", "-e", p, "p.txt"], { cwd: ptree.dir });
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stdout).error.code).toBe("REGEX");
    }
  });
  test("-w and -x with a repeated group: whole words and whole lines, as the backtracking engine would", () => {
    const got = (flag: string, p: string) =>
      rglobJson<{ results: Array<{ line_number: number }> }>(["grep", "--json", flag, "-e", p, "p.txt"], {
        cwd: ptree.dir,
      }).json.results.map((r) => r.line_number);
    const want = (check: (l: string) => boolean) => PATHO.flatMap((l, i) => (check(l) ? [i + 1] : []));
    expect(got("-w", "(a+)+c")).toEqual(want((l) => /(^|\W)a+c(\W|$)/.test(l)));
    expect(got("-w", "(a+)+")).toEqual(want((l) => /(^|\W)a+(\W|$)/.test(l)));
    expect(got("-x", "(a+)+c")).toEqual(want((l) => /^a+c$/.test(l)));
  });
  test("the linear-time engine gives the same submatches and context as the regex engine would", () => {
    const { json } = rglobJson<{
      results: Array<{ line_number: number; submatches: Array<{ start: number; end: number }> }>;
    }>(["grep", "--json", "-e", "(ab|c)+", "f.txt"], { cwd: tree.dir });
    expect(json.results.map((r) => [r.line_number, r.submatches.map((s) => [s.start, s.end])])).toEqual([
      [1, [[0, 2]]],
      [
        2,
        [
          [0, 2],
          [3, 4],
        ],
      ],
      [5, [[3, 5]]],
      [8, [[0, 1]]],
    ]);
  });
});

const hasRg = Bun.spawnSync(["sh", "-c", "command -v rg"]).exitCode === 0;
describe("against rg", () => {
  if (!hasRg) {
    test.skip("rg is not installed: the rg dialect differential is skipped", () => {});
    return;
  }
  const rgLines = (dir: string, file: string, pattern: string, extra: string[] = []): number[] =>
    Bun.spawnSync(["rg", "-n", "--no-heading", ...extra, "-e", pattern, file], { cwd: dir })
      .stdout.toString()
      .split("\n")
      .filter(Boolean)
      .map((l) => Number(l.split(":")[0]));
  test.each(TABLE)("%p matches rg's lines", (pattern, _expected, extra = []) => {
    expect(ours(pattern, extra)).toEqual(rgLines(tree.dir, "f.txt", pattern, extra));
  });
  test.each(REFUSED.filter(([, c]) => ["\\h", "&&", "\\<", "\\Z"].includes(c)))(
    "%p is refused by rg too",
    (pattern) => {
      expect(Bun.spawnSync(["rg", "-e", pattern, "f.txt"], { cwd: tree.dir }).exitCode).toBe(2);
    },
  );
  test.each(PATTERNS)("%p (pathological) matches rg's lines", (pattern) => {
    const { json } = rglobJson<{ results: Array<{ line_number: number }> }>(
      ["grep", "--json", "-e", pattern, "p.txt"],
      { cwd: ptree.dir },
    );
    expect(json.results.map((r) => r.line_number)).toEqual(rgLines(ptree.dir, "p.txt", pattern));
  });
});
