/*! Engine, persisted index: a worker thread that compares indexed files' stats with those they were indexed
 * with, for an indexed grep (persist.ts's checkStats), while the calling thread checks the others and what the
 * recorded walk depends on: on babel these stat calls are most of an indexed grep. It is started as soon as the
 * index file is found and given where its sections lie (from the header, read first), so it reads what it needs
 * and starts checking while the calling thread still reads the index. It checks the files from one id to the
 * end, writes 1 (unchanged) or 0 per id into a shared array and wakes the caller; it gives up (2) when the file
 * it reads is not the one the caller read the header of. */
import * as fs from "node:fs";
import { encodeName } from "../../platform/names.ts";
import { STAT_OK, STAT_WORDS, statBytesInto } from "../../platform/stat-words.ts";

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
    // Where each relative path starts (they are in id order, NUL-separated).
    const starts = new Int32Array(job.files + 1);
    let id = 0;
    for (let at = paths.indexOf(0); at >= 0 && id < job.files; at = paths.indexOf(0, at + 1))
      starts[++id] = at + 1;
    starts[job.files] = job.pathBytes + 1;
    const same = new Uint8Array(job.out, 4, n);
    // Each path is the root's bytes and the relative path's, copied straight to the system call's buffer.
    const prefix = encodeName(job.root.endsWith("/") ? job.root : `${job.root}/`);
    const stat = statBytesInto();
    const words = new Uint32Array(STAT_WORDS);
    for (let k = 0; k < n; k++) {
      const i = job.from + k;
      let ok =
        stat(prefix, paths, starts[i] as number, (starts[i + 1] as number) - 1, false, words, 0) === STAT_OK;
      for (let w = 0; ok && w < STAT_WORDS; w++) ok = words[w] === facts[k * STAT_WORDS + w];
      same[k] = ok ? 1 : 0;
    }
    Atomics.store(flag, 0, 1);
  } catch {
    Atomics.store(flag, 0, 2); // the caller checks them itself
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
  Atomics.notify(flag, 0);
};
