/*! floor-find.ts in two threads (#23): is a parallel walk a lower floor than one thread on this machine? The
 * base's child directory with the most entries is split: every second one of its subdirectories is walked by a
 * worker (floor-find-thread.ts), the rest of the tree by this thread, each with floor-walk.ts and rglob's ignore
 * engine, each writing its paths into a buffer; this thread writes its own, then the worker's. The set of paths is
 * floor-find's (bench-targets.ts compares sets); the order is not. The best case of a split walk: no tasks, no
 * results but one buffer, no order to restore. Usage: floor-find-threads [--no-ignore] [--hidden] */
import * as fs from "node:fs";
import { PathBuffer, splitOf, workerOutput } from "./floor-split.ts";
import { floorWalk } from "./floor-walk.ts";

const respectIgnore = !process.argv.includes("--no-ignore");
const hidden = process.argv.includes("--hidden");
const split = splitOf(process.cwd());
const theirs = split === null ? null : workerOutput("floor-find-thread", { respectIgnore, hidden });
const out = new PathBuffer();
floorWalk(
  (_abs, rel) => out.put(rel),
  respectIgnore,
  hidden,
  split === null ? null : (rel) => split.theirs(rel),
);
fs.writeSync(1, out.bytes());
if (theirs !== null) fs.writeSync(1, await theirs);
