/*! The floor of a warm grep (#36): the smallest in-process program that does the work bench-warm.ts's 20 queries
 * ask of a warm `rglob mcp` with the agent defaults (limit 100), with none of the server around it: the index's
 * candidates of the query's literals (the cached index of the tree, loaded once, as a restarted server loads it),
 * then the candidate files in index order (walk order), each read whole and matched line by line with the
 * JavaScript RegExp rglob compiles for the pattern, until 100 records (lines, files or counts). No walk, freshness
 * check, record, JSON, text or protocol: what is left between the server's time and this one is theirs.
 * Usage: bun scripts/floor-warm.ts [--tree=DIR] [--runs=N] (the tree's index must be in the cache: run
 * `rglob index` in it, or a server on it, first). */
import * as fs from "node:fs";
import { readConfig } from "../src/config.ts";
import { indexPathFor, loadIndex } from "../src/engine/index/persist.ts";
import { literalQueryOf } from "../src/engine/index/provider.ts";
import { compileMatcher } from "../src/engine/search/matcher.ts";
import type { SearchSpec } from "../src/engine/search/search-file.ts";
import { benchArgs } from "./bench-args.ts";

const args = benchArgs("bun scripts/floor-warm.ts [--runs=N] [--tree=DIR]", { tree: "text" }, 5);
const tree = fs.realpathSync(args.get("tree") ?? process.env.RGLOB_BENCH_TREE ?? "../bench/babel");

interface Query {
  readonly name: string;
  readonly pattern: string;
  readonly i?: boolean;
  readonly w?: boolean;
  readonly F?: boolean;
  readonly mode?: "files" | "count";
  /** Keeps a relative path (a glob or a path operand of the query). */
  readonly keep?: (rel: string) => boolean;
}

// The queries of bench-warm.ts, in its order.
const QUERIES: readonly Query[] = [
  { name: "rare literal", pattern: "traverseFast" },
  { name: "common literal", pattern: "function" },
  { name: "literal TODO", pattern: "TODO" },
  { name: "identifier", pattern: "isIdentifier" },
  { name: "assertNode", pattern: "assertNode" },
  { name: "regex class", pattern: "[A-Z][a-z]+Error\\(" },
  { name: "regex require", pattern: "const [a-z]+ = require\\(" },
  { name: "regex t.isX(", pattern: "t\\.is[A-Z]\\w+\\(" },
  { name: "regex alternation", pattern: "console\\.(warn|error)" },
  { name: "-i -w todo", pattern: "todo", i: true, w: true },
  { name: "-i deprecated", pattern: "deprecated", i: true },
  { name: "-w scope", pattern: "scope", w: true },
  { name: "-l babel-core", pattern: "babel-core", mode: "files" },
  { name: "-l -i copyright", pattern: "copyright", i: true, mode: "files" },
  { name: "-c export default", pattern: "export default", mode: "count" },
  { name: "-c it(", pattern: "it\\(", mode: "count" },
  { name: "glob *.ts interface", pattern: "interface", keep: (r) => r.endsWith(".ts") },
  { name: "glob *.json version", pattern: '"version"', keep: (r) => r.endsWith(".json") },
  { name: "fixed process.env.", pattern: "process.env.BABEL_ENV", F: true },
  {
    name: "dir packages/babel-parser",
    pattern: "tokenizer",
    keep: (r) => r.startsWith("packages/babel-parser/"),
  },
  { name: "nowhere (not summed)", pattern: "zzq_not_there_zzq" },
];

const t0 = performance.now();
const loaded = loadIndex(tree, indexPathFor(tree, readConfig().indexDir));
if (loaded.index === null) {
  console.error(
    `no usable index of ${tree} in the cache (${loaded.reason}): run \`rglob index\` there first`,
  );
  process.exit(1);
}
const { index: idx } = loaded.index;
const pathAt = (id: number) => loaded.index.pathAt(id);
console.log(`index of ${tree} loaded in ${(performance.now() - t0).toFixed(0)} ms (${idx.size} files)`);

/** One query's work: candidates, then read and match in index order up to 100 records. */
function run(q: Query): { records: number; read: number } {
  const m = compileMatcher({
    patterns: [q.pattern],
    fixedStrings: q.F ?? false,
    ignoreCase: q.i ?? false,
    smartCase: false,
    wordRegexp: q.w ?? false,
    lineRegexp: false,
    invert: false,
    multiline: false,
    onlyMatching: false,
  });
  const lq = literalQueryOf({ matcher: m, encoding: null } as unknown as SearchSpec);
  const candidates = lq === null ? null : idx.candidates(lq);
  const re = new RegExp(m.source, `${m.flags}gm`);
  let records = 0;
  let read = 0;
  for (let id = 0; id < idx.size && records < 100; id++) {
    if (candidates !== null && candidates[id] !== 1) continue;
    const rel = pathAt(id);
    if (q.keep !== undefined && !q.keep(rel)) continue;
    let text: string;
    try {
      text = fs.readFileSync(`${tree}/${rel}`, "utf8");
    } catch {
      continue;
    }
    read++;
    re.lastIndex = 0;
    let lines = 0;
    let lastLine = -1;
    for (let hit = re.exec(text); hit !== null; hit = re.exec(text)) {
      const start = text.lastIndexOf("\n", hit.index) + 1;
      if (start !== lastLine) {
        lastLine = start;
        lines++;
        if (q.mode === undefined && ++records >= 100) break;
      }
      const end = text.indexOf("\n", hit.index);
      if (end < 0) break;
      re.lastIndex = end + 1;
      if (q.mode === "files") break;
    }
    if (q.mode !== undefined && lines > 0) records++;
  }
  return { records, read };
}

const times = new Map<string, number[]>();
for (let r = 0; r <= args.runs; r++) {
  for (const q of QUERIES) {
    const t = performance.now();
    const got = run(q);
    const ms = performance.now() - t;
    if (r > 0) times.set(q.name, [...(times.get(q.name) ?? []), ms]);
    else console.log(`  ${q.name}: ${got.records} records, ${got.read} files read`);
  }
}
let sum = 0;
for (const [name, ts] of times) {
  const med = [...ts].sort((a, b) => a - b)[Math.floor(ts.length / 2)] as number;
  if (!name.startsWith("nowhere")) sum += med;
  console.log(`  ${name.padEnd(28)} ${med.toFixed(1)} ms`);
}
console.log(`floor of the 20 warm greps (median of ${args.runs} runs each): ${sum.toFixed(1)} ms`);
