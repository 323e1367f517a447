// tools/list declares what the server accepts in one tool (#37, ADR 0037), over stdio with the SDK's Client on the
// compiled binary: `rglob` with `op` and `describe_tool`, the whole list within 20,480 bytes; every argument the
// dispatcher accepts for each op (its input model's keys, from the registry) is declared with a one-line text that
// names its ops and accepted; an undeclared argument and one of another op are tool errors naming the allowed
// ones; the output schema is Draft-07, types the records all the way down, and the structuredContent of every op
// validates against it (the SDK client validates it too) with no field the schema does not name; the tool names of
// agent API 1.2 still answer, identically; describe_tool answers each op in under 10 KB.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import { SCHEMAS } from "../../src/generated/schemas.ts";
import { OPERATIONS } from "../../src/ops/registry.ts";
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

/** The operations served over MCP and the arguments the dispatcher accepts for each: the input model's keys
 * (from the generated schemas of the registry), less the CLI's positional operands. */
const OPS = OPERATIONS.filter((o) => o.mcpTool !== null);
const accepted = (id: string) =>
  Object.keys((SCHEMAS[`${id}.input`] as { properties: object }).properties).filter((k) => k !== "operands");

let mcp: McpSession;
let tools: Tool[] = [];
let listBytes = 0;
beforeAll(async () => {
  mcp = await startMcp(["--root", t.dir]);
  const list = await mcp.client.listTools();
  listBytes = Buffer.byteLength(JSON.stringify(list));
  tools = list.tools;
});
afterAll(async () => {
  await mcp.close();
  t.cleanup();
});

function call(name: string, args: Record<string, unknown>) {
  return mcp.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}
function textOf(res: CallToolResult): string {
  return (res.content as Array<{ text: string }>)[0]?.text ?? "";
}

type Node = Record<string, unknown>;

/** A value of a declared argument's type: its default, its first choice, or a plain value of the type. */
function sampleValue(p: Node): unknown {
  if (p.default !== undefined) return p.default;
  if (p.const !== undefined) return p.const;
  if (Array.isArray(p.enum)) return p.enum[0];
  const items = p.items as Node | undefined;
  const type = Array.isArray(p.type) ? p.type[0] : p.type;
  if (type === "boolean") return false;
  if (type === "integer" || type === "number") return 1;
  if (type === "array") return Array.isArray(items?.enum) ? [items.enum[0]] : [];
  return "x";
}

const one = () => tools.find((x) => x.name === "rglob") as Tool;
const props = () => (one().inputSchema.properties ?? {}) as Record<string, Node>;

describe("tools/list: one tool", () => {
  test("rglob and describe_tool, the whole list within 20,480 bytes", () => {
    console.log(`tools/list: ${listBytes} bytes`);
    expect(tools.map((x) => x.name)).toEqual(["rglob", "describe_tool"]);
    expect(listBytes).toBeLessThanOrEqual(20_480);
    expect(one().inputSchema.additionalProperties).toBe(false);
    expect(one().inputSchema.required).toEqual(["op"]);
    expect((props().op as Node).enum).toEqual(OPS.map((o) => o.id));
  });

  test("every argument the dispatcher accepts for each op is declared once, with a one-line text naming its ops", () => {
    const owners = new Map<string, string[]>();
    for (const op of OPS) for (const k of accepted(op.id)) owners.set(k, [...(owners.get(k) ?? []), op.id]);
    expect(Object.keys(props()).sort()).toEqual(["op", ...owners.keys()].sort());
    for (const [k, p] of Object.entries(props())) {
      const d = p.description as string;
      expect(`${k}: ${typeof d}`).toBe(`${k}: string`);
      expect(d).not.toContain("…");
      expect(d).not.toContain("\n");
      expect(d.length).toBeLessThanOrEqual(100);
      const ops = owners.get(k);
      // An argument only some ops take names them at the end of its text: "(grep, count)".
      if (ops && ops.length < OPS.length) expect(d).toEndWith(`(${ops.join(", ")})`);
    }
    expect(JSON.stringify(one())).not.toMatch(/operand|--[a-z]|CLI/);
  });

  test("the description and the instructions say how to pick op, how to page, where the long rules are", () => {
    const d = one().description ?? "";
    for (const op of OPS) expect(d).toContain(`- ${op.id}: `);
    for (const word of ["`op`", "next_cursor", "cursor", "describe_tool {name: op}"])
      expect(d).toContain(word);
    const text = mcp.client.getInstructions() ?? "";
    for (const word of [
      "`op`",
      "next_cursor",
      "cursor",
      "describe_tool",
      "PERM",
      "read-only",
      "strict_base",
      "max_output_bytes",
    ])
      expect(text).toContain(word);
    expect(Buffer.byteLength(text)).toBeLessThan(2048);
  });

  test("each op accepts every argument it takes; one it does not take, or none op takes, is a tool error naming the allowed ones", async () => {
    for (const op of OPS) {
      const keys = accepted(op.id);
      for (const k of keys) {
        const res = await call("rglob", {
          op: op.id,
          ...(op.id === "grep" && k !== "pattern" ? { pattern: "TODO" } : {}),
          timeout_seconds: 10,
          [k]: sampleValue(props()[k] as Node),
        });
        // Accepted: a value of its type never gets an argument error (it may still be a bad value).
        expect(`${op.id}.${k}: ${/takes no|unknown argument/.test(textOf(res))}`).toBe(
          `${op.id}.${k}: false`,
        );
      }
      const unknown = await call("rglob", { op: op.id, no_such_argument: 1 });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toContain(`unknown argument 'no_such_argument' for op '${op.id}'`);
      expect(textOf(unknown)).toContain(`Its arguments: ${keys.join(", ")} (`);
      // An argument of another op: named, with the ops that take it, and this op's own.
      const other = [...new Set(OPS.flatMap((o) => accepted(o.id)))].find((k) => !keys.includes(k)) as string;
      const wrong = await call("rglob", { op: op.id, [other]: sampleValue(props()[other] as Node) });
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toContain(`op '${op.id}' takes no '${other}' (op `);
      expect(textOf(wrong)).toContain(`Its arguments: ${keys.join(", ")} (`);
    }
    // "did you mean": another op's argument with a close one of this op, and a mistyped op.
    expect(textOf(await call("rglob", { op: "find", pattern: "*.ts" }))).toContain(
      "did you mean 'patterns'?",
    );
    expect(textOf(await call("rglob", { op: "greps", pattern: "x" }))).toContain("did you mean 'grep'?");
    expect(textOf(await call("rglob", { pattern: "x" }))).toContain("rglob needs 'op', one of: find, grep");
  }, 240_000);
});

