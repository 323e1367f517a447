// Special files (issue #8): files whose size is 0 but that have content (as under /proc) are read to their end;
// FIFOs and sockets given as explicit roots are never opened by any content operation (nothing hangs).
import { afterAll, expect, test } from "bun:test";
import { BIN, rglob, rglobJson, tempTree } from "../helpers.ts";

const tree = tempTree({ "a.txt": "plain TODO\n" });
const hasFifo = Bun.spawnSync(["mkfifo", `${tree.dir}/fifo`]).exitCode === 0;
if (!hasFifo) console.warn("SKIPPING the FIFO cases: mkfifo is not available here");
afterAll(() => tree.cleanup());
const status = `/proc/${process.pid}/status`;

test("a /proc file (size 0, with content) is searched and counted to its end", () => {
  const g = rglobJson<{ results: Array<{ line_number: number; content: string }> }>([
    "grep",
    "^Name:",
    status,
    "--json",
  ]);
  expect(g.run.code).toBe(0);
  expect(g.json.results).toHaveLength(1);
  expect(g.json.results[0]?.line_number).toBe(1);
  const c = rglobJson<{ results: Array<{ lines: number; bytes: number }> }>([
    "count",
    "--paths",
    status,
    "--json",
  ]);
  expect(c.run.code).toBe(0);
  expect(c.json.results[0]?.lines).toBeGreaterThan(5);
  expect(c.json.results[0]?.bytes).toBeGreaterThan(0);
});

test
  .skipIf(!hasFifo)
  .each([
    [["grep", "TODO", "fifo"]],
    [["count", "--paths", "fifo"]],
    [["dupes", "--paths", "fifo", "--paths", "a.txt"]],
    [["lcount", "fifo"]],
  ])("a FIFO root is never opened (skipped without mkfifo): %p ends", (args) => {
  const r = Bun.spawnSync([BIN, ...args, "--json"], {
    cwd: tree.dir,
    timeout: 20_000,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.signalCode ?? null).toBeNull();
  expect([0, 1, 2]).toContain(r.exitCode ?? -1);
  expect(r.stderr.toString()).not.toContain("internal error");
});

test("count and grep of the same tree agree on a file without a final newline", () => {
  const t = tempTree({ "x.txt": "one TODO\ntwo TODO" });
  try {
    const g = rglobJson<{ results: Array<{ line_number: number }> }>(["grep", "TODO", "--json"], {
      cwd: t.dir,
    });
    expect(g.json.results.map((m) => m.line_number)).toEqual([1, 2]);
    expect(rglob(["lcount", "*.txt"], { cwd: t.dir }).stdout).toContain("Total lines: 2");
  } finally {
    t.cleanup();
  }
});
