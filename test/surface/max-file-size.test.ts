// grep's --max-file-size (max_file_size) and fd's signed sizes (#34): '+10k' is fd's "at least 10000 bytes",
// which no maximum is; it used to be accepted and to lift every limit. It is refused; '-10k' is fd's "at most
// 10000 bytes" and '10k' rglob's 10240, on the CLI and over MCP alike.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

let tree: { dir: string; cleanup: () => void };

beforeAll(() => {
  const line = "needle\n";
  tree = tempTree({
    "a-10000.txt": line + "x".repeat(10000 - line.length),
    "b-10001.txt": line + "x".repeat(10001 - line.length),
    "c-10241.txt": line + "x".repeat(10241 - line.length),
  });
});

afterAll(() => tree.cleanup());

const searched = (size: string) => {
  const { json } = rglobJson<{
    results: Array<{ relative_path: string }>;
    errors: Array<{ code: string; path: string }>;
  }>(["grep", "-l", "needle", "--json", "--max-file-size", size], { cwd: tree.dir });
  return {
    found: json.results.map((r) => r.relative_path),
    tooLarge: json.errors.filter((e) => e.code === "TOO_LARGE").length,
  };
};

describe("--max-file-size", () => {
  test("'+10k' is refused with a usage error that names the forms that work", () => {
    const r = rglob(["grep", "needle", "--max-file-size", "+10k"], { cwd: tree.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("BAD_PREDICATE");
    expect(r.stderr).toContain("-10k");
    const { json, run } = rglobJson<{ ok: boolean; error: { code: string } }>(
      ["grep", "needle", "--json", "--max-file-size=+10k"],
      { cwd: tree.dir },
    );
    expect([run.code, json.ok, json.error.code]).toEqual([2, false, "BAD_PREDICATE"]);
  });

  test("'-10k' is at most 10000 bytes (fd), '10k' at most 10240 (rglob)", () => {
    expect(searched("-10k")).toEqual({ found: ["a-10000.txt"], tooLarge: 2 });
    expect(searched("10k")).toEqual({ found: ["a-10000.txt", "b-10001.txt"], tooLarge: 1 });
    expect(searched("10000")).toEqual({ found: ["a-10000.txt"], tooLarge: 2 });
  });
});

describe("max_file_size over MCP", () => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await startMcp(["--root", tree.dir], { cwd: tree.dir });
  });
  afterAll(async () => {
    await mcp.close();
  });

  test("'+10k' is BAD_PREDICATE", async () => {
    const res = (await mcp.client.callTool({
      name: "grep_content",
      arguments: { pattern: "needle", max_file_size: "+10k" },
    })) as CallToolResult;
    expect(res.isError).toBe(true);
    const env = JSON.parse((res.content as Array<{ text: string }>)[0]?.text ?? "");
    expect(env.error.code).toBe("BAD_PREDICATE");
  });
});
