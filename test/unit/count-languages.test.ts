// The language table of count (engine/languages.ts) and the walk-order key comparison count pages with.
import { describe, expect, test } from "bun:test";
import { extensionOf, LANGUAGE_NAMES, languageOf } from "../../src/engine/languages.ts";
import { keyAfter } from "../../src/ops/count/run.ts";

describe("languages", () => {
  test("the table covers at least 30 languages, each named once", () => {
    expect(LANGUAGE_NAMES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(LANGUAGE_NAMES).size).toBe(LANGUAGE_NAMES.length);
  });

  test.each([
    ["main.ts", "TypeScript", ["//"], [["/*", "*/"]]],
    ["App.TSX", "TypeScript", ["//"], [["/*", "*/"]]],
    ["x.py", "Python", ["#"], []],
    ["q.sql", "SQL", ["--"], [["/*", "*/"]]],
    [
      "init.lua",
      "Lua",
      ["--"],
      [
        ["--[[", "]]"],
        ["--[=[", "]=]"],
        ["--[==[", "]==]"],
        ["--[===[", "]===]"],
      ],
    ],
    ["index.html", "HTML", [], [["<!--", "-->"]]],
    ["Makefile", "Makefile", ["#"], []],
    ["Dockerfile", "Dockerfile", ["#"], []],
    ["core.clj", "Clojure", [";"], []],
    ["a.rs", "Rust", ["//"], [["/*", "*/"]]],
  ])("%s is %s", (name, lang, line, block) => {
    const l = languageOf(name);
    expect(l?.name).toBe(lang);
    expect(l?.line).toEqual(line);
    expect(l?.block as unknown).toEqual(block);
  });

  test.each([
    ["a.TS", ".ts"],
    ["archive.tar.gz", ".gz"],
    ["Makefile", ""],
    [".bashrc", ""],
  ])("extensionOf(%p) = %p", (name, ext) => {
    expect(extensionOf(name)).toBe(ext);
  });

  test("unknown names have no language", () => {
    expect(languageOf("data.xyz")).toBeNull();
    expect(languageOf("LICENSE")).toBeNull();
  });
});

describe("keyAfter (walk order: root, then components by code point, parent first)", () => {
  test.each([
    ["0:b", "0:a", true],
    ["0:a", "0:b", false],
    ["0:a/b", "0:a", true],
    ["0:a", "0:a/b", false],
    ["0:a.txt", "0:a/b", true],
    ["1:a", "0:z", true],
    ["0:a", "0:a", false],
  ])("%p after %p is %p", (key, after, expected) => {
    expect(keyAfter(key, after)).toBe(expected);
  });
});
