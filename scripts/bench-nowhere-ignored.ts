/*! A literal found nowhere on a tree with a big ignored folder (#36: "<= 20 ms" for a warm literal found nowhere):
 * an empty grep's answer carries the note of the look among the ignored entries (src/surface/ignored.ts), which
 * reads up to 16 MiB with the ignore rules off. The benchmark trees have nothing ignored; agents' repositories have
 * a node_modules, target, .venv or dist. The tree: --tree=DIR, else a copy of this checkout's tracked files with its
 * node_modules (ignored by its .gitignore), made in a temporary directory and removed at the end.
 * Per binary (--old=BIN alternates with this one, RGLOB_BIN else dist/rglob, old first in odd runs):
 * - `rglob mcp --root TREE` through the SDK client: polled until the root is `ready` and a look is kept (at most
 *   10 s more, then 1 s), then a first literal found nowhere and --queries more, each new, 300 ms apart (median, p90, worst);
 * - `rglob serve --detach` in the tree, 5 s after `ready`, as many `rglob grep LITERAL` processes (process start
 *   included);
 * - the cold CLI (`RGLOB_SERVE=0`), five calls.
 * Every served CLI answer (stdout, stderr, exit code) is compared with the cold CLI's for the same literal, and the
 * MCP note with the CLI's (its flag's name aside). Every line carries the load average.
 * `bun scripts/bench-nowhere-ignored.ts [--runs=N] [--tree=DIR] [--old=BIN] [--queries=N]` */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { benchArgs, loadAverage, mcpSession } from "./bench-args.ts";

const usage = "bun scripts/bench-nowhere-ignored.ts [--runs=N] [--tree=DIR] [--old=BIN] [--queries=N]";
const args = benchArgs(usage, { tree: "text", old: "text", queries: "count" }, 3);
const here = join(import.meta.dir, "..");
const bin = resolve(process.env.RGLOB_BIN ?? join(here, "dist", "rglob"));
const old = args.get("old") === undefined ? null : resolve(args.get("old") as string);
const queries = args.count("queries", 12);
const stop = (message: string): never => {
  console.error(message);
  process.exit(1);
};
for (const b of [bin, old]) if (b !== null && !existsSync(b)) stop(`no binary at ${b}`);
const load = () => `load ${loadAverage()}`;
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)] as number;
const stats = (xs: readonly number[]) =>
  `median ${fmt(quantile(xs, 0.5))}, p90 ${fmt(quantile(xs, 0.9))}, worst ${fmt(Math.max(...xs))}`;

