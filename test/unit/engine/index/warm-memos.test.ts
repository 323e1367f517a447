// The warm server's remembered walks (src/engine/index/warm/remembered.ts, ADR 0028) on a real tree: queries that differ only
// in what they select share one walk, the walks a root remembers hold at most `rememberedEntries` entries
// together (the least recently used let go first; a walk over the budget answered from, not kept), and the index
// build's own walk is remembered for the default grep and find (not when the tree changed shape meanwhile).
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { WalkOptionsSchema } from "../../../../src/contract/walk-options.ts";
import { WarmRoot } from "../../../../src/engine/index/warm.ts";
import { compileWalk } from "../../../../src/engine/plan.ts";
import { quietContext } from "../../../../src/engine/run.ts";
import type { Entry } from "../../../../src/engine/walk.ts";
import { tempTree } from "../../../helpers.ts";

const linux = process.platform === "linux" && typeof Bun !== "undefined";
if (!linux) console.warn("SKIPPED: remembered walks need the tree's own watch (Linux under Bun)");

let warm: WarmRoot | null = null;
let cleanup: (() => void) | null = null;
afterEach(() => {
  warm?.close();
  cleanup?.();
});

/**
 * 40 files in 4 directories (44 entries in all), and a started warm root over them that keeps at most `budget`,
 * its index built.
 */
async function setUp(budget: number): Promise<{ root: string; warm: WarmRoot }> {
  const spec: Record<string, string> = {};
  for (let d = 0; d < 4; d++)
    for (let f = 0; f < 10; f++) spec[`d${d}/f${f}.${f % 2 === 0 ? "ts" : "md"}`] = "x";
  const tree = tempTree(spec);
  cleanup = tree.cleanup;
  const root = realpathSync(tree.dir);
  warm = new WarmRoot(root, {
    maxFileSize: 1 << 20,
    budgetRatio: 0.5,
    budgetBytes: 1 << 26,
    watch: true,
    rememberedEntries: budget,
  });
  warm.start();
  for (let i = 0; i < 500 && warm.status().state !== "ready"; i++) await Bun.sleep(10);
  expect(warm.status()).toMatchObject({ watching: true, state: "ready" });
  return { root, warm };
}

/** The relative paths a query's walk gives through the warm root (its remembered walk). */
function listed(w: WarmRoot, root: string, input: Record<string, unknown>, cwd = root): string[] {
  const { plan } = compileWalk(v.parse(WalkOptionsSchema, { base: root, strict_base: true, ...input }), {
    cwd,
  });
  const walker = w.walker(plan);
  expect(walker).not.toBeNull();
  const out: string[] = [];
  const it = (walker as (ctx: ReturnType<typeof quietContext>) => Iterator<Entry>)(quietContext());
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value.rel);
  return out;
}

test.skipIf(!linux)(
  "queries that differ only in their globs, types or least depth share one remembered walk (skipped off Linux or Bun)",
  async () => {
    const { root, warm: w } = await setUp(1000);
    // The index build's walk, kept for the default grep and the default find.
    expect(w.remembered()).toEqual({ walks: 2, entries: 44 });
    expect(listed(w, root, { patterns: ["*.ts"] })).toHaveLength(20);
    expect(listed(w, root, { patterns: ["*.md"] })).toHaveLength(20);
    expect(listed(w, root, { types: ["d"] })).toEqual(["d0", "d1", "d2", "d3"]);
    expect(listed(w, root, { min_depth: 2, extensions: ["ts"] })).toHaveLength(20);
    expect(w.remembered()).toEqual({ walks: 2, entries: 44 });
    // A depth limit decides what the walk reaches: a walk of its own.
    expect(listed(w, root, { max_depth: 1 })).toEqual(["d0", "d1", "d2", "d3"]);
    expect(w.remembered()).toEqual({ walks: 3, entries: 48 });
  },
);

