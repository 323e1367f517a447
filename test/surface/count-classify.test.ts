// count --classify (#37): how each line was counted, in the first call: `line_classes` (one letter per line) and
// `line_notes` (the comment and ambiguous lines with why), agreeing with the file's counts; the same on the CLI,
// the library and the MCP tool; and the counting rules at the top of `count -h`.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { count } from "../../src/agent/index.ts";
import { ROOT, rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  "tool.py":
    '#!/usr/bin/env python3\n"""Module docstring."""\n\nx = 1  # set x\n# a comment\ns = """\n# not a comment\n"""\n',
  "lib.rs": '//! crate doc\n/* block\n\n   still */\nfn main() { /* c */ let s = "// text"; }\n/// doc\n',
  "run.sh": "#!/bin/sh\necho hi # greet\n",
  "app.ts": "#!/usr/bin/env node\nconst a = `\n// in a template\n`;\n",
});
afterAll(() => t.cleanup());

interface Note {
  line: number;
  class: "code" | "comment" | "blank";
  why: string;
  text: string;
}
interface Row {
  relative_path: string;
  code: number;
  comment: number;
  blank: number;
  lines: number;
  line_classes?: string;
  line_notes?: Note[];
}

const tally = (s: string, c: string) => [...s].filter((x) => x === c).length;

describe("count --classify", () => {
  test("each line's class, and why for the ambiguous ones", () => {
    const rows = rglobJson<{ results: Row[] }>(["count", "--classify", "--json"], { cwd: t.dir }).json
      .results;
    const by = new Map(rows.map((r) => [r.relative_path, r]));
    const py = by.get("tool.py") as Row;
    expect(py.line_classes).toBe("#d.c#ccc");
    expect((py.line_notes as Note[]).map((n) => [n.line, n.class, n.why])).toEqual([
      [1, "comment", "shebang, a comment where comments start with #"],
      [2, "comment", "docstring; docstrings=code counts it as code"],
      [4, "code", "code and a comment"],
      [5, "comment", "comment only"],
      [7, "code", "only a string, not a docstring: text inside a string"],
      [8, "code", "only a string, not a docstring: text inside a string"],
    ]);
    const rs = by.get("lib.rs") as Row;
    expect(rs.line_classes).toBe("##.#c#");
    expect((rs.line_notes as Note[]).map((n) => [n.line, n.why])).toEqual([
      [1, "comment only"],
      [2, "comment only"],
      [3, "blank inside a block comment"],
      [4, "comment only"],
      [5, "code and a comment"],
      [6, "comment only"],
    ]);
    expect((by.get("app.ts") as Row).line_notes?.[0]).toEqual({
      line: 1,
      class: "code",
      why: "shebang, code where comments do not start with #",
      text: "#!/usr/bin/env node",
    });
    for (const r of rows) {
      const cls = r.line_classes as string;
      expect([tally(cls, "c"), tally(cls, "#") + tally(cls, "d"), tally(cls, "."), cls.length]).toEqual([
        r.code,
        r.comment,
        r.blank,
        r.lines,
      ]);
    }
    // Without --classify the records are as before.
    const plain = rglobJson<{ results: Row[] }>(["count", "--json"], { cwd: t.dir }).json.results;
    expect(plain.every((r) => r.line_classes === undefined && r.line_notes === undefined)).toBe(true);
  });

  test("the view agrees with the counts on every file of a real source tree", () => {
    const rows = rglobJson<{ results: Row[] }>(["count", "--classify", "--json", "--base", join(ROOT, "src")])
      .json.results;
    expect(rows.length).toBeGreaterThan(100);
    for (const r of rows) {
      const cls = r.line_classes as string;
      expect({
        p: r.relative_path,
        n: [tally(cls, "c"), tally(cls, "#") + tally(cls, "d"), tally(cls, ".")],
      }).toEqual({
        p: r.relative_path,
        n: [r.code, r.comment, r.blank],
      });
    }
  });

  test("human output: the notes under each file's row, grep-like; the rules open count -h", () => {
    const out = rglob(["count", "--classify", "lib.rs"], { cwd: t.dir }).stdout;
    expect(out).toContain("lib.rs:3: blank (blank inside a block comment)\n");
    expect(out).toContain('lib.rs:5: code (code and a comment): fn main() { /* c */ let s = "// text"; }\n');
    const help = rglob(["count", "-h"]).stdout.split("\n").slice(0, 6).join(" ");
    expect(help).toContain("a line with code and a comment is code");
    expect(help).toContain("--classify");
  });

  test("the library and the MCP tool give the same view", async () => {
    const cli = rglobJson<{ results: Row[] }>(["count", "--classify", "--json"], { cwd: t.dir }).json.results;
    const lib = await count({ base: t.dir, classify: true });
    expect(lib.results.map((r) => [r.relative_path, r.line_classes, r.line_notes])).toEqual(
      cli.map((r) => [r.relative_path, r.line_classes, r.line_notes]),
    );
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "count_lines",
        arguments: { classify: true, patterns: ["lib.rs"] },
      })) as CallToolResult;
      const recs = (res.structuredContent as { results: Row[] }).results;
      expect(recs[0]?.line_classes).toBe("##.#c#");
      expect((res.content[0] as { text: string }).text).toContain("3: blank (blank inside a block comment)");
    } finally {
      await s.close();
    }
  });
});
