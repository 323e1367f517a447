/*! The command line of the benchmark scripts: `--name=value` flags only, checked against the ones a script
 * takes, so a positional, unknown or malformed argument stops it with its usage (exit 2) instead of running
 * with NaN repetitions. `--runs` is common to every benchmark; it and every other "count" flag must be a whole
 * number ≥ 1. */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/**
 * The machine's load average over 1, 5 and 15 minutes, as `uptime` shows it (every benchmark prints it beside
 * its figures: the machine is shared).
 * @returns e.g. `3.12 2.80 2.41`
 */
export function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
}

/** What a flag holds: a whole number ≥ 1, or any text. */
export type FlagKind = "count" | "text";

/** The parsed flags of one benchmark script. */
export interface BenchArgs {
  /** Repetitions per command (`--runs=N`), or the script's default. */
  readonly runs: number;
  /** The value of `--name=value`, or undefined when absent. */
  get(name: string): string | undefined;
  /** The value of a "count" flag, or the fallback when absent. */
  count(name: string, fallback: number): number;
}

/**
 * Parses a benchmark's arguments.
 * @param usage the script's usage line, printed with a bad argument
 * @param flags the flags it takes besides `runs`, with their kinds
 * @param defaultRuns the repetitions when `--runs` is absent
 * @param argv the arguments (default: the process's)
 * @returns the flags
 * @throws Error naming the bad argument (the scripts call exitOnBadArgs instead)
 */
export function parseBenchArgs(
  usage: string,
  flags: Readonly<Record<string, FlagKind>>,
  defaultRuns: number,
  argv: readonly string[] = process.argv.slice(2),
): BenchArgs {
  const kinds = new Map<string, FlagKind>([["runs", "count"], ...Object.entries(flags)]);
  const values = new Map<string, string>();
  for (const a of argv) {
    const m = /^--([a-z][a-z-]*)=(.*)$/.exec(a);
    const kind = m === null ? undefined : kinds.get(m[1] as string);
    if (m === null || kind === undefined) throw new Error(`unexpected argument '${a}'\nusage: ${usage}`);
    const [, name, value] = m as unknown as [string, string, string];
    if (kind === "count" && !(Number.isInteger(Number(value)) && Number(value) >= 1))
      throw new Error(`--${name} must be a whole number of at least 1, not '${value}'\nusage: ${usage}`);
    values.set(name, value);
  }
  const count = (name: string, fallback: number): number => {
    const value = values.get(name);
    return value === undefined ? fallback : Number(value);
  };
  return { runs: count("runs", defaultRuns), get: (name) => values.get(name), count };
}

/**
 * parseBenchArgs for a script's entry: a bad argument prints the reason and the usage and exits 2.
 * @param usage the script's usage line
 * @param flags the flags it takes besides `runs`, with their kinds
 * @param defaultRuns the repetitions when `--runs` is absent
 * @returns the flags
 */
