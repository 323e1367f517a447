/*! Benchmark of the CLI's persisted index (a script, never a timed test): `rglob index` on a tree, then
 * `rglob grep` with the index (its freshness checks included: a stat per file the index rules out, and per
 * directory and ignore file of the recorded walk, which is replayed since the tree does not change during the
 * run) and without it (RGLOB_INDEX=0), each paired with `rg -n --hidden -g '!.git'` in alternating order, per
 * query. Each query's answer is checked first: the same lines as rg's (sorted), and the same JSON result with
 * and without the index (bytes_read and source aside). It also times the checks alone in this process (loading
 * the index, the recorded walk's stats, a stat of every indexed file) and the walk alone (`rglob find`), and
 * prints the load average, since the ratios are paired within a run but not across machines.
 * Usage: bun scripts/bench-index.ts [--runs=N] [--tree=DIR] (default tree: $RGLOB_BENCH_TREE, else
 * ../bench/babel). */

import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../src/config.ts";
import { indexPathFor, loadIndex } from "../src/engine/index/persist.ts";
import { STAT_WORDS, statInto } from "../src/platform/stat-words.ts";
import { loadAverage, treeBench } from "./bench-args.ts";

const { bin, tree, rg, runs } = treeBench("bun scripts/bench-index.ts [--runs=N] [--tree=DIR]", 5);

/** One query: rglob grep's arguments and rg's (after `rg -n --hidden -g !.git`). */
interface Query {
  readonly name: string;
  readonly rglob: readonly string[];
  readonly rg: readonly string[];
}

const QUERIES: readonly Query[] = [
  { name: "rare identifier", rglob: ["isPrivateName"], rg: ["isPrivateName"] },
  { name: "rare phrase", rglob: ["-F", "must be a function"], rg: ["-F", "must be a function"] },
  { name: "-i -w word", rglob: ["-i", "-w", "sourcemap"], rg: ["-i", "-w", "sourcemap"] },
  { name: "alternation", rglob: ["readJsonSync|writeJsonSync"], rg: ["readJsonSync|writeJsonSync"] },
  { name: "common word", rglob: ["TODO"], rg: ["TODO"] },
  { name: "no match", rglob: ["qzxqzxNeverThere"], rg: ["qzxqzxNeverThere"] },
];

const cache = mkdtempSync(join(tmpdir(), "rglob-bench-index-"));
const env = { ...process.env, RGLOB_CACHE_DIR: cache, NO_COLOR: "1" };
const cold = { ...env, RGLOB_INDEX: "0" };

