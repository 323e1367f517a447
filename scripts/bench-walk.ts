/*! Benchmark of the walk (not a test): builds a generated tree (≥ 200k files, nested .gitignore files, its own
 * git repository; cached under .bench/) and times `rglob find` against fd, `rg --files` and find(1) when they
 * are installed, alternating runs and printing medians of wall and CPU time (user+sys, through /usr/bin/time
 * when it exists) and ratios from the same run. It never asserts.
 * Usage: bun scripts/bench-walk.ts [--runs=N] [--files=N] [--repo=PATH]   (PATH: a real checkout to list too) */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs } from "./bench-args.ts";

const root = join(import.meta.dir, "..");
const args = benchArgs(
  "bun scripts/bench-walk.ts [--runs=N] [--files=N] [--repo=PATH]",
  { files: "count", repo: "text" },
  5,
);
const runs = args.runs;
const wanted = args.count("files", 200_000);
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

const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const timeFile = join(tmpdir(), `rglob-bench-time-${process.pid}`);

/** One run: wall milliseconds, and CPU milliseconds (user+sys; NaN without /usr/bin/time). */
function time(cmd: string[], cwd: string, cpuToo = true): { wall: number; cpu: number } {
  const measured = cpuToo && gnuTime !== null;
  const argv = measured ? [gnuTime, "-f", "%U %S", "-o", timeFile, ...cmd] : cmd;
  const t0 = performance.now();
  const r = spawnSync(argv[0] as string, argv.slice(1), { cwd, stdio: ["ignore", "ignore", "ignore"] });
  const wall = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd.join(" ")} exited ${r.status}`);
  let cpu = Number.NaN;
  if (measured) {
    const last = readFileSync(timeFile, "utf8").trim().split("\n").pop() ?? "";
    const [user, sys] = last.split(" ").map(Number);
    cpu = ((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000;
  }
  return { wall, cpu };
}

function count(cmd: string[], cwd: string): number {
  const r = spawnSync(cmd[0] as string, cmd.slice(1), { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  return r.stdout.split("\n").filter(Boolean).length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Times each command `runs` times, alternating, and prints medians and ratios to the first. */
function race(title: string, cwd: string, cmds: Record<string, string[] | null>): void {
  const live = Object.entries(cmds).filter((e): e is [string, string[]] => e[1] !== null);
  const walls = new Map<string, number[]>(live.map(([k]) => [k, []]));
  const cpus = new Map<string, number[]>(live.map(([k]) => [k, []]));
  for (const [, cmd] of live) time(cmd, cwd); // warm the cache
  for (let i = 0; i < runs; i++) {
    for (const [k, cmd] of live) {
      const t = time(cmd, cwd);
      walls.get(k)?.push(t.wall);
      cpus.get(k)?.push(t.cpu);
    }
  }
  const firstKey = live[0]?.[0] as string;
  const firstWall = median(walls.get(firstKey) ?? [1]);
  const firstCpu = median(cpus.get(firstKey) ?? [1]);
  console.log(`\n${title}  (${runs} alternating runs, median; ratio = rglob / this)`);
  for (const [k, cmd] of live) {
    const w = median(walls.get(k) ?? []);
    const c = median(cpus.get(k) ?? []);
    const n = count(cmd, cwd);
    console.log(
      `  ${k.padEnd(34)} wall ${w.toFixed(0).padStart(5)} ms ${(firstWall / w).toFixed(2)}×   cpu ${c.toFixed(0).padStart(5)} ms ${(firstCpu / c).toFixed(2)}×   ${String(n).padStart(7)} lines`,
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
race("JSONL records (a stat per file)", tree, {
  "rglob find -t f --jsonl": [bin, "find", "-t", "f", "--jsonl"],
  "fd -t f -l (runs ls -l)": fd ? [fd, "-t", "f", "-l"] : null,
  "find -type f -printf (no ignore)": ["find", ".", "-type", "f", "-printf", "%s %T@ %p\\n"],
});
race("without ignore rules (hidden too)", tree, {
  "rglob find -t f --no-ignore -H": [bin, "find", "-t", "f", "--no-ignore", "-H"],
  "fd -u -t f": fd ? [fd, "-u", "-t", "f"] : null,
  "rg --files -uu": rg ? [rg, "--files", "-uu"] : null,
  "find . -type f": ["find", ".", "-type", "f"],
});
const repo = args.get("repo");
if (repo) {
  race(`real repository ${repo} (no ignore)`, repo, {
    "rglob find --no-ignore -H": [bin, "find", "-t", "f", "--no-ignore", "-H"],
    "fd -u -t f": fd ? [fd, "-u", "-t", "f"] : null,
    "find . -type f": ["find", ".", "-type", "f"],
  });
}
const versions: number[] = [];
for (let i = 0; i < 15; i++) versions.push(time([bin, "--version"], root, false).wall);
console.log(`\nrglob --version: ${median(versions).toFixed(1)} ms (median of 15, incl. process spawn)`);
rmSync(timeFile, { force: true });