export function benchArgs(
  usage: string,
  flags: Readonly<Record<string, FlagKind>>,
  defaultRuns: number,
): BenchArgs {
  try {
    return parseBenchArgs(usage, flags, defaultRuns);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}

/** What a benchmark over one tree against rg needs: the binary, the tree, rg, and the repetitions. */
export interface TreeBench {
  readonly bin: string;
  readonly tree: string;
  readonly rg: string;
  readonly runs: number;
}

/**
 * Reads `--runs` and `--tree` (default $RGLOB_BENCH_TREE, else ../bench/babel) and finds the binary
 * (RGLOB_BIN, else dist/rglob) and rg; stops with a message (exit 1) when one is missing.
 * @param usage the script's usage line
 * @param defaultRuns repetitions when --runs is not given
 * @returns the binary, tree, rg and runs
 */
export function treeBench(usage: string, defaultRuns: number): TreeBench {
  const root = join(import.meta.dir, "..");
  const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
  const args = benchArgs(usage, { tree: "text" }, defaultRuns);
  const tree = resolve(
    args.get("tree") ?? process.env.RGLOB_BENCH_TREE ?? join(root, "..", "bench", "babel"),
  );
  const stop = (message: string): never => {
    console.error(message);
    process.exit(1);
  };
  if (!existsSync(bin)) stop(`no binary at ${bin}: run \`npm run build\` first`);
  if (!existsSync(tree)) stop(`no tree at ${tree}: pass --tree=DIR (a checkout such as babel)`);
  const rg = Bun.which("rg") ?? stop("rg is not installed: nothing to compare with");
  return { bin, tree, rg, runs: args.runs };
}

/**
 * Compiles a floor program (scripts/floor-NAME.ts) with the flags every rglob binary gets (scripts/build.ts),
 * its workers as extra entrypoints, into .bench/.
 * @param name the floor's name (`count` for floor-count.ts)
 * @param workers the worker entry files' names (scripts/NAME.ts)
 * @returns the executable's path, or null when it did not build (the reason printed)
 */
export function compileFloor(name: string, workers: readonly string[] = []): string | null {
  const root = join(import.meta.dir, "..");
  const benchDir = join(root, ".bench");
  mkdirSync(benchDir, { recursive: true });
  const out = join(benchDir, `floor-${name}`);
  const r = spawnSync(
    process.execPath,
    [
      "build",
      "--compile",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      "--minify",
      "--sourcemap=none",
      "--bytecode",
      "--format=esm",
      join(import.meta.dir, `floor-${name}.ts`),
      ...workers.map((w) => join(import.meta.dir, `${w}.ts`)),
      "--outfile",
      out,
    ],
    { cwd: root, encoding: "utf8" },
  );
  if (r.status !== 0) {
    console.warn(`floor-${name} did not build: ${r.stderr}`);
    return null;
  }
  return out;
}

/**
 * The CPU time (user + system) a process has used so far, from /proc (0 when it is gone).
 * @param pid the process
 * @returns seconds
 */
export function cpuSecondsOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * Compares each file's counts in `rglob count --jsonl` with a floor program's `LINES PATH` lines (with classify,
 * `LINES,CODE,COMMENT PATH`): a floor that counts differently measures other work.
 * @param jsonl rglob's output
 * @param floorOut the floor's output
 * @param classify whether the floor printed code and comment counts too
 * @returns `floor: same counts (N files)`, or what differs
 */
export function countsCompare(jsonl: string | Buffer, floorOut: string | Buffer, classify: boolean): string {
  const ours = new Map<string, string>();
  for (const line of jsonl.toString().split("\n")) {
    if (!line.startsWith('{"kind":"file"')) continue;
    const r = JSON.parse(line) as { relative_path: string; lines: number; code: number; comment: number };
    ours.set(r.relative_path, classify ? `${r.lines},${r.code},${r.comment}` : String(r.lines));
  }
  let differ = 0;
  let files = 0;
  for (const line of floorOut.toString().split("\n")) {
    const sp = line.indexOf(" ");
    if (sp < 0 || line.startsWith("total: ")) continue;
    files++;
    if (ours.get(line.slice(sp + 1)) !== line.slice(0, sp)) differ++;
  }
  return differ === 0 && files === ours.size
    ? `floor: same counts (${files} files)`
    : `FLOOR DIFFERS: ${differ} files counted differently, ${files} files vs rglob's ${ours.size}`;
}

/**
 * Connects the MCP SDK client to an `rglob mcp --root TREE` of a binary whose index cache is `cache` (the
 * process's environment otherwise), its stderr dropped: the session the warm-server benchmarks time.
 * @param binary the rglob binary
 * @param tree the root (and working directory)
 * @param cache RGLOB_CACHE_DIR for the server
 * @param name the client's name
 * @returns the connected client
 */
export async function mcpSession(binary: string, tree: string, cache: string, name: string): Promise<Client> {
  return (await stdioSession(binary, ["mcp", "--root", tree], tree, { RGLOB_CACHE_DIR: cache }, name)).client;
}

/**
 * Connects the MCP SDK client to a stdio server started as `command args` in `cwd`, with the process's
 * environment and `env` over it, its stderr dropped.
 * @param command the server's executable
 * @param args its arguments
 * @param cwd its working directory
 * @param env variables set over the process's environment
 * @param name the client's name
 * @returns the connected client and the server's process id
 */
export async function stdioSession(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
  name: string,
): Promise<{ readonly client: Client; readonly pid: number }> {
  const all: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) all[k] = v;
  const transport = new StdioClientTransport({
    command,
    args: [...args],
    cwd,
    env: { ...all, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name, version: "1" });
  await client.connect(transport);
  return { client, pid: transport.pid ?? 0 };
}

/** Milliseconds a process's threads spent: its main thread on a core and waiting for one, the others on a core. */
export interface SchedTimes {
  readonly cpu: number;
  readonly queued: number;
  readonly others: number;
}

/**
 * What a process's threads have spent so far (Linux's per-thread schedstat: time on a core, time runnable and
 * waiting for one), the main thread apart; zeros where /proc does not tell. Subtract two to split a call's wait.
 * @param pid the process ("self": this one)
 * @returns milliseconds, the main thread's CPU and run-queue wait, the other threads' CPU
 */
export function schedTimes(pid: number | "self"): SchedTimes {
  const main = pid === "self" ? process.pid : pid;
  let cpu = 0;
  let queued = 0;
  let others = 0;
  try {
    for (const tid of readdirSync(`/proc/${main}/task`)) {
      try {
        const [on, wait] = readFileSync(`/proc/${main}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
        if (Number(tid) === main) [cpu, queued] = [(on ?? 0) / 1e6, (wait ?? 0) / 1e6];
        else others += (on ?? 0) / 1e6;
      } catch {
        // A thread that ended meanwhile.
      }
    }
  } catch {
    // No /proc, or the process is gone.
  }
  return { cpu, queued, others };
}

/** The 20 greps of bench-warm.ts, as an agent types them: rglob's argv and rg's (bench-serve.ts, floor-serve-rg.ts). */
export const SERVE_QUERIES: ReadonlyArray<{
  readonly rglob: readonly string[];
  readonly rg: readonly string[];
}> = [
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