function run(cmd: readonly string[], e: Record<string, string | undefined>): { ms: number; out: string } {
  const t = performance.now();
  const r = Bun.spawnSync([...cmd], { cwd: tree, env: e, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - t;
  if (r.exitCode !== 0 && r.exitCode !== 1)
    throw new Error(`${cmd.join(" ")}: exit ${r.exitCode}\n${r.stderr}`);
  return { ms, out: r.stdout.toString() };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
const load = loadAverage;

try {
  console.log(`tree ${tree}; ${runs} paired runs per query; load average ${load()}`);
  const built = run([bin, "index", "--json"], env);
  const rec = (
    JSON.parse(built.out) as {
      results: Array<{
        files: number;
        not_indexed: number;
        trigrams: number;
        text_bytes: number;
        index_bytes: number;
      }>;
    }
  ).results[0];
  if (rec === undefined) throw new Error("index gave no record");
  console.log(
    `index: ${rec.files} files (${rec.not_indexed} not indexed), ${rec.trigrams} trigrams, ${(rec.text_bytes / 1048576).toFixed(1)} MiB of text, index file ${(rec.index_bytes / 1048576).toFixed(1)} MiB (${(rec.index_bytes / rec.text_bytes).toFixed(2)}x), built in ${fmt(built.ms)}`,
  );

  // The freshness checks alone, in this process, as grep makes them: loading the index, the recorded walk's
  // witness (one stat per directory and ignore file it depends on), one stat per indexed file (each file the
  // index rules out).
  const status = JSON.parse(run([bin, "index", "--status", "--json"], env).out) as {
    results: Array<{ index_path: string; walk: string }>;
  };
  process.env.RGLOB_CACHE_DIR = cache;
  const loads: number[] = [];
  const witness: number[] = [];
  const checks: number[] = [];
  let dirs = 0;
  let files = 0;
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const { index: loaded } = loadIndex(
      realpathSync(tree),
      indexPathFor(realpathSync(tree), readConfig().indexDir),
    );
    loads.push(performance.now() - t);
    if (loaded === null) throw new Error("the index did not load");
    t = performance.now();
    if (loaded.walk !== null && !loaded.walk.fresh()) throw new Error("the recorded walk is stale");
    witness.push(performance.now() - t);
    dirs = loaded.header.walk?.witnessed ?? 0;
    files = loaded.paths.length;
    const root = loaded.header.root;
    const words = new Uint32Array(STAT_WORDS);
    const stat = statInto();
    t = performance.now();
    for (const p of loaded.paths) stat(`${root}/${p}`, false, words, 0);
    checks.push(performance.now() - t);
  }
  const walks: number[] = [];
  for (let i = 0; i < runs; i++) walks.push(run([bin, "find"], env).ms);
  console.log(
    `checks alone (medians): loading the index ${fmt(median(loads))}; the recorded walk (${status.results[0]?.walk}) ${dirs} stat calls ${fmt(median(witness))}; ${files} indexed files, one stat each ${fmt(median(checks))}; the walk alone (rglob find) ${fmt(median(walks))}; index file ${status.results[0]?.index_path}`,
  );

  const rows: string[] = [];
  let sumRg = 0;
  let sumIdx = 0;
  let sumCold = 0;
  for (const q of QUERIES) {
    // Checked first: the same lines as rg, and the same result with and without the index.
    const rgLines = run([rg, "-n", "--hidden", "-g", "!.git", ...q.rg], env)
      .out.split("\n")
      .sort()
      .join("\n");
    const ours = run([bin, "grep", ...q.rglob], env)
      .out.split("\n")
      .sort()
      .join("\n");
    if (ours !== rgLines) throw new Error(`${q.name}: rglob's lines differ from rg's`);
    const a = JSON.parse(run([bin, "grep", "--json", ...q.rglob], env).out) as Record<string, unknown>;
    const b = JSON.parse(run([bin, "grep", "--json", ...q.rglob], cold).out) as Record<string, unknown>;
    const source = a.source;
    const read = [a.bytes_read, b.bytes_read] as [number, number];
    delete a.source;
    a.bytes_read = b.bytes_read;
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${q.name}: the index changed the answer`);
    const t = { rg: [] as number[], idx: [] as number[], cold: [] as number[] };
    for (let i = 0; i < runs; i++) {
      // Alternating order, so a burst of load falls on each side alike.
      const order = i % 2 === 0 ? (["rg", "idx", "cold"] as const) : (["idx", "rg", "cold"] as const);
      for (const who of order) {
        if (who === "rg") t.rg.push(run([rg, "-n", "--hidden", "-g", "!.git", ...q.rg], env).ms);
        else t[who].push(run([bin, "grep", ...q.rglob], who === "idx" ? env : cold).ms);
      }
    }
    const [mr, mi, mc] = [median(t.rg), median(t.idx), median(t.cold)];
    sumRg += mr;
    sumIdx += mi;
    sumCold += mc;
    rows.push(
      `${q.name.padEnd(16)} rg ${fmt(mr).padStart(7)}  index ${fmt(mi).padStart(7)} (${(mi / mr).toFixed(2)}x rg, source ${String(source)}, read ${(read[0] / 1048576).toFixed(1)} of ${(read[1] / 1048576).toFixed(1)} MiB)  cold ${fmt(mc).padStart(7)} (${(mc / mr).toFixed(2)}x rg)`,
    );
  }
  console.log(rows.join("\n"));
  console.log(
    `sum of medians: rg ${fmt(sumRg)}, rglob grep with the index ${fmt(sumIdx)} = ${(sumIdx / sumRg).toFixed(2)}x rg (target 0.5x), without it ${fmt(sumCold)} = ${(sumCold / sumRg).toFixed(2)}x rg; load average ${load()}`,
  );
} finally {
  rmSync(cache, { recursive: true, force: true });
}
