import { GrepHumanSink } from "../src/surface/cli/human/grep.ts";
import { Output } from "../src/surface/cli/output.ts";
import * as fs from "node:fs";
const fd = fs.openSync("/dev/null", "w");
const out = new Output(fd);
const sink = new GrepHumanSink(out, { color: false, escape: false, cwd: "/work/main/.bench/large" }, { lineNumber: true, withFilename: null, stats: false }, false, false);
const N = 581000;
const contents: string[] = [];
for (let i = 0; i < 1000; i++) contents.push(`this function object break promise else extends ${i} ${"x".repeat(i % 30)}`);
const recs: object[] = [];
for (let i = 0; i < N; i++) {
  const c = contents[i % 1000]!;
  recs.push({ path: `/work/main/.bench/large/big${(i / 150000) | 0}.txt`.slice(0), relative_path: "big0.txt", line_number: i * 2 + 1, content: c, clipped: false, content_offset: 0, submatches: [{ start: 5, end: 13, byte_start: 5, byte_end: 13 }], before: [], after: [], encoding: "utf-8" });
}
// same path string instance per file, as the grep op gives
const paths = [0, 1, 2, 3].map((k) => `/work/main/.bench/large/big${k}.txt`);
for (let i = 0; i < N; i++) (recs[i] as { path: string }).path = paths[(i / 150000) | 0]!;
const t = performance.now();
for (let i = 0; i < N; i++) sink.record("match", recs[i]!);
out.flush();
console.log("sink", (performance.now() - t).toFixed(1));
