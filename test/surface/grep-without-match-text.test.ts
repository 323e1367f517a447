// The MCP text of grep's files_without_match says what its list is: a trial's agent saw each file as `path:0`
// under "total_matches: 3, files_with_matches: 3" while the list held the files without a match. The header says
// "N files without a match (of M searched)" and each file is a bare path, as the CLI prints them; the structured
// result is unchanged (records of kind 'file' with count 0). Over MCP with the SDK client, and the CLI's listing.
import { describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const HEADER = "// SPDX-License-Identifier: Apache-2.0\n";
const t = mcpOnTree({
  "src/a.ts": `${HEADER}export const a = 1;\n`,
  "src/b.ts": `${HEADER}export const b = 2;\n`,
  "src/c.ts": `${HEADER}export const c = 3;\n`,
  "src/no-header.ts": "export const d = 4;\n",
  "vite.config.ts": "export default {};\n",
});
const cwd = t.dir;

async function call(args: Record<string, unknown>): Promise<{ text: string; sc: Record<string, unknown> }> {
  const res = (await t.mcp.client.callTool({ name: "rglob", arguments: args })) as CallToolResult;
  return {
    text: (res.content as Array<{ text: string }>)[0]?.text ?? "",
    sc: res.structuredContent as Record<string, unknown>,
  };
}

describe("files_without_match: the text says what the list is", () => {
  test("MCP: a header naming the files without a match, bare paths, no match totals", async () => {
    const { text, sc } = await call({
      op: "grep",
      pattern: "SPDX-License-Identifier: Apache-2.0",
      fixed_strings: true,
      files_without_match: true,
    });
    const lines = text.split("\n");
    expect(lines[0]).toBe("grep: 2 files without a match (of 5 searched)");
    expect(lines).toContain("src/no-header.ts");
    expect(lines).toContain("vite.config.ts");
    expect(text).not.toContain(":0");
    expect(text).not.toContain("total_matches");
    // The structured result is the contract's: file records with count 0, and the totals of the matches.
    expect((sc.results as Array<Record<string, unknown>>).map((r) => [r.relative_path, r.count])).toEqual([
      ["src/no-header.ts", 0],
      ["vite.config.ts", 0],
    ]);
    expect(sc.files_with_matches).toBe(3);
  });

  test("MCP: files_with_matches keeps its header; the CLI lists bare paths, and its --by total says what the rows are", async () => {
    const { text } = await call({
      op: "grep",
      pattern: "SPDX",
      fixed_strings: true,
      files_with_matches: true,
    });
    expect(text.split("\n")[0]).toBe("grep: 3 records, 5 files searched");
    const r = rglob(["grep", "-F", "SPDX", "--files-without-match"], { cwd });
    expect(r.stdout).toBe("src/no-header.ts\nvite.config.ts\n");
    // With --by, the rows count the files that match: the total says so and how many files have none.
    const by = rglob(["grep", "-F", "SPDX", "--files-without-match", "--by", "ext"], { cwd });
    expect(by.stdout).toMatch(/^\.ts +3 +3 +3$/m);
    expect(by.stdout).toContain(
      "total: 2 files without a match (listed without --by); the rows count the 3 files that match\n",
    );
  });
});
