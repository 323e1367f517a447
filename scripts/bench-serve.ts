/*! The CLI served warm (#36, ADR 0033): 20 agent-style greps on a tree (babel) as 20 `rglob grep` processes
 * against a running `rglob serve`, against 20 rg processes; process start included on both sides, paired runs
 * (rg's set, then rglob's, each run). Every served answer (stdout, stderr, exit code) is first checked to be
 * byte-identical to the cold CLI's (`RGLOB_SERVE=0`); then a trivial grep's process cost served and cold.
 * `--server=mcp` has the calls answered by an `rglob mcp --root TREE` session instead (initialized over stdio,
 * its stdin held open until the end), which serves the CLI in its root from its own warm state.
 * `bun scripts/bench-serve.ts [--runs=N] [--tree=DIR] [--server=mcp]`; prints the ratio (target <= 0.1x) and the load. */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { treeBench } from "./bench-args.ts";

// --server=mcp is this script's own flag (treeBench takes --runs and --tree).
const byMcp = process.argv.includes("--server=mcp");
if (byMcp) process.argv.splice(process.argv.indexOf("--server=mcp"), 1);
const { bin, tree, rg, runs } = treeBench(
  "bun scripts/bench-serve.ts [--runs=N] [--tree=DIR] [--server=mcp]",
  3,
);

/** The 20 greps of bench-warm.ts, as an agent types them: rglob's argv and rg's. */
const QUERIES: ReadonlyArray<{ readonly rglob: readonly string[]; readonly rg: readonly string[] }> = [
  { rglob: ["traverseFast"], rg: ["-n", "traverseFast"] },
  { rglob: ["function"], rg: ["-n", "function"] },
  { rglob: ["TODO"], rg: ["-n", "TODO"] },
  { rglob: ["isIdentifier"], rg: ["-n", "isIdentifier"] },
  { rglob: ["assertNode"], rg: ["-n", "assertNode"] },
  { rglob: ["[A-Z][a-z]+Error\\("], rg: ["-n", "[A-Z][a-z]+Error\\("] },
  { rglob: ["const [a-z]+ = require\\("], rg: ["-n", "const [a-z]+ = require\\("] },
  { rglob: ["t\\.is[A-Z]\\w+\\("], rg: ["-n", "t\\.is[A-Z]\\w+\\("] },
  { rglob: ["console\\.(warn|error)"], rg: ["-n", "console\\.(warn|error)"] },
  { rglob: ["-i", "-w", "todo"], rg: ["-n", "-i", "-w", "todo"] },
  { rglob: ["-i", "deprecated"], rg: ["-n", "-i", "deprecated"] },
  { rglob: ["-w", "scope"], rg: ["-n", "-w", "scope"] },
  { rglob: ["-l", "babel-core"], rg: ["-l", "babel-core"] },
  { rglob: ["-l", "-i", "copyright"], rg: ["-l", "-i", "copyright"] },
  { rglob: ["-c", "export default"], rg: ["-c", "export default"] },
  { rglob: ["-c", "it\\("], rg: ["-c", "it\\("] },
  { rglob: ["-g", "*.ts", "interface"], rg: ["-n", "-g", "*.ts", "interface"] },
  { rglob: ["-g", "*.json", '"version"'], rg: ["-n", "-g", "*.json", '"version"'] },
  { rglob: ["-F", "process.env.BABEL_ENV"], rg: ["-n", "-F", "process.env.BABEL_ENV"] },
  { rglob: ["tokenizer", "packages/babel-parser"], rg: ["-n", "tokenizer", "packages/babel-parser"] },
];

const cache = mkdtempSync(join(tmpdir(), "rglob-bench-serve-"));
const env = { ...process.env, RGLOB_CACHE_DIR: cache, NO_COLOR: "1" };

interface Answer {
  readonly out: Buffer;
  readonly err: Buffer;
  readonly code: number;
}

