// The MCP text of a count with `by` says how to leave the per-file records out: a trial's agent asked for lines
// per language and took 50 file records (19.8 KB on the wire) after the breakdown it needed, not knowing that
// `limit: 0` gives the totals and the breakdown alone. Over MCP with the SDK client.
import { expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mcpOnTree } from "./mcp-helpers.ts";

const t = mcpOnTree({ "a.ts": "const a = 1;\n", "b.py": "b = 2\n", "c/d.go": "package d\n" });

async function text(args: Record<string, unknown>): Promise<string> {
  const res = (await t.mcp.client.callTool({
    name: "rglob",
    arguments: { op: "count", ...args },
  })) as CallToolResult;
  return (res.content as Array<{ text: string }>)[0]?.text ?? "";
}

test("count by language: a line after the breakdown says how many file records follow and how to drop them", async () => {
  const page = await text({ by: "language", limit: 2 });
  const lines = page.split("\n");
  const hint = lines.indexOf("per-file records below: 2 of 3 files; limit: 0 leaves them out");
  expect(hint).toBeGreaterThan(lines.findIndex((l) => l.startsWith("breakdown: ")));
  // limit 0 (the totals and breakdown alone) and a count without `by` have no such line.
  expect(await text({ by: "language", limit: 0 })).not.toContain("per-file records below");
  expect(await text({})).not.toContain("per-file records below");
});
