/*! The worker of floor-find-threads.ts: walks the subdirectories the split (floor-split.ts) gives it and posts
 * their paths. */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { PathBuffer, splitOf } from "./floor-split.ts";
import { floorWalk } from "./floor-walk.ts";

if (!isMainThread && parentPort !== null) {
  const { respectIgnore, hidden } = workerData as { respectIgnore: boolean; hidden: boolean };
  const split = splitOf(process.cwd());
  const out = new PathBuffer();
  if (split !== null) {
    const inside = (rel: string) => rel === split.dir || split.theirs(rel);
    // Everything outside the worker's part is left out; the split directory itself is walked to reach it.
    floorWalk(
      (_abs, rel) => out.put(rel),
      respectIgnore,
      hidden,
      (rel) => !inside(rel),
    );
  }
  const bytes = out.bytes();
  parentPort.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
}
