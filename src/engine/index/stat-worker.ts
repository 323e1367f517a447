/*! Engine, persisted index: a worker thread that compares indexed files' stats with those they were indexed
 * with, for an indexed grep (persist.ts's checkStats), while the calling thread checks the others and what the
 * recorded walk depends on: on babel these stat calls are most of an indexed grep. It is started as soon as the
 * index file is found and given where its sections lie (from the header, read first), so it reads what it needs
 * and starts checking while the calling thread still reads the index. It checks the files from one id to the
 * end, writes 1 (unchanged) or 0 per id into a shared array and wakes the caller; it gives up (2) when the file
 * it reads is not the one the caller read the header of. */
import * as fs from "node:fs";
import { encodeName } from "../../platform/names.ts";
import { STAT_WORDS, sameWordsOfBytes } from "../../platform/stat-words.ts";
import { pathStarts } from "./paths-section.ts";

/** What the caller sends. */
export interface StatJob {
  /** The index file. */
  readonly file: string;
  /** Its body's hash as its prefix holds it (bytes 16-32, latin1): the worker checks it read that file. */
  readonly hash: string;
  /** The tree's real path; the relative paths are below it. */
  readonly root: string;
  /** Where the facts (STAT_WORDS words per file) and the NUL-separated relative paths lie in the file. */
  readonly factsAt: number;
  readonly pathsAt: number;
  readonly pathBytes: number;
  readonly files: number;
  /** The first id to check (the worker checks `from` to the last). */
  readonly from: number;
  /** One byte per id checked (the answers), after a 4-byte flag: 1 when all are written, 2 when given up. */
  readonly out: SharedArrayBuffer;
}

declare const self: Worker;

function readAt(fd: number, length: number, pos: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, pos + got);
    if (n <= 0) throw new Error("short read");
    got += n;
  }
  return buf;
}

self.onmessage = (e: MessageEvent<StatJob>) => {
  const job = e.data;
  const flag = new Int32Array(job.out, 0, 1);
  let fd = -1;
  try {
    fd = fs.openSync(job.file, "r");
    const hashOf = () => readAt(fd, 32, 0).toString("latin1", 16, 32);
    if (hashOf() !== job.hash) throw new Error("another index file");
    const n = job.files - job.from;
    const factBytes = readAt(fd, n * STAT_WORDS * 4, job.factsAt + job.from * STAT_WORDS * 4);
    const facts = new Uint32Array(factBytes.buffer, factBytes.byteOffset, n * STAT_WORDS);
    const paths = readAt(fd, job.pathBytes, job.pathsAt);
    if (hashOf() !== job.hash) throw new Error("another index file");
    const starts = pathStarts(paths, job.files);
    if (starts === null) throw new Error("not the paths of this many files");
    const same = new Uint8Array(job.out, 4, n);
    // Each path is the root's bytes and the relative path's, copied straight to the system call's buffer.
    const prefix = encodeName(job.root.endsWith("/") ? job.root : `${job.root}/`);
    for (let k = 0; k < n; k++) {
      const i = job.from + k;
      const from = starts[i] as number;
      const to = (starts[i + 1] as number) - 1;
      same[k] = sameWordsOfBytes(prefix, paths, from, to, false, facts, k * STAT_WORDS) ? 1 : 0;
    }
    Atomics.store(flag, 0, 1);
  } catch {
    Atomics.store(flag, 0, 2); // the caller checks them itself
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
  Atomics.notify(flag, 0);
};
