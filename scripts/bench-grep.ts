/*! Benchmark of `rglob grep` against `rg -n` and `grep -rn` (a script, never a timed test). Corpora: this
 * repository's node_modules (with --no-ignore), a generated tree of small files, and a few very large files
 * (both generated under .bench/). Runs alternate between the tools; medians and ratios are printed, with the
 * number of output lines of each tool so a mismatch shows. Usage: bun scripts/bench-grep.ts [--runs=N]
 * [--only=CORPUS]. Peers that are missing are skipped with a warning. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchArgs } from "./bench-args.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
const args = benchArgs("bun scripts/bench-grep.ts [--runs=N] [--only=CORPUS]", { only: "text" }, 5);
const runs = args.runs;
const only = args.get("only");
const benchDir = join(root, ".bench");

const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
if (!existsSync(bin)) {
  console.error(`no binary at ${bin}: run \`npm run build\` first`);
  process.exit(1);
}

function rng(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

const VOCAB = (
  "the function return const let value error Error TypeError parse string number object array index " +
  "module export import default class extends this new if else for while break continue switch case " +
  "TODO FIXME result options config buffer stream async await promise resolve reject callback handler"
).split(" ");

function line(r: (n: number) => number): string {
  const n = 3 + r(12);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(VOCAB[r(VOCAB.length)] as string);
  return "  ".repeat(r(4)) + parts.join(" ");
}

function generatedTree(): string {
  const dir = join(benchDir, "tree");
  if (existsSync(join(dir, ".done"))) return dir;
  const r = rng(42);
  for (let f = 0; f < 20_000; f++) {
    const d = join(dir, `d${f % 50}`, `s${f % 7}`);
    mkdirSync(d, { recursive: true });
    const lines: string[] = [];
    const n = 10 + r(150);
    for (let l = 0; l < n; l++) lines.push(line(r));
    if (f === 12_345) lines.push("here is the needle_zqx_rare marker");
    writeFileSync(join(d, `f${f}.ts`), `${lines.join("\n")}\n`);
  }
  writeFileSync(join(dir, ".done"), "");
  return dir;
}

function largeFiles(): string {
  const dir = join(benchDir, "large");
  if (existsSync(join(dir, ".done"))) return dir;
  mkdirSync(dir, { recursive: true });
  const r = rng(7);
  for (let f = 0; f < 4; f++) {
    const lines: string[] = [];
    let size = 0;
    while (size < 48 * 1024 * 1024) {
      const l = line(r);
      lines.push(l);
      size += l.length + 1;
    }
    lines.splice(lines.length >> 1, 0, "the needle_zqx_rare marker");
    writeFileSync(join(dir, `big${f}.txt`), `${lines.join("\n")}\n`);
  }
  writeFileSync(join(dir, ".done"), "");
  return dir;
}

interface Case {
  readonly name: string;
  readonly args: readonly string[];
}

const CASES: readonly Case[] = [
  { name: "common literal", args: ["function"] },
  { name: "rare literal", args: ["needle_zqx_rare"] },
  { name: "-i -w", args: ["-i", "-w", "error"] },
  { name: "regex with classes", args: ["[A-Z][a-z]+Error"] },
];

function tools(c: Case): Array<[string, string[]]> {
  const out: Array<[string, string[]]> = [[bin, ["grep", ...c.args, "--no-ignore", "--hidden"]]];
  if (has("rg")) out.push(["rg", ["-n", "--no-ignore", "--hidden", ...c.args]]);
  out.push([
    "grep",
    ["-rn", ...(c.args[0] === "-i" ? ["-i", "-w"] : []), "-E", c.args.at(-1) as string, "."],
  ]);
  return out;
}

function timeOnce(cmd: string, args: string[], cwd: string): { ms: number; lines: number } {
  const t = performance.now();
  // Output goes to a pipe (not /dev/null, which lets rg stop early).
  const res = spawnSync(cmd, args, { cwd, maxBuffer: 1 << 30 });
  const ms = performance.now() - t;
  const text = res.stdout?.toString() ?? "";
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  return { ms, lines };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1] as number;
};

const corpora: Array<[string, () => string]> = [
  ["node_modules", () => join(root, "node_modules")],
  ["generated tree", generatedTree],
  ["large files", largeFiles],
];
if (!has("rg")) console.warn("warning: rg is not installed (apt-get install ripgrep); ratios vs rg skipped");
console.log(`runs per command: ${runs} (alternating); medians in ms`);
for (const [name, make] of corpora) {
  if (only && !name.startsWith(only)) continue;
  const cwd = make();
  console.log(`\n## ${name}`);
  for (const c of CASES) {
    const ts = tools(c);
    const times: number[][] = ts.map(() => []);
    const counts: number[] = ts.map(() => 0);
    for (const [cmd, args] of ts) timeOnce(cmd, args, cwd); // warm the cache
    for (let i = 0; i < runs; i++) {
      ts.forEach(([cmd, args], k) => {
        const { ms, lines } = timeOnce(cmd, args, cwd);
        times[k]?.push(ms);
        counts[k] = lines;
      });
    }
    const med = times.map(median);
    const mine = med[0] as number;
    const cells = ts.map(([cmd], k) => {
      const label = cmd === bin ? "rglob" : cmd;
      const ratio = k === 0 ? "" : ` (rglob ${(mine / (med[k] as number)).toFixed(2)}x)`;
      return `${label} ${(med[k] as number).toFixed(0)} ms, ${counts[k]} lines${ratio}`;
    });
    console.log(`${c.name.padEnd(20)} ${cells.join(" | ")}`);
  }
}
