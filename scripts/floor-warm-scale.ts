/*! The floor of a warm query at scale (#36): what a warm `rglob mcp` does for a grep answered from its index, with
 * none of the server around it, on the same in-memory structures: the cached index of the tree (loaded once, as a
 * restarted server loads it) and the default walk recorded in memory (as the server records it), then per query
 * the index's candidate ids, the places of the entries given (the selected entries the index does not hold and
 * the candidates' entries, ascending) and their replay into a context that keeps total_files_searched and the
 * skip ledger. No protocol, validation, planning, freshness check or search: a literal found nowhere is given no
 * file to read, so its time here is the floor of the server's. Each stage is timed alone too.
 * Usage: bun scripts/floor-warm-scale.ts [--tree=DIR] [--runs=N] (the tree's index must be in the cache: a server
 * that ran on it, or `rglob index`, wrote it; RGLOB_CACHE_DIR picks the cache). */

import { execSync } from "node:child_process";
import * as fs from "node:fs";
import { readConfig } from "../src/config.ts";
import { emptySkipped } from "../src/contract/result.ts";
import { indexPathFor, loadIndex } from "../src/engine/index/persist.ts";
import { recordWalk, replayPicked, selectedPlaces } from "../src/engine/index/recorded-walk.ts";
import { serverDefaultPlan } from "../src/engine/index/warm/stored-walk.ts";
import { quietContext, type RunContext } from "../src/engine/run.ts";
import { selectingAll } from "../src/engine/walk.ts";
import { benchArgs } from "./bench-args.ts";

const args = benchArgs("bun scripts/floor-warm-scale.ts [--runs=N] [--tree=DIR]", { tree: "text" }, 20);
const tree = fs.realpathSync(args.get("tree") ?? process.env.RGLOB_BENCH_TREE ?? "/tmp/sc-babel-x10");
const load = () =>
  execSync("uptime")
    .toString()
    .trim()
    .replace(/.*load/, "load");
console.log(load());

let t = performance.now();
const loaded = loadIndex(tree, indexPathFor(tree, readConfig().indexDir));
if (loaded.index === null) {
  console.error(`no usable index of ${tree} in the cache (${loaded.reason})`);
  process.exit(1);
}
const idx = loaded.index.index;
console.log(`index loaded in ${(performance.now() - t).toFixed(0)} ms (${idx.size} files)`);

// The server's default walk (WarmRoot.defaultPlan), recorded selecting every entry; grep's plan selects files.
const plan = serverDefaultPlan(tree);
t = performance.now();
const rec = recordWalk(selectingAll(plan), quietContext());
console.log(`default walk recorded in ${(performance.now() - t).toFixed(0)} ms (${rec.entries} entries)`);
t = performance.now();
const places = selectedPlaces(rec, plan);
const ids = new Int32Array(rec.entries);
for (let i = 0; i < rec.entries; i++) ids[i] = idx.idOfPath(rec.absOf(i));
const byId = new Int32Array(idx.size).fill(-1);
for (let i = 0; i < ids.length; i++) if ((ids[i] as number) >= 0) byId[ids[i] as number] = i;
const mask = new Uint8Array(rec.entries);
for (const i of places) mask[i] = 1;
const unindexed = Int32Array.from(Array.from(places).filter((i) => (ids[i] as number) < 0));
console.log(
  `selection (made once per walk): ${places.length} entries, ${unindexed.length} not indexed, ${(performance.now() - t).toFixed(0)} ms`,
);

/** The places given for a query's candidates: the unindexed selected entries and the candidates', ascending. */
function picks(cand: Int32Array): Int32Array {
  const out: number[] = Array.from(unindexed);
  for (const id of cand) {
    const i = byId[id] as number;
    if (i >= 0 && mask[i] === 1) out.push(i);
  }
  return Int32Array.from(out).sort();
}

/** Replays the places into a context that counts files searched and skips, as a run's does. */
function replayed(pick: Int32Array): { files: number; given: number; skipped: number } {
  let files = 0;
  const ctx: RunContext = {
    ...quietContext(),
    skipped: emptySkipped(),
    searched: (n = 1) => {
      files += n;
    },
  };
  let given = 0;
  for (const _ of replayPicked(rec, plan, ctx, pick)) given++;
  const skipped = Object.values(ctx.skipped).reduce((a, b) => a + b, 0);
  return { files, given, skipped };
}

const QUERIES = [
  { name: "nowhere", literal: "zqxjvbk_nowhere", ignoreCase: false },
  { name: "traverseFast", literal: "traverseFast", ignoreCase: false },
];
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
for (const q of QUERIES) {
  const stage = {
    lookup: [] as number[],
    picks: [] as number[],
    replay: [] as number[],
    all: [] as number[],
  };
  let shown = "";
  for (let r = 0; r <= args.runs; r++) {
    const t0 = performance.now();
    const cand = idx.candidateIds({
      literals: [q.literal],
      traps: false,
      ignoreCase: q.ignoreCase,
    }) as Int32Array;
    const t1 = performance.now();
    const pick = picks(cand);
    const t2 = performance.now();
    const got = replayed(pick);
    const t3 = performance.now();
    if (r === 0) {
      shown = `${cand.length} candidates, ${got.given} entries given, total_files_searched ${got.files}, ${got.skipped} skipped`;
      continue;
    }
    stage.lookup.push(t1 - t0);
    stage.picks.push(t2 - t1);
    stage.replay.push(t3 - t2);
    stage.all.push(t3 - t0);
  }
  console.log(`${q.name}: ${shown}`);
  console.log(
    `  median of ${args.runs}: lookup ${med(stage.lookup).toFixed(3)} ms, places ${med(stage.picks).toFixed(3)} ms, replay ${med(stage.replay).toFixed(3)} ms, all ${med(stage.all).toFixed(3)} ms`,
  );
}
console.log(load());
