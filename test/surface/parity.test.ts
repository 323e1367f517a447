// Surface parity: every sample query of every registered operation, on fixtures/tree, through the library
// (in-process), the compiled binary's `--json` and the compiled binary's MCP server gives the same result.
// Nothing is normalised: each surface gets the same full input (base, strict_base and the agent defaults
// written out), so even next_cursor (a fingerprint of the query) and the counters must be equal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runAll } from "../../src/agent/index.ts";
import { findOperation } from "../../src/ops/registry.ts";
import { rglobJson } from "../helpers.ts";
import { argvOf, coverage, fullInput, type McpSession, SAMPLES, startMcp } from "./mcp-helpers.ts";

const { covered, missing, notRegistered } = coverage();
console.log(
  `parity: covering ${covered.map((o) => o.id).join(", ")}; not registered (skipped): ${notRegistered.join(", ") || "none"}`,
);
const cases = covered.flatMap((op) => (SAMPLES[op.id] ?? []).map((s) => [op.id, s.title, s] as const));

let mcp: McpSession;
beforeAll(async () => {
  mcp = await startMcp();
});
afterAll(async () => {
  await mcp.close();
});

describe("library, CLI --json and MCP give identical results", () => {
  test("every registered operation has sample queries", () => {
    expect(missing).toEqual([]);
  });

  test.each(cases)("%s: %s", async (id, _title, sample) => {
    const op = findOperation(id);
    const input = fullInput(op, sample);
    const lib = await runAll(id, input);
    // Per-path records (e.g. BINARY for fixtures/tree/binary.bin) are part of the result; a request failure
    // (an error without a path) is not what these samples are for.
    expect((lib.errors as Array<{ path: string | null }>).filter((e) => e.path === null)).toEqual([]);

    const { json: cli, run } = rglobJson([id, "--json", ...argvOf(op, input)]);
    expect(run.stderr).toBe("");
    expect(cli).toEqual(lib);

    const res = (await mcp.client.callTool({
      name: op.mcpTool as string,
      arguments: input,
    })) as CallToolResult;
    expect(res.isError ?? false).toBe(false);
    // A server's grep says where its answer came from and, from its index, reads fewer bytes (#24).
    const { source, ...served } = res.structuredContent as Record<string, unknown>;
    if (source === "index") served.bytes_read = lib.bytes_read;
    expect(served).toEqual(lib);
  });

  test("a request failure: the library's error is the CLI's and the MCP server's failure envelope", async () => {
    const op = findOperation("find");
    const input = fullInput(op, { title: "bad size", input: { min_size: "nope" } });
    const lib = await runAll("find", input);
    expect(lib.results).toEqual([]);
    const [error] = lib.errors as unknown[];
    const { json: cli, run } = rglobJson(["find", "--json", ...argvOf(op, input)]);
    expect(run.code).toBe(2);
    expect(cli).toEqual({ ok: false, error });
    const res = (await mcp.client.callTool({ name: "find_files", arguments: input })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(JSON.parse((res.content as Array<{ text: string }>)[0]?.text ?? "")).toEqual({ ok: false, error });
  });
});
