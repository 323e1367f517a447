// grep --by (`by`): the totals broken down by first directory, extension or language, as count's `by` breaks
// down lines. An agent trial asked "how many TODO and FIXME notes per top-level folder" and needed 20 calls (a
// grep per folder). The compiled binary on a real tree; the breakdown is checked against the per-file counts of
// `grep --count-matches` summed by key in the test.
import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": "build/\n",
  "build/gen.ts": "// TODO ignored\n",
  "README.md": "TODO: write it\n",
  "src/a.ts": "// TODO one\n// TODO two TODO\nconst a = 1;\n",
  "src/b.tsx": "// FIXME\n",
  "src/deep/c.py": "# TODO\n",
  "docs/guide.md": "nothing to do\n",
  "docs/Makefile": "# TODO make\n",
  ".github/ci.yml": "# TODO cache\n",
  noext: "TODO\n",
});
afterAll(() => t.cleanup());

interface Group {
  key: string;
  total_matches: number;
  matched_lines: number;
  files_with_matches: number;
}

/** The breakdown computed from per-file match counts (files with a match only), most lines first. */
function expected(keyOf: (rel: string) => string, pattern: string): Group[] {
  const lines = rglobJson<{ results: Array<{ relative_path: string; count: number }> }>(
    ["grep", "--count", "--json", pattern],
    { cwd: t.dir },
  ).json.results;
  const matches = rglobJson<{ results: Array<{ relative_path: string; count: number }> }>(
    ["grep", "--count-matches", "--json", pattern],
    { cwd: t.dir },
  ).json.results;
  const groups = new Map<string, Group>();
  for (const r of lines) {
    const key = keyOf(r.relative_path);
    const g = groups.get(key) ?? { key, total_matches: 0, matched_lines: 0, files_with_matches: 0 };
    g.matched_lines += r.count;
    g.total_matches += matches.find((m) => m.relative_path === r.relative_path)?.count ?? 0;
    g.files_with_matches++;
    groups.set(key, g);
  }
  return [...groups.values()].sort(
    (a, b) => b.matched_lines - a.matched_lines || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

const firstDir = (rel: string) => (rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : ".");
const ext = (rel: string) => {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "(none)";
};

describe("grep --by", () => {
  test("dir: the totals per first directory ('.' for files directly in the base), of the whole search with --limit 0", () => {
    const want = expected(firstDir, "TODO|FIXME");
    expect(want.map((g) => g.key)).toEqual(["src", ".", ".github", "docs"]);
    const { json, run } = rglobJson<{ breakdown: Group[]; results: unknown[]; total_matches: number }>(
      ["grep", "TODO|FIXME", "--by", "dir", "--limit", "0", "--json"],
      { cwd: t.dir },
    );
    expect(run.code).toBe(0);
    expect(json.results).toEqual([]);
    expect(json.breakdown).toEqual(want);
    expect(json.breakdown.reduce((n, g) => n + g.total_matches, 0)).toBe(json.total_matches);
  });

  test("ext and language", () => {
    const byExt = rglobJson<{ breakdown: Group[] }>(["grep", "TODO|FIXME", "--by", "ext", "--json"], {
      cwd: t.dir,
    }).json.breakdown;
    expect(byExt).toEqual(expected(ext, "TODO|FIXME"));
    const byLanguage = rglobJson<{ breakdown: Group[] }>(
      ["grep", "TODO|FIXME", "--by", "language", "--json"],
      { cwd: t.dir },
    ).json.breakdown;
    expect(byLanguage.map((g) => [g.key, g.matched_lines])).toEqual([
      ["TypeScript", 3],
      ["(unknown)", 1],
      ["Makefile", 1],
      ["Markdown", 1],
      ["Python", 1],
      ["YAML", 1],
    ]);
  });

  test("without by, no breakdown in the result", () => {
    const { json } = rglobJson(["grep", "TODO", "--json"], { cwd: t.dir });
    expect("breakdown" in json).toBe(false);
  });

  test("human output: the breakdown table and the totals, not the lines", () => {
    const run = rglob(["grep", "TODO|FIXME", "--by", "dir"], { cwd: t.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "dir          files     lines   matches",
        "src              3         4         5",
        ".                2         2         2",
        ".github          1         1         1",
        "docs             1         1         1",
        "",
        "total: 8 matching lines (9 matches) in 7 files",
        "",
      ].join("\n"),
    );
    const none = rglob(["grep", "nowhere-to-be-found", "--by", "dir"], { cwd: t.dir });
    expect(none.code).toBe(1);
    expect(none.stdout).toBe("total: 0 matching lines (0 matches) in 0 files\n");
  });

  test("over MCP: grep_content with by gives the breakdown, in the structured result and the text", async () => {
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "TODO|FIXME", by: "dir", limit: 0 },
      })) as CallToolResult;
      expect(res.isError ?? false).toBe(false);
      expect((res.structuredContent as { breakdown: Group[] }).breakdown).toEqual(
        expected(firstDir, "TODO|FIXME"),
      );
      const text = (res.content[0] as { text: string }).text;
      expect(text).toContain(
        'breakdown: [{"key":"src","total_matches":5,"matched_lines":4,"files_with_matches":3}',
      );
    } finally {
      await s.close();
    }
  });
});
