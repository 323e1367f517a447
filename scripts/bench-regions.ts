/*! Benchmark of grep's `in` option (#38, ADR 0031): `rglob grep` with `--in` against the same grep without it
 * on this repository's node_modules (with --no-ignore) or the tree given with --corpus=DIR (a checkout of
 * babel, say), paired runs (each plain run followed by its --in run), the load average printed, for selective patterns (target: at most 1.3× the plain
 * grep's time), the lexers' own throughput (MB/s over every JavaScript/TypeScript and JSON file there, in this
 * process), and the binary's size (and that of another binary given with --before=PATH, e.g. one built from
 * the commit before the option). A script, never a timed test. Usage: bun scripts/bench-regions.ts [--runs=N]
 * [--before=PATH] [--corpus=DIR] */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { languageOf } from "../src/engine/languages.ts";
import { regionLexer } from "../src/engine/regions/regions.ts";
import { benchArgs, loadAverage } from "./bench-args.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
const args = benchArgs(
  "bun scripts/bench-regions.ts [--runs=N] [--before=PATH] [--corpus=DIR]",
  { before: "text", corpus: "text" },
  5,
);
const corpus = args.get("corpus") ?? join(root, "node_modules");
if (!existsSync(bin)) {
  console.error(`no binary at ${bin}: run \`npm run build\` first`);
  process.exit(1);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timed(argv: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(bin, argv, { cwd: root, encoding: "utf8", maxBuffer: 1 << 30 });
  return { ms: performance.now() - t0, out: r.stdout };
}

const CASES: Array<{ title: string; pattern: string[]; region: string }> = [
  { title: "FIXME in comments", pattern: ["FIXME"], region: "comment" },
  {
    title: "an empty catch in code",
    pattern: ["-U", "catch\\s*(\\([^)]*\\))?\\s*\\{\\s*\\}"],
    region: "code",
  },
  { title: "eval( in code", pattern: ["\\beval\\("], region: "code" },
];

const load = loadAverage;
console.log(
  `grep --in on ${corpus} (--no-ignore), median of ${args.runs} paired runs; load average ${load()}`,
);
for (const c of CASES) {
  const plain = ["grep", ...c.pattern, "--no-ignore", corpus, "-c"];
  const withIn = [...plain, "--in", c.region];
  const a: number[] = [];
  const b: number[] = [];
  let outA = "";
  let outB = "";
  timed(plain); // warm the page cache
  for (let k = 0; k < args.runs; k++) {
    const x = timed(plain);
    const y = timed(withIn);
    a.push(x.ms);
    b.push(y.ms);
    outA = x.out;
    outB = y.out;
  }
  const files = (s: string) => s.split("\n").filter(Boolean).length;
  const ratio = median(b) / median(a);
  console.log(
    `  ${c.title.padEnd(24)} plain ${median(a).toFixed(0).padStart(6)} ms (${files(outA)} files)   --in ${c.region.padEnd(7)} ${median(b).toFixed(0).padStart(6)} ms (${files(outB)} files)   ${ratio.toFixed(2)}× ${ratio <= 1.3 ? "(target ≤ 1.3×: met)" : "(target ≤ 1.3×: MISSED)"}`,
  );
}

// The lexers alone: every JavaScript, TypeScript and JSON file under node_modules, decoded, then lexed.
const texts: Array<{ name: string; text: string }> = [];
const walk = (dir: string) => {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory()) walk(p);
    else if (st?.isFile() && /\.(js|mjs|cjs|ts|tsx|json)$/.test(n) && st.size < 8_000_000)
      texts.push({ name: n, text: readFileSync(p, "utf8") });
  }
};
walk(corpus);
let units = 0;
for (const f of texts) units += f.text.length;
const lexTimes: number[] = [];
// CPU time, not wall time: on a shared machine the wall clock measures the other jobs too.
for (let k = 0; k < Math.max(1, Math.min(args.runs, 3)); k++) {
  const c0 = process.cpuUsage();
  for (const f of texts) regionLexer(languageOf(f.name)?.name ?? null, f.name)?.(f.text);
  const c = process.cpuUsage(c0);
  lexTimes.push((c.user + c.system) / 1000);
}
const mbs = units / 1e6 / (median(lexTimes) / 1000);
console.log(
  `lexers alone: ${texts.length} files, ${(units / 1e6).toFixed(1)} M units in ${median(lexTimes).toFixed(0)} ms of CPU: ${mbs.toFixed(0)} MB/s`,
);

console.log(`load average at the end: ${load()}`);
const size = (p: string) => statSync(p).size;
console.log(`binary: ${bin} ${size(bin)} bytes`);
const before = args.get("before");
if (before !== undefined) {
  const d = size(bin) - size(before);
  console.log(`before: ${before} ${size(before)} bytes (${d >= 0 ? "+" : ""}${d} bytes)`);
}
