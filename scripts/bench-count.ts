/*! Benchmark of count vs `xargs wc -l` (and tokei/cloc when installed) on node_modules, a generated tree and a
 * repository shape of 60,000 small files: alternating runs, medians of wall and CPU time, ratios. With
 * --python=DIR, a Python tree fetched beforehand (a checkout of django or sympy, CPython's Lib/): `count --lang
 * py` against its floor (floor-count --python: the same lines, docstrings told apart, one pass over the bytes;
 * the counts of every file compared), the floor's walk through rglob's own counter (--python --classify) and,
 * with --before=BIN, another binary (one built before a change); without --python that case is skipped, saying
 * so; --only=python runs it alone. Usage: bun scripts/bench-count.ts [--runs=N] [--python=DIR] [--before=BIN]
 * [--only=python], after building dist/rglob. Never a test. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchArgs, compileFloor, countsCompare, loadAverage } from "./bench-args.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
const args = benchArgs(
  "bun scripts/bench-count.ts [--runs=N] [--python=DIR] [--before=BIN] [--only=python]",
  { python: "text", before: "text", only: "text" },
  5,
);
const { runs } = args;

function which(name: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Runs a command; returns its wall time and its CPU time (user + system of the children, from `times`). */
function time(cmd: string): { wall: number; cpu: number } {
  const t0 = performance.now();
  const r = spawnSync("sh", ["-c", `${cmd} > /dev/null 2>&1; code=$?; times; exit $code`], {
    encoding: "utf8",
  });
  const wall = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) console.warn(`  (exit ${r.status}) ${cmd}`);
  const children = (r.stdout.trim().split("\n")[1] ?? "").match(/(\d+)m([\d.]+)s/g) ?? [];
  const cpu = children.reduce((sum, t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return sum + (m ? (Number(m[1]) * 60 + Number(m[2])) * 1000 : 0);
  }, 0);
  return { wall, cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function bench(title: string, cmds: Record<string, string>, reference: string): void {
  console.log(`\n## ${title} (load ${loadAverage()})`);
  const walls: Record<string, number[]> = {};
  const cpus: Record<string, number[]> = {};
  for (const name of Object.keys(cmds)) {
    walls[name] = [];
    cpus[name] = [];
    time(cmds[name] as string); // warm-up (page cache)
  }
  for (let i = 0; i < runs; i++) {
    for (const [name, cmd] of Object.entries(cmds)) {
      const t = time(cmd);
      walls[name]?.push(t.wall);
      cpus[name]?.push(t.cpu);
    }
  }
  const refWall = median(walls[reference] as number[]);
  const refCpu = median(cpus[reference] as number[]);
  for (const name of Object.keys(cmds)) {
    const w = median(walls[name] as number[]);
    const c = median(cpus[name] as number[]);
    console.log(
      `${name.padEnd(28)} wall ${w.toFixed(0).padStart(6)} ms ${(w / refWall).toFixed(2)}×   cpu ${c.toFixed(0).padStart(6)} ms ${(c / refCpu).toFixed(2)}×  (vs ${reference})`,
    );
  }
}

/** A repository shape: 60,000 small source files (about 3.7 KB each) in 600 directories. */
function generateMany(): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-bench-count-many-"));
  const line = "  const value = compute(alpha, beta); // explain the step\n";
  const exts = ["ts", "py", "js", "md", "json", "go"];
  let k = 0;
  for (let a = 0; a < 30; a++) {
    for (let b = 0; b < 20; b++) {
      const sub = join(dir, `m${a}`, `s${b}`);
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 100; f++) {
        k++;
        const n = 5 + ((k * 7919) % 120);
        writeFileSync(join(sub, `f${f}.${exts[k % exts.length]}`), `/* h\n */\n${line.repeat(n)}\n# x\n`);
      }
    }
  }
  return dir;
}

function generate(): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-bench-count-"));
  const line = "  const value = compute(alpha, beta); // explain the step\n";
  for (let d = 0; d < 50; d++) {
    mkdirSync(join(dir, `pkg${d}`, "src"), { recursive: true });
    for (let f = 0; f < 100; f++) {
      const n = 20 + (((d * 100 + f) * 7919) % 400);
      const body = `/* header\n * of file ${f}\n */\n\n${line.repeat(n)}\n# not a comment in ts\n`;
      writeFileSync(join(dir, `pkg${d}`, "src", `f${f}.${f % 2 ? "ts" : "py"}`), body);
    }
  }
  return dir;
}

