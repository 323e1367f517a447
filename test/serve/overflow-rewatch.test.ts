/*! After its watch's queue overflows, a warm server watches the tree again a slice at a time (as its first set-up)
 * and answers meanwhile. The set-up is held after its first slice (RGLOB_TEST_REWATCH_GATE) and the test reads
 * which directories the server's inotify descriptor watches (/proc/PID/fdinfo): a file made or changed in one not
 * watched yet has no event, and must still be found; nothing remembered while the watch was partial may answer
 * for it. Every served answer is the cold run's. The overflow is real (SIGSTOP while the tree is read). Linux
 * only. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { leafTree, overflowStopped, sameAsColdIn, serveSandbox, until, watchedInodes } from "./sandbox.ts";

const linux = process.platform === "linux";
const { outer, root, run, servers, serve, end } = serveSandbox("rglob-overflow-rewatch-");
const gate = join(outer, "rewatch-gate");
/** A served call shares the server's settings and waits for it rather than running cold. */
const sameAsCold = sameAsColdIn(
  { root, run, servers },
  { RGLOB_TEST_REWATCH_GATE: gate, RGLOB_SERVE_WAIT_MS: "120000" },
);

let server: ReturnType<typeof Bun.spawn> | null = null;
let log = { text: "" };

/** The tree: 80 × 100 leaf directories, enough that one slice of the set-up (20 ms) cannot watch them all; `sneak`
 * changes a file keeping its size and mtime: only the ctime says so (the index rules the file out). */
const { leaf, make, files: leafFiles, unwatched: unwatchedLeaves, sneak } = leafTree(root, "REWATCHNEEDLE");

/** The files served `grep -l REWATCHNEEDLE` lists, after checking it and its count answer as the cold run. */
function found(): string[] {
  sameAsCold(["grep", "-c", "REWATCHNEEDLE"]);
  return sameAsCold(["grep", "-l", "REWATCHNEEDLE"]).stdout.toString().trim().split("\n").filter(Boolean);
}

beforeAll(async () => {
  if (!linux) return;
  make();
  ({ server, log } = serve({ RGLOB_TEST_REWATCH_GATE: gate }));
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
  expect(found()).toEqual([]);
}, 300_000);

afterAll(() => end(server));

test.skipIf(!linux)(
  "while the tree is watched again after an overflow, a slice at a time, files made or changed where it does not watch yet are found, and nothing remembered meanwhile answers (skipped off Linux)",
  async () => {
    const pid = (server as { pid: number }).pid;
    overflowStopped(pid, leafFiles(), () => {
      sneak(join(leaf(0, 0), "f.txt"));
    });
    expect(
      await until(() => log.text.includes("the watch set up again after an overflow waits at its gate")),
    ).toBe(true);
    // Partial: some directories watched, not all.
    const watched = watchedInodes(pid);
    const unwatched = unwatchedLeaves(pid);
    expect(watched.size).toBeGreaterThan(0);
    expect(unwatched.length).toBeGreaterThan(2);
    expect(found()).toEqual([join(leaf(0, 0), "f.txt")]);
    // A walk answered now is not remembered: a file made where no watch is is listed by the next one.
    sameAsCold(["find", "*.txt"]);
    const made = join(unwatched[0] as string, "made.txt");
    writeFileSync(join(root, made), "a REWATCHNEEDLE made\n");
    expect(sameAsCold(["find", "made.txt"]).stdout.toString().trim()).toBe(made);
    // A file changed where no watch is (the index rules it out): stat'ed, found.
    const changed = join(unwatched[1] as string, "f.txt");
    sneak(changed);
    expect(found()).toEqual([join(leaf(0, 0), "f.txt"), changed, made].sort());
    expect(log.text).not.toContain("the watch vouches for the files again");
    // Let go: the watch is whole, every file checked again, and it vouches.
    writeFileSync(gate, "");
    expect(await until(() => log.text.includes("the watch vouches for the files again"))).toBe(true);
    const later = join(unwatched[2] as string, "f.txt");
    writeFileSync(join(root, later), "a REWATCHNEEDLE later\n");
    expect(found()).toEqual([join(leaf(0, 0), "f.txt"), changed, made, later].sort());
    expect(log.text).not.toContain("the index is built again");
  },
  300_000,
);
