/*! The floor of a warm MCP call (#36: "a literal found nowhere <= 20 ms every call"): the smallest stdio server of
 * the official MCP SDK (its Server and StdioServerTransport), one tool answering a fixed result of the size of
 * rglob's answer to a literal found nowhere (structuredContent and text), driven by bench-scale's client loop for
 * that tail: one call, then 50 in a row 300 ms apart. No search, no index, no validation of ours: what a call
 * costs here (JSON-RPC both ways, the SDK's checks, two processes woken up on a machine with its load) is what
 * "every call" can reach on this machine; bench-scale's tail line is compared with this one at a like load.
 * Usage: bun scripts/floor-mcp-call.ts [--runs=N] (N calls after the first; default 50). */

import { execSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { benchArgs } from "./bench-args.ts";

/** Set in the child this script starts: it is the server, and starts nothing. */
const SERVE = "RGLOB_FLOOR_MCP_SERVE";

/** rglob's answer to a literal found nowhere on the 277k tree, its size and shape (about 780 bytes of JSON). */
const ANSWER = {
  structuredContent: {
    results: [],
    truncated: false,
    truncated_reason: null,
    total_files_searched: 276740,
    skipped: {
      ignored: 0,
      hidden: 0,
      excluded: 0,
      too_deep: 0,
      binary: 10,
      too_large: 0,
      unreadable: 0,
      vcs: 10,
    },
    bytes_read: 0,
    errors: [],
    next_cursor: null,
    schema_version: "1.0",
    source: "index",
    total_matches: 0,
    matched_lines: 0,
    files_with_matches: 0,
    files_skipped: { binary: 10, too_large: 0, unreadable: 0 },
    encodings: {},
  },
  content: [
    {
      type: "text",
      text: "grep_content: 0 record(s); 276740 files searched. Nothing matched: 10 binary files were skipped (binary_mode or -a searches them).",
    },
  ],
};

if (process.env[SERVE] === "1") {
  const server = new Server({ name: "floor", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: "grep_content", description: "fixed answer", inputSchema: { type: "object" } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ANSWER);
  await server.connect(new StdioServerTransport());
} else {
  const args = benchArgs("bun scripts/floor-mcp-call.ts [--runs=N]", {}, 50);
  const load = () =>
    execSync("uptime")
      .toString()
      .trim()
      .replace(/.*load/, "load");
  const env: Record<string, string> = { [SERVE]: "1" };
  for (const k of ["PATH", "HOME"]) if (process.env[k] !== undefined) env[k] = process.env[k] as string;
  const transport = new StdioClientTransport({ command: process.execPath, args: [import.meta.path], env });
  const client = new Client({ name: "floor-mcp-call", version: "1" });
  await client.connect(transport);
  const call = async (i: number): Promise<number> => {
    const t0 = performance.now();
    await client.callTool({
      name: "grep_content",
      arguments: { pattern: `zq${i}vbk_nowhere`, hidden: true },
    });
    return performance.now() - t0;
  };
  const before = load();
  const first = await call(-1);
  const tail: number[] = [first];
  for (let i = 0; i < args.runs; i++) {
    await Bun.sleep(300);
    tail.push(await call(i));
  }
  const sorted = [...tail].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(
    `floor of an MCP call (SDK server, fixed answer), ${tail.length} in a row (the first: ${f(first)}): median ${f(q(0.5))}, p90 ${f(q(0.9))}, p99 ${f(q(0.99))}, worst ${f(sorted[sorted.length - 1] as number)}, over 20 ms ${tail.filter((ms) => ms > 20).length}  [${before} | ${load()}]`,
  );
  await client.close();
}
