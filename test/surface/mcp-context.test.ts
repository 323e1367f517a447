// The MCP surface sized for a model's context (#20), driven over stdio by the SDK's Client on the compiled
// binary: the size of tools/list, text content that carries the answer, tool errors that name the right
// argument, pages whose size changes, and default grep results that stay small.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import { FIXTURE, tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

let mcp: McpSession;
beforeAll(async () => {
  mcp = await startMcp(["--root", FIXTURE]);
});
afterAll(async () => {
  await mcp.close();
});

function call(name: string, args: Record<string, unknown>, session = mcp) {
  return session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}
function sc(res: CallToolResult): Record<string, unknown> {
  return (res.structuredContent ?? {}) as Record<string, unknown>;
}
function textOf(res: CallToolResult): string {
  return (res.content as Array<{ text: string }>)[0]?.text ?? "";
}
function failure(res: CallToolResult): { code: string; message: string } {
  expect(res.isError).toBe(true);
  return JSON.parse(textOf(res)).error;
}

describe("tools/list", () => {
  // One tool with `op` declares every argument once (ADR 0037): the whole list within 20 KB, output schema
  // included (scripts/bench-mcp-size.ts prints what each part costs).
  test("the tools/list result stays within its measured budget, and every schema is Draft-07", async () => {
    const list = await mcp.client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(list));
    const model = Buffer.byteLength(
      JSON.stringify(list.tools.map(({ outputSchema: _o, annotations: _a, ...rest }) => rest)),
    );
    console.log(
      `tools/list: ${bytes} bytes for ${list.tools.length} tools (${model} without output schemas)`,
    );
    expect(bytes).toBeLessThanOrEqual(20 * 1024);
    const ajv = new Ajv({ allErrors: true });
    for (const t of list.tools) {
      ajv.compile(t.inputSchema);
      if (t.outputSchema) ajv.compile(t.outputSchema);
    }
  });
});

