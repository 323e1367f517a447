// "Did you mean" (#39): one suggester for the CLI's commands and flags and the MCP server's arguments.
import { describe, expect, test } from "bun:test";
import { findOperation } from "../../src/ops/registry.ts";
import { suggestArgument } from "../../src/surface/mcp/server.ts";
import { closest, editDistance } from "../../src/surface/suggest.ts";

describe("editDistance", () => {
  test.each([
    ["grep", "grep", 0],
    ["gerp", "grep", 1], // two neighbours swapped: one edit
    ["grp", "grep", 1],
    ["grepp", "grep", 1],
    ["ignore-cas", "ignore-case", 1],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
  ])("%p → %p: %p", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe("closest", () => {
  const commands = ["find", "grep", "count", "dupes", "tree", "top", "stats", "mcp"];
  test.each([
    ["gerp", "grep"],
    ["fnid", "find"],
    ["tre", "tree"],
    ["mpc", "mcp"],
    ["cuont", "count"],
    ["xyz", null],
    ["grepping", null],
    ["x".repeat(100), null],
  ])("%p → %p", (word, expected) => {
    expect(closest(word, commands)).toBe(expected);
  });
});

describe("the MCP server's suggestions go through it", () => {
  const grep = findOperation("grep");
  const keys = ["pattern", "ignore_case", "max_count", "context"];
  test.each([
    ["ignroe_case", "ignore_case"],
    ["--ignore-case", "ignore_case"],
    ["contxt", "context"],
    ["nothing_like_it", null],
  ])("%p → %p", (key, expected) => {
    expect(suggestArgument(grep, key, keys)).toBe(expected);
  });
});
