/*! A literal found nowhere after a restart (#36: "<= 20 ms every time", the first call included): `rglob mcp` on
 * the 277k-file tree (ten copies of a checkout, made by bench-scale.ts) is started again from its persisted index,
 * through the official MCP SDK client, and timed at the moment an agent meets it:
 * - once, a server builds the index into --index (RGLOB_CACHE_DIR) and is stopped (skipped when it holds one);
 * - each run copies that cache afresh (the server rewrites nothing it loaded, but a run must not see another's),
 *   starts `rglob mcp --root TREE`, polls `rglob://capabilities` until the root is `ready` (the loaded index
 *   answers), times a literal found nowhere asked then (the first answer, "<= 5 s" from the start), and then
 *   polls until the watch is trusted (`mcp.warm` reason "checked once watched" or "checked again"),
 *   times the first literal found nowhere, then 50 new ones 300 ms apart (median, p90, worst); each call over
 *   20 ms is listed with the files the index handed to the search (`given`: its candidates, read) and where its
 *   time went (Linux's schedstat, taken around each call): the server's main thread on a core (`cpu`) and waiting
 *   for one (`queued`), its other threads on a core (the engine's compiler and collector threads), the client's
 *   main thread likewise; the last lines give every binary's calls together (median, p90, p99, worst, how many
 *   over 20 ms, and the median server CPU of a call);
 * - with --old=BIN, the runs alternate between that binary and this one (RGLOB_BIN, else dist/rglob), old first
 *   in odd runs and second in even ones, for paired figures at the same load;
 * - with --floor=sdk, each run also starts the floor of a call (floor-mcp-call.ts, compiled as rglob is: the
 *   official SDK's stdio server answering a fixed result of the same shape, no search) and drives it by the same
 *   loop (a first call, then --queries 300 ms apart), after the binaries in odd runs and before them in even ones:
 *   what "every call" can reach on this machine at that load, beside ours.
 * Every line carries the load average; the last lines are the target per binary.
 * `bun scripts/bench-restart-nowhere.ts [--runs=N] [--tree=DIR] [--index=DIR] [--old=BIN] [--queries=N]
 * [--floor=sdk]`; on a shared tree, run it under the tree's lock (`flock LOCK bun scripts/…`). */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  benchArgs,
  compileFloor,
  loadAverage,
  type SchedTimes,
  schedTimes,
  stdioSession,
} from "./bench-args.ts";

const usage =
  "bun scripts/bench-restart-nowhere.ts [--runs=N] [--tree=DIR] [--index=DIR] [--old=BIN] [--queries=N] [--floor=sdk]";
const args = benchArgs(
  usage,
  { tree: "text", index: "text", old: "text", queries: "count", floor: "text" },
  3,
);
const here = join(import.meta.dir, "..");
const bin = resolve(process.env.RGLOB_BIN ?? join(here, "dist", "rglob"));
const old = args.get("old") === undefined ? null : resolve(args.get("old") as string);
const tree = resolve(
  args.get("tree") ?? process.env.RGLOB_BENCH_TREE ?? join(here, "..", "bench", "babel-x10"),
);
const built = resolve(args.get("index") ?? join(tmpdir(), "rglob-bench-restart-nowhere"));
const queries = args.count("queries", 50);
const stop = (message: string): never => {
  console.error(message);
  process.exit(1);
};
for (const b of [bin, old]) if (b !== null && !existsSync(b)) stop(`no binary at ${b}`);
if (args.get("floor") !== undefined && args.get("floor") !== "sdk")
  stop(`--floor takes sdk only\nusage: ${usage}`);
const floor =
  args.get("floor") === "sdk" ? (compileFloor("mcp-call") ?? stop("the floor did not build")) : null;
if (!existsSync(join(tree, ".rglob-bench-scale")))
  stop(`no tree at ${tree}: make it with bench-scale.ts first`);
const load = () => `load ${loadAverage()}`;
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)] as number;

interface WarmRoot {
  readonly state: string;
  readonly reason: string | null;
  /** The last warm query's checks: `given`, the files handed to the search (the candidates the index kept). */
  readonly checks?: { readonly given: number };
}