test.skipIf(!linux)(
  "a CLI call's walk in the root (base `.`, strict_base off) is the MCP tools' (the root's path, strict_base on): one remembered walk (skipped off Linux or Bun)",
  async () => {
    const { root, warm: w } = await setUp(1000);
    expect(w.remembered()).toEqual({ walks: 2, entries: 44 });
    const all = listed(w, root, {});
    expect(all).toHaveLength(44);
    expect(listed(w, root, { base: ".", strict_base: false }, root)).toEqual(all);
    expect(listed(w, root, { base: ".", strict_base: false, patterns: ["*.ts"] }, root)).toHaveLength(20);
    expect(w.remembered()).toEqual({ walks: 2, entries: 44 });
    // Another base is another walk.
    expect(listed(w, root, { base: "d1", strict_base: false }, root)).toHaveLength(10);
    expect(w.remembered()).toEqual({ walks: 3, entries: 54 });
  },
);

test.skipIf(!linux)(
  "the remembered walks hold at most their budget of entries, the least recently used let go (skipped off Linux or Bun)",
  async () => {
    const { root, warm: w } = await setUp(50);
    listed(w, root, {});
    // The index build's walk (44 entries, for two keys).
    expect(w.remembered()).toEqual({ walks: 2, entries: 44 });
    // 4 more entries make 48: all kept.
    listed(w, root, { max_depth: 1 });
    expect(w.remembered()).toEqual({ walks: 3, entries: 48 });
    // Another whole walk (44) is over the budget with them: the least recently used (the build's, under both
    // its keys) is let go.
    listed(w, root, { exclude: ["nothing-matches"] });
    expect(w.remembered()).toEqual({ walks: 2, entries: 48 });
    // The first query's walk is walked again (its answer whole) and the two older ones are let go for it.
    expect(listed(w, root, { patterns: ["*.ts"] })).toHaveLength(20);
    expect(w.remembered()).toEqual({ walks: 1, entries: 44 });
  },
);

test.skipIf(!linux)(
  "a walk of more entries than the budget is answered from, not kept, and lets go of none (skipped off Linux or Bun)",
  async () => {
    const { root, warm: w } = await setUp(10);
    // The index build's walk (44 entries) was not kept either.
    expect(w.remembered()).toEqual({ walks: 0, entries: 0 });
    expect(listed(w, root, { max_depth: 1 })).toHaveLength(4);
    expect(w.remembered()).toEqual({ walks: 1, entries: 4 });
    expect(listed(w, root, {})).toHaveLength(44);
    expect(w.remembered()).toEqual({ walks: 1, entries: 4 });
  },
);

test.skipIf(!linux)(
  "the index build's walk is not remembered when the tree changed shape while it walked (skipped off Linux or Bun)",
  async () => {
    const spec: Record<string, string> = {};
    for (let d = 0; d < 4; d++) for (let f = 0; f < 10; f++) spec[`d${d}/f${f}.ts`] = "x";
    const tree = tempTree(spec);
    cleanup = tree.cleanup;
    const root = realpathSync(tree.dir);
    // Slices of no time: the build gives the event loop a turn after each entry, and is held while the tree
    // changes (as a call would hold it).
    const w = new WarmRoot(root, {
      maxFileSize: 1 << 20,
      budgetRatio: 0.5,
      budgetBytes: 1 << 26,
      watch: true,
      rememberedEntries: 1000,
      sliceMs: 0,
    });
    warm = w;
    w.start();
    for (let i = 0; i < 100_000 && !w.status().watching; i++) await new Promise((r) => setImmediate(r));
    expect(w.status()).toMatchObject({ watching: true, state: "building" });
    const release = w.hold();
    mkdirSync(join(root, "d0", "new"));
    writeFileSync(join(root, "d0", "new", "late.ts"), "x");
    expect(w.settle()).toBe(true);
    release();
    for (let i = 0; i < 500 && w.status().state !== "ready"; i++) await Bun.sleep(10);
    expect(w.status().state).toBe("ready");
    expect(w.remembered()).toEqual({ walks: 0, entries: 0 });
    expect(listed(w, root, { patterns: ["*.ts"] })).toContain("d0/new/late.ts");
    expect(w.remembered()).toEqual({ walks: 1, entries: 46 });
  },
);
