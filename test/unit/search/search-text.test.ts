// searchText on decoded texts: line numbers, grep's rules for the last line, context merging, inversion,
// multiline, only-matching and clipping. Table-driven; no files.
import { describe, expect, test } from "bun:test";
import { compileMatcher } from "../../../src/engine/search/matcher.ts";
import { buildMatcher, searchText, type TextOptions } from "../../../src/engine/search/search-text.ts";
import { MATCHER_OFF, TEXT_UNBOUNDED } from "./defaults.ts";

const run = (text: string, pattern: string, extra: object = {}, o: Partial<TextOptions> = {}) =>
  searchText(text, buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: [pattern], ...extra })), {
    ...TEXT_UNBOUNDED,
    ...o,
  });

describe("searchText", () => {
  test.each([
    ["a\nb\na\n", "a", [1, 3]],
    ["a\nb\na", "a", [1, 3]],
    ["", "^", []],
    ["\n", "^$", [1]],
    ["x\n\n", "^$", [2]],
    ["x\n", "$", [1]],
    ["ab\ncd\n", "b$", [1]],
  ])("%p / %p → lines %p", (text, pattern, lines) => {
    expect(run(text, pattern).hits.map((h) => h.line_number)).toEqual(lines);
  });

  test("inverted lines, without the empty tail after the last newline", () => {
    expect(run("a\nb\nc\n", "b", { invert: true }).hits.map((h) => h.content)).toEqual(["a", "c"]);
  });

  test("context merges and never repeats a line", () => {
    const r = run("1\nm\n3\n4\nm\n6\n7\n8\nm\n", "m", {}, { before: 1, after: 1 });
    expect(
      r.hits.map((h) => [
        h.before.map((c) => c.line_number),
        h.line_number,
        h.after.map((c) => c.line_number),
      ]),
    ).toEqual([
      [[1], 2, [3]],
      [[4], 5, [6]],
      [[8], 9, []],
    ]);
  });

  test("multiline matches hold every spanned line", () => {
    const r = run("a\nstart\nmid\nend\nz\n", "start\\nmid\\nend", { multiline: true });
    expect(r.hits.map((h) => [h.line_number, h.content])).toEqual([[2, "start\nmid\nend"]]);
  });

  test("only-matching gives one hit per match", () => {
    expect(
      run("a1b22\n", "[0-9]+", { onlyMatching: true }).hits.map((h) => [h.content, h.content_offset]),
    ).toEqual([
      ["1", 1],
      ["22", 3],
    ]);
  });

  test("columns count code points and UTF-8 bytes; astral characters are one column", () => {
    const h = run("😀 x\n", "x").hits[0];
    expect(h?.submatches).toEqual([{ start: 2, end: 3, byte_start: 5, byte_end: 6 }]);
  });

  test("max per file and counting", () => {
    expect(run("a\na\na\n", "a", {}, { maxPerFile: 2 }).hits).toHaveLength(2);
    expect(run("aa\na\n", "a", {}, { countOnly: true })).toEqual({
      hits: [],
      lines: 2,
      matches: 3,
      shownUpTo: 0,
    });
  });
});
