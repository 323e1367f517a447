// The warm server's own tree watch (src/platform/tree-watch.ts, ADR 0028): every change made before drain() is
// among the events drain() hands over, with the path relative to the root; directories made or moved in are
// watched from their event on; nothing in a VCS directory (`.git`, `.hg`, …) is watched. Linux under Bun only (elsewhere
// watchTree answers null and the server takes fs.watch).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeName } from "../../../src/platform/names.ts";
import { type TreeWatch, watchTree, watchTreeInSlices } from "../../../src/platform/tree-watch.ts";

const linux = process.platform === "linux";
if (!linux) console.warn("SKIPPED: the tree watch is Linux only (tree-watch tests)");

let dir: string;
let watch: TreeWatch;
let seen: Array<[string, string | null]>;
let lost: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-treewatch-"));
  mkdirSync(join(dir, "sub", "deep"), { recursive: true });
  mkdirSync(join(dir, ".git", "objects", "ab"), { recursive: true });
  mkdirSync(join(dir, ".git", "info"));
  writeFileSync(join(dir, "sub", "deep", "old.txt"), "old\n");
  seen = [];
  lost = [];
  const w = linux
    ? watchTree(dir, { onEvent: (e, rel) => seen.push([e, rel]), onLost: (r) => lost.push(r) })
    : null;
  if (linux) expect(w).not.toBeNull();
  watch = w as TreeWatch;
});

