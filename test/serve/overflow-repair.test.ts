/*! After its watch's queue overflows, a warm server repairs the watch in place: the same inotify descriptor and
 * watches (an overflow loses events, not watches), every directory stat'ed against the words it had when it was
 * listed, and only those that differ listed again (a directory made, moved in or made again at a path watched from
 * then on). Edits made while events were lost (a file changed with its size and mtime put back, a directory made
 * with a file in it, one renamed, one removed, one removed and made again, a file moved to another directory) are
 * found by the calls right after the overflow and after the watch vouches again, and what is written later in
 * the directories made, renamed or made again is found too. Every served answer is the cold run's. The overflow is
 * real (SIGSTOP while the tree is read). Linux only. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  foundBy,
  inotifyFds,
  leafTree,
  overflowStopped,
  sameAsColdIn,
  serveSandbox,
  until,
  watchedInodes,
} from "./sandbox.ts";

const linux = process.platform === "linux";
const { root, run, servers, serve, end } = serveSandbox("rglob-overflow-repair-");
/** A served call waits for the server rather than running cold. */
const sameAsCold = sameAsColdIn({ root, run, servers }, { RGLOB_SERVE_WAIT_MS: "120000" });

let server: ReturnType<typeof Bun.spawn> | null = null;
let log = { text: "" };

/** The tree: 80 × 100 leaf directories with a file each; `sneak` changes a file keeping its size and mtime: only
 * the ctime says so (the index rules the file out). */
const { leaf, make, files: leafFiles, unwatched: unwatchedLeaves, sneak } = leafTree(root, "REPAIRNEEDLE");

/** The files served `grep -l REPAIRNEEDLE` lists, after checking it, its count and a find as the cold run. */
const found = (): string[] => foundBy(sameAsCold, "REPAIRNEEDLE");

beforeAll(async () => {
  if (!linux) return;
  make();
  // A directory whose newest time is less than 2 s old when the watch takes its words is listed again after an
  // overflow whatever it says (a change in the same tick of the clock would not show): this tree is older.
  await Bun.sleep(2_100);
  ({ server, log } = serve());
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
  expect(found()).toEqual([]);
}, 300_000);

afterAll(() => end(server));

test.skipIf(!linux)(
  "after an overflow the watch is repaired in place, listing only the directories that changed; edits made while events were lost are found at once and after the watch vouches again (skipped off Linux)",
  async () => {
    const pid = (server as { pid: number }).pid;
    const descriptors = inotifyFds(pid);
    const lost = join(leaf(0, 0), "f.txt");
    const made = join(leaf(0, 1), "made");
    const renamed = `${leaf(1, 5)}x`;
    const again = leaf(3, 3);
    const moved = join(leaf(4, 4), "moved.txt");
    overflowStopped(pid, leafFiles(), () => {
      // While events are lost: a file changed (size and mtime put back), a directory made with a file in it, a
      // leaf renamed, one removed, one removed and made again with a file, a file moved to another leaf.
      sneak(lost);
      mkdirSync(join(root, made));
      writeFileSync(join(root, made, "in.txt"), "a REPAIRNEEDLE made while lost\n");
      renameSync(join(root, leaf(1, 5)), join(root, renamed));
      rmSync(join(root, leaf(2, 7)), { recursive: true });
      rmSync(join(root, again), { recursive: true });
      mkdirSync(join(root, again));
      writeFileSync(join(root, again, "g.txt"), "a REPAIRNEEDLE made again\n");
      writeFileSync(join(root, leaf(4, 0), "m.txt"), "a REPAIRNEEDLE to move\n");
      renameSync(join(root, leaf(4, 0), "m.txt"), join(root, moved));
    });
    const want = [lost, join(made, "in.txt"), join(again, "g.txt"), moved].sort();
    // The first call after the overflow drains the queue, and the watch is repaired before it answers.
    expect(found()).toEqual(want);
    expect(await until(() => log.text.includes("the watch's queue overflowed: the watch was repaired"))).toBe(
      true,
    );
    const repaired =
      /the watch was repaired in \d+ ms, (\d+) of its (\d+) directories listed again, (\d+) added/.exec(
        log.text,
      );
    // Listed again: the directories where an entry was made, renamed, removed or moved (p00/d01, p01, p02, p03,
    // p04/d00, p04/d04); added: the directory made, the one renamed, the one made again.
    expect({ listed: Number(repaired?.[1]), added: Number(repaired?.[3]) }).toEqual({ listed: 6, added: 3 });
    expect(Number(repaired?.[2])).toBeGreaterThan(8_000);
    // The same descriptor: nothing was watched from scratch.
    expect(inotifyFds(pid)).toEqual(descriptors);
    expect(await until(() => log.text.includes("the watch vouches for the files again"))).toBe(true);
    expect(found()).toEqual(want);
    // The directories made, renamed and made again are watched: what is written there now is found.
    const watched = watchedInodes(pid);
    expect(unwatchedLeaves(pid)).toEqual([]);
    expect([made, renamed, again].filter((d) => !watched.has(statSync(join(root, d)).ino))).toEqual([]);
    const later = [join(made, "late.txt"), join(renamed, "late.txt"), join(again, "late.txt")];
    for (const f of later) writeFileSync(join(root, f), "a REPAIRNEEDLE late\n");
    sneak(join(leaf(5, 5), "f.txt"));
    expect(found()).toEqual([...want, ...later, join(leaf(5, 5), "f.txt")].sort());
    expect(log.text).not.toContain("the index is built again");
    expect(log.text).not.toContain("checking files per query");
  },
  300_000,
);
