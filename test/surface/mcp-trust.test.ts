// The MCP server under hostile or unlucky input (#21), on the compiled binary over stdio: client roots that
// fail closed, over-long JSON-RPC lines, answers flushed whole when stdin closes, responses bounded whole, a
// grep pattern never taken for a path, mangled cursors, resource names from Object.prototype, and error
// messages that quote only a prefix of a huge argument.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ListRootsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { INITIALIZED, initializeRequest } from "../../scripts/mcp-probe.ts";
import { runAll } from "../../src/agent/index.ts";
import { BIN, FIXTURE, rglob, rglobJson, tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

function call(session: McpSession | Client, name: string, args: Record<string, unknown>) {
  const client = session instanceof Client ? session : session.client;
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}
function textOf(res: CallToolResult): string {
  return (res.content as Array<{ text: string }>)[0]?.text ?? "";
}
function failure(res: CallToolResult): { code: string; message: string } {
  expect(res.isError).toBe(true);
  return JSON.parse(textOf(res)).error;
}

const INIT = initializeRequest("raw");
function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}
type Msg = { id?: number | null; result?: CallToolResult; error?: { code: number; message: string } };
function answers(stdout: string): Msg[] {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Msg);
}

/** A client that offers the roots capability and answers roots/list with these URIs, started in `cwd`. */
async function withRootUris(uris: readonly string[], cwd = FIXTURE): Promise<Client> {
  const transport = new StdioClientTransport({ command: BIN, args: ["mcp"], cwd, stderr: "pipe" });
  const client = new Client(
    { name: "roots", version: "1" },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: uris.map((uri) => ({ uri, name: uri })),
  }));
  await client.connect(transport);
  return client;
}

