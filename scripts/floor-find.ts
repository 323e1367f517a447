/*! The floor of `rglob find -t f` (#23): the smallest Bun program that does the same work (floor-walk.ts: a
 * pre-order walk with rglob's own ignore engine) and writes each regular file's path relative to the current
 * directory straight to stdout as bytes. No records, no dispatcher, no options beyond the two below.
 * bench-targets.ts compiles it with the binary's build flags, checks its output equals `rglob find -t f`'s and
 * races it against rglob and `fd --type f`. Usage: floor-find [--no-ignore] [--hidden] */
import * as fs from "node:fs";
import { floorWalk } from "./floor-walk.ts";

const out = Buffer.allocUnsafe(1 << 16);
let used = 0;
floorWalk(
  (_abs, rel) => {
    if (used + rel.length * 3 + 1 > out.length) {
      fs.writeSync(1, out, 0, used);
      used = 0;
    }
    used += out.write(rel, used);
    out[used++] = 10;
  },
  !process.argv.includes("--no-ignore"),
  process.argv.includes("--hidden"),
);
fs.writeSync(1, out, 0, used);