/** A call's time apart from the wall clock: the server's and the client's, each from schedstat around it. */
const spent = (a: SchedTimes, b: SchedTimes) => ({
  cpu: b.cpu - a.cpu,
  queued: b.queued - a.queued,
  others: b.others - a.others,
});
const told = (x: SchedTimes) => `${x.cpu.toFixed(1)} cpu + ${x.queued.toFixed(1)} queued`;

/** One `rglob mcp` of the tree (or the floor's server, `binary` null) through the SDK client, its cache at `cache`. */
async function serve(binary: string | null, cache: string) {
  const { client, pid } =
    binary === null
      ? await stdioSession(floor as string, [], tree, { RGLOB_FLOOR_MCP_SERVE: "1" }, "bench-restart-nowhere")
      : await stdioSession(
          binary,
          ["mcp", "--root", tree],
          tree,
          { RGLOB_CACHE_DIR: cache },
          "bench-restart-nowhere",
        );
  const warm = async (): Promise<WarmRoot | undefined> => {
    if (binary === null) return undefined;
    const res = await client.readResource({ uri: "rglob://capabilities" });
    const text = (res.contents[0] as { text: string }).text;
    return (JSON.parse(text) as { mcp: { warm?: WarmRoot[] } }).mcp.warm?.[0];
  };
  const until = async (done: (w: WarmRoot | undefined) => boolean, what: string): Promise<WarmRoot> => {
    for (let i = 0; ; i++) {
      const w = await warm();
      if (done(w)) return w as WarmRoot;
      if (i > 3000) stop(`${binary}: not ${what} after 10 minutes (${JSON.stringify(w)})`);
      await Bun.sleep(100);
    }
  };
  /** The server's CPU of each timed call (its main thread's), in order. */
  const cpus: number[] = [];
  /**
   * Times one literal found nowhere; a call over 20 ms is told by the files the index left to read and by where
   * its time went: the server's main thread on a core or waiting for one, its other threads, the client's.
   */
  const nowhere = async (pattern: string, slow: string[] = []): Promise<number> => {
    const [s0, c0] = [schedTimes(pid), schedTimes("self")];
    const t0 = performance.now();
    const res = await client.callTool({ name: "rglob", arguments: { op: "grep", pattern } });
    const ms = performance.now() - t0;
    const [server, own] = [spent(s0, schedTimes(pid)), spent(c0, schedTimes("self"))];
    cpus.push(server.cpu);
    if (res.isError === true) stop(`${pattern}: ${JSON.stringify(res.content).slice(0, 400)}`);
    if (ms > 20)
      slow.push(
        `${fmt(ms)} given ${(await warm())?.checks?.given ?? "-"}: server ${told(server)}, others ${server.others.toFixed(1)}; client ${told(own)}`,
      );
    return ms;
  };
  return { client, warm, until, nowhere, cpus };
}

const indexFiles = (cache: string) =>
  existsSync(join(cache, "index")) ? readdirSync(join(cache, "index")).filter((f) => f.endsWith(".rgi")) : [];

// ── The persisted index, built once ──
if (indexFiles(built).length === 0) {
  console.log(`building the index of ${tree} into ${built} (${load()})`);
  const t0 = performance.now();
  const s = await serve(bin, built);
  while (indexFiles(built).length === 0) {
    if (performance.now() - t0 > 600_000) stop("no index written after 10 minutes");
    await Bun.sleep(500);
  }
  await s.client.close();
  console.log(`  written after ${fmt(performance.now() - t0)} (${load()})`);
} else console.log(`index: ${join(built, "index", indexFiles(built)[0] as string)} (reused)`);

