// tools/list answers ordinary questions alone (#37), over stdio with the SDK's Client on the compiled binary:
// every argument the server accepts is declared with a one-line description and accepted; an undeclared one is
// a tool error; each outputSchema is Draft-07 and types the records all the way down, and the structuredContent
// of real calls on a tree with links, binary files and ignored entries validates against it with ajv, with no
// record field the schema does not name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import { tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": "build/\n*.log\n",
  "src/app.py": "#!/usr/bin/env python\n# TODO: one\nx = 1  # TODO two\n",
  "src/lib.ts": "// TODO three\nexport const y = 'TODO four';\n",
  "src/run.sh": "#!/bin/sh\necho hi\n",
  "src/copy.ts": "// TODO three\nexport const y = 'TODO four';\n",
  "build/out.js": "TODO in build\n",
  "debug.log": "TODO in a log\n",
  "img.bin": new Uint8Array([0, 1, 2, 84, 79, 68, 79]),
  "link-ok": { symlink: "src/app.py" },
  "link-broken": { symlink: "nowhere" },
  "link-out": { symlink: "../../../etc" },
});
// A hard link of a member of a duplicate group: the group names it (hard_links).
linkSync(join(t.dir, "src/lib.ts"), join(t.dir, "src/lib-hard.ts"));

let mcp: McpSession;
let tools: Tool[] = [];
beforeAll(async () => {
  mcp = await startMcp(["--root", t.dir]);
  tools = (await mcp.client.listTools()).tools;
});
afterAll(async () => {
  await mcp.close();
  t.cleanup();
});

