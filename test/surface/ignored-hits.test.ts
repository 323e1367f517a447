// A find or grep that found nothing while ignore rules left entries out says what the same query finds among them
// (the first three) and the rule that ignores each: "why is icons.ts not there" and "the API key in the env
// file" took trial agents a second and third call (-u, explain). Real git-style ignore files, the compiled
// binary, and the SDK client over stdio.
import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": "node_modules/\n.env\n",
  "web/.gitignore": "/src/generated/\n",
  "web/src/app.ts": "import { icons } from './generated/icons';\n",
  "web/src/generated/icons.ts": "export const icons = [];\n",
  ".env": "API_KEY=sk_test_123\n",
  ".env.example": "API_KEY=your-key-here\n",
  "node_modules/a/index.js": "module.exports = 1;\n",
  "node_modules/b/icons.ts": "x\n",
  "node_modules/c/icons.ts": "y\n",
  "node_modules/d/icons.ts": "z\n",
});
afterAll(() => t.cleanup());

describe("nothing found, but among the ignored entries", () => {
  test("find: the ignored file named, with the rule of the nested .gitignore that ignores its directory", () => {
    const run = rglob(["find", "icons.ts", "--base", "web"], { cwd: t.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      "rglob: among the ignored entries, the same query finds: src/generated/icons.ts (its directory 'src/generated' is ignored by .gitignore:1: /src/generated/)",
    );
  });

  test("grep: the line, and the rule that ignores its file", () => {
    const run = rglob(["grep", "sk_test_"], { cwd: t.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "rglob: among the ignored entries, the same query finds: .env:1 (ignored by .gitignore:2: .env)",
    );
  });

  test("at most three, and said so when there are more", () => {
    const run = rglob(["find", "icons.ts", "-t", "f", "--base", "."], { cwd: t.dir });
    // web/src/generated/icons.ts and node_modules/{b,c,d}/icons.ts: four, three named.
    expect(run.code).toBe(1);
    const line = run.stderr.split("\n").find((l) => l.startsWith("rglob: among the ignored entries")) ?? "";
    expect(line).toContain("the same query finds, first: ");
    expect(line.split("; ")).toHaveLength(3);
  });

  test("no such note when the ignored entries hold nothing, when ignore rules are off, or when something was found", () => {
    for (const args of [
      ["grep", "nowhere_at_all"],
      ["find", "nothing-named-so.ts"],
      ["find", "icons.ts", "--no-ignore", "-E", "node_modules", "-E", "generated"],
      ["find", "app.ts"],
    ]) {
      expect(rglob(args, { cwd: t.dir }).stderr).not.toContain("among the ignored entries");
    }
  });

  test("over MCP: in the text of an empty answer", async () => {
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "sk_test_" },
      })) as CallToolResult;
      expect((res.structuredContent as { results: unknown[] }).results).toEqual([]);
      expect((res.content[0] as { text: string }).text).toContain(
        "among the ignored entries, the same query finds: .env:1 (ignored by .gitignore:2: .env)",
      );
    } finally {
      await s.close();
    }
  });
});
