/*! What the two-thread floor programs share (floor-find-threads.ts, floor-grep.ts --threads; #23): where a walk
 * is split between the threads, and a growing buffer of paths. Benchmarks only; never shipped. */
import * as fs from "node:fs";
import { Worker } from "node:worker_threads";

/** Paths, one per line, in a buffer that doubles when full. */
export class PathBuffer {
  private buf = Buffer.allocUnsafe(1 << 20);
  private used = 0;

  put(rel: string): void {
    if (this.used + rel.length * 3 + 1 > this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.used);
      this.buf = bigger;
    }
    this.used += this.buf.write(rel, this.used);
    this.buf[this.used++] = 10;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }
}

/**
 * Splits a walk: the base's child directory with the most entries; every second of its subdirectories (by name)
 * is the worker's. Null when there is no such directory with two subdirectories or more.
 * @param base the directory walked
 * @returns the test of an entry's path relative to the base: true when it is under the worker's part
 */
export function splitOf(base: string): { readonly dir: string; theirs(rel: string): boolean } | null {
  let best: string | null = null;
  let most = 0;
  for (const d of fs.readdirSync(base, { withFileTypes: true })) {
    if (!d.isDirectory() || d.name === ".git") continue;
    const n = fs.readdirSync(`${base}/${d.name}`).length;
    if (n > most) {
      most = n;
      best = d.name;
    }
  }
  if (best === null) return null;
  const dir = best;
  const subs = fs
    .readdirSync(`${base}/${dir}`, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  if (subs.length < 2) return null;
  const odd = new Set(subs.filter((_, i) => i % 2 === 1));
  const prefix = `${dir}/`;
  return {
    dir,
    theirs(rel) {
      if (!rel.startsWith(prefix)) return false;
      const slash = rel.indexOf("/", prefix.length);
      return odd.has(slash < 0 ? rel.slice(prefix.length) : rel.slice(prefix.length, slash));
    },
  };
}

/**
 * Starts a floor program's worker (a file next to this one, an extra entrypoint of the compiled program) and
 * returns the bytes it posts, once.
 * @param name the worker's file name without extension, e.g. "floor-grep-thread"
 * @param data its workerData
 * @returns its output
 */
export function workerOutput(name: string, data: unknown): Promise<Uint8Array> {
  // Source: this file's directory; compiled: the program's root, where the bundle keeps every entrypoint.
  const url = new URL(import.meta.url.endsWith(".ts") ? `./${name}.ts` : `./${name}.js`, import.meta.url);
  return new Promise<Uint8Array>((resolve, reject) => {
    const w = new Worker(url, { workerData: data });
    w.once("message", (m: Uint8Array) => {
      resolve(m);
      void w.terminate();
    });
    w.once("error", reject);
  });
}
