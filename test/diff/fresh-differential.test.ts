// Differential (#34): the warm server (`rglob mcp`, the SDK's client over stdio) and the persisted index
// (`rglob grep` after `rglob index`) against the cold answer (the CLI with RGLOB_INDEX=0, a fresh process) on a
// real git repository that a second process (test/diff/fresh-editor.ts) changes in one class at a time: edits,
// appends, truncation, saves through a rename, same-size rewrites with the mtime put back, hard links edited
// from outside the tree and through another name inside it, writes through a shared mapping, files and
// directories created, deleted and renamed, the root's parent moved and copied back, the root deleted and made
// again, nested and negated ignore rules, a git checkout of the other branch, names that are not UTF-8, paths
// past 4096 bytes, and changes of any of those made while the server is stopped and its watch's queue overflows
// (every event of them lost). Each class is a case; every answer after each batch of changes must be the cold one (only
// `source` and a smaller bytes_read differ). Seeded (RGLOB_FRESH_SEED), bounded in rounds (RGLOB_FRESH_ROUNDS);
// the long run is scripts/fuzz-fresh.ts. The harness is test/diff/fresh-lib.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CLASS_NOTES, CLASSES, type FreshTree, prepareAll, runClass, summary } from "./fresh-lib.ts";

const SEED = Number(process.env.RGLOB_FRESH_SEED ?? 34);
const ROUNDS = Number(process.env.RGLOB_FRESH_ROUNDS ?? 3);
console.log(`fresh-differential: seed ${SEED}, ${ROUNDS} rounds per class`);

// Every class's tree is made first: `rglob index` waits until no directory of the tree changed in the last 2 s,
// which by the time a class runs the earlier ones have taken.
let trees = new Map<string, FreshTree>();
beforeAll(async () => {
  trees = await prepareAll(CLASSES, SEED);
}, 120_000);
afterAll(async () => {
  for (const t of trees.values()) await t.stop();
});

test.each(CLASSES.map((c) => [c, CLASS_NOTES[c]] as const))(
  `warm and persisted-index answers are the cold ones after changes of class %s (%s)`,
  async (cls) => {
    const report = await runClass(cls, { seed: SEED, rounds: ROUNDS }, undefined, trees.get(cls));
    console.log(summary([report]).join("\n"));
    const first = report.differences
      .slice(0, 4)
      .map((d) => `round ${d.round} ${d.surface} ${d.query} after ${d.after.slice(0, 300)}: ${d.how}`);
    if (report.differences.length > 0 || process.env.RGLOB_FRESH_LOG)
      console.log(`seed ${SEED}, ${cls}:\n  ${report.log.join("\n  ")}`);
    expect({ cls, seed: SEED, differences: report.differences.length, first }).toEqual({
      cls,
      seed: SEED,
      differences: 0,
      first: [],
    });
    expect(report.compared).toBeGreaterThan(0);
    // The overflow class made the server's queue overflow each round, and the server repaired its watch.
    if (cls === "overflow" && process.platform === "linux") expect(report.repairs).toBeGreaterThan(0);
  },
  120_000,
);
