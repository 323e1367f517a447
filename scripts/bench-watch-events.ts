/*! What a warm server's own reads of its tree put on its watch's queue (#36; docs/decisions/0035-index-at-scale.md).
 * A fresh copy of a tree is made (its files' access times are then no later than their mtimes, so under relatime
 * the first read of each writes its access time, as on a tree just checked out or copied), watched as `rglob mcp`
 * watches it (src/platform/tree-watch.ts), then walked and every file read, the queue read every --drain-every
 * entries (the build and the queries read it every 256 entries the walk examines). Printed: the events read by
 * kind and the queue's overflows (its limit: /proc/sys/fs/inotify/max_queued_events), with the load.
 * `--reads=rglob` walks and opens as the index build does (listings by descriptor, each file opened from its
 * directory's descriptor); `--reads=path` lists with readdir and opens every file by its path.
 * `bun scripts/bench-watch-events.ts [--source=DIR] [--reads=rglob|path] [--drain-every=N]` (default: a copy of
 * $RGLOB_BENCH_TREE, else ../bench/babel; rglob; 256). */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { serverDefaultPlan } from "../src/engine/index/warm/stored-walk.ts";
import { quietContext } from "../src/engine/run.ts";
import { walk } from "../src/engine/walk.ts";
import { platform } from "../src/platform/platform.ts";
import { watchTree } from "../src/platform/tree-watch.ts";
import { benchArgs, loadAverage } from "./bench-args.ts";

const usage = "bun scripts/bench-watch-events.ts [--source=DIR] [--reads=rglob|path] [--drain-every=N]";
const args = benchArgs(usage, { source: "text", reads: "text", "drain-every": "count" }, 1);
const here = join(import.meta.dir, "..");
const source = resolve(
  args.get("source") ?? process.env.RGLOB_BENCH_TREE ?? join(here, "..", "bench", "babel"),
);
const reads = args.get("reads") ?? "rglob";
if (reads !== "rglob" && reads !== "path") {
  console.error(`--reads is rglob or path, not '${reads}'\nusage: ${usage}`);
  process.exit(2);
}
const drainEvery = args.count("drain-every", 256);
const mounts = fs
  .readFileSync("/proc/self/mounts", "utf8")
  .split("\n")
  .map((l) => l.split(" "));
const mount = mounts
  .filter((f) => f[1] !== undefined && (f[1] === "/" || tmpdir() === f[1] || tmpdir().startsWith(`${f[1]}/`)))
  .sort((a, b) => (b[1] as string).length - (a[1] as string).length)[0];
const copy = fs.mkdtempSync(join(tmpdir(), "rglob-watch-events-"));
const tree = join(copy, "tree");
execFileSync("cp", ["-r", source, tree]);
const queued = fs.readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim();
console.log(
  `bench-watch-events: a fresh copy of ${source}, reads ${reads}, queue read every ${drainEvery} entries; ` +
    `max_queued_events ${queued}; ${tmpdir()} on ${mount?.[2] ?? "?"} ${mount?.[3] ?? "?"}; load ${loadAverage()}`,
);
let lost = 0;
const w = watchTree(fs.realpathSync(tree), {
  onEvent: (_event, rel) => {
    if (rel === null) lost++;
  },
  onLost: (reason) => console.log(`watch lost: ${reason}`),
});
if (w === null) {
  console.error("the tree could not be watched (inotify limits?)");
  process.exit(1);
}
w.drain();
const setUp = w.counts();
const plan = serverDefaultPlan(fs.realpathSync(tree));
const buf = Buffer.alloc(1 << 20);
const started = performance.now();
let files = 0;
let n = 0;
if (reads === "rglob") {
  for (const e of walk(plan, quietContext(), null)) {
    if (++n % drainEvery === 0) w.drain();
    if (e.type !== "file") continue;
    const fd = platform.openListed(e.abs, plan.confine, e);
    while (platform.read(fd, buf, buf.length, null) > 0);
    platform.close(fd);
    files++;
  }
} else {
  const dirs = [tree];
  while (dirs.length > 0) {
    const d = dirs.pop() as string;
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      if (++n % drainEvery === 0) w.drain();
      const p = join(d, ent.name);
      if (ent.isDirectory()) {
        if (ent.name !== ".git") dirs.push(p);
      } else if (ent.isFile()) {
        const fd = fs.openSync(p, "r");
        while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
        fs.closeSync(fd);
        files++;
      }
    }
  }
}
w.drain();
const ms = performance.now() - started;
const c = w.counts();
const less = (k: keyof typeof c) => c[k] - setUp[k];
console.log(
  `${files} files read in ${(ms / 1000).toFixed(1)} s: ${less("events")} events (file opens ${less("opens")}, ` +
    `closes after reading ${less("closesRead")}, directory opens and closes ${less("dirOpens")}, ` +
    `attribute changes ${less("attribs")}, modifications ${less("modifies")}, created/deleted/moved ` +
    `${less("renames")}), ${c.overflows} overflows, ${lost} times everything assumed changed; load ${loadAverage()}`,
);
w.close();
fs.rmSync(copy, { recursive: true, force: true });
