// Issue #21 item 1: a symlink swapped in during a walk never takes a read or a listing out of the root. A
// child process swaps directories and files with symlinks to an outside tree (by rename, in a loop) while the
// binary greps and lists; no outside content or name may ever appear. Bounded: a fixed number of runs, each
// with --timeout and a process-level kill guard.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, tempTree } from "../helpers.ts";

const outside = tempTree({
  "secret.txt": "OUTSIDE_SECRET line\n",
  "zz-outside-name.txt": "OUTSIDE_SECRET again\n",
});
const tree = tempTree({});
afterAll(() => {
  tree.cleanup();
  outside.cleanup();
});

const SWAPPED = 12;
/** A root whose swapped entries come after many files, so time passes between listing a parent and opening. */
function buildRoot(): string {
  const root = join(tree.dir, "root");
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root);
  for (let i = 0; i < 150; i++)
    writeFileSync(join(root, `a${String(i).padStart(3, "0")}.txt`), `INSIDE ${i}\n`);
  for (let i = 0; i < SWAPPED; i++) {
    mkdirSync(join(root, `d${i}`));
    writeFileSync(join(root, `d${i}`, "secret.txt"), "INSIDE dir\n");
    writeFileSync(join(root, `f${i}.txt`), "INSIDE file\n");
  }
  return root;
}

function swapper(root: string): ReturnType<typeof Bun.spawn> {
  const pairs: string[] = [];
  for (let i = 0; i < SWAPPED; i++) {
    pairs.push(`d${i}=${outside.dir}`, `f${i}.txt=${join(outside.dir, "secret.txt")}`);
  }
  return Bun.spawn([process.execPath, join(import.meta.dir, "swap-loop.ts"), root, "400000", ...pairs], {
    stdout: "ignore",
    stderr: "pipe",
  });
}

function run(args: string[], cwd: string): string {
  const r = Bun.spawnSync([BIN, ...args, "--timeout", "20"], {
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 30_000, // the kill guard
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.signalCode ?? null).toBeNull();
  return r.stdout.toString();
}

test.each([
  ["grep", ["grep", "-e", "INSIDE", "-e", "OUTSIDE_SECRET", "--jsonl"]],
  ["grep with workers, strict base", ["grep", "SECRET|INSIDE", "--threads", "2", "--strict-base", "--jsonl"]],
  ["find", ["find", "--jsonl"]],
  ["count", ["count", "--jsonl"]],
])(
  "a swapped-in symlink never leads %s outside the root",
  async (_name, args) => {
    const root = buildRoot();
    const child = swapper(root);
    const leaks: string[] = [];
    try {
      for (let i = 0; i < 25 && child.exitCode === null; i++) {
        const out = run(args, root);
        for (const line of out.split("\n")) {
          if (line.includes("OUTSIDE_SECRET") || line.includes("zz-outside-name")) leaks.push(line);
          // count: the outside file's size differs from every inside file's.
          if (args[0] === "count" && line.includes('"kind":"file"') && /"bytes":2[01]\b/.test(line))
            leaks.push(line);
        }
      }
    } finally {
      child.kill();
      await child.exited;
    }
    expect(leaks).toEqual([]);
  },
  120_000,
);
