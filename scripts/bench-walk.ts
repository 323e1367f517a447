/*! Benchmark of the walk (not a test): builds a generated tree (≥ 200k files, nested .gitignore files, its own
 * git repository; cached under .bench/) and times `rglob find` against fd, `rg --files` and find(1) when they
 * are installed, alternating runs and printing medians and ratios from the same run. It never asserts.
 * Usage: bun scripts/bench-walk.ts [--runs=N] [--files=N] [--repo=PATH]   (PATH: a real checkout to list too) */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const runs = Number(arg("runs") ?? 5);
const wanted = Number(arg("files") ?? 200_000);
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");

function which(cmd: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Creates (once) a tree of `files` files: 20 top dirs × 20 subdirs × N files, .gitignore files at three levels. */
function buildTree(files: number): string {
  const dir = join(root, ".bench", `walk-tree-v2-${files}`);
  if (existsSync(join(dir, ".done"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  spawnSync("git", ["init", "-q"], { cwd: dir });
  writeFileSync(join(dir, ".gitignore"), "*.tmp\n/top-ignored/\nbuild/\n!keep.tmp\n");
  const perDir = Math.ceil(files / 400);
  for (let a = 0; a < 20; a++) {
    const da = join(dir, `pkg${a}`);
    mkdirSync(da);
    if (a % 3 === 0) writeFileSync(join(da, ".gitignore"), "*.log\ngen/\n");
    for (let b = 0; b < 20; b++) {
      const db = b % 7 === 0 ? join(da, `mod${b}`, "build") : join(da, `mod${b}`);
      mkdirSync(db, { recursive: true });
      if (b % 5 === 1) writeFileSync(join(db, ".gitignore"), "/local-*\n**/cache/\n");
      for (let f = 0; f < perDir; f++) {
        const ext = f % 10 === 0 ? "tmp" : f % 10 === 1 ? "log" : f % 10 === 2 ? "ts" : "txt";
        writeFileSync(join(db, `${f % 13 === 0 ? "local-" : "file"}${f}.${ext}`), "");
      }
    }
  }
  writeFileSync(join(dir, ".done"), "");
  return dir;
}

function time(cmd: string[], cwd: string): number {
  const t0 = performance.now();
  const r = spawnSync(cmd[0] as string, cmd.slice(1), { cwd, stdio: ["ignore", "ignore", "ignore"] });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd.join(" ")} exited ${r.status}`);
  return ms;
}

function count(cmd: string[], cwd: string): number {
  const r = spawnSync(cmd[0] as string, cmd.slice(1), { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  return r.stdout.split("\n").filter(Boolean).length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Times each command `runs` times, alternating, and prints medians and ratios to the first. */
function race(title: string, cwd: string, cmds: Record<string, string[] | null>): void {
  const live = Object.entries(cmds).filter((e): e is [string, string[]] => e[1] !== null);
  const samples = new Map<string, number[]>(live.map(([k]) => [k, []]));
  for (const [, cmd] of live) time(cmd, cwd); // warm the cache
  for (let i = 0; i < runs; i++) for (const [k, cmd] of live) samples.get(k)?.push(time(cmd, cwd));
  const first = median(samples.get(live[0]?.[0] as string) ?? [1]);
  console.log(`\n${title}  (${runs} alternating runs, median)`);
  for (const [k, cmd] of live) {
    const m = median(samples.get(k) ?? []);
    const n = count(cmd, cwd);
    console.log(
      `  ${k.padEnd(32)} ${m.toFixed(0).padStart(6)} ms  ${String(n).padStart(7)} lines   rglob time / this = ${(first / m).toFixed(2)}×`,
    );
  }
}

const fd = which("fd") ?? which("fdfind");
const rg = which("rg");
const tree = buildTree(wanted);
console.log(`tree: ${tree}`);
race("with ignore rules", tree, {
  "rglob find -t f": [bin, "find", "-t", "f"],
  "fd -t f": fd ? [fd, "-t", "f"] : null,
  "rg --files": rg ? [rg, "--files"] : null,
});
race("without ignore rules (hidden too)", tree, {
  "rglob find -t f --no-ignore -H": [bin, "find", "-t", "f", "--no-ignore", "-H"],
  "fd -u -t f": fd ? [fd, "-u", "-t", "f"] : null,
  "rg --files -uu": rg ? [rg, "--files", "-uu"] : null,
  "find . -type f": ["find", ".", "-type", "f"],
});
const repo = arg("repo");
if (repo) {
  race(`real repository ${repo} (no ignore)`, repo, {
    "rglob find --no-ignore -H": [bin, "find", "-t", "f", "--no-ignore", "-H"],
    "fd -u -t f": fd ? [fd, "-u", "-t", "f"] : null,
    "find . -type f": ["find", ".", "-type", "f"],
  });
}
const versions: number[] = [];
for (let i = 0; i < 15; i++) versions.push(time([bin, "--version"], root));
console.log(`\nrglob --version: ${median(versions).toFixed(1)} ms (median of 15, incl. process spawn)`);