const tools = { tokei: which("tokei"), cloc: which("cloc") };

/** A fetched Python tree: count --lang py against the floor that classifies its lines by the same rules. */
function pythonTree(dir: string): void {
  const floorBin = compileFloor("count");
  const before = args.get("before");
  const cmd = (b: string, more = "") => `${b} count --lang py --base ${dir} --jsonl${more}`;
  const floorCmd = floorBin === null ? null : `cd ${dir} && ${floorBin} --python --hidden`;
  bench(
    `Python tree ${dir}: count --lang py (docstrings told apart)`,
    {
      "rglob count --lang py": cmd(bin),
      ...(before ? { "before: count --lang py": cmd(before) } : {}),
      "rglob count (every file)": `${bin} count --base ${dir} --jsonl`,
      ...(before ? { "before: count (every file)": `${before} count --base ${dir} --jsonl` } : {}),
      ...(floorCmd ? { "floor-count --python": floorCmd } : {}),
      ...(floorCmd ? { "floor, rglob's counter": `${floorCmd} --classify` } : {}),
      ...(tools.tokei ? { tokei: `${tools.tokei} -t Python ${dir}` } : {}),
    },
    floorCmd ? "floor-count --python" : "rglob count --lang py",
  );
  if (floorCmd === null) return;
  const ours = spawnSync("sh", ["-c", cmd(bin)], { encoding: "utf8", maxBuffer: 1 << 30 }).stdout;
  const floorOut = spawnSync("sh", ["-c", floorCmd], { encoding: "utf8", maxBuffer: 1 << 30 }).stdout;
  console.log(countsCompare(ours, floorOut, true));
  const viaCounter = spawnSync("sh", ["-c", `${floorCmd} --classify`], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  console.log(`rglob's counter: ${countsCompare(ours, viaCounter.stdout, true)}`);
}
const nm = join(root, "node_modules");
const others = args.get("only") !== "python";
if (others && existsSync(nm)) {
  bench(
    "node_modules (--no-ignore --hidden), lines of every file",
    {
      "rglob count --jsonl": `${bin} count --no-ignore --hidden --base ${nm} --jsonl`,
      "rglob count --limit 1 --json": `${bin} count --no-ignore --hidden --base ${nm} --limit 1 --json`,
      "xargs wc -l": `find ${nm} -type f -print0 | xargs -0 wc -l`,
      ...(tools.tokei ? { tokei: `${tools.tokei} ${nm}` } : {}),
    },
    "xargs wc -l",
  );
}
/** Runs a case on a tree made for it (unless --only=python), then removes the tree. */
function onGenerated(make: () => string, run: (dir: string) => void): void {
  if (!others) return;
  const dir = make();
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
onGenerated(generate, (gen) =>
  bench(
    "generated tree (5000 source files)",
    {
      "rglob count --jsonl": `${bin} count --no-ignore --base ${gen} --jsonl`,
      "rglob count --by language": `${bin} count --no-ignore --base ${gen} --by language --limit 1 --json`,
      "xargs wc -l": `find ${gen} -type f -print0 | xargs -0 wc -l`,
      ...(tools.tokei ? { tokei: `${tools.tokei} ${gen}` } : {}),
      ...(tools.cloc ? { cloc: `${tools.cloc} --quiet ${gen}` } : {}),
    },
    "xargs wc -l",
  ),
);
onGenerated(generateMany, (many) =>
  bench(
    "generated repository shape (60000 small files)",
    {
      "rglob count --jsonl": `${bin} count --no-ignore --base ${many} --jsonl`,
      "rglob count --limit 1 --json": `${bin} count --no-ignore --base ${many} --limit 1 --json`,
      "xargs wc -l": `find ${many} -type f -print0 | xargs -0 wc -l`,
      ...(tools.tokei ? { tokei: `${tools.tokei} ${many}` } : {}),
    },
    "xargs wc -l",
  ),
);
const py = args.get("python");
if (py === undefined)
  console.log(
    "\n## Python tree: SKIPPED (pass --python=DIR, a fetched checkout such as django's or sympy's)",
  );
else if (!existsSync(py)) console.log(`\n## Python tree: SKIPPED (${py} does not exist)`);
else pythonTree(resolve(py));
if (!tools.tokei) console.log("\n(tokei not installed: skipped)");
if (!tools.cloc) console.log("(cloc not installed: skipped)");
