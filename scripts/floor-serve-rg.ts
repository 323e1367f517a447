/*! The floor of bench-serve.ts's twenty served greps (#36): per query, rg itself given only the files that hold a
 * match (`rg -l` with the query's selection: a perfect index, native matching on every core, no walk, no freshness
 * check, no protocol), against rg over the whole tree; both spawned and their output read through pipes as
 * bench-serve.ts reads them, the least of three runs each. Then the process start a served call pays over rg's: a
 * compiled Bun hello-world (the binary's build flags) and `rg --version`, timed the same way. Their sum over the
 * twenty is what a served rglob could reach if its index were perfect and its matcher were rg's; its ratio to the
 * whole-tree rg is the floor of bench-serve's ratio.
 * `bun scripts/floor-serve-rg.ts [--tree=DIR]` (default: $RGLOB_BENCH_TREE, else ../bench/babel); needs rg. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs, loadAverage, SERVE_QUERIES } from "./bench-args.ts";
import { buildArgs, ROOT } from "./build.ts";

const usage = "bun scripts/floor-serve-rg.ts [--tree=DIR]";
const args = benchArgs(usage, { tree: "text" }, 1);
const tree = args.get("tree") ?? process.env.RGLOB_BENCH_TREE ?? join(ROOT, "..", "bench", "babel");
const rg = Bun.which("rg");
if (rg === null) {
  console.error("rg is not installed: the floor is rg's own matching");
  process.exit(2);
}

/** The least wall time (ms) of three runs of a command, its output read through pipes. */
async function least(cmd: readonly string[]): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    const p = Bun.spawn([...cmd], { cwd: tree, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    await Promise.all([new Response(p.stdout).arrayBuffer(), new Response(p.stderr).arrayBuffer()]);
    await p.exited;
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/** A query's argv for rg given its files: the mode flags kept, its globs and path operands left out. */
function onFiles(argv: readonly string[], files: readonly string[]): string[] {
  const kept = argv.filter((a, i) => a !== "-g" && argv[i - 1] !== "-g" && a !== "packages/babel-parser");
  return [...kept, "--", ...files];
}

console.log(`tree: ${tree}; load average ${loadAverage()}`);
let whole = 0;
let floor = 0;
for (const q of SERVE_QUERIES) {
  const selection = q.rg.filter((a) => a !== "-n" && a !== "-l" && a !== "-c");
  const listed = spawnSync(rg, ["-l", ...selection], { cwd: tree, encoding: "utf8", maxBuffer: 1 << 28 });
  const files = listed.stdout.split("\n").filter((l) => l !== "");
  const all = await least([rg, ...q.rg]);
  const only = files.length === 0 ? 0 : await least([rg, ...onFiles(q.rg, files)]);
  whole += all;
  floor += only;
  console.log(
    `  rglob grep ${q.rglob.join(" ").padEnd(36)} rg ${all.toFixed(0).padStart(6)} ms; rg on its ${String(files.length).padStart(5)} matching files ${only.toFixed(0).padStart(5)} ms`,
  );
}

// The start a served call pays over rg's: a compiled Bun program that only prints, against rg --version.
const dir = mkdtempSync(join(tmpdir(), "rglob-floor-serve-rg-"));
let start = 0;
try {
  const source = join(dir, "hello.ts");
  writeFileSync(source, 'console.log("hello");\n');
  const out = join(dir, "hello");
  const flags = buildArgs({ outfile: out }).filter((a) => !a.endsWith(".ts"));
  flags.splice(flags.indexOf("--outfile"), 0, source);
  const built = spawnSync(process.execPath, flags, { cwd: ROOT, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`building the hello-world: ${built.stderr}`);
  const hello = await least([out]);
  const version = await least([rg, "--version"]);
  start = Math.max(0, hello - version);
  console.log(
    `process start: a compiled Bun hello-world ${hello.toFixed(1)} ms, rg --version ${version.toFixed(1)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const total = floor + SERVE_QUERIES.length * start;
console.log(
  `20 rg over the tree ${whole.toFixed(0)} ms; on their matching files only ${floor.toFixed(0)} ms (${(floor / whole).toFixed(3)}x); + 20 x ${start.toFixed(1)} ms of start = ${total.toFixed(0)} ms: the floor of bench-serve's ratio is ${(total / whole).toFixed(3)}x (target <= 0.1x); load average ${loadAverage()}`,
);
