/*! A warm server whose watch's queue overflows while its index is being built: the index that build ends with
 * is checked as one kept through an overflow (every file stat'ed again), never trusted as is, so a file the build
 * read before the overflow and changed while events were lost (same size, mtime restored: only the ctime says so)
 * is not ruled out. The overflow is real: `rglob serve`'s build, every file read, waits at its gate
 * (RGLOB_TEST_BUILD_GATE) while the server is stopped (SIGSTOP), the tree read more times than its inotify queue
 * holds events and edited; it goes on (SIGCONT), a served call takes the overflow in, then the gate opens. The
 * same for a rebuild (many files changed), the gate closed again. Linux only (inotify). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keepTree, overflowStopped, sameAsColdIn, serveSandbox, sneakNeedle, until } from "./sandbox.ts";

const linux = process.platform === "linux";
const { outer, root, run, servers, serve, end } = serveSandbox("rglob-overflow-build-");
const tree = keepTree(root);
const gate = join(outer, "gate");
/**
 * The server's settings, which a served call must share (the gate's among them); a served call waits for the
 * server (busy building, then checking) rather than running cold.
 */
const SERVED = { RGLOB_TEST_BUILD_GATE: gate, RGLOB_SERVE_WAIT_MS: "120000" };

let server: ReturnType<typeof Bun.spawn> | null = null;
let log = { text: "" };

function ours(): Record<string, unknown> | undefined {
  return servers().find((s) => s.root === root);
}

/** Asserts a call is served (the server's count grows) and answers as the cold run does. */
const sameAsCold = sameAsColdIn({ root, run, servers }, SERVED);

const QUESTIONS: readonly (readonly string[])[] = [
  ["grep", "OVFNEEDLE"],
  ["grep", "-c", "OVFNEEDLE"],
  ["grep", "plain"],
  ["find", "*.txt"],
];

/** The paths grep's JSON names for OVFNEEDLE (served, compared with the cold run), and its source. */
function needles(): { readonly paths: string[]; readonly source: unknown } {
  const o = JSON.parse(sameAsCold(["grep", "OVFNEEDLE", "--json"]).stdout.toString());
  return { paths: o.results.map((r: { relative_path: string }) => r.relative_path), source: o.source };
}

/** How many times the log holds a line. */
function times(line: string): number {
  return log.text.split(line).length - 1;
}

/** Overflows the server's watch queue (overflowStopped), the edits made while its events are lost. */
const overflow = (edit: () => void): void =>
  overflowStopped((server as { pid: number }).pid, tree.files(), edit);

/** Writes a file's `quiet words here` as `an OVFNEEDLE hid` (the same size) and restores its times. */
const sameSizeSameMtime = (path: string): void => sneakNeedle(path, "an OVFNEEDLE hid\n");

beforeAll(async () => {
  if (!linux) return;
  tree.make();
  writeFileSync(join(root, "keep", "later.txt"), "quiet words here\n");
  ({ server, log } = serve({ RGLOB_TEST_BUILD_GATE: gate }));
  // Every file read (keep/same.txt among them, as it was), the build waits at the gate.
  expect(await until(() => log.text.includes("the build waits at its gate"))).toBe(true);
  expect(ours()?.state).toBe("building");
}, 300_000);

afterAll(() => end(server, SERVED));

test.skipIf(!linux)(
  "an overflow of the watch's queue while the index is built: the built index is checked by stat before the watch vouches for it, and every answer is the cold run's (skipped off Linux)",
  async () => {
    overflow(() => {
      // Edits whose events are lost with the overflow, of files the build has read: a change of the same size
      // with its mtime restored (only the ctime says so), a file that grows, one renamed, one deleted, one new.
      sameSizeSameMtime(join(root, "keep", "same.txt"));
      writeFileSync(join(root, "keep", "grows.txt"), "plain words, and an OVFNEEDLE\n");
      mkdirSync(join(root, "other"));
      renameSync(join(root, "keep", "moved.txt"), join(root, "other", "moved.txt"));
      unlinkSync(join(root, "keep", "gone.txt"));
      writeFileSync(join(root, "d3", "fresh.txt"), "a fresh OVFNEEDLE\n");
    });
    const want = ["d3/fresh.txt", "keep/grows.txt", "keep/same.txt", "keep/stays.txt", "other/moved.txt"];
    // A served call while the build is held: it takes the overflow in (settle) and walks cold.
    expect(needles().paths).toEqual(want);
    expect(ours()?.state).toBe("building");
    writeFileSync(gate, "");
    expect(await until(() => ours()?.state === "ready")).toBe(true);
    // The built index answers at once, each file it rules out stat'ed until every file is checked again.
    for (const q of QUESTIONS) sameAsCold(q);
    expect(needles()).toEqual({ paths: want, source: "index" });
    // (The log is read between awaits: the calls above are synchronous.)
    expect(
      await until(() => log.text.includes("the watch's queue overflowed while the index was built")),
    ).toBe(true);
    expect(await until(() => log.text.includes("the watch vouches for the files again"))).toBe(true);
    expect(log.text).toMatch(/every file checked again, [1-9]\d* of \d+ changed/);
    for (const q of QUESTIONS) sameAsCold(q);
    expect(needles()).toEqual({ paths: want, source: "index" });
    // The watch vouches again: an edit now is its event.
    writeFileSync(join(root, "d5", "f7.txt"), "ordinary OVFNEEDLE now\n");
    expect(needles().paths).toEqual([...want.slice(0, 1), "d5/f7.txt", ...want.slice(1)]);
    expect(ours()?.state).toBe("ready");
  },
  300_000,
);

test.skipIf(!linux)(
  "an overflow of the watch's queue while the index is built again (many files changed): the new index is checked by stat too (skipped off Linux)",
  async () => {
    // The gate closed again, and a rebuild: more than 256 files (and 5% of them) changed since the index was built.
    rmSync(gate);
    for (const file of tree.files().slice(0, 300))
      writeFileSync(file, "ordinary words again\nnothing to see\n");
    expect(await until(() => times("the build waits at its gate") === 2)).toBe(true);
    expect(ours()?.state).toBe("ready");
    overflow(() => sameSizeSameMtime(join(root, "keep", "later.txt")));
    // Served answers are compared with the cold run's (sameAsCold); the file edited unseen is among them.
    const edited = (n: { readonly paths: string[] }) => n.paths.includes("keep/later.txt");
    // The old index is dropped (the build under way will be the index): the served call walks cold.
    expect(edited(needles())).toBe(true);
    expect(await until(() => log.text.includes("the index is built again"))).toBe(true);
    writeFileSync(gate, "");
    expect(await until(() => ours()?.state === "ready")).toBe(true);
    for (const q of QUESTIONS) sameAsCold(q);
    const first = needles();
    expect({ edited: edited(first), source: first.source }).toEqual({ edited: true, source: "index" });
    expect(await until(() => times("the watch's queue overflowed while the index was built") === 2)).toBe(
      true,
    );
    expect(await until(() => times("the watch vouches for the files again") === 2)).toBe(true);
    for (const q of QUESTIONS) sameAsCold(q);
    const after = needles();
    expect({ edited: edited(after), source: after.source }).toEqual({ edited: true, source: "index" });
  },
  300_000,
);