describe("client roots fail closed", () => {
  const file = join(FIXTURE, "src", "main.py");
  test.each([
    ["no roots", []],
    ["a path that does not exist", [pathToFileURL(join(FIXTURE, "no-such-dir")).href]],
    ["a file:// URI of another host", ["file://remote-host/srv/project"]],
    ["a URI that is not file://", ["https://example.com/project"]],
    ["a file, not a directory", [pathToFileURL(file).href]],
  ])("%s: every call is refused with how to configure roots, never served from the cwd", async (_n, uris) => {
    const client = await withRootUris(uris);
    try {
      const res = await call(client, "find_files", {});
      const err = failure(res);
      expect(err.code).toBe("PERM");
      expect(err.message).toContain("--root");
      expect(err.message).toContain("roots");
      expect(res.structuredContent).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  test("one good root among bad ones is served", async () => {
    const client = await withRootUris(["file://remote-host/x", pathToFileURL(join(FIXTURE, "src")).href]);
    try {
      const res = await call(client, "find_files", { types: ["f"] });
      expect(res.isError ?? false).toBe(false);
      const rels = (res.structuredContent as { results: Array<{ relative_path: string }> }).results;
      expect(rels.map((r) => r.relative_path)).toEqual(["main.py", "utils/helper.py"]);
    } finally {
      await client.close();
    }
  });

  test("a tools/call before notifications/initialized is refused, not served from the cwd", () => {
    const lines = [INIT, toolCall(2, "find_files", {}), INITIALIZED, toolCall(3, "find_files", {})];
    const r = rglob(["mcp"], { cwd: FIXTURE, stdin: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n` });
    const out = answers(r.stdout);
    const early = out.find((m) => m.id === 2)?.result as CallToolResult;
    expect(early.isError).toBe(true);
    expect(textOf(early)).toContain("notifications/initialized");
    expect(early.structuredContent).toBeUndefined();
    // The client offered no roots capability: after initialization the working directory is served.
    expect(out.find((m) => m.id === 3)?.result?.isError ?? false).toBe(false);
  });
});

describe("transport", () => {
  test("a JSON-RPC line of 10 MiB or more is answered with an error; calls in flight and after are answered", () => {
    const big = toolCall(3, "grep_content", { pattern: "x".repeat(11 * 1024 * 1024) });
    const lines = [
      INIT,
      INITIALIZED,
      toolCall(2, "find_files", {}),
      big,
      toolCall(4, "find_files", { limit: 1 }),
    ];
    const r = rglob(["mcp", "--root", FIXTURE], {
      stdin: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(1_000_000);
    const out = answers(r.stdout);
    expect(out.find((m) => m.id === 2)?.result?.isError ?? false).toBe(false);
    const tooBig = out.find((m) => m.id === 3);
    expect(tooBig?.error?.code).toBe(-32600);
    expect(tooBig?.error?.message).toContain("too large");
    const after = out.find((m) => m.id === 4)?.result;
    expect(after?.isError ?? false).toBe(false);
    expect((after?.structuredContent as { results: unknown[] } | undefined)?.results.length).toBe(1);
  });

  test("stdin closed right after many large requests: every answer arrives whole before the server exits", async () => {
    const { dir, cleanup } = tempTree({});
    try {
      for (let d = 0; d < 30; d++) {
        mkdirSync(join(dir, `d${d}`));
        for (let f = 0; f < 100; f++)
          writeFileSync(join(dir, `d${d}`, `file-with-a-longish-name-${f}.txt`), "");
      }
      const calls = Array.from({ length: 8 }, (_, i) =>
        toolCall(10 + i, "find_files", { limit: 100_000, max_output_bytes: 3_000_000 }),
      );
      const input = `${[INIT, INITIALIZED, ...calls].map((l) => JSON.stringify(l)).join("\n")}\n`;
      for (let run = 0; run < 3; run++) {
        const proc = Bun.spawn([BIN, "mcp", "--root", dir], {
          stdin: "pipe",
          stdout: "pipe",
          stderr: "ignore",
        });
        proc.stdin.write(input);
        await proc.stdin.end();
        const stdout = await new Response(proc.stdout).text();
        expect(await proc.exited).toBe(0);
        const out = answers(stdout); // throws on a line cut short
        const ids = out.flatMap((m) => (typeof m.id === "number" && m.id >= 10 ? [m.id] : []));
        expect(ids.sort((a, b) => a - b)).toEqual(calls.map((c) => c.id));
        for (const m of out.filter((x) => (x.id ?? 0) >= 10))
          expect((m.result?.structuredContent as { results: unknown[] } | undefined)?.results.length).toBe(
            3030,
          );
      }
    } finally {
      cleanup();
    }
  }, 120_000);
});

describe("responses are bounded whole", () => {
  let tree: { dir: string; cleanup: () => void };
  let s: McpSession;
  beforeAll(async () => {
    tree = tempTree({ "text.txt": "needle\n" });
    for (let d = 0; d < 10; d++) {
      const sub = join(tree.dir, `bin${d}`);
      mkdirSync(sub);
      for (let f = 0; f < 500; f++)
        writeFileSync(join(sub, `binary-file-${f}.dat`), new Uint8Array([0, 1, 2]));
    }
    s = await startMcp(["--root", tree.dir]);
  }, 60_000);
  afterAll(async () => {
    await s.close();
    tree.cleanup();
  });

  test("5,000 binary files with the defaults: the whole answer stays within max_output_bytes", async () => {
    const res = await call(s, "grep_content", { pattern: "needle" });
    const bytes = Buffer.byteLength(JSON.stringify(res));
    console.log(`grep over 5,000 binary files: ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(60_000 + 2_000);
    const sc = res.structuredContent as {
      results: unknown[];
      errors: Array<{ code: string; message: string }>;
    };
    expect(sc.results.length).toBe(1);
    // Skipped binary files are counted, not listed one error record each (#37).
    expect(sc.errors).toEqual([]);
    expect((res.structuredContent as { skipped: { binary: number } }).skipped.binary).toBe(5000);
    expect(textOf(res)).toMatch(
      /^skipped: .*binary 5000 \(text: true searches them, list_binary: true lists them\)$/m,
    );
    expect(textOf(res)).not.toContain("BINARY");
  });

  test("a huge max_output_bytes still meets the ceiling (well under the 10 MB stdio clients refuse)", async () => {
    const { dir, cleanup } = tempTree({});
    const session = await (async () => {
      for (let d = 0; d < 15; d++) {
        const sub = join(dir, `${"d".repeat(60)}${d}`);
        mkdirSync(sub);
        for (let f = 0; f < 1000; f++) writeFileSync(join(sub, `${"f".repeat(80)}${f}.txt`), "");
      }
      return startMcp(["--root", dir]);
    })();
    try {
      const res = await call(session, "find_files", { limit: 1_000_000, max_output_bytes: 1_000_000_000 });
      const bytes = Buffer.byteLength(JSON.stringify(res));
      expect(bytes).toBeGreaterThan(1_000_000);
      expect(bytes).toBeLessThanOrEqual(4_000_000);
      expect((res.structuredContent as { truncated_reason: string }).truncated_reason).toBe(
        "max_output_bytes",
      );
    } finally {
      await session.close();
      cleanup();
    }
  }, 60_000);

  test("a count breakdown and errors are bounded too, with the defaults and with a small max_output_bytes", async () => {
    const spec: Record<string, string> = {};
    for (let d = 0; d < 1500; d++) spec[`dir-${String(d).padStart(4, "0")}/a.txt`] = "x\n";
    const { dir, cleanup } = tempTree(spec);
    const session = await startMcp(["--root", dir]);
    try {
      const res = await call(session, "count_lines", { by: "dir" });
      expect(res.isError ?? false).toBe(false);
      expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(60_000 + 2_000);
      expect(textOf(res)).toContain("breakdown: ");
      const small = await call(session, "count_lines", { by: "dir", max_output_bytes: 3_000 });
      expect(small.isError ?? false).toBe(false);
      expect(Buffer.byteLength(JSON.stringify(small))).toBeLessThanOrEqual(3_000 + 1_000);
      // The binary files' errors of the shared tree, with a small bound.
      const errs = await call(s, "count_lines", { max_output_bytes: 3_000 });
      expect(Buffer.byteLength(JSON.stringify(errs))).toBeLessThanOrEqual(3_000 + 1_000);
      expect(textOf(errs)).toMatch(
        /^skipped: .*binary 5000 \(text: true searches them, list_binary: true lists them\)/m,
      );
    } finally {
      await session.close();
      cleanup();
    }
  }, 60_000);
});

describe("arguments", () => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await startMcp(["--root", FIXTURE]);
  });
  afterAll(async () => {
    await mcp.close();
  });

  test("the grep pattern is never confinement-checked as a path; CLI operands are refused by name", async () => {
    const asPattern = await call(mcp, "grep_content", { pattern: "/usr/bin/env" });
    expect(asPattern.isError ?? false).toBe(false);
    const viaOperands = failure(await call(mcp, "grep_content", { operands: ["/usr/bin/env"] }));
    expect(viaOperands.code).toBe("BAD_PREDICATE");
    expect(viaOperands.message).toContain("'pattern'");
  });

  test("resources/read answers only for real schema names, not Object.prototype's", async () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      let err: unknown = null;
      try {
        await mcp.client.readResource({ uri: `rglob://schema/${name}` });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(McpError);
    }
  });

  test("an error message quotes at most a short prefix of a huge bad argument (MCP and CLI)", async () => {
    const huge = "9".repeat(2_000_000);
    const res = await call(mcp, "find_files", { min_size: `${huge}x` });
    expect(textOf(res).length).toBeLessThan(2_000);
    const key = await call(mcp, "find_files", { [`k${huge}`]: 1 });
    expect(textOf(key).length).toBeLessThan(2_000);
    const cli = rglob(["find", "--json", "--min-size", `${"9".repeat(100_000)}x`], { cwd: FIXTURE });
    expect(cli.code).toBe(2);
    expect(cli.stdout.length + cli.stderr.length).toBeLessThan(4_000);
  }, 60_000);
});

describe("mangled cursors are BAD_PREDICATE on every surface", () => {
  const mangle = (cursor: string, k: unknown) => {
    const c = JSON.parse(Buffer.from(cursor, "base64url").toString());
    return Buffer.from(JSON.stringify({ ...c, k })).toString("base64url");
  };
  const cases: Array<[string, string[]]> = [
    ["find", []],
    ["find", ["--sort", "name"]],
    ["find", ["--sort", "size", "--reverse"]],
    ["grep", ["-e", "a"]],
    ["grep", ["-c", "-e", "a"]],
    ["count", []],
    ["tree", []],
    ["top", []],
    ["stats", []],
  ];
  const keys: unknown[] = [5, { a: 1 }, "garbage", '[0,5,1,"x"]', '[{},"a",1]', "0:a\u0000x\u0000y", null];
  test.each(cases)("%s %j: the CLI with --json prints the failure envelope", (op, args) => {
    const first = rglobJson<{ next_cursor: string }>([op, ...args, "--json", "--limit", "1"], {
      cwd: FIXTURE,
    });
    expect(typeof first.json.next_cursor).toBe("string");
    for (const k of keys) {
      const r = rglob(
        [op, ...args, "--json", "--limit", "1", "--cursor", mangle(first.json.next_cursor, k)],
        {
          cwd: FIXTURE,
        },
      );
      expect({ k, code: r.code }).toEqual({ k, code: 2 });
      expect(JSON.parse(r.stdout).error.code).toBe("BAD_PREDICATE");
      expect(r.stderr).not.toContain("internal error");
    }
  });

  test("in the library: a result whose error is BAD_PREDICATE, never a thrown TypeError", async () => {
    const first = await runAll("find", { base: FIXTURE, sort: "name", limit: 1 });
    for (const k of keys) {
      const res = await runAll("find", {
        base: FIXTURE,
        sort: "name",
        limit: 1,
        cursor: mangle(first.next_cursor as string, k),
      });
      expect((res.errors as Array<{ code: string }>)[0]?.code).toBe("BAD_PREDICATE");
      expect(res.results).toEqual([]);
    }
  });

  test("over MCP: a tool error, BAD_PREDICATE", async () => {
    const mcp = await startMcp(["--root", FIXTURE]);
    try {
      const first = await call(mcp, "find_files", { sort: "name", limit: 1 });
      const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
      for (const k of keys) {
        const res = await call(mcp, "find_files", { sort: "name", limit: 1, cursor: mangle(cursor, k) });
        expect(failure(res).code).toBe("BAD_PREDICATE");
      }
    } finally {
      await mcp.close();
    }
  });
});
