// Ignore verdicts in bulk (#37): `explain --under DIR` gives an ignored directory ONE verdict (`dir/`, its rule,
// `entries_inside`), as `git ls-files -o -i --directory` lists it, and lists what it holds only with `--expand`
// (`expand`); the same answer on the CLI, the library and the MCP tool. The differential against git over random
// trees is test/diff/explain-git.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { explain, searchAll } from "../../src/agent/index.ts";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": ".venv/\n*.pyc\n",
  "api/.gitignore": "logs/*\n!logs/.gitkeep\n",
  "api/app.py": "print(1)\n",
  "api/app.pyc": "x",
  "api/.venv/pyvenv.cfg": "home = /usr\n",
  "api/.venv/bin/python": "#!/bin/sh\n",
  "api/.venv/lib/site/pkg/__init__.py": "",
  "api/logs/.gitkeep": "",
  "api/logs/a.log": "a\n",
});
afterAll(() => t.cleanup());

interface Rec {
  relative_path: string;
  included: boolean;
  entries_inside?: number;
  reasons: Array<{ stage: string; pattern?: string; line?: number }>;
}

describe("explain --under: an ignored directory is one verdict", () => {
  test("CLI human output: dir/ with its rule and how many entries it holds; --expand lists them", () => {
    const r = rglob(["explain", "--under", "api", "--only", "ignored"], { cwd: t.dir });
    // A listing of ignored entries found some: exit 0 (#37; it was 1, read as "nothing").
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "api/.venv/: not included, with the 7 entries inside: 3 files, 4 directories (--expand lists them)",
        "  ignored by .gitignore:1: .venv/",
        "api/app.pyc: not included",
        "  ignored by .gitignore:2: *.pyc",
        "api/logs/a.log: not included",
        "  ignored by api/.gitignore:1: logs/*",
        "",
      ].join("\n"),
    );
    const all = rglob(["explain", "--under", "api", "--only", "ignored", "--expand"], { cwd: t.dir });
    expect(all.stdout).toContain("api/.venv/lib/site/pkg/__init__.py: not included");
    expect(all.stdout).not.toContain("entries inside");
  });

  test("JSON: entries_inside on the directory, nothing inside it, included entries unchanged", () => {
    const { json } = rglobJson<{ results: Rec[]; explained: number }>(["explain", "--all", "--json"], {
      cwd: t.dir,
    });
    const rels = json.results.map((r) => r.relative_path);
    expect(rels.filter((p) => p.startsWith("api/.venv"))).toEqual(["api/.venv"]);
    const venv = json.results.find((r) => r.relative_path === "api/.venv") as Rec;
    expect(venv.entries_inside).toBe(7);
    expect(venv.included).toBe(false);
    // logs/ is not ignored itself (its files are, one rule each; .gitkeep is re-included).
    expect(rels).toContain("api/logs/.gitkeep");
    expect((json.results.find((r) => r.relative_path === "api/logs") as Rec).entries_inside).toBeUndefined();
    // A path named as such is explained as named, never collapsed.
    const named = rglobJson<{ results: Rec[] }>(["explain", "api/.venv", "api/.venv/bin/python", "--json"], {
      cwd: t.dir,
    }).json.results;
    expect(named.map((r) => [r.relative_path, r.entries_inside])).toEqual([
      ["api/.venv", undefined],
      ["api/.venv/bin/python", undefined],
    ]);
  });

  test("the library and the MCP tool give the same records", async () => {
    const cli = rglobJson<{ results: Rec[] }>(["explain", "--under", "api", "--only", "ignored", "--json"], {
      cwd: t.dir,
    }).json.results;
    const lib = await explain({ base: t.dir, under: "api", only: "ignored" });
    expect(lib.results).toEqual(cli as never);
    const libAll = await explain({ base: t.dir, under: "api", only: "ignored", expand: true });
    expect(libAll.results.length).toBe(cli.length + 7);
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "explain_path",
        arguments: { under: "api", only: "ignored" },
      })) as CallToolResult;
      const recs = (res.structuredContent as { results: Rec[] }).results;
      expect(recs.map((r) => [r.relative_path, r.entries_inside])).toEqual(
        cli.map((r) => [r.relative_path, r.entries_inside]),
      );
      expect((res.content[0] as { text: string }).text).toContain(
        "api/.venv/: not included, with the 7 entries inside: 3 files, 4 directories (expand lists them)",
      );
      const expanded = (await s.client.callTool({
        name: "explain_path",
        arguments: { under: "api", only: "ignored", expand: true },
      })) as CallToolResult;
      expect((expanded.structuredContent as { results: Rec[] }).results.length).toBe(cli.length + 7);
    } finally {
      await s.close();
    }
  });
});

describe("find --only-ignored: an ignored directory is one record", () => {
  test("CLI, library and MCP: entries_inside, nothing inside listed; --expand (expand) lists it", async () => {
    const cli = rglob(["find", "--only-ignored"], { cwd: t.dir });
    expect(cli.stdout).toBe("api/.venv\napi/app.pyc\napi/logs/a.log\n");
    expect(cli.stderr).toContain(
      "rglob: ignored by .gitignore:1:.venv/: api/.venv (a directory: the 7 entries inside: 3 files, 4 directories, not listed; --expand lists them)",
    );
    expect(rglob(["find", "--only-ignored", "--expand"], { cwd: t.dir }).stdout.split("\n").length).toBe(
      3 + 7 + 1,
    );
    // A query that does not list the directory (-e py) lists the ignored files inside it.
    expect(rglob(["find", "--only-ignored", "-e", "py"], { cwd: t.dir }).stdout).toBe(
      "api/.venv/lib/site/pkg/__init__.py\n",
    );
    const json = rglobJson<{ results: Array<{ relative_path: string; entries_inside?: number }> }>(
      ["find", "--only-ignored", "--json"],
      { cwd: t.dir },
    ).json.results;
    const lib = await searchAll({ base: t.dir, only_ignored: true });
    expect(lib.results.map((r) => [r.relative_path, r.entries_inside])).toEqual(
      json.map((r) => [r.relative_path, r.entries_inside]),
    );
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "find_files",
        arguments: { only_ignored: true },
      })) as CallToolResult;
      const recs = (
        res.structuredContent as { results: Array<{ relative_path: string; entries_inside?: number }> }
      ).results;
      expect(recs.map((r) => [r.relative_path, r.entries_inside])).toEqual([
        ["api/.venv", 7],
        ["api/app.pyc", undefined],
        ["api/logs/a.log", undefined],
      ]);
      expect((res.content[0] as { text: string }).text).toContain(
        "a directory: the 7 entries inside: 3 files, 4 directories, not listed (expand lists them)",
      );
    } finally {
      await s.close();
    }
  });
});
