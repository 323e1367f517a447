/*! The floor of `rglob grep` (#23): the smallest Bun program that does the same work in one thread:
 * floor-walk.ts's walk, each file read (a first block of 64 KiB, then the rest), skipped when a NUL is in its
 * first 8 KiB (binary), and `path:line:text` written for each matching line, line numbers counted with indexOf.
 * - An exact literal (`-F`, neither -i nor -w): found with Buffer.indexOf on the bytes and each matching line
 *   copied as bytes straight to stdout (a CR before the LF dropped). It does not decode, so a line with invalid
 *   UTF-8 keeps its bytes where rglob shows U+FFFD.
 * - Anything else (`-i`, `-w`, a regex): the pattern is the JavaScript RegExp rglob compiles for it (-w wraps it
 *   in rglob's lookarounds for Unicode word characters, flags `u` and, for -i, `i`), run with the `g` flag over
 *   each file decoded whole as UTF-8; after a match the search goes on at the next line. With `--literal=TEXT`
 *   (a literal every match holds, which rglob derives from the pattern and the caller names here) the literal
 *   is found in the bytes as above and only the lines holding it are decoded and matched, as rglob's prefilter
 *   does where the literal is rare. -i has no such prefilter here (no native case-insensitive byte search).
 *   A pattern that can match a newline, a UTF-16 file, a BOM and a regex JavaScriptCore gives up on are not
 *   handled (rglob handles them).
 * With --threads the walk is split as floor-find-threads.ts splits it: every second subdirectory of the base's
 * largest directory is searched by a worker (floor-grep-thread.ts, which holds the search), the rest here; this
 * thread writes its output, then the worker's (the set of lines is the same, not their order).
 * bench-targets.ts compiles it with the binary's build flags and compares line sets, not bytes.
 * Usage: floor-grep [-i] [-w] [-F] PATTERN [--literal=TEXT] [--no-ignore] [--hidden] [--threads] */
import * as fs from "node:fs";
import { grepper } from "./floor-grep-thread.ts";
import { splitOf, workerOutput } from "./floor-split.ts";
import { floorWalk } from "./floor-walk.ts";

const argv = process.argv.slice(2);
const pattern = argv.find((a) => !a.startsWith("-"));
if (pattern === undefined || pattern === "") {
  console.error(
    "usage: floor-grep [-i] [-w] [-F] PATTERN [--literal=TEXT] [--no-ignore] [--hidden] [--threads]",
  );
  process.exit(2);
}
const split = argv.includes("--threads") ? splitOf(process.cwd()) : null;
const theirs = split === null ? null : workerOutput("floor-grep-thread", { argv, pattern });
const g = grepper(argv, pattern, (b) => fs.writeSync(1, b));
floorWalk(
  g.onFile,
  !argv.includes("--no-ignore"),
  argv.includes("--hidden"),
  split === null ? null : (rel) => split.theirs(rel),
);
g.flush();
if (theirs !== null) fs.writeSync(1, await theirs);