describe("text content carries the answer", () => {
  test("count_lines: totals and the breakdown", async () => {
    const res = await call("count_lines", { by: "language", limit: 1 });
    const text = textOf(res);
    expect(text).toMatch(/^totals: \{"files":\d+,"lines":\d+/m);
    expect(text).toMatch(/^breakdown: \[\{"key":"Python"/m);
  });

  test("largest_files: each file with its size", async () => {
    const res = await call("largest_files", {});
    const records = sc(res).results as Array<{ relative_path: string; size: number; rank: number }>;
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(textOf(res)).toContain(`${r.rank}. ${r.relative_path} ${r.size} bytes`);
  });

  test("find_files: each file with its size and modification time", async () => {
    const res = await call("find_files", { patterns: ["*.py"] });
    const records = sc(res).results as Array<{ relative_path: string; size: number; mtime: string }>;
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(textOf(res)).toContain(`${r.relative_path}  ${r.size} bytes  ${r.mtime}`);
  });

  test("explain_path: the verdict with the ignore file, line and pattern", async () => {
    const res = await call("explain_path", { path: "ignored.log" });
    const text = textOf(res);
    expect(text).toContain("ignored.log: not included");
    // File, line and pattern once, as the detail says them (#37: not again in parentheses).
    expect(text).toMatch(/^ {2}ignore: ignored by \.gitignore:1: ignored\.log$/m);
    expect(text).not.toContain("pattern 'ignored.log'");
  });

  test("directory_tree: indented by depth; by default two levels, a directory at the second with what is below it", async () => {
    const text = textOf(await call("directory_tree", {}));
    expect(text).toMatch(/^src\/$/m);
    expect(text).toMatch(/^ {2}main\.py \(\d+ bytes\)$/m);
    expect(text).toMatch(/^ {2}utils\/ {2}\[1 entry, \d+ bytes below\]$/m);
    expect(text).not.toContain("helper.py");
    const all = textOf(await call("directory_tree", { fold_depth: 0 }));
    expect(all).toMatch(/^ {4}helper\.py \(\d+ bytes\)$/m);
  });

  test("find_duplicates: whole groups, never cut in the middle of one", async () => {
    const spec: Record<string, string> = {};
    for (let g = 0; g < 40; g++)
      for (let c = 0; c < 3; c++) spec[`g${g}/copy-${c}-${"x".repeat(40)}.txt`] = `group ${g}\n`;
    const { dir, cleanup } = tempTree(spec);
    const s = await startMcp(["--root", dir]);
    try {
      const res = await call("find_duplicates", { max_output_bytes: 6000, limit: 1000 }, s);
      const lines = textOf(res).split("\n");
      const groups = lines.filter((l) => /^\d+ files of /.test(l));
      expect(groups.length).toBeGreaterThan(0);
      for (let i = 0; i < lines.length; i++) {
        const m = /^(\d+) files of /.exec(lines[i] as string);
        if (!m) continue;
        const paths = lines.slice(i + 1, i + 1 + Number(m[1]));
        for (const p of paths) expect(p).toMatch(/^ {2}g\d+\/copy-\d-x{40}\.txt$/);
      }
      expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(6000 * 1.1);
    } finally {
      await s.close();
      cleanup();
    }
  });

  test("35 binary files are said in the skip line, and the first match comes right after the header", async () => {
    const spec: Record<string, string | Uint8Array> = { "z-last.txt": "needle here\n" };
    for (let i = 0; i < 35; i++)
      spec[`bin${String(i).padStart(2, "0")}.dat`] = new Uint8Array([0, 1, 2, 110]);
    const { dir, cleanup } = tempTree(spec);
    const s = await startMcp(["--root", dir]);
    try {
      const res = await call("grep_content", { pattern: "needle" }, s);
      const lines = textOf(res).split("\n");
      // Skipped, not failed: said once, in the ledger's line, with the way to search or list them; no BINARY
      // record per file in the structured result (#37).
      const binary = lines.filter((l) => /binary/i.test(l));
      expect(binary).toEqual(["skipped: binary 35 (text: true searches them, list_binary: true lists them)"]);
      const sc = res.structuredContent as { errors: unknown[]; skipped: { binary: number } };
      expect(sc.errors).toEqual([]);
      expect(sc.skipped.binary).toBe(35);
      const listed = await call("grep_content", { pattern: "needle", list_binary: true }, s);
      expect((listed.structuredContent as { errors: unknown[] }).errors).toHaveLength(35);
      const at = lines.indexOf("z-last.txt:1:needle here");
      expect(at).toBeGreaterThan(0);
      expect(at).toBeLessThan(8);
    } finally {
      await s.close();
      cleanup();
    }
  });
});

describe("a wrong argument is a tool error naming the right one", () => {
  test.each([
    ["find_files", { pattern: "*.py" }, "patterns"],
    ["grep_content", { pattern: "x", "max-count": 1 }, "max_count"],
    ["grep_content", { pattern: "x", "--hidden": true }, "hidden"],
    ["grep_content", { pattern: "x", i: true }, "ignore_case"],
    ["grep_content", { pattern: "x", "no-ignore": true }, "respect_gitignore: false"],
    ["find_files", { limit: "ten" }, "limit"],
    ["grep_content", { patterns: ["TODO"] }, "pattern"],
  ])("%s %j", async (tool, args, named) => {
    const err = failure(await call(tool, args as Record<string, unknown>));
    expect(err.code).toBe("BAD_PREDICATE");
    expect(err.message).toContain(`'${named}'`);
  });
});

describe("paging", () => {
  let tree: { dir: string; cleanup: () => void };
  let s: McpSession;
  beforeAll(async () => {
    const spec: Record<string, string> = {};
    for (let i = 0; i < 12; i++) {
      const n = String(i).padStart(2, "0");
      for (const f of ["a", "b"]) spec[`g${n}/${f}.e${n}`] = `TODO ${n}\n${"pad ".repeat(i + 1)}\n`;
    }
    tree = tempTree(spec);
    s = await startMcp(["--root", tree.dir]);
  });
  afterAll(async () => {
    await s.close();
    tree.cleanup();
  });

  test.each([
    ["find_files", {}],
    ["grep_content", { pattern: "TODO" }],
    ["count_lines", {}],
    ["find_duplicates", {}],
    ["directory_tree", {}],
    ["largest_files", {}],
    ["file_stats", {}],
  ])(
    "%s: limit is not part of the cursor's query (page 1 with limit 5, page 2 with limit 50)",
    async (tool, args) => {
      const whole = sc(await call(tool, { ...args, limit: 1000 }, s)).results as unknown[];
      expect(whole.length).toBeGreaterThan(5);
      const first = await call(tool, { ...args, limit: 5 }, s);
      const cursor = sc(first).next_cursor;
      expect(typeof cursor).toBe("string");
      const second = await call(tool, { ...args, limit: 50, cursor }, s);
      expect(second.isError ?? false).toBe(false);
      expect([...(sc(first).results as unknown[]), ...(sc(second).results as unknown[])]).toEqual(whole);
    },
  );
});

describe("default grep results stay small", () => {
  test("a default call is bounded whole by max_output_bytes, and records carry no empty context arrays", async () => {
    const line = `match ${"word ".repeat(50)}`;
    const { dir, cleanup } = tempTree({ "a.txt": `${`${line}\n`.repeat(300)}` });
    const s = await startMcp(["--root", dir]);
    try {
      const res = await call("grep_content", { pattern: "match" }, s);
      const text = Buffer.byteLength(textOf(res));
      const structured = Buffer.byteLength(JSON.stringify(res.structuredContent));
      console.log(`default grep_content: ${text} bytes of text + ${structured} bytes of structured content`);
      expect(text + structured).toBeLessThanOrEqual(60_000);
      const records = sc(res).results as Array<Record<string, unknown>>;
      expect(records.length).toBeGreaterThan(10);
      for (const r of records) {
        expect(r).not.toHaveProperty("before");
        expect(r).not.toHaveProperty("after");
        expect(textOf(res)).not.toContain(r.path as string);
      }
      const withContext = sc(await call("grep_content", { pattern: "match", context: 1, limit: 2 }, s));
      expect((withContext.results as Array<Record<string, unknown>>)[1]).toHaveProperty("before");
    } finally {
      await s.close();
      cleanup();
    }
  });
});
