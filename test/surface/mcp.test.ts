// The MCP server (`rglob mcp`, the compiled binary) driven by the SDK's Client over stdio, as MCP clients do:
// the tool list from the registry, every tool called with the per-op samples and its output validated with a
// Draft-07 validator, paging to the end, confinement to the roots, bad arguments, failures, cancellation,
// progress, concurrency, roots from the client, and resources.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import { INITIALIZED, initializeRequest } from "../../scripts/mcp-probe.ts";
import { SCHEMAS } from "../../src/generated/schemas.ts";
import { findOperation, OPERATIONS } from "../../src/ops/registry.ts";
import { CLI_ONLY_KEYS } from "../../src/surface/mcp/tools.ts";

import { BIN, FIXTURE, rglob, rglobJson, tempTree } from "../helpers.ts";
import { coverage, type McpSession, SAMPLES, startMcp } from "./mcp-helpers.ts";

const { covered, notRegistered } = coverage();
console.log(
  `mcp: covering ${covered.map((o) => o.id).join(", ")}; not registered (skipped): ${notRegistered.join(", ") || "none"}`,
);
const toolOps = covered.filter((op) => op.mcpTool !== null);
const sampleCases = toolOps.flatMap((op) => (SAMPLES[op.id] ?? []).map((s) => [op.id, s.title, s] as const));
const pageCases = toolOps.flatMap((op) =>
  (SAMPLES[op.id] ?? []).filter((s) => s.pageable).map((s) => [op.id, s.title, s] as const),
);

let mcp: McpSession;
let tools: Tool[] = [];
beforeAll(async () => {
  mcp = await startMcp();
  tools = (await mcp.client.listTools()).tools;
});
afterAll(async () => {
  await mcp.close();
});

/** The structured content of a result (a record, or an empty one when there is none). */
function sc(res: CallToolResult | undefined): Record<string, unknown> {
  return (res?.structuredContent ?? {}) as Record<string, unknown>;
}

/** The failure envelope of an isError result (JSON in its text content). */
function envelopeOf(res: CallToolResult): {
  ok: boolean;
  error: { code: string; message: string; path: string | null };
} {
  expect(res.isError).toBe(true);
  expect(res.structuredContent).toBeUndefined();
  return JSON.parse((res.content as Array<{ text: string }>)[0]?.text ?? "");
}

function call(name: string, args: Record<string, unknown>, session = mcp) {
  return session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to be rejected");
}

describe("tools/list", () => {
  test("one tool, rglob, whose op is every registry operation with an MCP name, plus describe_tool", () => {
    expect(tools.map((t) => t.name)).toEqual(["rglob", "describe_tool"]);
    const op = (tools[0]?.inputSchema.properties?.op ?? {}) as { enum?: string[] };
    expect(op.enum).toEqual(OPERATIONS.flatMap((o) => (o.mcpTool ? [o.id] : [])));
  });

  test("schemas compile with a Draft-07 validator and declare every input key but the CLI-only ones (#37)", () => {
    const ajv = new Ajv({ allErrors: true });
    for (const t of tools) {
      ajv.compile(t.inputSchema);
      if (t.outputSchema) ajv.compile(t.outputSchema);
    }
    const offered = Object.keys(tools[0]?.inputSchema.properties ?? {});
    for (const op of OPERATIONS.filter((o) => o.mcpTool)) {
      const keys = Object.keys((SCHEMAS[`${op.id}.input`] as { properties: object }).properties);
      for (const k of keys.filter((x) => !CLI_ONLY_KEYS.has(x))) expect(offered).toContain(k);
    }
    for (const k of offered)
      expect({
        k,
        d: (tools[0]?.inputSchema.properties?.[k] as { description?: string } | undefined)?.description,
      }).toEqual({ k, d: expect.stringMatching(/^[^\s…][^\n…]{6,98}[^….\s]$/) });
  });

  test("annotations, descriptions, and the instructions say once what every tool shares", () => {
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.annotations?.openWorldHint).toBe(false);
      expect(t.description?.length ?? 0).toBeGreaterThan(30);
    }
    const text = mcp.client.getInstructions() ?? "";
    for (const word of [
      "next_cursor",
      "cursor",
      "PERM",
      "read-only",
      "strict_base",
      "max_output_bytes",
      "describe_tool",
    ])
      expect(text).toContain(word);
  });
});

