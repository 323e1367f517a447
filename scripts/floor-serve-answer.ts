/*! The floor of a large served answer (#36, ADR 0043): the smallest Bun program that writes what a served
 * `rglob grep PATTERN` writes, given the files that hold a match (a perfect index: no other file is read). It
 * reads each file whole (from the page cache, as a warm server does), finds the matching lines with the
 * JavaScript RegExp of the pattern, and writes `path:line:text` lines to stdout. No process but this one, no walk,
 * index, freshness check, protocol or printer: what a served call costs over it is theirs. With `--threads=N` the
 * same work is split over N workers (floor-serve-answer-thread.ts) in batches of 16 files, two batches in flight
 * per worker, and this thread writes each batch's bytes in the list's order (ADR 0049).
 * Compile it with the binary's flags (scripts/build.ts buildArgs, with floor-serve-answer-thread.ts as a second
 * entrypoint) and time it as a process (`hyperfine -N`).
 * Usage: floor-serve-answer LIST PATTERN [--threads=N] [--flags=i] (LIST: a file of relative paths, one a line, as
 * `rg -l PATTERN | sort` gives them; PATTERN: a JavaScript regular expression). */
import { readFileSync, writeSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { answerOf } from "./floor-serve-answer-thread.ts";

const args = process.argv.slice(2);
const threads = Number(args.find((a) => a.startsWith("--threads="))?.slice("--threads=".length) ?? 0);
const flags = args.find((a) => a.startsWith("--flags="))?.slice("--flags=".length) ?? "";
const [list, pattern] = args.filter((a) => !a.startsWith("--")) as [string, string];
const files = readFileSync(list, "utf8")
  .split("\n")
  .filter((l) => l !== "");
const BATCH = 16;

/** Writes bytes whole. */
function put(bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(1, bytes, at, bytes.length - at);
}

if (threads <= 0) {
  const re = new RegExp(pattern, flags);
  for (let i = 0; i < files.length; i += BATCH) put(answerOf(files.slice(i, i + BATCH), re));
} else {
  // Source: this file's directory; compiled: the program's root, where the bundle keeps every entrypoint.
  const self = import.meta.url;
  const url = new URL(
    self.endsWith(".ts") ? "./floor-serve-answer-thread.ts" : "./floor-serve-answer-thread.js",
    self,
  );
  const workers = Array.from({ length: threads }, () => new Worker(url, { workerData: { pattern, flags } }));
  const batches = Math.ceil(files.length / BATCH);
  const done = new Map<number, Uint8Array>();
  let sent = 0;
  let written = 0;
  await new Promise<void>((resolve) => {
    const send = (w: Worker) => {
      if (sent >= batches) return;
      const id = sent++;
      w.postMessage({ id, files: files.slice(id * BATCH, (id + 1) * BATCH) });
    };
    for (const w of workers) {
      w.on("message", (m: { id: number; out: Uint8Array }) => {
        done.set(m.id, m.out);
        send(w);
        for (let b = done.get(written); b !== undefined; b = done.get(written)) {
          put(b);
          done.delete(written++);
        }
        if (written >= batches) resolve();
      });
      send(w);
      send(w);
    }
    if (batches === 0) resolve();
  });
  for (const w of workers) void w.terminate();
}
