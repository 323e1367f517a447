// A new walk key on the warm server (src/engine/index/warm.ts, docs/decisions/0032-freshness-model.md): its walk
// is recorded within the call only while the call's deadline and cancellation allow; the call then walks cold,
// and the recording goes on between calls, a slice at a time, giving the event loop its turns (the server
// answers other requests meanwhile), to be remembered when it ends.
import { afterEach, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
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

test.skipIf(!linux)(
  "a call past its deadline does not record a new walk; the recording goes on between calls, in turns (skipped off Linux or Bun)",
  async () => {
    const spec: Record<string, string> = {};
    for (let d = 0; d < 40; d++) for (let f = 0; f < 50; f++) spec[`d${d}/f${f}.txt`] = "x";
    const tree = tempTree(spec);
    cleanup = tree.cleanup;
    const root = realpathSync(tree.dir);
    const w = new WarmRoot(root, {
      maxFileSize: 1 << 20,
      budgetRatio: 0.5,
      budgetBytes: 1 << 26,
      watch: true,
      rememberedEntries: 100_000,
      sliceMs: 0,
    });
    warm = w;
    w.start();
    for (let i = 0; i < 2000 && w.status().state !== "ready"; i++) await Bun.sleep(10);
    expect(w.status()).toMatchObject({ watching: true, state: "ready" });
    const before = w.remembered().walks;
    // A key of its own (ignore files not read): not the index build's walk.
    const { plan } = compileWalk(
      v.parse(WalkOptionsSchema, { base: root, strict_base: true, respect_gitignore: false }),
      { cwd: root },
    );
    const walker = w.walker(plan);
    expect(walker).not.toBeNull();
    // The call's deadline has passed (shouldStop says so from the start): it gives nothing and records nothing.
    const release = w.hold();
    const it = (walker as (ctx: ReturnType<typeof quietContext>) => Iterator<Entry>)(
      quietContext(() => true),
    );
    let given = 0;
    for (let r = it.next(); !r.done; r = it.next()) given++;
    release();
    expect(given).toBe(0);
    expect(w.remembered().walks).toBe(before);
    // Between calls the recording goes on, a slice at a time: the event loop turns many times before it ends.
    let turns = 0;
    for (; turns < 1_000_000 && w.remembered().walks === before; turns++) {
      await new Promise((r) => setImmediate(r));
    }
    expect(w.remembered().walks).toBe(before + 1);
    expect(turns).toBeGreaterThan(10);
    // The next call replays it: every entry (2000 files and 40 directories).
    const all = (w.walker(plan) as (ctx: ReturnType<typeof quietContext>) => Iterator<Entry>)(quietContext());
    let n = 0;
    for (let r = all.next(); !r.done; r = all.next()) n++;
    expect(n).toBe(2040);
  },
);