afterEach(() => {
  onThread = false;
  watch?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Whether the watch's events are read on a thread of its own (readOnThread) in this case. */
let onThread = false;

/** The events drain() hands over now, as "event rel" strings. */
function drained(): string[] {
  seen = [];
  // Read on its thread, the events are in its ring by now (it polls for them), not in the kernel's queue.
  if (onThread) Bun.sleepSync(20);
  watch.drain();
  return seen.map(([e, rel]) => `${e} ${rel}`);
}

// Each case twice: the events read by drain() alone, and read first by a thread of the watch's own as they are
// queued (readOnThread, as a server does), kept for drain() in the order the kernel queued them.
for (const threaded of [false, true])
  describe.skipIf(!linux)(
    `tree watch${threaded ? ", read on a thread of its own" : ""} (skipped off Linux)`,
    () => {
      beforeEach(() => {
        onThread = threaded;
        if (threaded) expect(watch.readOnThread()).toBe(true);
      });

      test("nothing changed: nothing to hand over", () => {
        expect(drained()).toEqual([]);
      });

      test("a file created, written, removed: each change is there at once, by its path below the root", () => {
        writeFileSync(join(dir, "sub", "deep", "new.txt"), "x");
        expect(drained()).toContain("rename sub/deep/new.txt");
        writeFileSync(join(dir, "sub", "deep", "old.txt"), "changed\n");
        expect(drained()).toContain("change sub/deep/old.txt");
        unlinkSync(join(dir, "sub", "deep", "new.txt"));
        expect(drained()).toEqual(["rename sub/deep/new.txt"]);
      });

      test("a directory tree made at once: reported as a renamed directory, and watched from then on", () => {
        mkdirSync(join(dir, "a", "b", "c"), { recursive: true });
        // Made before its directories are watched: the report of "a" as renamed covers it.
        writeFileSync(join(dir, "a", "b", "c", "early.txt"), "x");
        expect(drained()).toContain("rename a");
        writeFileSync(join(dir, "a", "b", "c", "late.txt"), "x");
        expect(drained()).toContain("rename a/b/c/late.txt");
      });

      test("a directory moved: both names reported, and its files reported under the new one", () => {
        renameSync(join(dir, "sub"), join(dir, "moved"));
        expect(drained()).toEqual(["rename sub", "rename moved"]);
        writeFileSync(join(dir, "moved", "deep", "old.txt"), "again\n");
        expect(drained()).toContain("change moved/deep/old.txt");
        // Moved out of the tree and back in.
        const outside = mkdtempSync(join(tmpdir(), "rglob-treewatch-out-"));
        try {
          renameSync(join(dir, "moved"), join(outside, "x"));
          expect(drained()).toEqual(["rename moved"]);
          writeFileSync(join(outside, "x", "deep", "old.txt"), "outside\n");
          expect(drained()).toEqual([]);
          renameSync(join(outside, "x"), join(dir, "back"));
          expect(drained()).toEqual(["rename back"]);
          writeFileSync(join(dir, "back", "deep", "old.txt"), "inside\n");
          expect(drained()).toContain("change back/deep/old.txt");
        } finally {
          rmSync(outside, { recursive: true, force: true });
        }
      });

      test("nothing in a VCS directory is watched, only its entry in the directory that holds it", () => {
        // The inotify watches this process holds (the test's own tree watch), from /proc/self/fdinfo.
        const watches = () => {
          let n = 0;
          for (const fd of readdirSync("/proc/self/fd")) {
            let link = "";
            try {
              link = readlinkSync(`/proc/self/fd/${fd}`);
            } catch {}
            if (link === "anon_inode:inotify")
              n += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").split("inotify wd:").length - 1;
          }
          return n;
        };
        // The root, sub and sub/deep: not .git, .git/objects, .git/objects/ab nor .git/info.
        expect(watches()).toBe(3);
        writeFileSync(join(dir, ".git", "objects", "ab", "cdef"), "blob");
        writeFileSync(join(dir, ".git", "info", "exclude"), "*.log\n");
        mkdirSync(join(dir, ".git", "logs"));
        expect(drained()).toEqual([]);
        // A Mercurial store made in a directory: its entry is an event, what is in it never is.
        mkdirSync(join(dir, "sub", ".hg", "store", "data"), { recursive: true });
        expect(drained()).toEqual(["rename sub/.hg"]);
        for (let i = 0; i < 20; i++) mkdirSync(join(dir, "sub", ".hg", "store", "data", `d${i}`));
        writeFileSync(join(dir, "sub", ".hg", "store", "data", "d0", "f.i"), "rev");
        expect(drained()).toEqual([]);
        expect(watches()).toBe(3);
        // A directory made beside it is watched.
        mkdirSync(join(dir, "sub", "new"));
        expect(drained()).toEqual(["rename sub/new"]);
        expect(watches()).toBe(4);
      });

      test("reads of .git and its files name nothing for the look at every process", () => {
        writeFileSync(join(dir, ".git", "config"), "[core]\n");
        writeFileSync(join(dir, ".git", "info", "exclude"), "*.log\n");
        writeFileSync(join(dir, "sub", ".git"), "gitdir: ../.git\n");
        watch.close();
        const named: Array<string | undefined> = [];
        watch = watchTree(dir, {
          onEvent: (e, rel) => seen.push([e, rel]),
          onLost: (r) => lost.push(r),
          onReset: (rel) => named.push(rel),
        }) as TreeWatch;
        if (onThread) expect(watch.readOnThread()).toBe(true);
        // What every served call in a repository reads: no file of it is a query's suspect, none is named.
        readFileSync(join(dir, ".git", "config"));
        readFileSync(join(dir, ".git", "info", "exclude"));
        readFileSync(join(dir, "sub", ".git"));
        expect(drained()).toEqual([]);
        expect(named).toEqual([]);
        // An ordinary file read the same way is named (a writer's open may have merged with the read's).
        readFileSync(join(dir, "sub", "deep", "old.txt"));
        drained();
        expect(named).toEqual(["sub/deep/old.txt"]);
        // A worktree's `.git` file written: a change (where its repository is changes the walk).
        writeFileSync(join(dir, "sub", ".git"), "gitdir: ../../.git\n");
        expect(drained()).toContain("change sub/.git");
        expect(named).toEqual(["sub/deep/old.txt"]);
      });

      test("a name that is not valid UTF-8 comes losslessly", () => {
        const raw = Buffer.concat([Buffer.from("bad-"), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]);
        try {
          writeFileSync(Buffer.concat([Buffer.from(`${dir}/sub/`), raw]), "x");
        } catch {
          return; // a file system that refuses such names
        }
        expect(drained()).toContain(`rename sub/${decodeName(raw)}`);
      });

      test("the root removed: everything may have changed", () => {
        rmSync(dir, { recursive: true, force: true });
        expect(drained()).toContain("rename null");
        expect(lost).toEqual([]);
      });
    },
  );

/** The kernel's queue of one inotify instance (fs.inotify.max_queued_events), or null where it cannot be read. */
const queued = (() => {
  try {
    return Number.parseInt(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"), 10);
  } catch {
    return null;
  }
})();
// More reads (an open and a close each) than the queue holds, made by another process while this thread waits for
// it (spawnSync): what a server meets when rg reads the whole tree while it answers a call (0: no such queue here).
const reads = queued === null || queued > 65_536 ? 0 : queued + 4_000;

describe.skipIf(!linux)(
  "another process reading the tree while this thread is busy (skipped off Linux)",
  () => {
    /** Has a child process open and close the tree's 200 files `reads` times in all, this thread blocked meanwhile. */
    function readByAnother(root: string): void {
      const script = `const fs = require("node:fs"); for (let i = 0; i < ${reads}; i++) fs.closeSync(fs.openSync(process.argv[1] + "/f" + (i % 200), "r"));`;
      const r = Bun.spawnSync([process.execPath, "-e", script, root]);
      expect(r.exitCode).toBe(0);
    }

    function counted(threaded: boolean): {
      opens: number;
      closesRead: number;
      overflows: number;
      open: number;
    } {
      const root = mkdtempSync(join(tmpdir(), "rglob-treewatch-storm-"));
      try {
        for (let i = 0; i < 200; i++) writeFileSync(join(root, `f${i}`), "x");
        const w = watchTree(root, { onEvent: () => {}, onLost: () => {} }) as TreeWatch;
        try {
          if (threaded) expect(w.readOnThread()).toBe(true);
          readByAnother(root);
          w.drain();
          const c = w.counts();
          return {
            opens: c.opens,
            closesRead: c.closesRead,
            overflows: c.overflows,
            open: [...w.openFiles()].length,
          };
        } finally {
          w.close();
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }

    test.skipIf(reads === 0)("read by drain() alone, the queue overflows", () => {
      expect(counted(false).overflows).toBeGreaterThan(0);
    });

    test.skipIf(reads === 0)(
      "read on a thread of its own, every open and close is kept, in order",
      () => {
        // The thread must be given a core while the other process reads (a few milliseconds in every 25): on a machine
        // busier than that it may not be, and the queue overflows as without it. Three tries.
        let c = counted(true);
        for (let tries = 1; tries < 3 && c.overflows > 0; tries++) c = counted(true);
        expect(c).toEqual({ opens: reads, closesRead: reads, overflows: 0, open: 0 });
      },
      60_000,
    );
  },
);

describe.skipIf(!linux)("the queue overflowed: the watch repaired in place (skipped off Linux)", () => {
  /**
   * The tree: 200 files to read (r/), a/ (a file), old/keep/ (to be moved), gone/sub/ (to be removed), re/ (to be
   * removed and made again: another inode at its path), and 40 quiet directories q0..q39 with a file each.
   */
  function make(root: string): void {
    mkdirSync(join(root, "r"));
    for (let i = 0; i < 200; i++) writeFileSync(join(root, "r", `f${i}`), "x");
    for (const d of ["a", "old/keep", "gone/sub", "re/in"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "a", "one.txt"), "1");
    for (let i = 0; i < 40; i++) {
      mkdirSync(join(root, `q${i}`));
      writeFileSync(join(root, `q${i}`, "f.txt"), "q");
    }
  }

  /**
   * Another process reads r/'s files past the queue's limit while this thread is blocked (spawnSync), then changes
   * the tree: every change's event is lost.
   */
  function overflowThenChange(root: string): void {
    const script = `const fs = require("node:fs"); const p = require("node:path"); const r = process.argv[1];
      for (let i = 0; i < ${reads}; i++) fs.closeSync(fs.openSync(p.join(r, "r", "f" + (i % 200)), "r"));
      fs.mkdirSync(p.join(r, "made", "inner"), { recursive: true });
      fs.writeFileSync(p.join(r, "made", "inner", "f.txt"), "m");
      fs.renameSync(p.join(r, "old"), p.join(r, "a", "moved"));
      fs.rmSync(p.join(r, "gone"), { recursive: true });
      fs.rmSync(p.join(r, "re"), { recursive: true });
      fs.mkdirSync(p.join(r, "re"));
      fs.writeFileSync(p.join(r, "a", "two.txt"), "2");`;
    const r = Bun.spawnSync([process.execPath, "-e", script, root]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  }

  function repairCase(aged: boolean): void {
    const root = mkdtempSync(join(tmpdir(), "rglob-treewatch-repair-"));
    try {
      make(root);
      // Directories whose newest time is less than 2 s old when the watch takes their words are listed again
      // whatever they say (a change in the same tick of the clock would not show): aged, they are not.
      if (aged) Bun.sleepSync(2_100);
      const events: string[] = [];
      let repaired = 0;
      let resets = 0;
      const w = watchTree(root, {
        onEvent: (e, rel) => events.push(`${e} ${rel}`),
        onLost: (why) => events.push(`lost ${why}`),
        onReset: () => resets++,
        onRepaired: () => repaired++,
      }) as TreeWatch;
      try {
        overflowThenChange(root);
        w.drain();
        expect(w.counts().overflows).toBeGreaterThan(0);
        expect({ repaired, resets: resets > 0, whole: w.whole() }).toEqual({
          repaired: 1,
          resets: true,
          whole: true,
        });
        // The directories made or moved in (or made again) are reported renamed; those whose listing changed,
        // changed; nothing says that everything changed.
        for (const e of ["rename made", "rename a/moved", "rename re", "change ", "change a"])
          expect(events).toContain(e);
        expect(events.filter((e) => e.endsWith(" null") || e.startsWith("lost"))).toEqual([]);
        const repair = w.lastRepair();
        expect(repair).not.toBeNull();
        // The root, r, a, old, old/keep, gone, gone/sub, re, re/in, and the quiet ones.
        expect(repair?.dirs).toBe(49);
        if (aged) expect({ listed: repair?.listed, added: repair?.added }).toEqual({ listed: 2, added: 3 });
        // Watched where they are now: what is written there next is an event with its path.
        events.length = 0;
        writeFileSync(join(root, "made", "inner", "g.txt"), "g");
        writeFileSync(join(root, "a", "moved", "keep", "h.txt"), "h");
        writeFileSync(join(root, "re", "i.txt"), "i");
        writeFileSync(join(root, "q7", "f.txt"), "changed");
        w.drain();
        for (const e of [
          "rename made/inner/g.txt",
          "rename a/moved/keep/h.txt",
          "rename re/i.txt",
          "change q7/f.txt",
        ])
          expect(events).toContain(e);
        expect(events.filter((e) => /old|gone/.test(e))).toEqual([]);
      } finally {
        w.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }

  test.skipIf(reads === 0)(
    "every directory stat'ed, those that changed listed: made, moved and replaced ones watched where they are",
    () => repairCase(false),
    60_000,
  );

  test.skipIf(reads === 0)(
    "a tree older than the clock's racy window: only the directories that changed are listed",
    () => repairCase(true),
    60_000,
  );

  test.skipIf(reads === 0)("without onRepaired, an overflow says that everything may have changed", () => {
    const root = mkdtempSync(join(tmpdir(), "rglob-treewatch-repair-"));
    try {
      make(root);
      const events: string[] = [];
      const w = watchTree(root, {
        onEvent: (e, rel) => events.push(`${e} ${rel}`),
        onLost: () => {},
      }) as TreeWatch;
      try {
        overflowThenChange(root);
        w.drain();
        expect(events[events.length - 1]).toBe("rename null");
        expect(w.whole()).toBe(true);
      } finally {
        w.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!linux)("tree watch set up in slices (skipped off Linux)", () => {
  /** 300 directories, two levels, and a file in the last one. */
  function wideTree(root: string): void {
    for (let a = 0; a < 20; a++)
      for (let b = 0; b < 15; b++) mkdirSync(join(root, `d${a}`, `e${b}`), { recursive: true });
    writeFileSync(join(root, "d19", "e14", "f.txt"), "x");
  }

  test("slices of no time at all: the event loop turns between them, and every directory ends up watched", async () => {
    const root = mkdtempSync(join(tmpdir(), "rglob-treewatch-sliced-"));
    try {
      wideTree(root);
      const events: string[] = [];
      let turns = 0;
      const ticker = setInterval(() => turns++, 0);
      const w = await watchTreeInSlices(
        root,
        { onEvent: (e, rel) => events.push(`${e} ${rel}`), onLost: (r) => events.push(`lost ${r}`) },
        0,
        () => false,
      );
      clearInterval(ticker);
      expect(w).not.toBeNull();
      // Set up over several turns (16 directories a slice), so timers ran meanwhile.
      expect(turns).toBeGreaterThan(0);
      try {
        for (let a = 0; a < 20; a += 7) writeFileSync(join(root, `d${a}`, "e14", "new.txt"), "x");
        writeFileSync(join(root, "d19", "e14", "f.txt"), "changed");
        (w as TreeWatch).drain();
        expect(events).toContain("rename d0/e14/new.txt");
        expect(events).toContain("rename d7/e14/new.txt");
        expect(events).toContain("rename d14/e14/new.txt");
        expect(events).toContain("change d19/e14/f.txt");
      } finally {
        w?.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("stopped while it is set up: no watch", async () => {
    const root = mkdtempSync(join(tmpdir(), "rglob-treewatch-sliced-"));
    try {
      wideTree(root);
      let asked = 0;
      const w = await watchTreeInSlices(root, { onEvent: () => {}, onLost: () => {} }, 0, () => ++asked > 2);
      expect(w).toBeNull();
      expect(asked).toBe(3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
