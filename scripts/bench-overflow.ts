/*! The calls right after a warm server's watch overflowed (#36, ADR 0066):
 * `rglob mcp --root TREE` is started from an index in the cache and left until its watch vouches, then asked a
 * served CLI call `rglob grep -c traverseFast --json` every 2 s until one answers within 100 ms (at most 30
 * tries: whatever the server still does after a restart is done), then SETTLE such calls
 * back to back (the last three's median is printed as `settled`), then stopped (SIGSTOP) while `rg -c function` reads
 * the tree, so its inotify queue overflows, and let go (SIGCONT); at once AFTER more such calls are timed back
 * to back (each answer compared with the cold CLI's), then the time until the watch vouches again (its reason
 * says so).
 * - once, a server builds the index into --index (RGLOB_CACHE_DIR) and is stopped (skipped when it holds one);
 * - each run copies that cache afresh; with --old=BIN the runs alternate between that binary and this one
 *   (RGLOB_BIN, else dist/rglob), old first in odd runs and second in even ones, for paired figures.
 * Every line carries the load average. `bun scripts/bench-overflow.ts --tree=DIR [--runs=N] [--index=DIR]
 * [--old=BIN] [--log=yes]` (--log=yes: each run's server log after its line); on a shared tree, run it under the tree's lock (`flock LOCK bun scripts/…`). Linux only. */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { benchArgs, loadAverage } from "./bench-args.ts";

const usage = "bun scripts/bench-overflow.ts --tree=DIR [--runs=N] [--index=DIR] [--old=BIN] [--log=yes]";
const args = benchArgs(usage, { tree: "text", index: "text", old: "text", log: "text" }, 2);
/** --log=yes: each run's server log is printed after its line. */
const printLog = args.get("log") === "yes";
const here = join(import.meta.dir, "..");
const bin = resolve(process.env.RGLOB_BIN ?? join(here, "dist", "rglob"));
const old = args.get("old") === undefined ? null : resolve(args.get("old") as string);
const stop = (message: string): never => {
  console.error(message);
  process.exit(1);
};
const tree = resolve(args.get("tree") ?? stop(usage));
const built = resolve(args.get("index") ?? join(tmpdir(), "rglob-bench-overflow"));
for (const b of [bin, old]) if (b !== null && !existsSync(b)) stop(`no binary at ${b}`);
const rg = Bun.which("rg") ?? stop("rg is not installed: it is what reads the tree");
const load = () => `load ${loadAverage()}`;
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
/** Calls before the overflow, and after it. */
const SETTLE = 10;
const AFTER = 6;

/** One `rglob mcp` of the tree, its cache at `cache` and its log in `logFile`. */
async function serve(binary: string, cache: string, logFile: string) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.RGLOB_CACHE_DIR = cache;
  const log = Bun.file(logFile).writer();
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp", "--root", tree],
    cwd: tree,
    env,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    log.write(chunk);
    log.flush();
  });
  const client = new Client({ name: "bench-overflow", version: "1" });
  await client.connect(transport);
  const reason = async (): Promise<string> => {
    const res = await client.readResource({ uri: "rglob://capabilities" }, { timeout: 600_000 });
    const text = (res.contents[0] as { text: string }).text;
    const w = (JSON.parse(text) as { mcp: { warm?: Array<{ reason: string | null }> } }).mcp.warm?.[0];
    return w?.reason ?? "";
  };
  const until = async (done: () => Promise<boolean>, what: string): Promise<void> => {
    for (let i = 0; !(await done()); i++) {
      if (i > 1200) stop(`${binary}: not ${what} after 10 minutes`);
      // A read every half second: each holds the server's background work back while it is answered.
      await Bun.sleep(500);
    }
  };
  const close = async () => {
    await client.close();
    await log.end();
  };
  return { pid: transport.pid as number, reason, until, close };
}

