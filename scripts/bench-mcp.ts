/*! Benchmark of `rglob mcp` (a script, never a timed test): the latency of tool calls that a client makes one
 * after another to one server process, as an agent does. For each corpus and call it prints the median and the
 * spread over N calls, with the defaults (a grep call has a deadline: a regex is searched in workers, an exact
 * literal in the calling thread below 4 cores) and with `threads: 0` (the calling thread). Corpora: this repository's node_modules (ignore rules off) and the
 * generated tree of scripts/bench-grep.ts (.bench/tree), when it exists. Usage: bun scripts/bench-mcp.ts
 * [--runs=N]. */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { benchArgs } from "./bench-args.ts";
import { RawMcpClient } from "./bench-mcp-client.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
const { runs } = benchArgs("bun scripts/bench-mcp.ts [--runs=N]", {}, 15);
if (!existsSync(bin)) {
  console.error(`no binary at ${bin}: run \`npm run build\` first`);
  process.exit(1);
}

interface Call {
  readonly name: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

const CALLS: readonly Call[] = [
  { name: "grep, default limit", tool: "grep_content", args: { pattern: "function" } },
  { name: "grep, rare (whole tree)", tool: "grep_content", args: { pattern: "needle_zqx_rare" } },
  { name: "grep, regex", tool: "grep_content", args: { pattern: "[A-Z][a-z]+Error" } },
  { name: "find, default limit", tool: "find_files", args: {} },
  { name: "count lines", tool: "count_lines", args: {} },
  { name: "stats", tool: "file_stats", args: {} },
];

async function measure(serveRoot: string, extra: Record<string, unknown>): Promise<void> {
  const client = new RawMcpClient(bin, serveRoot, "bench-mcp");
  await client.start();
  try {
    for (const call of CALLS) {
      const threads = call.tool === "grep_content" ? ["default", 0] : ["default"];
      for (const t of threads) {
        const args = { ...call.args, ...extra, ...(t === 0 ? { threads: 0 } : {}) };
        const times: number[] = [];
        let records = 0;
        for (let i = 0; i < runs; i++) {
          const t0 = performance.now();
          const answer = await client.request("tools/call", { name: call.tool, arguments: args });
          times.push(performance.now() - t0);
          const result = answer.result as { structuredContent?: { results?: unknown[] } } | undefined;
          records = result?.structuredContent?.results?.length ?? 0;
        }
        times.sort((a, b) => a - b);
        const at = (q: number) =>
          (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
        const label = `${call.name}${call.tool === "grep_content" ? (t === 0 ? " (threads 0)" : " (default)") : ""}`;
        console.log(
          `  ${label.padEnd(36)} median ${at(0.5).padStart(7)} ms   q1-q3 ${at(0.25)}-${at(0.75)} ms   ${records} records`,
        );
      }
    }
  } finally {
    client.stop();
  }
}

console.log(
  `${runs} calls each, one after another to one server; the first call of each line warms it up too`,
);
const nm = join(root, "node_modules");
if (existsSync(nm)) {
  console.log("\n## node_modules (respect_gitignore: false, hidden: true)");
  await measure(nm, { respect_gitignore: false, hidden: true });
}
const tree = join(root, ".bench", "tree");
if (existsSync(join(tree, ".done"))) {
  console.log("\n## generated tree, 20k files (from scripts/bench-grep.ts)");
  await measure(tree, {});
} else console.log("\n(.bench/tree missing: run `bun scripts/bench-grep.ts --only=tree` to generate it)");
