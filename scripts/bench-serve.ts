/*! The CLI served warm (#36, ADR 0033): 20 agent-style greps on a tree (babel) as 20 `rglob grep` processes
 * against a running `rglob serve`, against 20 rg processes; process start included on both sides, paired runs
 * (rg's set, then rglob's, each run). Every served answer (stdout, stderr, exit code) is first checked to be
 * byte-identical to the cold CLI's (`RGLOB_SERVE=0`); then a trivial grep's process cost served and cold.
 * `--server=mcp` has the calls answered by an `rglob mcp --root TREE` session instead (initialized over stdio,
 * its stdin held open until the end), which serves the CLI in its root from its own warm state.
 * Then the floor (scripts/floor-serve.ts, compiled with the binary's flags): the smallest Bun program that sends
 * the same call to the same socket and prints the answer, timed with `rglob --version` and the served call by
 * `hyperfine -N`, one round per run (the three commands in each), its answer checked to be the served one.
 * `bun scripts/bench-serve.ts [--runs=N] [--tree=DIR] [--server=mcp]`; prints the ratio (target <= 0.1x) and the load. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SERVE_QUERIES as QUERIES, treeBench } from "./bench-args.ts";
import { buildArgs, ROOT } from "./build.ts";

// --server=mcp is this script's own flag (treeBench takes --runs and --tree).
const byMcp = process.argv.includes("--server=mcp");
if (byMcp) process.argv.splice(process.argv.indexOf("--server=mcp"), 1);
const { bin, tree, rg, runs } = treeBench(
  "bun scripts/bench-serve.ts [--runs=N] [--tree=DIR] [--server=mcp]",
  3,
);

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

/** The CPU time (user + system, ms) a process has used so far, from /proc (null where there is none). */
function cpuOf(pid: unknown): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
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

/** Compiles scripts/floor-serve.ts with the flags of every rglob binary (scripts/build.ts), or null. */
function buildFloor(): string | null {
  const out = join(cache, "floor-serve");
  const args = buildArgs({ outfile: out }).filter((a) => !a.endsWith(".ts"));
  const at = args.indexOf("--outfile");
  args.splice(at, 0, join(ROOT, "scripts", "floor-serve.ts"));
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  if (r.status === 0) return out;
  console.log(`floor-serve did not build: ${r.stderr}`);
  return null;
}

/** The build identity the server answers for this binary (src/surface/serve/where.ts buildId in the binary). */
function buildIdOf(binary: string): string {
  const exe = realpathSync(binary);
  const st = statSync(exe);
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
  return `1|${version}|${exe}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** What hyperfine measured of one command: mean wall time and CPU (user + system), in ms. */
interface Hyper {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * The floor against a served call and the binary's bare start: `hyperfine -N` of the three commands, one round
 * per run, their medians printed with the load of each round.
 */
async function floorRounds(): Promise<void> {
  const hyperfine = Bun.which("hyperfine");
  const floor = buildFloor();
  const sock = readdirSync(join(cache, "serve")).find((n) => n.endsWith(".sock"));
  if (hyperfine === null || floor === null || sock === undefined) {
    console.log("the floor is not measured: hyperfine, the floor program or the server's socket is missing");
    return;
  }
  const call = ["grep", "-F", "process.env.BABEL_ENV"];
  const floorArgv = [floor, join(cache, "serve", sock), buildIdOf(bin), ...call];
  const [viaFloor, viaRglob] = [await run(floorArgv), await run([bin, ...call])];
  if (!viaFloor.out.equals(viaRglob.out) || viaFloor.code !== viaRglob.code) {
    console.log("the floor's answer differs from the served call's: not measured");
    failures++;
    return;
  }
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const commands = [[bin, "--version"], floorArgv, [bin, ...call]].map((c) => c.map(quote).join(" "));
  const names = ["rglob --version", "floor-serve", `rglob ${call.join(" ")} (served)`];
  const rows: Hyper[][] = names.map(() => []);
  const json = join(cache, "hyperfine.json");
  for (let r = 0; r < runs; r++) {
    const before = load();
    const h = spawnSync(hyperfine, ["-N", "-i", "-w", "3", "-r", "15", "--export-json", json, ...commands], {
      cwd: tree,
      env,
      encoding: "utf8",
    });
    if (h.status !== 0) {
      console.log(`hyperfine failed: ${h.stderr}`);
      return;
    }
    const results = (
      JSON.parse(readFileSync(json, "utf8")) as {
        results: Array<{ mean: number; user: number; system: number }>;
      }
    ).results;
    for (const [i, x] of results.entries())
      rows[i]?.push({ wall: x.mean * 1000, cpu: (x.user + x.system) * 1000 });
    console.log(
      `  floor round ${r + 1} (load ${before} before, ${load()} after): ${names
        .map((n, i) => `${n} ${results[i]?.mean ? (results[i].mean * 1000).toFixed(1) : "?"} ms`)
        .join(", ")}`,
    );
  }
  const med = (i: number, k: keyof Hyper) => median((rows[i] ?? []).map((x) => x[k]));
  console.log(
    `one process, hyperfine -N, median of ${runs} rounds of 15 (wall; CPU user+system): ${names
      .map((n, i) => `${n} ${med(i, "wall").toFixed(1)} ms; ${med(i, "cpu").toFixed(1)} ms`)
      .join(" | ")}`,
  );
  console.log(
    `a served call costs ${(med(2, "wall") - med(1, "wall")).toFixed(1)} ms wall and ${(med(2, "cpu") - med(1, "cpu")).toFixed(1)} ms CPU over the floor, ${(med(2, "wall") - med(0, "wall")).toFixed(1)} ms wall over rglob --version`,
  );
}

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
  /** The server's CPU per served call in each run (its own work between the calls included). */
  const serverCpu: number[] = [];
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
    const cpu0 = cpuOf(server?.pid);
    for (const [i, q] of QUERIES.entries()) await timed([bin, "grep", ...q.rglob], perQuery[i]?.rglob ?? []);
    rglobTimes.push(performance.now() - t);
    const cpu1 = cpuOf(server?.pid);
    if (cpu0 !== null && cpu1 !== null) serverCpu.push((cpu1 - cpu0) / QUERIES.length);
    console.log(
      `  run ${r + 1}: rg ${rgTimes[r]?.toFixed(0)} ms, rglob served ${rglobTimes[r]?.toFixed(0)} ms, the server's CPU ${serverCpu.at(-1)?.toFixed(0) ?? "?"} ms a call (load ${load()})`,
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
  // A trivial call's process, cold.
  const colds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await run([bin, "grep", "-l", "zzq_nowhere_zzq", "packages/babel-core/src"], { RGLOB_SERVE: "0" });
    colds.push(performance.now() - t);
  }
  console.log(`\na grep of one directory cold (median of 5): ${median(colds).toFixed(1)} ms`);
  await floorRounds();
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
