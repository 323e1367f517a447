// A bounded, seeded fuzz run of every CLI operation (the long run is `bun scripts/fuzz.ts`): random and
// adversarial flags and operands must end with a clear error or a valid result, exit 0/1/2, no stack trace,
// no hang past the timeout and, under --strict-base, no path outside the base.
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, FIXTURE, rglobJson } from "../helpers.ts";
import { checkRun, type DescribedFlag, prng, randomArgs } from "./fuzz-lib.ts";

const work = realpathSync(mkdtempSync(join(tmpdir(), "rglob-fuzz-")));
cpSync(FIXTURE, join(work, "tree"), { recursive: true });
const base = join(work, "tree");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ops = (rglobJson(["capabilities"]).json as { operations: string[] }).operations;
const RUNS_PER_OP = Number(process.env.RGLOB_FUZZ_RUNS ?? 40);

test.each(ops)("fuzz %s", async (op) => {
  const flags = (rglobJson(["describe", op]).json as { flags: DescribedFlag[] }).flags;
  const rand = prng(0x5eed ^ op.length ^ op.charCodeAt(0));
  const failures: string[] = [];
  for (let i = 0; i < RUNS_PER_OP; i++) {
    const args = randomArgs(rand, op, flags);
    const proc = Bun.spawn([BIN, ...args], {
      cwd: base,
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    const [stdout, stderr] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    const code = await proc.exited;
    clearTimeout(killer);
    const verdict = checkRun(args, proc.signalCode ? null : code, stdout, stderr, base);
    if (verdict) failures.push(`${JSON.stringify(args)} → ${verdict}`);
  }
  expect(failures).toEqual([]);
});