describe("tools/call", () => {
  test.each(sampleCases)(
    "%s: %s: structured result valid against the outputSchema (Draft-07)",
    async (id, _t, s) => {
      const tool = tools.find((t) => t.name === "rglob") as Tool;
      const res = await call(tool.name, { op: id, ...s.input });
      expect(res.isError ?? false).toBe(false);
      const validate = new Ajv({ allErrors: true }).compile(tool.outputSchema as object);
      if (!validate(res.structuredContent)) throw new Error(JSON.stringify(validate.errors));
      const text = (res.content as Array<{ type: string; text: string }>)[0];
      expect(text?.type).toBe("text");
      expect(text?.text).toStartWith(`${id}: `);
    },
  );

  test("a glob naming a directory, in a call that found nothing, gets a note in the text", async () => {
    const res = await call("count_lines", { patterns: ["src"] });
    expect((res.structuredContent as { results: unknown[] }).results).toEqual([]);
    const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(text).toContain(`note: 'src' in patterns is a glob matched against entry names`);
    expect(text).toContain(`pass paths: ["src"]`);
    const inside = await call("count_lines", { paths: ["src"] });
    expect((inside.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    expect((inside.content as Array<{ text: string }>)[0]?.text).not.toContain("note:");
  });

  test("the agent defaults apply: a small limit, strict base forced on", async () => {
    const res = await call("find_files", { strict_base: false });
    const direct = rglobJson(["find", "--json", "--strict-base", "--base", FIXTURE]).json;
    expect(res.structuredContent).toEqual(direct);
    const { dir, cleanup } = tempTree(
      Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, ""])),
    );
    try {
      const s = await startMcp(["--root", dir]);
      const big = await call("find_files", {}, s);
      await s.close();
      const limit = findOperation("find").agentDefaults.limit;
      expect((sc(big).results as unknown[]).length).toBe(limit as number);
      expect(sc(big).truncated_reason).toBe("limit");
      expect(typeof sc(big).next_cursor).toBe("string");
    } finally {
      cleanup();
    }
  });

  test.each(toolOps.map((o) => [o.mcpTool as string, o.id]))(
    "describe_tool %s gives every argument of the op, its own with their full text",
    async (name, id) => {
      const res = await call("describe_tool", { name });
      expect(res.isError ?? false).toBe(false);
      const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
      const op = findOperation(id);
      expect(text).toStartWith(`${id} (until agent API 2.0 also the tool ${name}): `);
      const input = (SCHEMAS[`${id}.input`] as { properties: Record<string, { description?: string }> })
        .properties;
      const walk = (await call("describe_tool", { name: "walk" })).content as Array<{ text: string }>;
      for (const [k, p] of Object.entries(input)) {
        if (k === "operands") continue;
        // Its own arguments' full text here (CLI spellings left out); the shared ones' under "walk".
        const where = text.includes(`- ${k} (`) ? text : (walk[0]?.text ?? "");
        expect(`${k}: ${where.includes(`- ${k} (`)}`).toBe(`${k}: true`);
        expect(text).toContain(k);
        if (!/CLI|--[a-z]/.test(p.description ?? "")) expect(where).toContain(p.description as string);
      }
      expect(op.description.startsWith(text.slice(text.indexOf("): ") + 3, text.indexOf("): ") + 40))).toBe(
        true,
      );
    },
  );

  test.each(pageCases)(
    "%s: %s: paging to the end with next_cursor equals one unbounded call",
    async (id, _t, s) => {
      const op = findOperation(id);
      const name = op.mcpTool as string;
      const whole = await call(name, { ...s.input, limit: 100_000, max_output_bytes: 100_000_000 });
      expect(sc(whole).truncated).toBe(false);
      const pages: unknown[] = [];
      let cursor: string | null = null;
      let calls = 0;
      do {
        const res: CallToolResult = await call(name, { ...s.input, limit: 2, ...(cursor ? { cursor } : {}) });
        expect(res.isError ?? false).toBe(false);
        pages.push(...(sc(res).results as unknown[]));
        cursor = sc(res).next_cursor as string | null;
        calls++;
      } while (cursor !== null && calls < 100);
      expect(calls).toBeGreaterThan(1);
      expect(pages).toEqual(sc(whole).results as unknown[]);
    },
  );

  test("a cursor from another query is an operational failure (isError, BAD_PREDICATE)", async () => {
    const first = await call("find_files", { limit: 1 });
    const cursor = sc(first).next_cursor as string;
    const res = await call("find_files", { limit: 1, cursor, patterns: ["*.py"] });
    expect(envelopeOf(res).error.code).toBe("BAD_PREDICATE");
  });
});

