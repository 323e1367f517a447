// Issue #22 on MCP: the ignore options are tool inputs (ignore_parent, ignore_dot, ignore_vcs,
// global_ignore_file, ignore_files); an ignore_files path outside the server's roots is refused like any path.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  "a/.ignore": "skip.txt\n",
  "a/b/keep.txt": "needle\n",
  "a/b/skip.txt": "needle\n",
  "a/b/x.dat": "needle\n",
  "a/my-ignore": "*.dat\n",
});
const outside = tempTree({ rules: "*.txt\n" });
let s: McpSession;
beforeAll(async () => {
  s = await startMcp(["--root", `${t.dir}/a/b`, "--root", `${t.dir}/a`]);
});
afterAll(async () => {
  await s.close();
  t.cleanup();
  outside.cleanup();
});

async function files(args: Record<string, unknown>): Promise<string[] | CallToolResult> {
  const res = (await s.client.callTool({
    name: "grep_content",
    arguments: { pattern: "needle", base: `${t.dir}/a/b`, files_with_matches: true, ...args },
  })) as CallToolResult;
  if (res.isError) return res;
  const sc = res.structuredContent as { results: Array<{ relative_path: string }> };
  return sc.results.map((r) => r.relative_path).sort();
}

test("the parent's .ignore applies, and ignore_parent: false turns it off", async () => {
  expect(await files({})).toEqual(["keep.txt", "x.dat"]);
  expect(await files({ ignore_parent: false })).toEqual(["keep.txt", "skip.txt", "x.dat"]);
  expect(await files({ ignore_dot: false })).toEqual(["keep.txt", "skip.txt", "x.dat"]);
});

test("ignore_files inside the roots applies; outside them it is refused", async () => {
  expect(await files({ ignore_files: [`${t.dir}/a/my-ignore`] })).toEqual(["keep.txt"]);
  const res = await files({ ignore_files: [`${outside.dir}/rules`] });
  expect(Array.isArray(res)).toBe(false);
  expect(JSON.stringify(res)).toContain("PERM");
});
