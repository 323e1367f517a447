// Literal prefilter extraction: every literal returned must occur in every match (conservative), and the
// matcher compiles patterns once with the right flags.
import { describe, expect, test } from "bun:test";
import { requiredLiterals } from "../../../src/engine/search/literal.ts";
import { compileMatcher } from "../../../src/engine/search/matcher.ts";
import { MATCHER_OFF } from "./defaults.ts";

describe("requiredLiterals", () => {
  test.each([
    ["TODO", ["TODO"]],
    ["[A-Z][a-z]+Error", ["Error"]],
    ["foo.*bar", ["foo"]],
    ["ab?c", ["a"]],
    ["colou?r", ["colo"]],
    ["a+bc", ["bc"]],
    ["x{2}yz", ["yz"]],
    ["x{0,2}yz", ["yz"]],
    ["foo|barbaz", ["foo", "barbaz"]],
    ["foo|[a-z]+", null],
    ["\\bword\\b", ["word"]],
    ["a\\.b", ["a.b"]],
    ["(a+)+$", null],
    ["(?:abc)def", ["def"]],
    ["\\d+px", ["px"]],
    [".*", null],
    ["", null],
    // Escapes stand for the character they name, or end the literal; never their spelling.
    ["\\x41", ["A"]],
    ["\\u0041BC", ["ABC"]],
    ["a\\u{42}c", ["aBc"]],
    ["\\cIx", ["\tx"]],
    ["\\011", null],
    ["\\11x", ["x"]],
    ["(?<n>a)\\k<n>", null],
    ["(?<n>a)\\k<n>xy", ["xy"]],
    ["\\p{L}+ab", ["ab"]],
    ["\\/x\\-", ["/x-"]],
    ["\\uFFFD", ["\ufffd"]],
    ["\\uD83D\\uDE00!", ["😀!"]],
    ["\\uD83Dx", ["x"]],
    ["x😀?", ["x"]],
    ["ab\\nc", ["ab"]],
  ])("%p → %p", (src, expected) => {
    expect(requiredLiterals(src)).toEqual(expected);
  });

  test("without 'u', \\u{…} is 'u' repeated, not a code point", () => {
    expect(requiredLiterals("\\u{41}x", false)).toEqual(["x"]);
    expect(requiredLiterals("\\u{41}x", true)).toEqual(["Ax"]);
  });
});

describe("compileMatcher", () => {
  test("a bad pattern is a REGEX error", () => {
    expect(() => compileMatcher({ ...MATCHER_OFF, patterns: ["a("] })).toThrow(/bad pattern/);
  });

  test.each([
    [{ patterns: ["a.c"], fixedStrings: true }, "a\\.c", "u", ["a.c"]],
    [{ patterns: ["foo"], smartCase: true }, "foo", "iu", ["foo"]],
    [{ patterns: ["Foo"], smartCase: true }, "Foo", "u", ["Foo"]],
    [{ patterns: ["é"], ignoreCase: true }, "é", "iu", null],
    [{ patterns: ["a", "b"] }, "(?:a)|(?:b)", "u", ["a", "b"]],
    [{ patterns: ["x"], invert: true }, "x", "u", null],
    // rg's escaped punctuation is the character (a valid 'u' source now, #22).
    [{ patterns: ["\\-x"] }, "-x", "u", ["-x"]],
    // U+FFFD may be an invalid byte in the file: no prefilter on it.
    [{ patterns: ["a\\uFFFDb"] }, "a\\uFFFDb", "u", null],
    [{ patterns: ["\ufffd"], fixedStrings: true }, "\ufffd", "u", null],
    // Each pattern's back-references and group names are its own.
    [{ patterns: ["(a)", "(b)\\1"] }, "(?:(a))|(?:(b)\\2)", "u", null],
    [{ patterns: ["(?<n>a)", "(?<n>b)\\k<n>"] }, "(?:(?<n>a))|(?:(?<n$1>b)\\k<n$1>)", "u", null],
    [{ patterns: ["(a)\\2", "\\-(b)"] }, "(?:(a)\\x02)|(?:-(b))", "", null],
  ])("%p", (o, source, flags, literals) => {
    const m = compileMatcher({ ...MATCHER_OFF, ...o });
    expect([m.source, m.flags, m.literals]).toEqual([source, flags, literals]);
  });
  // A pattern that is a literal spelt with escaped punctuation is found as that literal (indexOf, and below
  // four cores in the calling thread); any other syntax keeps the regex. Each literal is what the regex matches.
  test.each([
    [{ patterns: ["it\\("] }, ["it("]],
    [{ patterns: ["a\\.b\\\\c", "x\\/y"] }, ["a.b\\c", "x/y"]],
    [{ patterns: ["plain"] }, ["plain"]],
    [
      { patterns: ["readJsonSync|writeJsonSync", "b\\.c|ab"] },
      ["readJsonSync", "writeJsonSync", "b.c", "ab"],
    ],
    [{ patterns: ["a\\|b"] }, ["a|b"]],
    [{ patterns: ["a|"] }, null],
    [{ patterns: ["(a|b)"] }, null],
    [{ patterns: ["t\\.is[A-Z]"] }, null],
    [{ patterns: ["\\d"] }, null],
    [{ patterns: ["\\x41"] }, null],
    [{ patterns: ["it\\(", "a+"] }, null],
    [{ patterns: ["it\\("], ignoreCase: true }, null],
    [{ patterns: ["it\\("], wordRegexp: true }, null],
  ])("exact literals of %p", (o, exact) => {
    const m = compileMatcher({ ...MATCHER_OFF, ...o });
    expect(m.exact).toEqual(exact);
    for (const lit of m.exact ?? []) expect(new RegExp(m.source, m.flags).exec(`>${lit}<`)?.[0]).toBe(lit);
  });
});