/** A copy of this checkout's tracked files and its node_modules, in a repository of its own. */
function makeTree(): string {
  const modules = join(here, "node_modules");
  if (!existsSync(modules)) stop("no node_modules in this checkout: run npm ci, or pass --tree=DIR");
  const dir = mkdtempSync(join(tmpdir(), "rglob-bench-ignored-"));
  const files = spawnSync("git", ["ls-files", "-z"], { cwd: here, encoding: "utf8" }).stdout.split("\0");
  for (const f of files) {
    if (f === "" || !existsSync(join(here, f))) continue;
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(here, f), join(dir, f), { verbatimSymlinks: true });
  }
  cpSync(modules, join(dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
  spawnSync("git", ["init", "-q", dir]);
  return dir;
}

const made = args.get("tree") === undefined;
const tree = made ? makeTree() : resolve(args.get("tree") as string);

interface Answer {
  readonly out: string;
  readonly err: string;
  readonly code: number;
}

function cli(binary: string, argv: readonly string[], env: Record<string, string>): Answer {
  const r = spawnSync(binary, [...argv], { cwd: tree, env: { ...process.env, ...env }, encoding: "utf8" });
  return { out: r.stdout, err: r.stderr, code: r.status ?? -1 };
}

/** The note of the look among the ignored entries, its flag named as the CLI does. */
const noteOf = (text: string) =>
  (/among the ignored entries[^\n]*/.exec(text)?.[0] ?? "(no note)").replace(
    "respect_gitignore: false",
    "--no-ignore",
  );

let differ = 0;
const results = new Map<string, { mcp: number[]; served: number[]; cold: number[] }>();

/** The MCP session's literals found nowhere. */
async function overMcp(binary: string, cache: string, tag: string): Promise<number[]> {
  const client = await mcpSession(binary, tree, cache, "bench-nowhere-ignored");
  try {
    for (let i = 0; ; i++) {
      const res = await client.readResource({ uri: "rglob://capabilities" });
      const caps = JSON.parse((res.contents[0] as { text: string }).text) as {
        mcp: { warm?: Array<{ state: string }> };
      };
      if (caps.mcp.warm?.[0]?.state === "ready") break;
      if (i > 3000) stop(`${binary}: not ready after 5 minutes`);
      await Bun.sleep(100);
    }
    // The rehearsals after ready (rglob mcp's own) have their turn: until a look is kept (capabilities' `looks`),
    // at most 10 s (a binary that keeps none).
    for (let i = 0; i < 100; i++) {
      const res = await client.readResource({ uri: "rglob://capabilities" });
      const caps = JSON.parse((res.contents[0] as { text: string }).text) as {
        mcp: { warm?: Array<{ looks?: { kept: number } }> };
      };
      if ((caps.mcp.warm?.[0]?.looks?.kept ?? 0) > 0) break;
      await Bun.sleep(100);
    }
    // The server's look at every process that its own reads ask for, between calls.
    await Bun.sleep(1000);
    const times: number[] = [];
    const notes: string[] = [];
    for (let i = 0; i <= queries; i++) {
      if (i > 0) await Bun.sleep(300);
      const t0 = performance.now();
      const res = await client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: `zq${tag}m${i}vbk_nowhere` },
      });
      times.push(performance.now() - t0);
      notes.push(noteOf((res.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n")));
    }
    // After the timed calls (a cold run reads the tree: its reads are suspects of the server's watch for a while),
    // the first and last literals through the cold CLI: the same note, and every note the same.
    const first = notes[0] as string;
    for (const i of [0, queries]) {
      const cold = noteOf(cli(binary, ["grep", `zq${tag}m${i}vbk_nowhere`], { RGLOB_SERVE: "0" }).err);
      if (cold !== notes[i]) {
        differ++;
        console.log(`  MCP NOTE DIFFERS: ${notes[i]} | cold: ${cold}`);
      }
    }
    if (notes.some((n) => n !== first)) {
      differ++;
      console.log(`  MCP NOTES DIFFER: ${[...new Set(notes)].join(" | ")}`);
    }
    console.log(`  note: ${first}`);
    return times;
  } finally {
    await client.close();
  }
}

/** `rglob serve` and CLI processes of literals found nowhere; each answer compared with the cold CLI's. */
async function overServe(binary: string, cache: string, tag: string): Promise<number[]> {
  const env = { RGLOB_CACHE_DIR: cache, NO_COLOR: "1" };
  const started = cli(binary, ["serve", "--detach", "--idle-seconds", "600"], env);
  if (started.code !== 0) stop(`rglob serve --detach: ${started.err}`);
  try {
    for (let i = 0; ; i++) {
      const s = JSON.parse(cli(binary, ["index", "--status", "--json"], env).out) as {
        results: Array<{ servers: Array<{ state?: string }> }>;
      };
      if (s.results[0]?.servers[0]?.state === "ready") break;
      if (i > 3000) stop(`${binary}: serve not ready after 5 minutes`);
      await Bun.sleep(100);
    }
    // Its rehearsals have their turn (no status says when a look is kept: a fixed wait).
    await Bun.sleep(5000);
    const times: number[] = [];
    const answers: Answer[] = [];
    const argvOf = (i: number) => ["grep", `zq${tag}s${i}vbk_nowhere`];
    for (let i = 0; i <= queries; i++) {
      if (i > 0) await Bun.sleep(300);
      const t0 = performance.now();
      answers.push(cli(binary, argvOf(i), env));
      times.push(performance.now() - t0);
    }
    // After the timed calls: the first and the last against the cold CLI, byte for byte.
    for (const i of [0, queries]) {
      const warm = answers[i] as Answer;
      const cold = cli(binary, argvOf(i), { ...env, RGLOB_SERVE: "0" });
      if (warm.out !== cold.out || warm.err !== cold.err || warm.code !== cold.code) {
        differ++;
        console.log(`  SERVED DIFFERS from cold: ${JSON.stringify(warm)} | ${JSON.stringify(cold)}`);
      }
    }
    return times;
  } finally {
    cli(binary, ["serve", "--stop"], env);
  }
}

async function round(binary: string, label: string, run: number): Promise<void> {
  const cache = mkdtempSync(join(tmpdir(), "rglob-bench-ignored-cache-"));
  try {
    const before = load();
    const tag = `${process.pid}r${run}${label}`;
    const mcp = await overMcp(binary, join(cache, "mcp"), tag);
    const served = await overServe(binary, join(cache, "serve"), tag);
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      cli(binary, ["grep", `zq${tag}c${i}vbk_nowhere`], { RGLOB_SERVE: "0", RGLOB_CACHE_DIR: cache });
      cold.push(performance.now() - t0);
    }
    console.log(
      `${label} run ${run}: rglob mcp ${stats(mcp)} (first ${fmt(mcp[0] as number)}); served CLI ${stats(served)}; cold CLI median ${fmt(quantile(cold, 0.5))}  [${before} | ${load()}]`,
    );
    const r = results.get(label) ?? { mcp: [], served: [], cold: [] };
    r.mcp.push(...mcp);
    r.served.push(...served);
    r.cold.push(...cold);
    results.set(label, r);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

try {
  console.log(`${args.runs} runs${old !== null ? " per binary, alternated" : ""}; ${tree}; ${load()}`);
  for (let r = 1; r <= args.runs; r++) {
    if (old === null) await round(bin, "new", r);
    else if (r % 2 === 1) {
      await round(old, "old", r);
      await round(bin, "new", r);
    } else {
      await round(bin, "new", r);
      await round(old, "old", r);
    }
  }
  for (const [label, r] of results) {
    const met = r.mcp.every((ms) => ms <= 20) ? "met" : "not met";
    console.log(
      `${label}: rglob mcp ${stats(r.mcp)}; served CLI ${stats(r.served)}; cold CLI median ${fmt(quantile(r.cold, 0.5))}; nowhere <= 20 ms every time over MCP: ${met} (${load()})`,
    );
  }
  if (differ > 0) {
    console.log(`${differ} answers differ`);
    process.exitCode = 1;
  }
} finally {
  if (made) rmSync(tree, { recursive: true, force: true });
}