// ── The restarts ──
interface Run {
  readonly ready: number;
  readonly answered: number;
  readonly trusted: number;
  readonly first: number;
  readonly rest: readonly number[];
  /** The server's CPU (main thread) of each call once trusted. */
  readonly cpus: readonly number[];
}
const results = new Map<string, Run[]>();
async function restart(binary: string | null, label: string, run: number): Promise<void> {
  const cache = mkdtempSync(join(tmpdir(), "rglob-restart-run-"));
  try {
    // The index only: a server's socket file left in the cache cannot be copied.
    cpSync(join(built, "index"), join(cache, "index"), { recursive: true });
    const before = load();
    const t0 = performance.now();
    const s = await serve(binary, cache);
    // The floor has no index: ready, answered and trusted once connected.
    const sdk = binary === null;
    if (!sdk) await s.until((w) => w !== undefined && w.state !== "building", "ready");
    const ready = performance.now() - t0;
    // The first answer: a literal found nowhere asked as soon as the loaded index answers (the watch unset).
    const atReady = sdk ? 0 : await s.nowhere(`zq${process.pid}r${run}ready_nowhere`);
    const answered = performance.now() - t0;
    const w = sdk
      ? null
      : await s.until((w) => /checked (again|once watched)/.test(w?.reason ?? ""), "trusted");
    const trusted = performance.now() - t0;
    s.cpus.length = 0;
    // Each call over 20 ms with the files handed to the search: the candidates the index could not rule out
    // (a literal whose every trigram a large file holds, as the tree's yarn-4.17.0.cjs does for many) are read.
    const slow: string[] = [];
    const first = await s.nowhere(`zq${process.pid}r${run}first_nowhere`, slow);
    const rest: number[] = [];
    for (let i = 0; i < queries; i++) {
      await Bun.sleep(300);
      rest.push(await s.nowhere(`zq${process.pid}r${run}x${i}vbk_nowhere`, slow));
    }
    await s.client.close();
    const all = [first, ...rest];
    console.log(
      `${label} run ${run}: ready ${fmt(ready)}, first answer ${fmt(answered)} (${fmt(atReady)} after ready), trusted ${fmt(trusted)}; first nowhere ${fmt(first)}; then ${rest.length}: median ${fmt(quantile(rest, 0.5))}, p90 ${fmt(quantile(rest, 0.9))}, worst ${fmt(Math.max(...rest))}; server CPU median ${fmt(quantile(s.cpus, 0.5))}; over 20 ms ${all.filter((ms) => ms > 20).length}${slow.length > 0 ? ` (${slow.join(", ")})` : ""}  [${before} | ${load()}]${w?.reason?.includes(" 0 of ") === false ? ` (${w.reason})` : ""}`,
    );
    results.set(label, [
      ...(results.get(label) ?? []),
      { ready, answered, trusted, first, rest, cpus: [...s.cpus] },
    ]);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

console.log(
  `${args.runs} restarts${old !== null ? " per binary, alternated" : ""}${floor !== null ? ", the floor's server beside them" : ""}; ${tree}; ${load()}`,
);
for (let r = 1; r <= args.runs; r++) {
  if (floor !== null && r % 2 === 0) await restart(null, "floor", r);
  if (old === null) await restart(bin, "new", r);
  else if (r % 2 === 1) {
    await restart(old, "old", r);
    await restart(bin, "new", r);
  } else {
    await restart(bin, "new", r);
    await restart(old, "old", r);
  }
  if (floor !== null && r % 2 === 1) await restart(null, "floor", r);
}
for (const [label, runs] of results) {
  const firsts = runs.map((x) => x.first);
  const all = runs.flatMap((x) => [x.first, ...x.rest]);
  const worst = Math.max(...all);
  console.log(
    `${label}: first nowhere ${firsts.map(fmt).join(", ")}; all ${all.length}: median ${fmt(quantile(all, 0.5))}, p90 ${fmt(quantile(all, 0.9))}, p99 ${fmt(quantile(all, 0.99))}, worst ${fmt(worst)}, over 20 ms ${all.filter((ms) => ms > 20).length}; server CPU a call median ${fmt(
      quantile(
        runs.flatMap((x) => x.cpus),
        0.5,
      ),
    )}, the first's ${runs.map((x) => fmt(x.cpus[0] ?? 0)).join(", ")}; ready ${runs.map((x) => fmt(x.ready)).join(", ")}; trusted ${runs.map((x) => fmt(x.trusted)).join(", ")}`,
  );
  const answers = runs.map((x) => x.answered);
  if (label !== "floor")
    console.log(
      `${label}: first warm answer after a restart <= 5 s: ${Math.max(...answers) <= 5000 ? "met" : "not met"} (${answers.map(fmt).join(", ")}; ${load()})`,
    );
  console.log(
    `${label}: nowhere after a restart <= 20 ms every time: ${worst <= 20 ? "met" : "not met"} (first ${fmt(Math.max(...firsts))} at worst, p90 ${fmt(quantile(all, 0.9))}, p99 ${fmt(quantile(all, 0.99))}, worst ${fmt(worst)}, ${all.filter((ms) => ms > 20).length} of ${all.length} over 20 ms; ${load()})`,
  );
}
process.exit(0);
