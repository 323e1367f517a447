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
  ])("%p → %p", (src, expected) => {
    expect(requiredLiterals(src)).toEqual(expected);
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
    [{ patterns: ["\\-x"] }, "\\-x", "", ["-x"]],
  ])("%p", (o, source, flags, literals) => {
    const m = compileMatcher({ ...MATCHER_OFF, ...o });
    expect([m.source, m.flags, m.literals]).toEqual([source, flags, literals]);
  });
});
