// count's note names the languages whose block comments nest (#37: it said "only Haskell, Rust, Swift, Scala,
// Kotlin, OCaml, Dart" while Julia's `#= =#`, Nim's, F#'s and Lisp's nest too). The list is checked against what
// count does: each named language counts the line between two closers of a nested comment as a comment, and a
// language with block comments that is not named counts it as code. docs/count-and-dupes.md gives the same list.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, rglob, rglobJson, tempTree } from "../helpers.ts";

/** Languages with block comments: a file name and the block comment's opener and closer. */
const BLOCKS: Record<string, readonly [string, string, string]> = {
  C: ["a.c", "/*", "*/"],
  Java: ["a.java", "/*", "*/"],
  Go: ["a.go", "/*", "*/"],
  Kotlin: ["a.kt", "/*", "*/"],
  Scala: ["a.scala", "/*", "*/"],
  Rust: ["a.rs", "/*", "*/"],
  Swift: ["a.swift", "/*", "*/"],
  Dart: ["a.dart", "/*", "*/"],
  Julia: ["a.jl", "#=", "=#"],
  Nim: ["a.nim", "#[", "]#"],
  Haskell: ["a.hs", "{-", "-}"],
  Elm: ["a.elm", "{-", "-}"],
  OCaml: ["a.ml", "(*", "*)"],
  "F#": ["a.fs", "(*", "*)"],
  Lisp: ["a.lisp", "#|", "|#"],
  Scheme: ["a.scm", "#|", "|#"],
  Lua: ["a.lua", "--[[", "]]"],
  CSS: ["a.css", "/*", "*/"],
};

const tree = tempTree(
  Object.fromEntries(
    Object.values(BLOCKS).map(([name, open, close]) => [
      name,
      // Line 3 is inside the outer comment only when an opener inside a comment opens another level.
      `${open} outer\n${open} inner ${close}\nstill\n${close}\nx\n`,
    ]),
  ),
);
afterAll(() => tree.cleanup());

/** The languages count's note names as nesting. */
function named(stderr: string): string[] {
  const m = /only (.+?) nest block comments/.exec(stderr);
  expect(m).not.toBeNull();
  return (m?.[1] ?? "").split(", ");
}

describe("count: the languages whose block comments nest (#37)", () => {
  test("the note names exactly the languages whose nested comments count nests", () => {
    const r = rglob(["count"], { cwd: tree.dir });
    expect(r.code).toBe(0);
    const nesting = named(r.stderr);
    expect(nesting).toContain("Julia");
    const { json } = rglobJson<{
      results: Array<{ relative_path: string; language: string; comment: number }>;
    }>(["count", "--json"], { cwd: tree.dir });
    const seen = json.results.map((f) => [f.language, f.comment === 4 ? "nests" : "flat"]);
    const expected = Object.keys(BLOCKS).map((lang) => [lang, nesting.includes(lang) ? "nests" : "flat"]);
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(expected));
    // Every language named has a sample here, so none is named without being checked.
    for (const lang of nesting) expect(Object.keys(BLOCKS)).toContain(lang);
  });

  test("docs/count-and-dupes.md names the same languages", () => {
    const nesting = named(rglob(["count"], { cwd: tree.dir }).stderr);
    const doc = readFileSync(join(ROOT, "docs", "count-and-dupes.md"), "utf8").replace(/\s+/g, " ");
    const m = /they nest where the language says so \(([^:]+):/.exec(doc);
    expect(m?.[1]?.split(", ")).toEqual(nesting);
  });
});
