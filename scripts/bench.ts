/*! `npm run bench`: first the table of #23's targets (bench-targets.ts: every ratio beside its target and its
 * floor program's ratio, from one run), then every benchmark in turn (walk, grep, count, dupes, MCP, each
 * against its peers; then the peak memory by tree size) with the same number of alternating runs. One at a time, since two would share the cores. A benchmark that fails
 * is reported and the others still run; the exit code is 1 when any failed. Never a test.
 * Usage: bun scripts/bench.ts [--runs=N] */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { benchArgs } from "./bench-args.ts";

const { runs } = benchArgs("bun scripts/bench.ts [--runs=N]", {}, 5);
const BENCHMARKS = [
  "bench-targets.ts",
  "bench-walk.ts",
  "bench-grep.ts",
  "bench-count.ts",
  "bench-dupes.ts",
  "bench-mcp.ts",
  "bench-memory.ts",
];

const failed: string[] = [];
for (const script of BENCHMARKS) {
  console.log(`\n=== ${script} --runs=${runs}`);
  const r = spawnSync(process.execPath, [join(import.meta.dir, script), `--runs=${runs}`], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed.push(`${script} (exit ${r.status ?? r.signal})`);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(", ")}`);
  process.exit(1);
}
