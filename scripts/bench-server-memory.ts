/*! Benchmark: the warm server's memory on a large tree (#36: server RSS ≤ 1 GB on the 277k-file tree). Each
 * binary given (`--bins=A,B`, alternated per run: paired old/new) is measured, its cache emptied first:
 * - build: `rglob mcp --root TREE` from start to `ready`, its resident set (VmRSS of /proc/PID/status) sampled
 *   every 100 ms: the largest sample while building, VmHWM (the kernel's peak) at `ready`, VmRSS at ready, once
 *   the index is written to the cache (3 s after), and after 20 greps twice (their times; VmHWM then);
 * - restart: the server started again on that cache (it loads the index instead of building): VmHWM and VmRSS
 *   at `ready`, once its watch is trusted and after 20 greps;
 * - index: `rglob index` of the tree (the CLI build): peak RSS (VmHWM sampled to its end) and wall time.
 * Every figure is printed with the machine's load (`uptime`). Servers started are stopped before it ends.
 * Usage: bun scripts/bench-server-memory.ts --tree=DIR [--bins=A,B] [--runs=N] [--part=build,restart,index]
 *   [--work=DIR] */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { benchArgs, cpuSecondsOf, loadAverage } from "./bench-args.ts";
import { RawMcpServer } from "./mcp-probe.ts";

const USAGE =
  "bun scripts/bench-server-memory.ts --tree=DIR [--bins=A,B] [--runs=N] [--part=build,restart,index] [--work=DIR]";
const args = benchArgs(USAGE, { tree: "text", bins: "text", part: "text", work: "text" }, 1);
const ROOT = path.resolve(import.meta.dir, "..");
const BINS = (args.get("bins") ?? process.env.RGLOB_BIN ?? path.join(ROOT, "dist", "rglob")).split(",");
const TREE = args.get("tree");
const WORK = path.resolve(args.get("work") ?? path.join(os.tmpdir(), "rglob-bench-server-memory"));
const parts = new Set((args.get("part") ?? "build,restart,index").split(","));
if (TREE === undefined) {
  console.error(`--tree is required\nusage: ${USAGE}`);
  process.exit(2);
}

const say = (s: string) => console.log(s);
const load = () => `load ${loadAverage()}`;
const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS and VmHWM of a process, in kB (0 once it is gone). */
function memOf(pid: number): { rss: number; hwm: number } {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(s)?.[1] ?? 0);
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(s)?.[1] ?? 0);
    return { rss, hwm };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** Samples a process's VmRSS every 100 ms under a label that the caller moves on; the largest per label. */
