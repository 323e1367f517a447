/*! A warm server whose watch's queue overflows keeps its index: every file it holds is stat'ed again, as a
 * restarted server checks the index it loads, and the served answers meanwhile and after are the cold run's.
 * The overflow is real: `rglob serve` is stopped (SIGSTOP) while the tree's files are read more times than its
 * inotify queue holds events, and edited; then it goes on (SIGCONT). Linux only (inotify). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keepTree, overflowStopped, sameAsColdIn, serveSandbox, sneakNeedle, until } from "./sandbox.ts";

const linux = process.platform === "linux";
const { root, run, servers, serve, end } = serveSandbox("rglob-overflow-");
const tree = keepTree(root);
/** A served call waits for the server (busy checking after the overflow) rather than running cold. */
const WAIT = { RGLOB_SERVE_WAIT_MS: "120000" };

let server: ReturnType<typeof Bun.spawn> | null = null;
let log = { text: "" };

/** The server's state as `rglob index --status --json` lists it. */
function state(): string {
  return String(servers().find((s) => s.root === root)?.state ?? "none");
}

/** Asserts a call is served (the server's count grows) and answers as the cold run does. */
const sameAsCold = sameAsColdIn({ root, run, servers }, WAIT);

const QUESTIONS: readonly (readonly string[])[] = [
  ["grep", "OVFNEEDLE"],
  ["grep", "-c", "OVFNEEDLE"],
  ["grep", "plain"],
  ["find", "*.txt"],
];

beforeAll(async () => {
  if (!linux) return;
  tree.make();
  ({ server, log } = serve());
  expect(await until(() => state() === "ready")).toBe(true);
  // The index answers and the watch vouches for it (the same calls are compared again after the overflow).
  for (const q of QUESTIONS) sameAsCold(q);
  expect(JSON.parse(sameAsCold(["grep", "OVFNEEDLE", "--json"]).stdout.toString()).source).toBe("index");
}, 300_000);

afterAll(() => end(server));

test.skipIf(!linux)(
  "an overflowed watch queue keeps the index: it is checked again by stat, the answers meanwhile and after are the cold run's, and the state never says building (skipped off Linux)",
  async () => {
    const pid = (server as { pid: number }).pid;
    overflowStopped(pid, tree.files(), () => {
      // Edits whose events are lost with the overflow: a change of the same size with its mtime restored (only
      // the ctime says so), a file that grows, one renamed, one deleted, one new.
      sneakNeedle(join(root, "keep", "same.txt"), "an OVFNEEDLE hid\n");
      writeFileSync(join(root, "keep", "grows.txt"), "plain words, and an OVFNEEDLE\n");
      mkdirSync(join(root, "other"));
      renameSync(join(root, "keep", "moved.txt"), join(root, "other", "moved.txt"));
      unlinkSync(join(root, "keep", "gone.txt"));
      writeFileSync(join(root, "d3", "fresh.txt"), "a fresh OVFNEEDLE\n");
    });
    const seen = new Set<string>();
    // The first answers after the overflow: exact while every file is checked again (the suspects read).
    for (const q of QUESTIONS) {
      sameAsCold(q);
      seen.add(state());
    }
    const first = JSON.parse(sameAsCold(["grep", "OVFNEEDLE", "--json"]).stdout.toString());
    expect(first.results.map((r: { relative_path: string }) => r.relative_path)).toEqual([
      "d3/fresh.txt",
      "keep/grows.txt",
      "keep/same.txt",
      "keep/stays.txt",
      "other/moved.txt",
    ]);
    // The queue did overflow, and the index was kept through it (not dropped for a new build).
    expect(await until(() => log.text.includes("queue overflowed"))).toBe(true);
    expect(log.text).toContain("the watch's queue overflowed: the index is kept");
    expect(log.text).not.toContain("the index is built again");
    expect(first.source).toBe("index");
    // Trusted again once every file is stat'ed; the state said ready throughout.
    expect(
      await until(() => {
        seen.add(state());
        return log.text.includes("the watch vouches for the files again");
      }),
    ).toBe(true);
    expect(log.text).toMatch(/every file checked again, [1-9]\d* of \d+ changed/);
    expect([...seen]).toEqual(["ready"]);
    for (const q of QUESTIONS) sameAsCold(q);
    expect(JSON.parse(sameAsCold(["grep", "OVFNEEDLE", "--json"]).stdout.toString()).source).toBe("index");
    // The watch is whole again: an edit after it is seen.
    writeFileSync(join(root, "d5", "f7.txt"), "ordinary OVFNEEDLE now\n");
    for (const q of QUESTIONS) sameAsCold(q);
    expect(state()).toBe("ready");
  },
  300_000,
);
