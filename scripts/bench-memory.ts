/*! Peak memory by tree size (a script, never a test): builds generated trees of N empty files in directories of
 * 500 (cached under .bench/, or --trees=DIR) and prints, per command and size, the peak resident set size of
 * the rglob process (getrusage's maxrss, through Bun.spawnSync), output discarded as with `> /dev/null`: `find
 * --jsonl` with walk workers as the binary chooses them and with the walk in one thread (RGLOB_WALK_SPLIT=0),
 * the human listing, `grep -F` of a literal found nowhere (`--jsonl`) and `find --json`. Medians of --runs
 * runs, the commands alternating; the last column is the largest size's peak over the smallest's (the target of
 * #23: flat). CPU (user+sys) medians are printed below, with the load average before and after.
 * Usage: bun scripts/bench-memory.ts [--runs=N] [--sizes=100000,300000,1000000] [--trees=DIR] */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { benchArgs, loadAverage } from "./bench-args.ts";

const root = join(import.meta.dir, "..");

/**
 * Creates (once) a tree of `n` empty files, `d<i/50000>/s<(i/500)%100>/f<i>.txt`: directories of 500 files, 100
 * of them in each top directory (1M files: 20 top directories, 2,000 below them). A `.done` file marks it built.
 * @param n the number of files
 * @param dir where the trees are kept (default: .bench/ in this repository)
 * @returns the tree's directory
 */
export function memTree(n: number, dir: string = join(root, ".bench")): string {
  const tree = join(dir, `mem-tree-${n}`);
  if (existsSync(join(tree, ".done"))) return tree;
  rmSync(tree, { recursive: true, force: true });
  for (let i = 0; i < n; i++) {
    const d = join(tree, `d${Math.floor(i / 50_000)}`, `s${Math.floor(i / 500) % 100}`);
    if (i % 500 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.txt`), "");
  }
  writeFileSync(join(tree, ".done"), "");
  return tree;
}

interface Command {
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** What is measured at each size (each walks `--base TREE`). */
const COMMANDS: readonly Command[] = [
  { name: "find --jsonl", args: ["find", "--jsonl"] },
  { name: "find --jsonl, one thread", args: ["find", "--jsonl"], env: { RGLOB_WALK_SPLIT: "0" } },
  { name: "find (human)", args: ["find"] },
  { name: "grep -F rare --jsonl", args: ["grep", "-F", "needle_zqx_rare", "--jsonl"] },
  { name: "find --json", args: ["find", "--json"] },
];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const load = loadAverage;

/** One run: peak RSS in MB and CPU (user+sys) in ms. */
function measure(bin: string, cmd: Command, tree: string): { rss: number; cpu: number } {
  const r = Bun.spawnSync([bin, ...cmd.args, "--base", tree], {
    env: { ...process.env, ...cmd.env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`${cmd.name} on ${tree} exited ${r.exitCode}`);
  return { rss: r.resourceUsage.maxRSS / (1024 * 1024), cpu: Number(r.resourceUsage.cpuTime.total) / 1000 };
}

if (import.meta.main) {
  const usage = "bun scripts/bench-memory.ts [--runs=N] [--sizes=100000,300000,1000000] [--trees=DIR]";
  const args = benchArgs(usage, { sizes: "text", trees: "text" }, 3);
  const sizes = (args.get("sizes") ?? "100000,300000,1000000").split(",").map(Number);
  if (sizes.some((n) => !(Number.isInteger(n) && n >= 1))) {
    console.error(`--sizes takes whole numbers ≥ 1 separated by commas\nusage: ${usage}`);
    process.exit(2);
  }
  const treesArg = args.get("trees");
  const treesDir = treesArg === undefined ? join(root, ".bench") : resolve(treesArg);
  const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
  if (!existsSync(bin)) {
    console.error(`no binary at ${bin}: run \`npm run build\` first`);
    process.exit(1);
  }
  const trees = sizes.map((n) => memTree(n, treesDir));
  const before = load();
  const rss = COMMANDS.map(() => sizes.map(() => [] as number[]));
  const cpu = COMMANDS.map(() => sizes.map(() => [] as number[]));
  for (let run = 0; run < args.runs; run++)
    for (let s = 0; s < sizes.length; s++)
      for (let c = 0; c < COMMANDS.length; c++) {
        const m = measure(bin, COMMANDS[c] as Command, trees[s] as string);
        rss[c]?.[s]?.push(m.rss);
        cpu[c]?.[s]?.push(m.cpu);
      }
  const head = sizes.map((n) => `${n.toLocaleString("en-US")} files`);
  const table = (title: string, cells: number[][][], unit: string, last: boolean): void => {
    console.log(`\n${title}`);
    console.log(`| command | ${head.join(" | ")} |${last ? " largest ÷ smallest |" : ""}`);
    console.log(`|---|${head.map(() => "---:").join("|")}|${last ? "---:|" : ""}`);
    COMMANDS.forEach((cmd, c) => {
      const meds = (cells[c] as number[][]).map(median);
      const ratio = ((meds.at(-1) as number) / (meds[0] as number)).toFixed(2);
      console.log(
        `| ${cmd.name} | ${meds.map((x) => `${x.toFixed(0)} ${unit}`).join(" | ")} |${last ? ` ${ratio}× |` : ""}`,
      );
    });
  };
  console.log(`rglob: ${bin}\ntrees: ${treesDir} (${args.runs} runs per cell, medians; output discarded)`);
  table("peak RSS", rss, "MB", true);
  table("CPU (user+sys)", cpu, "ms", false);
  console.log(`\nload average before: ${before}; after: ${load()}`);
}
