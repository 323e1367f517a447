// The compiled ignore matcher: git's line parsing and wildmatch, and agreement with the `ignore` package (the
// reference implementation) on seeded random rules and paths. Agreement with git itself is test/diff.
import { describe, expect, test } from "bun:test";
import ignore from "ignore";
import { compileRules, lastMatch, parseRule, trimTrailingSpaces } from "../../../src/engine/ignore-rules.ts";
import { prng } from "../../helpers.ts";

describe("trimTrailingSpaces (git's trim_trailing_spaces)", () => {
  test.each([
    ["a   ", "a"],
    ["a\\ ", "a\\ "],
    ["a\\  ", "a\\ "],
    ["a \\", "a \\"],
    ["a b", "a b"],
    ["a\t", "a\t"],
    ["   ", ""],
  ])("%p → %p", (input, out) => expect(trimTrailingSpaces(input)).toBe(out));
});

describe("parseRule", () => {
  test.each([
    ["", null],
    ["# comment", null],
    ["\\#hash", { negate: false, dirOnly: false, anchored: false }],
    ["!neg", { negate: true, dirOnly: false, anchored: false }],
    ["dir/", { negate: false, dirOnly: true, anchored: false }],
    ["/rooted", { negate: false, dirOnly: false, anchored: true }],
    ["a/b", { negate: false, dirOnly: false, anchored: true }],
    ["!/a/b/", { negate: true, dirOnly: true, anchored: true }],
  ])("%p", (line, want) => {
    const r = parseRule(line, 1);
    if (want === null) expect(r).toBeNull();
    else expect(r).toMatchObject(want);
  });
});

function decide(text: string, rel: string, isDir: boolean): "ignored" | "unignored" | "none" {
  const c = compileRules(text);
  const idx = lastMatch(c, rel, rel.slice(rel.lastIndexOf("/") + 1), isDir);
  if (idx < 0) return "none";
  return c.rules[idx]?.negate ? "unignored" : "ignored";
}

describe("wildmatch", () => {
  test.each([
    ["*.c", "a.c", false, "ignored"],
    ["*.c", "d/a.c", false, "ignored"],
    ["/*.c", "d/a.c", false, "none"],
    ["d/*.c", "d/e/a.c", false, "none"],
    ["d/**/*.c", "d/e/f/a.c", false, "ignored"],
    ["d/**/*.c", "d/a.c", false, "ignored"],
    ["**/e", "d/e", true, "ignored"],
    ["d/**", "d/e/f", false, "ignored"],
    ["d/**", "d", true, "none"],
    ["a**b", "axyb", false, "ignored"],
    ["a**b", "a/b", false, "none"],
    ["dir/", "dir", false, "none"],
    ["dir/", "dir", true, "ignored"],
    ["[a-c]x", "bx", false, "ignored"],
    ["[!a-c]x", "bx", false, "none"],
    ["[^a-c]x", "dx", false, "ignored"],
    ["[c-a]x", "bx", false, "none"],
    ["[[:digit:]]x", "5x", false, "ignored"],
    ["[[:bogus:]]x", "5x", false, "none"],
    ["[abc", "[abc", false, "none"],
    ["\\[abc]", "[abc]", false, "ignored"],
    ["a\\", "a", false, "none"],
    ["?.md", "a.md", false, "ignored"],
    ["?.md", "ab.md", false, "none"],
    ["*.log\n!keep.log", "keep.log", false, "unignored"],
    ["!keep.log\n*.log", "keep.log", false, "ignored"],
    ["x\r", "x", false, "ignored"],
    ["\ufeffbom", "bom", false, "ignored"],
  ])("%p on %p (dir %p) → %p", (text, rel, isDir, want) => {
    expect(decide(text, rel, isDir) as string).toBe(want);
  });
});

describe("agrees with the `ignore` package on random rules", () => {
  const PARTS = ["a", "b", "ab", "x.log", "y.txt", "src", "lib", "k1", ".h"];
  const PATTERNS = [
    "a",
    "*.log",
    "*.txt",
    "src/",
    "/a",
    "a/b",
    "a/**/x.log",
    "**/lib",
    "lib/**",
    "?b",
    "[ab]",
    "[!a]*",
    "k[0-9]",
    "*b",
    "src/*",
    ".h",
  ];
  test.each(Array.from({ length: 40 }, (_, i) => i + 1))("seed %d", (seed) => {
    const r = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
    const lines = Array.from(
      { length: 1 + Math.floor(r() * 6) },
      () => (r() < 0.3 ? "!" : "") + pick(PATTERNS),
    );
    const text = lines.join("\n");
    const ig = ignore().add(lines);
    for (let i = 0; i < 60; i++) {
      const depth = 1 + Math.floor(r() * 3);
      const parts = Array.from({ length: depth }, () => pick(PARTS));
      const isDir = r() < 0.4;
      const rel = parts.join("/");
      // Entry-only semantics: compare where no parent is ignored (the walk prunes those).
      let parentIgnored = false;
      for (let k = 1; k < parts.length; k++)
        if (ig.test(`${parts.slice(0, k).join("/")}/`).ignored) parentIgnored = true;
      if (parentIgnored) continue;
      const ref = ig.test(isDir ? `${rel}/` : rel);
      const want = ref.ignored ? "ignored" : ref.unignored ? "unignored" : "none";
      expect({ lines, rel, isDir, got: decide(text, rel, isDir) }).toEqual({ lines, rel, isDir, got: want });
    }
  });
});