async function run(cmd: readonly string[], extra: Record<string, string> = {}): Promise<Answer> {
  const p = Bun.spawn([...cmd], {
    cwd: tree,
    env: { ...env, ...extra },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([
    new Response(p.stdout).arrayBuffer(),
    new Response(p.stderr).arrayBuffer(),
  ]);
  return { out: Buffer.from(out), err: Buffer.from(err), code: await p.exited };
}

async function status(): Promise<Record<string, unknown> | undefined> {
  const a = await run([bin, "index", "--status", "--json"]);
  const r = JSON.parse(a.out.toString()) as { results: Array<{ servers: Array<Record<string, unknown>> }> };
  return r.results[0]?.servers.find((s) => s.root !== undefined);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

console.log(
  `tree: ${tree}; ${runs} paired runs of 20 greps; the CLI served by ${byMcp ? "rglob mcp" : "rglob serve"}; load average ${load()}`,
);
const t0 = performance.now();
/** The MCP session whose server answers the CLI (--server=mcp): initialized, its stdin held open. */
let mcp: ReturnType<typeof Bun.spawn> | null = null;
if (byMcp) {
  mcp = Bun.spawn([bin, "mcp", "--root", tree], {
    cwd: tree,
    env,
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
  });
  const stdin = mcp.stdin as import("bun").FileSink;
  const init = {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench-serve", version: "1" },
  };
  stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init })}\n`);
  stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  stdin.flush();
} else {
  const started = await run([bin, "serve", "--detach", "--idle-seconds", "900"]);
  if (started.code !== 0) throw new Error(`rglob serve --detach: ${started.err.toString()}`);
}
let server = await status();
while (server?.state !== "ready" && server?.state !== "warm_list") {
  await Bun.sleep(100);
  server = await status();
}
console.log(
  `server ${server?.pid} (${server?.started_by}): ${server?.state} ${(performance.now() - t0).toFixed(0)} ms after the start`,
);

let failures = 0;
try {
  const before = Number(server?.calls ?? 0);
  for (const q of QUERIES) {
    const argv = [bin, "grep", ...q.rglob];
    const [warm, cold] = [await run(argv), await run(argv, { RGLOB_SERVE: "0" })];
    const same = warm.code === cold.code && warm.out.equals(cold.out) && warm.err.equals(cold.err);
    if (!same) failures++;
    console.log(
      `  ${same ? "identical" : "DIFFERENT"}: rglob grep ${q.rglob.join(" ")} (${warm.out.length} bytes, exit ${warm.code}${same ? "" : `; cold ${cold.out.length} bytes, exit ${cold.code}`})`,
    );
  }
  const served = Number((await status())?.calls ?? 0) - before;
  console.log(`the server answered ${served} of the ${QUERIES.length} calls checked`);
  if (served !== QUERIES.length) failures++;

  const rgTimes: number[] = [];
  const rglobTimes: number[] = [];
  const perQuery = QUERIES.map(() => ({ rg: [] as number[], rglob: [] as number[] }));
  const timed = async (argv: readonly string[], into: number[]) => {
    const t = performance.now();
    await run(argv);
    into.push(performance.now() - t);
  };
  for (let r = 0; r < runs; r++) {
    let t = performance.now();
    for (const [i, q] of QUERIES.entries())
      await timed([rg, "--hidden", "-g", "!.git", "--no-heading", ...q.rg], perQuery[i]?.rg ?? []);
    rgTimes.push(performance.now() - t);
    t = performance.now();
    for (const [i, q] of QUERIES.entries()) await timed([bin, "grep", ...q.rglob], perQuery[i]?.rglob ?? []);
    rglobTimes.push(performance.now() - t);
    console.log(
      `  run ${r + 1}: rg ${rgTimes[r]?.toFixed(0)} ms, rglob served ${rglobTimes[r]?.toFixed(0)} ms (load ${load()})`,
    );
  }
  for (const [i, q] of QUERIES.entries())
    console.log(
      `  ${`rglob grep ${q.rglob.join(" ")}`.padEnd(44)} served ${median(perQuery[i]?.rglob ?? [0])
        .toFixed(0)
        .padStart(6)} ms, rg ${median(perQuery[i]?.rg ?? [0])
        .toFixed(0)
        .padStart(6)} ms`,
    );
  const rgMs = median(rgTimes);
  const rglobMs = median(rglobTimes);
  // A trivial call's process: served, cold, and the binary's bare start.
  const trivial = async (argv: readonly string[], extra: Record<string, string> = {}) => {
    const xs: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      await run(argv, extra);
      xs.push(performance.now() - t);
    }
    return median(xs);
  };
  const version = await trivial([bin, "--version"]);
  const servedOne = await trivial([bin, "grep", "-l", "zzq_nowhere_zzq", "packages/babel-core/src"]);
  const coldOne = await trivial([bin, "grep", "-l", "zzq_nowhere_zzq", "packages/babel-core/src"], {
    RGLOB_SERVE: "0",
  });
  console.log(
    `\none process (median of 15): rglob --version ${version.toFixed(1)} ms; a grep of one directory served ${servedOne.toFixed(1)} ms, cold ${coldOne.toFixed(1)} ms`,
  );
  console.log(
    `20 greps as CLI processes: rg ${rgMs.toFixed(0)} ms, rglob served warm ${rglobMs.toFixed(0)} ms: ${(rglobMs / rgMs).toFixed(3)}x rg (target <= 0.1x); load average ${load()}`,
  );
} finally {
  if (mcp !== null) {
    // The end of the MCP session closes its sockets.
    (mcp.stdin as import("bun").FileSink).end();
    await mcp.exited;
  } else await run([bin, "serve", "--stop"]);
  rmSync(cache, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${failures} served answers differ from the cold CLI's`);
  process.exitCode = 1;
}
