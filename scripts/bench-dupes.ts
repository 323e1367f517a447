/*! Benchmark of dupes vs `fdupes -qrn` (node_modules, and a generated tree of many same-size files): alternating
 * runs, medians of wall and CPU time, ratios. Usage: bun scripts/bench-dupes.ts [--runs=N], after building dist/rglob.
 * Never a test. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs } from "./bench-args.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
const { runs } = benchArgs("bun scripts/bench-dupes.ts [--runs=N]", {}, 5);

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
  console.log(`\n## ${title}`);
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

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i += 4) {
    x = (x * 1103515245 + 12345) >>> 0;
    b.writeUInt32LE(x, Math.min(i, n - 4));
  }
  return b;
}

function generate(): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-bench-dupes-"));
  for (let d = 0; d < 40; d++) {
    mkdirSync(join(dir, `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) {
      const size = [512, 4096, 20_000, 200_000][f % 4] as number;
      // A quarter are copies of a shared file, a quarter differ only in their last byte, the rest are unique.
      const seed = f % 4 === 0 ? f : d * 1000 + f;
      const data = bytes(size, seed);
      if (f % 4 === 1) data[size - 1] = d;
      writeFileSync(join(dir, `d${d}`, `f${f}.bin`), data);
    }
  }
  return dir;
}

const fdupes = which("fdupes");
if (!fdupes) {
  console.log("fdupes is not installed (apt-get install fdupes): nothing to compare with");
  process.exit(0);
}
const nm = join(root, "node_modules");
if (existsSync(nm)) {
  bench(
    "node_modules (--no-ignore --hidden)",
    {
      "rglob dupes --jsonl": `${bin} dupes --no-ignore --hidden --base ${nm} --jsonl`,
      "fdupes -qrn": `${fdupes} -qrn ${nm}`,
    },
    "fdupes -qrn",
  );
}
const gen = generate();
try {
  bench(
    "generated tree (4000 files, 225 MB, many same-size files)",
    {
      "rglob dupes --jsonl": `${bin} dupes --no-ignore --base ${gen} --jsonl`,
      "fdupes -qrn": `${fdupes} -qrn ${gen}`,
    },
    "fdupes -qrn",
  );
} finally {
  rmSync(gen, { recursive: true, force: true });
}
