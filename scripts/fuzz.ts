/*! The long fuzz run: `bun scripts/fuzz.ts [--runs N] [--seed S]` over every operation of dist/rglob, on a copy
 * of fixtures/tree. Prints each violation and exits 1 if any (the bounded run is test/hardening/fuzz.test.ts). */
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRun, type DescribedFlag, prng, randomArgs } from "../test/hardening/fuzz-lib.ts";

const root = join(import.meta.dir, "..");
const bin = process.env.RGLOB_BIN ?? join(root, "dist", "rglob");
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const runs = arg("runs", 2000);
const seed = arg("seed", Date.now() & 0xffff);
const work = realpathSync(mkdtempSync(join(tmpdir(), "rglob-fuzz-")));
const base = join(work, "tree");
cpSync(join(root, "fixtures", "tree"), base, { recursive: true });
const json = (args: string[]) => JSON.parse(Bun.spawnSync([bin, ...args]).stdout.toString());
const ops: string[] = json(["capabilities"]).operations;
const rand = prng(seed);
let bad = 0;
console.log(`fuzzing ${ops.join(", ")} with seed ${seed}, ${runs} runs`);
for (let i = 0; i < runs; i++) {
  const op = ops[Math.floor(rand() * ops.length)] as string;
  const flags: DescribedFlag[] = json(["describe", op]).flags;
  const args = randomArgs(rand, op, flags);
  const res = Bun.spawnSync([bin, ...args], {
    cwd: base,
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  const verdict = checkRun(
    args,
    res.signalCode ? null : res.exitCode,
    res.stdout.toString(),
    res.stderr.toString(),
    base,
  );
  if (verdict) {
    bad++;
    console.log(`FAIL ${JSON.stringify(args)}: ${verdict}`);
  }
}
rmSync(work, { recursive: true, force: true });
console.log(`${runs - bad} passed, ${bad} failed`);
process.exit(bad > 0 ? 1 : 0);
