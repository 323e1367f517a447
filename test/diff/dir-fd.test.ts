/*! The descriptor route of the walk (src/platform/dir-fd.ts: openat from the parent's descriptor, getdents64;
 * #23) against the path route it replaced (RGLOB_DIR_FD=0: every directory opened by path and checked through
 * /proc/self/fd): on seeded random trees with ignore files, hidden entries, symlinks, a loop, a FIFO, a name
 * that is not UTF-8 and a chain deeper than the descriptors a walk keeps open, the compiled binary gives the
 * same bytes and exit code both ways, with and without walk workers. In process, a walk stopped early or run
 * to its end leaves no descriptor open, and in a hot loop the listings read through bun:ffi equal readdirSync's
 * and a file opened at its directory's descriptor is the file listed; runs stopped by a limit (grep, find with
 * and without walk workers, count) close the directories they held. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { compileWalk } from "../../src/engine/plan.ts";
import { quietContext } from "../../src/engine/run.ts";
import { walk } from "../../src/engine/walk.ts";
import { dispatch } from "../../src/ops/dispatch.ts";
import { findOperation } from "../../src/ops/registry.ts";
import { dirFds } from "../../src/platform/dir-fd.ts";
import { BIN, randomWalkTree, tempTree } from "../helpers.ts";

const linux = process.platform === "linux";

/** How many descriptors of this process are open on something under a directory (the runtime's own, such as
 * event loop and worker descriptors, are not counted). */
function openIn(dir: string): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir)) n++;
    } catch {}
  }
  return n;
}

/** A random tree: nested ignore files, dot names, symlinks, a loop, a FIFO, a bad name, a deep chain. */
function randomTree(seed: number): string {
  const rules = ["*.log", "build/", "!keep*.log", "/a*", "**/tmp*", "*.tmp", "!*.md", "src*/", "!.hidden*"];
  return randomWalkTree(seed, {
    dirs: 40,
    files: 150,
    names: ["a", "b", "src", "build", ".hidden", "x y", "é", "tmp", "keep", "Z", "lib", "日本"],
    content: (rnd, i) => `line x ${i}\n`.repeat(1 + Math.floor(rnd() * 3)),
    ignoreFiles(spec, d, rnd, pick) {
      if (rnd() < 0.3) spec[d === "" ? ".gitignore" : `${d}/.gitignore`] = `${pick(rules)}\n${pick(rules)}\n`;
    },
    // Deeper than the 64 descriptors a walk keeps open.
    more(spec) {
      spec[`${Array.from({ length: 90 }, (_, i) => `deep${i % 10}`).join("/")}/bottom.txt`] =
        "x at the bottom\n";
    },
    after(dir, some, pick) {
      writeFileSync(
        Buffer.concat([Buffer.from(`${join(dir, pick(some))}/bad-`), Buffer.from([0xff, 0xfe])]),
        "x\n",
      );
      if (linux) spawnSync("mkfifo", [join(dir, pick(some), "fifo")]);
    },
  });
}

function run(args: string[], cwd: string, env: Record<string, string>): string {
  const r = spawnSync(BIN, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, timeout: 60_000 });
  return `exit ${r.status}\n${r.stdout.toString()}\n${r.stderr.toString()}`;
}

const QUERIES: ReadonlyArray<readonly string[]> = [
  ["find", "--jsonl"],
  ["find", "-t", "f"],
  ["find", "--no-ignore", "--no-hidden", "--jsonl"],
  ["find", "-t", "d", "--max-depth", "40", "--jsonl"],
  ["find", "--jsonl", "--limit", "9"],
  ["find", "-L", "--jsonl"],
  ["find", "--strict-base", "--jsonl", "--hidden"],
  ["grep", "-n", "x"],
  ["count", "--jsonl"],
];

describe("the descriptor route equals the path route", () => {
  const trees: string[] = [];
  beforeAll(() => {
    for (let seed = 1; seed <= 5; seed++) trees.push(randomTree(seed));
  });
  afterAll(() => {
    for (const t of trees) rmSync(t, { recursive: true, force: true });
  });
  for (let i = 0; i < 5; i++)
    test.each(QUERIES.map((q) => [q.join(" "), q] as const))(`tree ${i + 1}: %s`, (_name, q) => {
      const dir = trees[i] as string;
      // Each with the reference of its own thread count (walk workers count skips ahead of a limit's cut).
      for (const split of ["0", "3"]) {
        const reference = run([...q], dir, { RGLOB_DIR_FD: "0", RGLOB_WALK_SPLIT: split });
        expect(run([...q], dir, { RGLOB_WALK_SPLIT: split })).toBe(reference);
      }
    });
});

// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("a walk stopped early or run to its end leaves no descriptor open (skipped off Linux)", async () => {
  const dir = randomTree(7);
  try {
    const ctx = quietContext();
    const open = () => readdirSync("/proc/self/fd").length;
    const input = v.parse((await findOperation("find").models()).input, { base: dir }) as Record<
      string,
      unknown
    >;
    const { plan } = compileWalk(input as never, { cwd: dir });
    const before = open();
    let n = 0;
    for (const e of walk(plan, ctx)) if (e.rel.startsWith("deep0/deep1/deep2") && ++n === 3) break;
    expect(n).toBe(3);
    expect(open()).toBe(before);
    let all = 0;
    for (const _ of walk(plan, ctx)) all++;
    expect(all).toBeGreaterThan(100);
    expect(open()).toBe(before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.skipIf(!linux)(
  "in a hot loop, listings equal readdirSync's and a file opened at its directory is it (skipped off Linux)",
  () => {
    const fds = dirFds();
    expect(fds).not.toBeNull();
    if (fds === null) return;
    const spec: Record<string, string | null> = {};
    for (let d = 0; d < 300; d++) {
      spec[`d${d % 17}/s${d}/é${d}`] = null;
      for (let f = 0; f < 6; f++) spec[`d${d % 17}/s${d}/f${f}-${"x".repeat(d % 40)}.txt`] = `${d} ${f}\n`;
    }
    const { dir, cleanup } = tempTree(spec);
    try {
      const dirs: string[] = [];
      const collect = (d: string): void => {
        dirs.push(d);
        for (const e of readdirSync(d, { withFileTypes: true }))
          if (e.isDirectory()) collect(join(d, e.name));
      };
      collect(dir);
      let wrong = 0;
      // Rounds enough for the optimising JIT to compile the loop that reads getdents64's buffer.
      for (let round = 0; round < 8; round++)
        for (const d of dirs) {
          const fd = openSync(d, constants.O_RDONLY | constants.O_DIRECTORY);
          try {
            const l = fds.list(fd);
            const want = readdirSync(d, { withFileTypes: true });
            if (
              l === null ||
              [...l.names].sort().join("/") !==
                want
                  .map((e) => e.name)
                  .sort()
                  .join("/")
            ) {
              wrong++;
              continue;
            }
            for (const e of want) {
              if ((l.others?.get(e.name) ?? "file") !== (e.isDirectory() ? "dir" : "file")) wrong++;
              if (e.isFile() && round % 4 === 0) {
                const st = lstatSync(join(d, e.name));
                const file = fds.openFileAt(fd, e.name);
                const got = file >= 0 ? fstatSync(file) : null;
                if (got === null || got.ino !== st.ino || got.dev !== st.dev) wrong++;
                if (file >= 0) closeSync(file);
              }
            }
          } finally {
            fds.close(fd);
          }
        }
      expect(wrong).toBe(0);
      // A symlink is never followed from the directory's descriptor (ELOOP: the path route reports it).
      symlinkSync(join(dir, "d0", "s0", "f0-.txt"), join(dir, "link.txt"));
      const top = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        expect(fds.openFileAt(top, "link.txt")).toBe(-1);
      } finally {
        fds.close(top);
      }
    } finally {
      cleanup();
    }
  },
);

test.skipIf(!linux)(
  "runs stopped by a limit leave no directory open (a long-lived server runs many) (skipped off Linux)",
  async () => {
    const dir = randomTree(8);
    try {
      const sink = { record() {}, error() {}, end() {} };
      const deep = { base: dir, limit: 2, patterns: ["**/deep5/**"] };
      const before = openIn(dir);
      for (const walkSplit of [0, 3]) {
        const o = { walkSplit };
        for (let i = 0; i < 3; i++) {
          await dispatch("grep", { pattern: "x", paths: [dir], limit: 1, threads: 0 }, sink, o);
          await dispatch("grep", { pattern: "bottom", paths: [dir], limit: 1, threads: 0 }, sink, o);
          await dispatch("find", { ...deep }, sink, o);
          await dispatch("find", { ...deep, min_size: "1" }, sink, o);
          await dispatch("count", { base: dir, limit: 1 }, sink, o);
        }
      }
      expect(before).toBe(0);
      // A walk worker asked to end finishes the task it is in first (bounded), closing its directories then.
      for (let i = 0; i < 250 && openIn(dir) > 0; i++) await Bun.sleep(20);
      expect(openIn(dir)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