describe("confinement to the roots", () => {
  test.each([
    ["an absolute base outside", { base: "/" }],
    ["a relative base that climbs out", { base: "../.." }],
    ["a path outside", { paths: ["/etc"] }],
    ["a reference file outside", { newer_than_file: "/etc/hostname" }],
  ])("%s is refused with PERM", async (_name, args) => {
    const res = await call("find_files", args);
    const env = envelopeOf(res);
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("PERM");
    expect(env.error.path).toStartWith("/");
  });

  test("a directory whose name begins with two dots is inside the root, not outside it", async () => {
    const { dir, cleanup } = tempTree({ "..data/a.txt": "", "b.txt": "" });
    try {
      const s = await startMcp(["--root", dir]);
      const viaBase = await call("find_files", { base: "..data", hidden: true }, s);
      const viaPaths = await call("grep_content", { pattern: "x", paths: ["..data/a.txt"] }, s);
      await s.close();
      expect(viaBase.isError).not.toBe(true);
      expect((sc(viaBase).results as Array<{ relative_path: string }>).map((r) => r.relative_path)).toEqual([
        "a.txt",
      ]);
      expect(viaPaths.isError).not.toBe(true);
      expect(sc(viaPaths).total_files_searched).toBe(1);
    } finally {
      cleanup();
    }
  });

  test("a symlink inside the root that points outside is refused after resolving it", async () => {
    const outside = tempTree({ "secret.txt": "x" });
    const { dir, cleanup } = tempTree({ "inside.txt": "", escape: { symlink: outside.dir } });
    try {
      const s = await startMcp(["--root", dir]);
      const viaBase = await call("find_files", { base: "escape" }, s);
      const viaPaths = await call("find_files", { paths: ["escape/secret.txt"] }, s);
      const ok = await call("find_files", { follow_symlinks: true, strict_base: false }, s);
      await s.close();
      expect(envelopeOf(viaBase).error.code).toBe("PERM");
      expect(envelopeOf(viaPaths).error.code).toBe("PERM");
      // Following links inside the walk: strict_base, forced on whatever the caller says, keeps the target out.
      const rels = (sc(ok).results as Array<{ relative_path: string }>).map((r) => r.relative_path);
      expect(rels).not.toContain("escape/secret.txt");
    } finally {
      cleanup();
      outside.cleanup();
    }
  });

  test("without --root the client's roots are served, else the working directory", async () => {
    const withRoots = await startMcp([], { roots: [join(FIXTURE, "src")] });
    const a = await call("find_files", { types: ["f"] }, withRoots);
    const refused = await call("find_files", { base: FIXTURE }, withRoots);
    await withRoots.close();
    expect((sc(a).results as Array<{ relative_path: string }>).map((r) => r.relative_path)).toEqual([
      "main.py",
      "utils/helper.py",
    ]);
    expect(refused.isError).toBe(true);

    const cwdOnly = await startMcp([], { cwd: join(FIXTURE, "docs") });
    const b = await call("find_files", {}, cwdOnly);
    await cwdOnly.close();
    expect((sc(b).results as Array<{ relative_path: string }>).map((r) => r.relative_path)).toEqual([
      "notes.txt",
    ]);
  });
});