class Sampler {
  readonly peaks = new Map<string, number>();
  label = "start";
  private readonly timer: ReturnType<typeof setInterval>;
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 100);
  }
  sample(): void {
    const { rss } = memOf(this.pid);
    if (rss > (this.peaks.get(this.label) ?? 0)) this.peaks.set(this.label, rss);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/** The 20 greps after ready: identifiers of several kinds, a literal found nowhere, a regex. */
const QUERIES: ReadonlyArray<Record<string, unknown>> = [
  "traverseFast",
  "isIdentifier",
  "assertNode",
  "getBindingIdentifiers",
  "buildCodeFrameError",
  "toJSON",
  "_interopRequireDefault",
  "FLIPPED_ALIAS_KEYS",
  "BABEL_8_BREAKING",
  "NODE_ENV",
  "TODO",
  "scope",
  "deopt",
  "zqxNowhereLiteral",
  "function\\s+\\w+Expression",
  "import .* from",
  "createParenthesizedExpressions",
  "SCOPE_SET_TYPE",
  "DEFAULT_EXTENSIONS",
  "path",
].map((pattern) => ({ pattern, limit: 100 }));

async function untilReady(s: RawMcpServer): Promise<Record<string, unknown>> {
  for (;;) {
    const st = await s.warm();
    if (st.state !== "building") return st;
    await sleep(200);
  }
}

async function twentyGreps(s: RawMcpServer): Promise<number> {
  const t0 = performance.now();
  for (const q of QUERIES) await s.grep(q);
  return performance.now() - t0;
}

/** The server built from an empty cache, to ready, its index written, 20 greps. */
async function build(bin: string, cache: string): Promise<void> {
  fs.rmSync(cache, { recursive: true, force: true });
  const t0 = performance.now();
  const s = new RawMcpServer(bin, TREE as string, cache, "bench-server-memory");
  const sampler = new Sampler(s.pid);
  sampler.label = "building";
  await s.start();
  const st = await untilReady(s);
  const secs = (performance.now() - t0) / 1000;
  const cpu = cpuSecondsOf(s.pid);
  sampler.sample();
  const atReady = memOf(s.pid);
  sampler.label = "after ready";
  const file = path.join(cache, "index");
  for (let i = 0; i < 1200; i++) {
    if (fs.existsSync(file) && fs.readdirSync(file).some((f) => f.endsWith(".rgi"))) break;
    await sleep(100);
  }
  await sleep(3000);
  const persisted = memOf(s.pid);
  const ms = await twentyGreps(s);
  const ms2 = await twentyGreps(s);
  const after = memOf(s.pid);
  sampler.stop();
  say(
    `  build: ${st.state} after ${secs.toFixed(1)} s (build_ms ${st.build_ms}, server CPU ${cpu.toFixed(1)} s; ${st.files} files); largest sample while building ${mib(sampler.peaks.get("building") ?? 0)}; at ready VmHWM ${mib(atReady.hwm)}, VmRSS ${mib(atReady.rss)}; written VmRSS ${mib(persisted.rss)}; 20 greps ${ms.toFixed(0)} ms, again ${ms2.toFixed(0)} ms, then VmRSS ${mib(after.rss)}, VmHWM ${mib(after.hwm)} (${load()})`,
  );
  await s.stop();
}

/** The server started again on the written cache: loaded, watched, 20 greps. */
async function restart(bin: string, cache: string): Promise<void> {
  const t0 = performance.now();
  const s = new RawMcpServer(bin, TREE as string, cache, "bench-server-memory");
  await s.start();
  const st = await untilReady(s);
  const secs = (performance.now() - t0) / 1000;
  const atReady = memOf(s.pid);
  // Until every indexed file is stat'ed again with the watch whole (then the watch vouches), at most 5 minutes.
  for (let i = 0; i < 1500; i++) {
    const w = await s.warm();
    if (/checked (again|once watched)|not watching/.test(String(w.reason))) break;
    await sleep(200);
  }
  const trusted = memOf(s.pid);
  const ms = await twentyGreps(s);
  const after = memOf(s.pid);
  say(
    `  restart: ${st.state} after ${secs.toFixed(1)} s; at ready VmHWM ${mib(atReady.hwm)}, VmRSS ${mib(atReady.rss)}; trusted VmRSS ${mib(trusted.rss)}; 20 greps ${ms.toFixed(0)} ms, then VmRSS ${mib(after.rss)}, VmHWM ${mib(after.hwm)} (${load()})`,
  );
  await s.stop();
}

/** `rglob index` from an empty cache: peak RSS (getrusage's maxrss, as GNU time gives it), wall time. */
function cliIndex(bin: string, cache: string): void {
  fs.rmSync(cache, { recursive: true, force: true });
  const t0 = performance.now();
  const r = Bun.spawnSync([bin, "index", "--json"], {
    cwd: TREE as string,
    env: { ...process.env, RGLOB_CACHE_DIR: cache },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  say(
    `  rglob index: exit ${r.exitCode} after ${((performance.now() - t0) / 1000).toFixed(1)} s; peak RSS ${mib(r.resourceUsage.maxRSS / 1024)} (${load()})`,
  );
}

say(
  `# bench-server-memory (${new Date().toISOString()}, ${os.cpus().length} cores, ${load()}), tree ${TREE}`,
);
for (let run = 0; run < args.runs; run++) {
  for (const [i, bin] of BINS.entries()) {
    say(`${bin} (run ${run + 1})`);
    const cache = path.join(WORK, `cache-${i}`);
    if (parts.has("build")) await build(bin, cache);
    if (parts.has("restart")) await restart(bin, cache);
    if (parts.has("index")) cliIndex(bin, path.join(WORK, `cli-cache-${i}`));
  }
}
