// The benchmark scripts' command line: a run count or size that is not a whole number ≥ 1, a positional
// argument or an unknown flag stops the script with its usage, instead of a run with NaN repetitions (which
// once crashed bench-dupes after its first corpus).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { parseBenchArgs, schedTimes } from "../../scripts/bench-args.ts";

const USAGE = "bun scripts/bench-x.ts [--runs=N] [--files=N] [--only=CORPUS]";
const parse = (...argv: string[]) => parseBenchArgs(USAGE, { files: "count", only: "text" }, 5, argv);

describe("benchmark arguments", () => {
  test("defaults, and every flag a script declares", () => {
    expect(parse().runs).toBe(5);
    const a = parse("--runs=7", "--files=1000", "--only=large");
    expect([a.runs, a.count("files", 200_000), a.get("only")]).toEqual([7, 1000, "large"]);
    expect(parse().count("files", 200_000)).toBe(200_000);
    expect(parse().get("only")).toBeUndefined();
  });

  test.each([
    [["5"], "unexpected argument '5'"],
    [["--run=3"], "unexpected argument '--run=3'"],
    [["--runs"], "unexpected argument '--runs'"],
    [["--runs=0"], "--runs must be a whole number of at least 1, not '0'"],
    [["--runs=2.5"], "--runs must be a whole number of at least 1, not '2.5'"],
    [["--runs="], "--runs must be a whole number of at least 1, not ''"],
    [["--files=x"], "--files must be a whole number of at least 1, not 'x'"],
  ])("%p is refused with the usage", (argv, message) => {
    expect(() => parse(...argv)).toThrow(`${message}\nusage: ${USAGE}`);
  });
});

// bench-restart-nowhere splits a slow call's wait by the threads' schedstat: a thread that keeps a core busy is
// either on it or waiting for it, so the two add up to about the time it spun, whatever the machine's load.
describe.skipIf(!existsSync("/proc/self/task"))("a process's threads' time (schedstat)", () => {
  test("a spinning main thread's time is on a core or waiting for one", () => {
    const before = schedTimes("self");
    const until = performance.now() + 60;
    while (performance.now() < until) {
      // spin
    }
    const after = schedTimes("self");
    expect(after.cpu).toBeGreaterThan(before.cpu);
    expect(after.cpu + after.queued - (before.cpu + before.queued)).toBeGreaterThan(45);
  });

  test("a process that is gone has no time", () => {
    const gone = spawnSync("true").pid as number;
    expect(schedTimes(gone)).toEqual({ cpu: 0, queued: 0, others: 0 });
  });
});