describe("the tool names of agent API 1.2", () => {
  test("still answer, unlisted, identically to rglob with op (text headed by the name called)", async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["find", { patterns: ["*.py"] }],
      ["grep", { pattern: "TODO", context: 1 }],
      ["count", { by: "language" }],
      ["dupes", {}],
      ["tree", {}],
      ["top", {}],
      ["stats", {}],
      ["explain", { path: "debug.log" }],
    ];
    for (const [id, args] of cases) {
      const op = OPS.find((o) => o.id === id);
      const name = op?.mcpTool as string;
      const old = await call(name, args);
      const now = await call("rglob", { op: id, ...args });
      expect(old.isError ?? false).toBe(false);
      const strip = (r: CallToolResult) => {
        const { source: _s, bytes_read: _b, ...rest } = (r.structuredContent ?? {}) as Node;
        return rest;
      };
      expect(strip(old)).toEqual(strip(now));
      expect(textOf(old).replace(new RegExp(`^${name}: `), `${id}: `)).toBe(textOf(now));
    }
    // Their argument errors name the tool as before.
    expect(textOf(await call("find_files", { no_such_argument: 1 }))).toContain(
      "unknown argument 'no_such_argument' for find_files",
    );
  }, 120_000);
});

describe("describe_tool", () => {
  test("each op (and its old tool name) in under 10 KB, text alone, every argument it takes named", async () => {
    for (const op of OPS) {
      const res = await call("describe_tool", { name: op.id });
      expect(res.isError ?? false).toBe(false);
      expect(res.structuredContent).toBeUndefined();
      const bytes = Buffer.byteLength(JSON.stringify(res));
      console.log(`describe_tool ${op.id}: ${bytes} bytes`);
      expect(bytes).toBeLessThan(10_000);
      const text = textOf(res);
      for (const k of accepted(op.id)) expect(`${op.id}: ${text.includes(k)}`).toBe(`${op.id}: true`);
      const old = await call("describe_tool", { name: op.mcpTool as string });
      expect(textOf(old)).toBe(text);
    }
    // What every op shares is said once: the walk arguments' full texts, the common result and record fields.
    const walk = textOf(await call("describe_tool", { name: "walk" }));
    const find = SCHEMAS["find.input"] as { properties: Record<string, { description: string }> };
    expect(walk).toContain(
      `- respect_gitignore (boolean, default true): ${find.properties.respect_gitignore?.description}`,
    );
    const result = textOf(await call("describe_tool", { name: "result" }));
    expect(result).toContain("- truncated_reason: ");
    expect(result).toContain("- link_target: ");
    const bad = await call("describe_tool", { name: "gerp" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("did you mean 'grep'?");
    // Several at once (one orientation call instead of one per op), in the order asked, each said once.
    const one = async (name: string) => textOf(await call("describe_tool", { name }));
    const several = await call("describe_tool", { name: "find, grep,walk,find" });
    expect(several.isError ?? false).toBe(false);
    // An argument line a section said above is named there, not said again (grep's only_ignored is find's).
    const [f, g, w] = textOf(several).split("\n\n---\n\n");
    expect(f).toBe(await one("find"));
    expect(w).toBe(walk);
    const grepAlone = (await one("grep")).split("\n");
    const again = grepAlone.filter((l) => l.startsWith("- ") && (f as string).split("\n").includes(l));
    expect(again.length).toBeGreaterThan(0);
    expect(g).toContain(`- as above: ${again.map((l) => /^- ([^ :]+)/.exec(l)?.[1]).join(", ")}`);
    expect((g as string).split("\n").filter((l) => !l.startsWith("- as above: "))).toEqual(
      grepAlone.filter((l) => !again.includes(l)),
    );
    const mixed = await call("describe_tool", { name: "find,gerp" });
    expect(mixed.isError).toBe(true);
    expect(textOf(mixed)).toContain("did you mean 'grep'?");
  });
});

describe("describe_tool with every name at once", () => {
  // #37: every name was one 46 KB answer, which an agent's host cut about 15 KB short, silently. The answer holds
  // 24,000 bytes at most; its first line names what it left out and the `name` values that give the rest, each
  // of which fits one answer; together they give every section once.
  test("a first line names the sections left out and the name values that fit; asked, they give the rest", async () => {
    const names = [...OPS.map((o) => o.id), "walk", "result"];
    const all = textOf(await call("describe_tool", { name: names.join(",") }));
    expect(Buffer.byteLength(all)).toBeLessThanOrEqual(24_000);
    const first = all.split("\n")[0] as string;
    const m =
      /^\(cut at 24000 bytes, as hosts cut long tool answers: left out ([^;]+); ask describe_tool (.+)\)$/.exec(
        first,
      );
    expect(m).not.toBeNull();
    const leftOut = String(m?.[1]).split(", ");
    const asks = [...String(m?.[2]).matchAll(/\{name: "([^"]+)"\}/g)].map((x) => x[1] as string);
    expect(asks.join(",").split(",")).toEqual(leftOut);
    // The sections given, then those of each retry, are every name once, in the order asked.
    const heads = (text: string) =>
      text
        .split("\n\n---\n\n")
        .map((sec) => sec.replace(/^\(cut at[^\n]*\n\n/, ""))
        .map(
          (sec) =>
            /^([a-z]+) \(until agent API/.exec(sec)?.[1] ??
            (sec.startsWith("Arguments every op") ? "walk" : "result"),
        );
    const seen = heads(all);
    for (const ask of asks) {
      const more = textOf(await call("describe_tool", { name: ask }));
      expect(Buffer.byteLength(more)).toBeLessThanOrEqual(24_000);
      expect(more.startsWith("(cut at")).toBe(false);
      seen.push(...heads(more));
    }
    expect(seen).toEqual(names);
  });
});

describe("the output schema", () => {
  test("is Draft-07, typed to the records' fields, and every op's answer validates against it", async () => {
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    const calls: Array<[string, Record<string, unknown>]> = [
      ["find", {}],
      ["find", { links: ["broken", "escaping"] }],
      ["grep", { pattern: "TODO", context: 1 }],
      ["grep", { pattern: "TODO", count: true, list_binary: true }],
      ["grep", { pattern: "TODO", files_with_matches: true, by: "dir" }],
      ["count", { by: "language" }],
      ["count", { by: "file", file_types: ["py"] }],
      ["grep", { pattern: "TODO", in: ["comment"] }],
      ["dupes", {}],
      ["tree", {}],
      ["top", { dirs: true }],
      ["top", {}],
      ["stats", {}],
      ["explain", { under: ".", only: "ignored" }],
      ["find", { only_ignored: true }],
      ["grep", { pattern: "TODO", only_ignored: true }],
      ["explain", { targets: ["debug.log", "link-ok"] }],
      ["explain", { rules: true, expand: true }],
    ];
    const schema = one().outputSchema as Node;
    const validate = ajv.compile(schema);
    const seen = new Set<string>();
    for (const [name, extra] of calls) {
      const args = { op: name, ...extra };
      // The SDK client validated the structuredContent against the declared schema already (callTool throws).
      const res = await call("rglob", args);
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
    // Every op answered, and the calls reached the fields a shallow schema would leave untyped.
    for (const op of OPS) expect(seen.has(`${op.id}.results`)).toBe(true);
    for (const f of [
      "find.link_target",
      "find.ignored_by",
      "grep.ignored_by",
      "find.link_escapes",
      "grep.before",
      "explain.reasons",
      "count.type_globs",
      "grep.left_out_by_in",
      "dupes.hard_links",
    ])
      expect(seen.has(f)).toBe(true);
    // only_ignored on MCP: the same key as the CLI's --only-ignored and the library's; the text names each rule.
    const ignored = await call("rglob", { op: "grep", pattern: "TODO", only_ignored: true });
    const text = (ignored.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(text).toContain("build/out.js:1:TODO in build\n  ignored by .gitignore:1:build/");
    expect(text).toContain("debug.log:1:TODO in a log\n  ignored by .gitignore:2:*.log");
    expect((ignored.structuredContent as { total_matches: number }).total_matches).toBe(2);
    // A schema refuses a record of the wrong shape: it is not `{"type": "object"}`.
    const bad = { results: [{ path: 1 }], truncated: false, next_cursor: null };
    expect(ajv.validate(schema, bad)).toBe(false);
    expect(JSON.stringify(schema)).not.toMatch(/"\$ref"|"\$defs"|"prefixItems"/);
  }, 120_000);
});
