// --limit 0 asks for the summary alone: the run goes to its end, so its totals and skip ledger are those of the
// run without a limit, no record is given, and truncated says whether there were records. Found by an agent
// trial: `grep --limit 0 --json` gave total_matches 1 where there were 46 (the run stopped at its first record),
// and `find --limit 0` said "nothing found" on stderr and exited 1 with 84 files matching. The compiled binary
// on a tree with ignored, hidden, binary and duplicate files.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const spec: Record<string, string | Buffer> = {
  ".gitignore": "build/\n*.log\n",
  "build/out.js": "// TODO ignored\n",
  "debug.log": "TODO in a log\n",
  ".github/ci.yml": "# TODO hidden but part of the project\n",
  "bin.dat": Buffer.from("TODO\u0000binary\n"),
  LICENSE: "same text\n",
  "pkg/LICENSE": "same text\n",
};
for (let d = 0; d < 6; d++)
  for (let f = 0; f < 5; f++) spec[`src/d${d}/f${f}.ts`] = `const x${f} = 1; // TODO ${d}.${f}\n// FIXME\n`;
const t = tempTree(spec);
execFileSync("git", ["init", "-q"], { cwd: t.dir });
afterAll(() => t.cleanup());

/** The summary of a JSON result: everything but its records and how it was cut. */
function summaryOf(json: Record<string, unknown>): Record<string, unknown> {
  const { results: _r, truncated: _t, truncated_reason: _w, next_cursor: _c, ...rest } = json;
  return rest;
}

describe("--limit 0", () => {
  const runs: Array<[string, string[]]> = [
    ["find", ["find", "*.ts"]],
    ["grep", ["grep", "TODO|FIXME"]],
    ["grep -l", ["grep", "-l", "TODO"]],
    ["grep -c", ["grep", "-c", "TODO"]],
    ["dupes", ["dupes"]],
    ["tree", ["tree"]],
    ["stats", ["stats"]],
    ["count", ["count"]],
  ];
  for (const [name, args] of runs) {
    test(`${name}: the summary of the whole run, no record, truncated because there were records`, () => {
      const whole = rglobJson([...args, "--json"], { cwd: t.dir });
      expect((whole.json.results as unknown[]).length).toBeGreaterThan(0);
      const zero = rglobJson([...args, "--json", "--limit", "0"], { cwd: t.dir });
      expect(zero.run.code).toBe(0);
      expect(zero.json).toMatchObject({
        results: [],
        truncated: true,
        truncated_reason: "limit",
        next_cursor: null,
      });
      expect(summaryOf(zero.json)).toEqual(summaryOf(whole.json));
    });
  }

  test("grep's totals are those of the whole run (they stopped at the first match)", () => {
    const zero = rglobJson(["grep", "--json", "--limit", "0", "TODO"], { cwd: t.dir });
    // 30 source files and the hidden workflow; the ignored ones and the binary file are not searched.
    expect(zero.json).toMatchObject({ total_matches: 31, matched_lines: 31, files_with_matches: 31 });
    expect(zero.json.skipped).toMatchObject({ ignored: 2, binary: 1 });
  });

  test("human output: nothing on stdout, exit 0 and no 'nothing found' when there were records", () => {
    for (const args of [
      ["find", "*.ts"],
      ["grep", "TODO"],
    ]) {
      const run = rglob([...args, "--limit", "0"], { cwd: t.dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe("");
    }
  });

  test("with nothing to give: not truncated, exit 1, and the skip ledger's note", () => {
    const zero = rglobJson(["grep", "--json", "--limit", "0", "in a log"], { cwd: t.dir });
    expect(zero.run.code).toBe(1);
    expect(zero.json).toMatchObject({ results: [], truncated: false, truncated_reason: null });
    const run = rglob(["grep", "in a log", "--limit", "0"], { cwd: t.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("nothing found; not searched: 2 entries ignored");
  });

  test("over MCP: the whole run's totals, and no note that nothing was found", async () => {
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "TODO", limit: 0 },
      })) as CallToolResult;
      expect(res.isError ?? false).toBe(false);
      expect(res.structuredContent).toMatchObject({
        results: [],
        truncated: true,
        truncated_reason: "limit",
        total_matches: 31,
      });
      const text = (res.content[0] as { text: string }).text;
      expect(text).not.toContain("nothing found");
    } finally {
      await s.close();
    }
  });
});
