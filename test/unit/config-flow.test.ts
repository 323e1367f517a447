// The Config reaches the walk as data (#35): the CLI passes main's Config to the run, whose walk split decides
// whether walk workers take part; nothing below reads the environment (test/unit/config.test.ts holds that).
import { expect, test } from "bun:test";
import { readConfig, readHost } from "../../src/config.ts";
import { walkWorkerTasks } from "../../src/engine/walk-pool.ts";
import { runCli } from "../../src/surface/cli/app.ts";
import { tempTree } from "../helpers.ts";

test("the CLI's Config decides the walk split: workers on every walk with RGLOB_WALK_SPLIT=2, none by default", async () => {
  const spec: Record<string, string> = {};
  for (let d = 0; d < 6; d++) for (let f = 0; f < 6; f++) spec[`d${d}/s/f${f}.txt`] = "x";
  const { dir, cleanup } = tempTree(spec);
  try {
    const argv = ["stats", "--base", dir, "--json"];
    const before = walkWorkerTasks.answered;
    expect(await runCli([...argv], undefined, readConfig({}), readHost({}))).toBe(0);
    // A small tree walks in the calling thread when nothing asks otherwise.
    expect(walkWorkerTasks.answered).toBe(before);
    expect(await runCli([...argv], undefined, readConfig({ RGLOB_WALK_SPLIT: "2" }), readHost({}))).toBe(0);
    expect(walkWorkerTasks.answered).toBeGreaterThan(before);
  } finally {
    cleanup();
  }
});
