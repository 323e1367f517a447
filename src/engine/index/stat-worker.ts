/*! Engine, persisted index: a worker thread that checks, for an indexed grep (persist.ts's checkStats), that
 * the paths the recorded walk depends on and the indexed files stat as they did: on babel these stat calls are
 * most of an indexed grep. It is started as soon as the index file is found and given where its sections lie
 * (from the header, read first), so it reads what it needs and starts checking while the calling thread still
 * reads the index; both take chunks of items from one counter (stat-job.ts). It gives up when the file it
 * reads is not the one the caller read the header of. A restarted server gives it the indexed files to stat as its
 * watch's set-up reaches their directories (a WatchedStatJob). */
import { closeDescriptor, mapOpenedFile, readWhole } from "../../platform/files.ts";
import { setRoutes } from "../../platform/routes.ts";
import { STAT_WORDS } from "../../platform/stat-words.ts";
import { PREFIX, prefixHash } from "./format.ts";
import { pathStarts } from "./paths-section.ts";
import {
  ENDED,
  fileChecksOf,
  openIndexFile,
  STATE,
  type StatJob,
  TAKING,
  takeChunks,
  viewsOf,
  type WatchedStatJob,
  watchedViews,
  witnessChecksOf,
  workWatched,
} from "./stat-job.ts";

declare const self: Worker;

/**
 * Reads bytes of an opened index file: views of its mapping where there is one (none read before they are used,
 * ADR 0052), else copies in memory of their own (aligned for a typed array over them).
 * @param fd the file (openIndexFile)
 * @param size its size then
 * @param map whether to map it (the job says: a server's)
 * @returns the reader of `length` bytes at `pos`
 */
function readerOf(fd: number, size: number, map: boolean): (length: number, pos: number) => Buffer {
  const mapped = map ? mapOpenedFile(fd, size) : null;
  if (mapped !== null)
    return (length, pos) => {
      if (pos + length > mapped.length) throw new Error("short read");
      return mapped.subarray(pos, pos + length);
    };
  return (length, pos) => {
    const buf = readWhole(fd, length, pos);
    if (buf === null) throw new Error("short read");
    return buf;
  };
}

/**
 * A restarted server's job: the indexed files stat'ed as the watch's set-up reaches their directories
 * (stat-job.ts's workWatched), from the sections read here (the file checked to be the one loaded).
 */
function watchedJob(job: WatchedStatJob): void {
  const { control } = watchedViews(job.out, job.files);
  let fd = -1;
  try {
    const opened = openIndexFile(job.file);
    if ("reason" in opened) throw new Error("not an index file");
    fd = opened.fd;
    const readAt = readerOf(fd, opened.size, job.map);
    if (prefixHash(readAt(PREFIX, 0)) !== job.hash) throw new Error("another index file");
    const factBytes = readAt(job.files * STAT_WORDS * 4, job.factsAt);
    const facts = new Uint32Array(factBytes.buffer, factBytes.byteOffset, job.files * STAT_WORDS);
    const paths = readAt(job.pathBytes, job.pathsAt);
    if (prefixHash(readAt(PREFIX, 0)) !== job.hash) throw new Error("another index file");
    const starts = pathStarts(paths, job.files);
    if (starts === null) throw new Error("not the paths of this many files");
    const checks = fileChecksOf(job.root, paths, starts, facts);
    try {
      workWatched(job, paths, starts, (id) => checks.unchanged(id));
    } finally {
      checks.close();
    }
  } catch {
    // Given up: the caller checks what is left unanswered itself.
  } finally {
    if (fd >= 0) closeDescriptor(fd);
    Atomics.store(control, STATE, ENDED);
    Atomics.notify(control, STATE);
  }
}

self.onmessage = (e: MessageEvent<StatJob | WatchedStatJob>) => {
  if ("kind" in e.data) {
    setRoutes(e.data.routes);
    watchedJob(e.data);
    return;
  }
  const job = e.data;
  setRoutes(job.routes);
  const { control, answers } = viewsOf(job.out);
  let fd = -1;
  try {
    // A regular file of this user only (a FIFO or a device swapped in does not block it).
    const opened = openIndexFile(job.file);
    if ("reason" in opened) throw new Error("not an index file");
    fd = opened.fd;
    const readAt = readerOf(fd, opened.size, job.map);
    const hashOf = () => prefixHash(readAt(PREFIX, 0));
    if (hashOf() !== job.hash) throw new Error("another index file");
    const factBytes = readAt(job.files * STAT_WORDS * 4, job.factsAt);
    const facts = new Uint32Array(factBytes.buffer, factBytes.byteOffset, job.files * STAT_WORDS);
    const paths = readAt(job.pathBytes, job.pathsAt);
    const w = job.witnessed;
    const seenBytes = readAt(w * STAT_WORDS * 4, job.seenAt);
    const seen = new Uint32Array(seenBytes.buffer, seenBytes.byteOffset, w * STAT_WORDS);
    const flags = readAt(w, job.witnessFlagsAt);
    const names = readAt(job.witnessBytes, job.witnessAt);
    if (hashOf() !== job.hash) throw new Error("another index file");
    const starts = pathStarts(paths, job.files);
    const nameStarts = pathStarts(names, w);
    if (starts === null || nameStarts === null) throw new Error("not the paths of this many files");
    // The paths go to the stat calls where they lie: the files' relative to the tree's descriptor.
    const fileChecks = fileChecksOf(job.root, paths, starts, facts);
    const nameChecks = witnessChecksOf(names, nameStarts, flags, seen);
    try {
      // Marked before a chunk is taken: the caller waits for the chunk in hand, never for one not taken.
      Atomics.store(control, STATE, TAKING);
      takeChunks(control, answers, w + job.files, (item) =>
        item < w ? nameChecks.unchanged(item) : fileChecks.unchanged(item - w),
      );
    } finally {
      fileChecks.close();
      nameChecks.close();
    }
  } catch {
    // Given up: the caller checks what is left unanswered itself.
  } finally {
    if (fd >= 0) closeDescriptor(fd);
    Atomics.store(control, STATE, ENDED);
    Atomics.notify(control, STATE);
  }
};
