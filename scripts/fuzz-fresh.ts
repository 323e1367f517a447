/*! The long run of the freshness differential (#34; the bounded run is test/diff/fresh-differential.test.ts):
 * `bun scripts/fuzz-fresh.ts --seed=N --rounds=N [--concurrent] [--classes=a,b] [--reindex=N]` runs every
 * change class (and `mixed`, a random class per change) for N rounds each against dist/rglob (RGLOB_BIN), and
 * prints the seed, the rounds and the differences per class and surface (warm: `rglob mcp` against the cold
 * CLI; index: `rglob grep` with `rglob index` against RGLOB_INDEX=0), then the first differences of each class.
 * `--concurrent` lets the editor change the tree while each round's queries are in flight, then stops it and
 * compares; `--reindex=N` runs `rglob index` again every N rounds; `--served` asks the warm questions as CLI calls
 * in the tree answered by `rglob serve` instead of `rglob mcp`'s tools, `--served=mcp` as CLI calls answered by
 * the run's `rglob mcp` (which serves the CLI in its root). Exits 1 if any answer differed. */
import { CLASSES, type ClassReport, prepareAll, runClass, summary } from "../test/diff/fresh-lib.ts";

const arg = (name: string): string | undefined => {
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (eq !== undefined) return eq.slice(name.length + 3);
  const i = process.argv.indexOf(`--${name}`);
  const next = i > 0 ? process.argv[i + 1] : undefined;
  return next !== undefined && !next.startsWith("--") ? next : undefined;
};
const seed = Number(arg("seed") ?? Date.now() & 0xffff);
const rounds = Number(arg("rounds") ?? 100);
const concurrent = process.argv.includes("--concurrent");
const served: boolean | "mcp" = arg("served") === "mcp" ? "mcp" : process.argv.includes("--served");
const reindexEvery = Number(arg("reindex") ?? 0);
const classes = arg("classes")?.split(",") ?? [...CLASSES, "mixed"];
if (!Number.isInteger(seed) || !Number.isInteger(rounds) || rounds < 1) {
  console.error(
    "usage: bun scripts/fuzz-fresh.ts --seed=N --rounds=N [--concurrent] [--served[=mcp]] [--classes=a,b] [--reindex=N]",
  );
  process.exit(2);
}
console.log(
  `fuzz-fresh: seed ${seed}, ${rounds} rounds per class, ${concurrent ? "concurrent" : "changes then queries"}, warm answers ${served === "mcp" ? "from the CLI served by rglob mcp" : served ? "from the CLI served by rglob serve" : "from rglob mcp"}, classes ${classes.join(" ")}`,
);

const started = performance.now();
const trees = await prepareAll(classes, seed);
const reports: ClassReport[] = [];
for (const cls of classes) {
  const t0 = performance.now();
  const report = await runClass(
    cls,
    { seed, rounds, concurrent, reindexEvery, walkTwice: true, indexGreps: 2, changes: 3, served },
    (r, round) => {
      if ((round + 1) % 25 === 0)
        console.error(
          `  ${cls}: ${round + 1}/${rounds} rounds, ${r.compared} compared, ${r.differences.length} different`,
        );
    },
    trees.get(cls),
  );
  reports.push(report);
  console.log(`${summary([report])[0]}  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

console.log(`\nseed ${seed}, ${rounds} rounds per class${concurrent ? ", concurrent" : ""}:`);
for (const line of summary(reports)) console.log(line);
let total = 0;
for (const r of reports) {
  total += r.differences.length;
  if (r.differences.length === 0) continue;
  console.log(`\n${r.cls}: first differences`);
  for (const d of r.differences.slice(0, 3))
    console.log(
      `  round ${d.round} ${d.surface} ${d.query}\n    after ${d.after.slice(0, 400)}\n    ${d.how.slice(0, 600)}`,
    );
}
const compared = reports.reduce((n, r) => n + r.compared, 0);
console.log(
  `\n${compared} answers compared, ${total} different (seed ${seed}, ${rounds} rounds, ${((performance.now() - started) / 1000).toFixed(0)} s)`,
);
process.exit(total > 0 ? 1 : 0);