function call(name: string, args: Record<string, unknown>) {
  return mcp.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

type Node = Record<string, unknown>;

/** A value of a declared argument's type: its default, its first choice, or a plain value of the type. */
function sampleValue(p: Node): unknown {
  if (p.default !== undefined) return p.default;
  if (p.const !== undefined) return p.const;
  if (Array.isArray(p.enum)) return p.enum[0];
  const type = Array.isArray(p.type) ? p.type[0] : p.type;
  if (type === "boolean") return false;
  if (type === "integer" || type === "number") return 1;
  if (type === "array") return [];
  return "x";
}

describe("tools/list", () => {
  test("every argument is declared with a one-line description, accepted, and an undeclared one is a tool error", async () => {
    for (const tool of tools) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Node>;
      expect(tool.inputSchema.additionalProperties).toBe(false);
      for (const [k, p] of Object.entries(props)) {
        expect(`${tool.name}.${k}: ${typeof p.description}`).toBe(`${tool.name}.${k}: string`);
        const d = p.description as string;
        expect(d).not.toContain("…");
        expect(d).not.toContain("\n");
        expect(d.length).toBeLessThanOrEqual(100);
        // Accepted: a value of its type never gets "unknown argument" (it may still be a bad value).
        const res = await call(tool.name, {
          ...(tool.name === "grep_content" && k !== "pattern" ? { pattern: "TODO" } : {}),
          ...(tool.name === "describe_tool" ? {} : { timeout_seconds: 10 }),
          [k]: sampleValue(p),
        });
        expect(`${tool.name}.${k}: ${JSON.stringify(res.content).includes("unknown argument")}`).toBe(
          `${tool.name}.${k}: false`,
        );
      }
      const bad = await call(tool.name, { no_such_argument: 1 });
      expect(bad.isError).toBe(true);
      if (tool.name !== "describe_tool")
        expect(JSON.stringify(bad.content)).toContain("unknown argument 'no_such_argument'");
    }
    // The tool descriptions carry the operation's rules: count's counting rules, explain's bulk verdicts.
    const desc = (n: string) => tools.find((x) => x.name === n)?.description ?? "";
    expect(desc("count_lines")).toContain("a line with code and a comment is code");
    expect(desc("explain_path")).toContain("only=ignored");
    for (const x of tools) expect(x.description).not.toMatch(/--[a-z]|call again with/);
  }, 240_000);

  test("outputSchemas are Draft-07, typed to the records' fields, and real answers validate against them", async () => {
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    const calls: Array<[string, Record<string, unknown>]> = [
      ["find_files", {}],
      ["find_files", { links: ["broken", "escaping"] }],
      ["grep_content", { pattern: "TODO", context: 1 }],
      ["grep_content", { pattern: "TODO", count: true, list_binary: true }],
      ["grep_content", { pattern: "TODO", files_with_matches: true, by: "dir" }],
      ["count_lines", { by: "language" }],
      ["count_lines", { by: "file", file_types: ["py"] }],
      ["grep_content", { pattern: "TODO", in: ["comment"] }],
      ["find_duplicates", {}],
      ["directory_tree", {}],
      ["largest_files", { dirs: true }],
      ["largest_files", {}],
      ["file_stats", {}],
      ["explain_path", { under: ".", only: "ignored" }],
      ["find_files", { only_ignored: true }],
      ["grep_content", { pattern: "TODO", only_ignored: true }],
      ["explain_path", { targets: ["debug.log", "link-ok"] }],
    ];
    const seen = new Set<string>();
    for (const [name, args] of calls) {
      const tool = tools.find((x) => x.name === name) as Tool;
      const schema = tool.outputSchema as Node;
      const validate = ajv.compile(schema);
      const res = await call(name, args);
      expect(`${name} ${JSON.stringify(args)}: ${res.isError ?? false}`).toBe(
        `${name} ${JSON.stringify(args)}: false`,
      );
      if (!validate(res.structuredContent))
        throw new Error(`${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      // Every result field and every record field is named by the schema (not just "object").
      const props = schema.properties as Record<string, Node>;
      const sc = res.structuredContent as Record<string, unknown>;
      for (const k of Object.keys(sc)) {
        expect(`${name}: ${k} ${k in props}`).toBe(`${name}: ${k} true`);
        seen.add(`${name}.${k}`);
      }
      const items = (props.results as Node).items as Node;
      const variants = (Array.isArray(items.anyOf) ? items.anyOf : [items]) as Node[];
      const named = new Set(variants.flatMap((v) => Object.keys((v.properties ?? {}) as object)));
      expect(named.size).toBeGreaterThan(2);
      for (const r of sc.results as Array<Record<string, unknown>>)
        for (const k of Object.keys(r)) {
          expect(`${name}: record field ${k} ${named.has(k)}`).toBe(`${name}: record field ${k} true`);
          seen.add(`${name}.${k}`);
        }
    }
    // The calls reached the fields a shallow schema would leave untyped.
    for (const f of [
      "find_files.link_target",
      "find_files.ignored_by",
      "grep_content.ignored_by",
      "find_files.link_escapes",
      "grep_content.before",
      "explain_path.reasons",
      "count_lines.type_globs",
      "grep_content.left_out_by_in",
      "find_duplicates.hard_links",
    ])
      expect(seen.has(f)).toBe(true);
    // only_ignored on MCP: the same key as the CLI's --only-ignored and the library's; the text names each rule.
    const ignored = await call("grep_content", { pattern: "TODO", only_ignored: true });
    const text = (ignored.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(text).toContain("build/out.js:1:TODO in build\n  ignored by .gitignore:1:build/");
    expect(text).toContain("debug.log:1:TODO in a log\n  ignored by .gitignore:2:*.log");
    expect((ignored.structuredContent as { total_matches: number }).total_matches).toBe(2);
    // A schema refuses a record of the wrong shape: it is not `{"type": "object"}`.
    const find = tools.find((x) => x.name === "find_files")?.outputSchema as Node;
    const bad = { results: [{ path: 1 }], truncated: false, next_cursor: null };
    expect(ajv.validate(find, bad)).toBe(false);
  }, 120_000);
});