/** A CLI call in the tree: served by the running server when there is one (RGLOB_SERVE=0: cold). */
function grep(binary: string, cache: string, cold: boolean): { ms: number; out: string; source: string } {
  const t0 = performance.now();
  const r = Bun.spawnSync([binary, "grep", "-c", "traverseFast", "--json"], {
    cwd: tree,
    env: {
      ...process.env,
      RGLOB_CACHE_DIR: cache,
      RGLOB_SERVE_WAIT_MS: "120000",
      ...(cold ? { RGLOB_SERVE: "0" } : {}),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const ms = performance.now() - t0;
  const res = JSON.parse(r.stdout.toString()) as { results: unknown[]; source?: string };
  return { ms, out: JSON.stringify(res.results), source: res.source ?? "cold" };
}

const indexFiles = (cache: string) =>
  existsSync(join(cache, "index")) ? readdirSync(join(cache, "index")).filter((f) => f.endsWith(".rgi")) : [];

if (indexFiles(built).length === 0) {
  console.log(`building the index of ${tree} into ${built} (${load()})`);
  const s = await serve(bin, built, join(tmpdir(), "rglob-bench-overflow-build.log"));
  await s.until(async () => indexFiles(built).length > 0, "written");
  await s.close();
} else console.log(`index: ${join(built, "index", indexFiles(built)[0] as string)} (reused)`);
const coldAnswer = grep(bin, built, true).out;

const results = new Map<string, string[]>();
async function run(binary: string, label: string, n: number): Promise<void> {
  const cache = mkdtempSync(join(tmpdir(), "rglob-overflow-run-"));
  const logFile = join(cache, "server.log");
  try {
    cpSync(built, cache, { recursive: true });
    const s = await serve(binary, cache, logFile);
    await s.until(async () => /checked (again|once watched)/.test(await s.reason()), "trusted");
    for (let i = 0; i < 30 && grep(binary, cache, false).ms > 100; i++) await Bun.sleep(2000);
    const settling = Array.from({ length: SETTLE }, () => grep(binary, cache, false));
    const settled = settling
      .slice(-3)
      .map((c) => c.ms)
      .sort((a, b) => a - b)[1] as number;
    const before = load();
    process.kill(s.pid, "SIGSTOP");
    try {
      Bun.spawnSync([rg, "-c", "function", "."], { cwd: tree, stdout: "ignore", stderr: "ignore" });
    } finally {
      process.kill(s.pid, "SIGCONT");
    }
    const t0 = performance.now();
    const calls = Array.from({ length: AFTER }, () => grep(binary, cache, false));
    const wrong = [...settling, ...calls].filter((c) => c.out !== coldAnswer || c.source === "cold").length;
    let lost = "";
    await s.until(async () => {
      const why = await s.reason();
      if (/checking files per query/.test(why))
        lost = ` (WATCH LOST: ${why.slice(why.lastIndexOf(";", why.length - 30) + 1)})`;
      return lost !== "" || /every file checked again/.test(why);
    }, "vouching again");
    const vouched = performance.now() - t0;
    await s.close();
    const logText = readFileSync(logFile, "utf8");
    const overflowed = logText.includes("overflowed");
    const line = `settled ${fmt(settled)}; after: ${calls.map((c) => fmt(c.ms)).join(", ")}; vouching again after ${fmt(vouched)}`;
    console.log(
      `${label} run ${n}: ${line}${lost}${overflowed ? "" : " (NO OVERFLOW)"}${wrong > 0 ? ` (${wrong} answers not served or not the cold one)` : ""}  [${before} | ${load()}]`,
    );
    if (printLog) console.log(logText.trimEnd());
    results.set(label, [...(results.get(label) ?? []), line]);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

console.log(`${args.runs} overflows${old !== null ? " per binary, alternated" : ""}; ${tree}; ${load()}`);
for (let r = 1; r <= args.runs; r++) {
  if (old === null) await run(bin, "new", r);
  else if (r % 2 === 1) {
    await run(old, "old", r);
    await run(bin, "new", r);
  } else {
    await run(bin, "new", r);
    await run(old, "old", r);
  }
}
for (const [label, lines] of results) console.log(`${label}: ${lines.join(" | ")}  (${load()})`);
process.exit(0);
