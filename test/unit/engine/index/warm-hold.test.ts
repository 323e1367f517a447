// The warm server's background work (src/engine/index/warm.ts) waits while a call is answered: the watch's set-up
// and the index build run on the server's one thread in slices, and a call held (`hold`, as rglob mcp holds each
// tool call) has the thread to itself until it is released. Slices of no time (a turn after each step), so the
// work takes many turns and the test does not depend on the machine's speed.
import { afterEach, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { WarmRoot } from "../../../../src/engine/index/warm.ts";
import { tempTree } from "../../../helpers.ts";

const linux = process.platform === "linux" && typeof Bun !== "undefined";
if (!linux)
  console.warn("SKIPPED: the watch's set-up in slices needs the tree's own watch (Linux under Bun)");

let warm: WarmRoot | null = null;
let cleanup: (() => void) | null = null;
afterEach(() => {
  warm?.close();
  warm = null;
  cleanup?.();
});

/** A warm root (not started) over 60 directories of 4 files each. */
function warmRoot(): WarmRoot {
  const spec: Record<string, string> = {};
  for (let d = 0; d < 60; d++) for (let f = 0; f < 4; f++) spec[`d${d}/f${f}.txt`] = `file ${d} ${f}\n`;
  const tree = tempTree(spec);
  cleanup = tree.cleanup;
  warm = new WarmRoot(realpathSync(tree.dir), {
    maxFileSize: 1 << 20,
    budgetRatio: 0.5,
    budgetBytes: 1 << 26,
    watch: true,
    rememberedEntries: 1_000_000,
    sliceMs: 0,
  });
  return warm;
}

/** Waits (in timer turns, as a server idles) until the state is as wanted, at most 10 s. */
async function until(w: WarmRoot, wanted: (s: ReturnType<WarmRoot["status"]>) => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !wanted(w.status()); i++) await Bun.sleep(10);
}

test.skipIf(!linux)(
  "the watch's set-up waits while a call is held, and goes on once it is released (skipped off Linux or Bun)",
  async () => {
    const w = warmRoot();
    const release = w.hold();
    w.start();
    // 100 ms of timers: the set-up has had many turns of the event loop and taken none of them.
    await Bun.sleep(100);
    expect(w.status()).toMatchObject({ watching: false, state: "building", files: null });
    release();
    await until(w, (s) => s.state === "ready");
    expect(w.status()).toMatchObject({ watching: true, state: "ready", files: 240 });
  },
);

test.skipIf(!linux)(
  "the index build waits while a call is held, and goes on once it is released (skipped off Linux or Bun)",
  async () => {
    const w = warmRoot();
    w.start();
    // Held as soon as the watch is up (the build then has 240 files to go, a turn after each).
    for (let i = 0; i < 100_000 && !w.status().watching; i++) await new Promise((r) => setImmediate(r));
    expect(w.status()).toMatchObject({ watching: true, state: "building" });
    const release = w.hold();
    await Bun.sleep(100);
    expect(w.status()).toMatchObject({ state: "building", files: null });
    // A second hold released while the first is still held changes nothing; the last release lets it go on.
    const second = w.hold();
    second();
    second();
    await Bun.sleep(50);
    expect(w.status().state).toBe("building");
    release();
    await until(w, (s) => s.state === "ready");
    expect(w.status()).toMatchObject({ state: "ready", files: 240 });
  },
);
