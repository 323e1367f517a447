// A type's globs match file names, as rg's do: a type_add glob that holds '/' ('sh:.husky/*') matched nothing,
// silently (rg 13 too: `rg --hidden --type-add 'hook:.husky/*' -thook --files` lists nothing, exit 1), and a
// trial's agent took the empty answer for "no such files". It is a BAD_PREDICATE error (exit 2) that says how to
// select paths; a leading '**/' still matches any directory, so the name, as in rg. CLI and MCP (SDK client).
import { describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const t = mcpOnTree({
  ".husky/commit-msg": "#!/usr/bin/env sh\nrun\n",
  ".husky/pre-commit": "#!/usr/bin/env sh\nrun\n",
  "tools/check.sh": "echo ok\n",
});
const cwd = t.dir;

const SAID =
  "type_add: a type's globs match file names, not paths: '.husky/*' holds '/'; select paths with a glob";

describe("a type glob with '/'", () => {
  test("CLI: a usage error naming the glob, in human and JSON modes", () => {
    for (const op of ["count", "find", "grep"]) {
      const args = op === "grep" ? ["grep", "run"] : [op];
      const r = rglob([...args, "--type-add", "sh:.husky/*", "--lang", "sh"], { cwd });
      expect({ op, code: r.code }).toEqual({ op, code: 2 });
      expect(r.stderr).toContain(`BAD_PREDICATE: ${SAID}`);
    }
    const j = rglob(["count", "--type-add", "hook:.husky/*", "--lang", "hook", "--json"], { cwd });
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout).error.code).toBe("BAD_PREDICATE");
  });

  test("names and a leading '**/' still select by name", () => {
    for (const glob of ["pre-commit", "**/pre-commit"]) {
      const r = rglob(["find", "--type-add", `hook:${glob}`, "--lang", "hook"], { cwd });
      expect({ glob, out: r.stdout, code: r.code }).toEqual({ glob, out: ".husky/pre-commit\n", code: 0 });
    }
  });

  test("MCP: an error result with the same words", async () => {
    const res = (await t.mcp.client.callTool({
      name: "rglob",
      arguments: { op: "count", type_add: ["sh:.husky/*"], file_types: ["sh"] },
    })) as CallToolResult;
    expect(res.isError).toBe(true);
    const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(text).toContain("BAD_PREDICATE");
    expect(text).toContain(SAID);
  });
});
