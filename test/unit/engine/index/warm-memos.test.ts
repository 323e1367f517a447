// The warm server's remembered walks (src/engine/index/warm.ts, ADR 0028) on a real tree: queries that differ only
// in what they select share one walk, and the walks a root remembers hold at most `rememberedEntries` entries
// together (the least recently used let go first; a walk over the budget answered from, not kept).
import { afterEach, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import * as v from "valibot";
import { WalkOptionsSchema } from "../../../../src/contract/walk-options.ts";
import { WarmRoot } from "../../../../src/engine/index/warm.ts";
import { compileWalk } from "../../../../src/engine/plan.ts";
import type { Entry } from "../../../../src/engine/walk.ts";
import { quietContext } from "../../../../src/ops/operation.ts";
import { tempTree } from "../../../helpers.ts";

const linux = process.platform === "linux" && typeof Bun !== "undefined";
if (!linux) console.warn("SKIPPED: remembered walks need the tree's own watch (Linux under Bun)");

let warm: WarmRoot | null = null;
let cleanup: (() => void) | null = null;
afterEach(() => {
  warm?.close();
  cleanup?.();
});

/** 40 files in 4 directories (44 entries in all), and a started warm root over them that keeps at most `budget`. */
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
  for (let i = 0; i < 100 && !warm.status().watching; i++) await Bun.sleep(10);
  expect(warm.status().watching).toBe(true);
  return { root, warm };
}

/** The relative paths a query's walk gives through the warm root (its remembered walk). */
function listed(w: WarmRoot, root: string, input: Record<string, unknown>): string[] {
  const { plan } = compileWalk(v.parse(WalkOptionsSchema, { base: root, strict_base: true, ...input }), {
    cwd: root,
  });
  const walker = w.walker(plan);
  expect(walker).not.toBeNull();
  const out: string[] = [];
  const it = (walker as (ctx: ReturnType<typeof quietContext>) => Iterator<Entry>)(quietContext());
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value.rel);
  return out;
}

test.skipIf(!linux)(
  "queries that differ only in their globs, types or least depth share one remembered walk",
  async () => {
    const { root, warm: w } = await setUp(1000);
    expect(listed(w, root, { patterns: ["*.ts"] })).toHaveLength(20);
    expect(w.remembered()).toEqual({ walks: 1, entries: 44 });
    expect(listed(w, root, { patterns: ["*.md"] })).toHaveLength(20);
    expect(listed(w, root, { types: ["d"] })).toEqual(["d0", "d1", "d2", "d3"]);
    expect(listed(w, root, { min_depth: 2, extensions: ["ts"] })).toHaveLength(20);
    expect(w.remembered()).toEqual({ walks: 1, entries: 44 });
    // A depth limit decides what the walk reaches: a walk of its own.
    expect(listed(w, root, { max_depth: 1 })).toEqual(["d0", "d1", "d2", "d3"]);
    expect(w.remembered()).toEqual({ walks: 2, entries: 48 });
  },
);

test.skipIf(!linux)(
  "the remembered walks hold at most their budget of entries, the least recently used let go",
  async () => {
    const { root, warm: w } = await setUp(50);
    listed(w, root, {});
    expect(w.remembered()).toEqual({ walks: 1, entries: 44 });
    // 4 more entries make 48: both kept.
    listed(w, root, { max_depth: 1 });
    expect(w.remembered()).toEqual({ walks: 2, entries: 48 });
    // Another whole walk (44) is over the budget with them: the least recently used (the first) is let go.
    listed(w, root, { exclude: ["nothing-matches"] });
    expect(w.remembered()).toEqual({ walks: 2, entries: 48 });
    // The first query's walk is walked again (its answer whole) and the two older ones are let go for it.
    expect(listed(w, root, { patterns: ["*.ts"] })).toHaveLength(20);
    expect(w.remembered()).toEqual({ walks: 1, entries: 44 });
  },
);

test.skipIf(!linux)(
  "a walk of more entries than the budget is answered from, not kept, and lets go of none",
  async () => {
    const { root, warm: w } = await setUp(10);
    expect(listed(w, root, { max_depth: 1 })).toHaveLength(4);
    expect(w.remembered()).toEqual({ walks: 1, entries: 4 });
    expect(listed(w, root, {})).toHaveLength(44);
    expect(w.remembered()).toEqual({ walks: 1, entries: 4 });
  },
);