describe("errors", () => {
  test.each([["an unknown tool", "no_such_tool", {}]])(
    "%s is a protocol InvalidParams error, and the server goes on",
    async (_n, name, args) => {
      const err = await rejection(call(name, args));
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
      // The code's prefix once, not twice (an McpError thrown in the server carries it in its message).
      expect((err as McpError).message).toBe(`MCP error -32602: unknown tool '${name}'; see tools/list`);
      const after = await call("find_files", { limit: 1 });
      expect(after.isError ?? false).toBe(false);
    },
  );

  test.each([
    ["a wrong type", "find_files", { limit: "ten" }, "limit"],
    ["an unknown key", "find_files", { no_such_option: 1 }, "no_such_option"],
    ["a value out of range", "find_files", { limit: -1 }, "limit"],
    ["an unknown tool to describe", "describe_tool", { name: "nope" }, "find, grep"],
  ])("%s is a tool error (isError, BAD_PREDICATE) naming the argument", async (_n, name, args, named) => {
    const res = await call(name, args);
    const env = envelopeOf(res);
    expect(env.error.code).toBe("BAD_PREDICATE");
    expect(env.error.message).toContain(named);
  });

  test("an operational failure is isError with the failure envelope", async () => {
    const res = await call("find_files", { min_size: "nope" });
    expect(envelopeOf(res)).toEqual({
      ok: false,
      error: { code: "BAD_PREDICATE", message: expect.stringContaining("not a size"), path: null },
    });
  });

  test("stdout carries JSON-RPC only, even for garbage input; the server ends when stdin closes", () => {
    const lines = [
      "garbage{",
      JSON.stringify(initializeRequest("raw")),
      JSON.stringify(INITIALIZED),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "find_files", arguments: {} },
      }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such/method" }),
    ];
    const r = rglob(["mcp", "--root", FIXTURE], { stdin: `${lines.join("\n")}\n` });
    expect(r.code).toBe(0);
    const out = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number | null; error?: { code: number } });
    // The garbage line gets a JSON-RPC parse error (id null); every request gets its answer.
    expect(out.filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([-32700]);
    expect(out.flatMap((m) => (m.id === null ? [] : [m.id])).sort()).toEqual([1, 2, 3]);
    expect(r.stderr).toContain("rglob mcp: serving");
  });

  test("a client that closes the server's stdout gets its one failed answer on stderr, not one per failed answer", async () => {
    // Before: each failed write was answered as a malformed message, whose write failed again: 14,616 lines of
    // "protocol error: stdout closed" and a stack overflow, for one client gone away.
    const child = spawn(BIN, ["mcp", "--root", FIXTURE], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // The reading end is closed before the server is asked anything, so its first answer's write fails.
    await new Promise((resolve) => {
      child.stdout.once("close", resolve);
      child.stdout.destroy();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const lines = [
      initializeRequest("gone"),
      INITIALIZED,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "find_files", arguments: {} } },
    ];
    child.stdin.end(`${lines.map((m) => JSON.stringify(m)).join("\n")}\n`);
    expect(await exited).toBe(0);
    expect(stderr).toContain("rglob mcp: serving");
    // The transport's report of the failed write, then the SDK's of the answer it was.
    expect(stderr.split("\n").filter((l) => l.includes("protocol error"))).toEqual([
      "rglob mcp: protocol error: stdout closed",
      "rglob mcp: protocol error: Failed to send response: BrokenPipe: stdout closed",
    ]);
  });

  test("requests in flight when stdin closes are answered; the last progress (the total) precedes the result", () => {
    const init = initializeRequest("raw");
    const find = (id: number, args: Record<string, unknown>) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "find_files", arguments: args, _meta: { progressToken: `t${id}` } },
    });
    const lines = [
      init,
      INITIALIZED,
      find(2, { limit: 10_000 }),
      find(3, { types: ["d"], limit: 10_000 }),
    ].map((m) => JSON.stringify(m));
    const r = rglob(["mcp", "--root", FIXTURE], { stdin: `${lines.join("\n")}\n` });
    expect(r.code).toBe(0);
    type Msg = {
      id?: number;
      method?: string;
      params?: { progressToken?: string; progress?: number };
      result?: { structuredContent?: { total_files_searched: number; results: unknown[] } };
    };
    const out = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Msg);
    for (const id of [2, 3]) {
      const at = out.findIndex((m) => m.id === id);
      expect(at).toBeGreaterThan(0);
      const total = out[at]?.result?.structuredContent?.total_files_searched as number;
      expect(total).toBeGreaterThan(0);
      const progress = out
        .slice(0, at)
        .filter((m) => m.method === "notifications/progress" && m.params?.progressToken === `t${id}`)
        .map((m) => m.params?.progress as number);
      expect(progress.at(-1)).toBe(total);
      expect(out.slice(at).some((m) => m.params?.progressToken === `t${id}`)).toBe(false);
    }
  });

  test("`rglob mcp` with a bad argument or a missing root exits 2 with a message", () => {
    const bad = rglob(["mcp", "--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown argument");
    const missing = rglob(["mcp", "--root", join(FIXTURE, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("NOT_FOUND");
    expect(rglob(["mcp", "--help"]).code).toBe(0);
  });
});

describe("long calls: progress, cancellation, concurrency", () => {
  const FILES = 40_000;
  let big: { dir: string; cleanup: () => void };
  let server: McpSession;
  beforeAll(async () => {
    big = tempTree({});
    for (let d = 0; d < 40; d++) {
      const sub = join(big.dir, `d${String(d).padStart(2, "0")}`);
      mkdirSync(sub);
      for (let f = 0; f < FILES / 40; f++) writeFileSync(join(sub, `f${f}.txt`), "");
    }
    server = await startMcp(["--root", big.dir]);
  }, 60_000);
  afterAll(async () => {
    await server.close();
    big.cleanup();
  });
  const unbounded = { limit: 1_000_000, max_output_bytes: 1_000_000_000, timeout_seconds: 120 };

  test("progress notifications (entries scanned) arrive when the client sends a progressToken", async () => {
    // The SDK client runs a notification handler a microtask after reading it but drops the call's
    // `onprogress` handler at once when the result comes in the same read, which a busy machine makes likely.
    // So progress is read here by a handler of its own, on a session of its own, which sees every notification
    // the server wrote before the result.
    const session = await startMcp(["--root", big.dir]);
    try {
      const seen: number[] = [];
      session.client.setNotificationHandler(ProgressNotificationSchema, (n) => {
        seen.push(n.params.progress);
      });
      const res = (await session.client.callTool(
        { name: "find_files", arguments: { ...unbounded, types: ["d"] } },
        undefined,
        { onprogress: () => {} },
      )) as CallToolResult;
      expect(seen.length).toBeGreaterThan(0);
      for (let i = 1; i < seen.length; i++) expect(seen[i] as number).toBeGreaterThan(seen[i - 1] as number);
      // The last progress is the total, and it came before the result.
      expect(seen.at(-1)).toBe(sc(res).total_files_searched as number);
    } finally {
      await session.close();
    }
  });

  test("a cancelled call stops the walk, and the server goes on", async () => {
    const controller = new AbortController();
    const pending = server.client.callTool({ name: "find_files", arguments: unbounded }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort("test cancels"),
    });
    const err = await rejection(pending);
    expect(String(err)).toContain("test cancels");
    const log = await server.waitForStderr(/find_files cancelled after (\d+) entries/);
    const scanned = Number(/find_files cancelled after (\d+) entries/.exec(log)?.[1]);
    expect(scanned).toBeLessThan(FILES);
    const after = await call("find_files", { types: ["d"], limit: 5 }, server);
    expect((sc(after).results as unknown[]).length).toBe(5);
  });

  test("several calls in flight at once each get their own result", async () => {
    const queries = [
      { ...unbounded, types: ["d"] },
      { patterns: ["f1*.txt"], max_depth: 2, limit: 50 },
      { paths: ["d03"], limit: 7 },
      { ...unbounded, patterns: ["f99.txt"] },
    ];
    const together = await Promise.all(queries.map((q) => call("find_files", q, server)));
    for (const [i, q] of queries.entries()) {
      const alone = await call("find_files", q, server);
      expect(together[i]?.structuredContent).toEqual(alone.structuredContent);
    }
    expect((sc(together[0]).results as unknown[]).length).toBe(40);
  });
});

describe("resources", () => {
  test("the capability report and every schema", async () => {
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("rglob://capabilities");
    expect(uris).toContain("rglob://schemas");
    for (const stem of Object.keys(SCHEMAS)) expect(uris).toContain(`rglob://schema/${stem}`);
    const caps = await mcp.client.readResource({ uri: "rglob://capabilities" });
    const text = (caps.contents[0] as { text: string }).text;
    // A running server adds its warm state per root (#24); the rest is the CLI's report.
    const served = JSON.parse(text) as { mcp: Record<string, unknown> };
    expect(Array.isArray(served.mcp.warm)).toBe(true);
    delete served.mcp.warm;
    expect(served as Record<string, unknown>).toEqual(rglobJson(["capabilities"]).json);
    const one = await mcp.client.readResource({ uri: "rglob://schema/FileMatch" });
    expect(JSON.parse((one.contents[0] as { text: string }).text)).toEqual(SCHEMAS.FileMatch);
    expect(await rejection(mcp.client.readResource({ uri: "rglob://nope" }))).toBeInstanceOf(McpError);
  });
});

describe("tools/list declares what the server accepts (#37)", () => {
  test("an unknown argument is a tool error naming it, through rglob and an old tool name", async () => {
    for (const op of toolOps) {
      const bad = await call("rglob", {
        op: op.id,
        not_an_argument: 1,
        ...(op.id === "grep" ? { pattern: "x" } : {}),
      });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain("not_an_argument");
      const old = await call(op.mcpTool as string, { not_an_argument: 1 });
      expect(JSON.stringify(old.content)).toContain("not_an_argument");
    }
    // Rarely needed arguments are declared and accepted.
    const res = await call("rglob", {
      op: "find",
      ignore_vcs: false,
      one_file_system: true,
      size: ["+0b"],
      type_add: ["x:*.x"],
    });
    expect(res.isError ?? false).toBe(false);
  });
});
