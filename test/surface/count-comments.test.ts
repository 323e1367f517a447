// count's comment and blank lines (issue #20) against hand-counted files, one per common language, each line
// marked with how docs/count-and-dupes.md classifies it: shebangs, docstrings, blank lines inside block comments,
// mixed code and comment lines, comment markers inside strings. Then the human `--by language` output: the
// breakdown first and alone unless --files asks for the per-file table, and totals alone with --limit 0.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

type Kind = "code" | "comment" | "blank";

/** A file as [line, kind] pairs: the hand count. */
const FILES: Record<string, ReadonlyArray<readonly [string, Kind]>> = {
  "a.ts": [
    ["#!/usr/bin/env node", "code"], // '#' starts no comment in TypeScript
    ["// a line comment", "comment"],
    ['import x from "y"; // trailing comment', "code"],
    ["", "blank"],
    ["/* a block", "comment"],
    ["", "blank"], // blank inside a block comment
    ["   ends here */", "comment"],
    ['const s = "/* not a comment";', "code"],
    ["/** doc */ const z = 1;", "code"],
  ],
  "b.js": [
    ['const u = "http://example.com";', "code"],
    ["  // indented", "comment"],
    [" \t ", "blank"],
    ["/* one */ /* two */", "comment"],
  ],
  "c.py": [
    ["#!/usr/bin/env python3", "comment"], // a shebang where '#' starts comments
    ["# comment", "comment"],
    ["def f():", "code"],
    ['    """Docstring."""', "comment"], // a docstring line is a comment line (cloc's convention)
    ["", "blank"],
    ["    return 1  # trailing", "code"],
  ],
  "d.rs": [
    ["//! crate doc", "comment"],
    ["/* outer /* nested */ still comment */", "comment"],
    ["fn main() {", "code"],
    ["", "blank"],
    ["    let x = 1; /* c */", "code"],
    ["}", "code"],
  ],
  "e.go": [
    ["package main", "code"],
    ["", "blank"],
    ["// Comment", "comment"],
    ["func main() {}", "code"],
    ["/*", "comment"],
    ["*/", "comment"],
  ],
  "f.c": [
    ["#include <stdio.h>", "code"],
    ["/* a */", "comment"],
    ["int main(void) {", "code"],
    ["  return 0; // ok", "code"],
    ["}", "code"],
    ["", "blank"],
  ],
  "g.sh": [
    ["#!/bin/sh", "comment"],
    ["# comment", "comment"],
    ['echo "hi" # trailing', "code"],
    ["", "blank"],
  ],
  "h.md": [
    ["# Title", "code"], // Markdown has no line comments: a heading is text
    ["", "blank"],
    ["<!-- comment -->", "comment"],
    ["text", "code"],
    ["<!--", "comment"],
    ["", "blank"],
    ["-->", "comment"],
  ],
  "i.html": [
    ["<html>", "code"],
    ["<!-- c -->", "comment"],
    ["<body></body> <!-- x -->", "code"],
    ["</html>", "code"],
  ],
  "j.css": [
    ["/* header */", "comment"],
    ["a { color: red; }", "code"],
    ["", "blank"],
    ["/*", "comment"],
    [" multi", "comment"],
    ["*/", "comment"],
    ["b {}", "code"],
  ],
};

function tally(lines: ReadonlyArray<readonly [string, Kind]>) {
  const n = (k: Kind) => lines.filter((l) => l[1] === k).length;
  return {
    lines: lines.length,
    code: n("code"),
    comment: n("comment"),
    blank: n("blank"),
    non_blank: n("code") + n("comment"),
  };
}

let dir = "";
let cleanup = () => {};
beforeAll(() => {
  const spec: Record<string, string> = {};
  for (const [name, lines] of Object.entries(FILES)) spec[name] = `${lines.map((l) => l[0]).join("\n")}\n`;
  ({ dir, cleanup } = tempTree(spec));
});
afterAll(() => cleanup());

interface CountJson {
  results: Array<{
    relative_path: string;
    lines: number;
    code: number;
    comment: number;
    blank: number;
    non_blank: number;
  }>;
  totals: Record<string, number>;
  breakdown: Array<Record<string, number | string>> | null;
}

describe("count: comment and blank lines against a hand count", () => {
  test.each(Object.keys(FILES))("%s", (name) => {
    const { json } = rglobJson<CountJson>(["count", name, "--json"], { cwd: dir });
    const r = json.results[0];
    expect(r).toBeDefined();
    const { lines, code, comment, blank, non_blank } = r as CountJson["results"][number];
    expect({ lines, code, comment, blank, non_blank }).toEqual(tally(FILES[name] as never));
  });

  test("totals and the breakdown carry comment and blank; they add up to the lines", () => {
    const { json } = rglobJson<CountJson>(["count", "--by", "language", "--json"], { cwd: dir });
    const all = Object.values(FILES).flat();
    const want = tally(all);
    expect(json.totals).toMatchObject(want);
    const rows = json.breakdown ?? [];
    expect(rows.reduce((s, g) => s + (g.comment as number), 0)).toBe(want.comment);
    expect(rows.reduce((s, g) => s + (g.blank as number), 0)).toBe(want.blank);
    for (const g of rows)
      expect((g.code as number) + (g.comment as number) + (g.blank as number)).toBe(g.lines as number);
  });

  test("--no-empty and --no-comments shorten lines, never comment or blank", () => {
    const { json } = rglobJson<CountJson>(["count", "a.ts", "--no-empty", "--no-comments", "--json"], {
      cwd: dir,
    });
    expect(json.results[0]).toMatchObject({ lines: 4, code: 4, comment: 3, blank: 2 });
  });
});

describe("count --by language in human mode", () => {
  test("leads with the breakdown; no per-file table unless --files", () => {
    const run = rglob(["count", "--by", "language"], { cwd: dir });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    // c.py holds a docstring: its column comes after comment (comment - docstring: tokei's comment lines).
    expect(lines[0]).toMatch(/^language\s+files\s+lines\s+code\s+comment\s+docstring\s+blank\s+bytes$/);
    expect(
      lines
        .find((l) => l.startsWith("Python"))
        ?.trim()
        .split(/\s+/),
    ).toEqual([
      "Python",
      "1",
      "6",
      "2",
      "3",
      "1",
      "1",
      String(Buffer.byteLength((FILES["c.py"] ?? []).map((l) => `${l[0]}\n`).join(""))),
    ]);
    expect(run.stdout).not.toContain("a.ts");
    expect(run.stdout).toMatch(/total: 10 files, \d+ lines \(\d+ code, \d+ comment, \d+ blank;/);
    const withFiles = rglob(["count", "--by", "language", "--files"], { cwd: dir });
    expect(withFiles.stdout).toContain("a.ts");
    // Each file's row has its language: which files a breakdown row counts.
    // (lines, code, comment, blank and bytes: #37 put the comment and blank columns in the per-file rows)
    expect(withFiles.stdout).toMatch(/^\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+ {2}TypeScript\s+a\.ts$/m);
    expect(withFiles.stdout).toMatch(/^language\s+files/m);
  });

  test("--limit 0: the totals alone, exit 0, and --json says truncated without a record", () => {
    const run = rglob(["count", "--limit", "0"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^total: 10 files,/);
    const { json, run: j } = rglobJson<CountJson & { truncated: boolean }>(
      ["count", "--limit", "0", "--json"],
      {
        cwd: dir,
      },
    );
    expect(j.code).toBe(0);
    expect(json.results).toEqual([]);
    expect(json.totals.files).toBe(10);
  });
});
