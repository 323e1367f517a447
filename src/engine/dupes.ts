/*! Engine: duplicate detection. Narrows candidates in three rounds that read more only where needed:
 * same size → same 64-bit hash of the head and tail blocks → same full-content digest. Hard links to one
 * inode count as one file. It never writes, and reads files only through platform/. */
import { fsErrorInfo } from "../contract/errors.ts";
import type { RunContext } from "../ops/operation.ts";
import { platform } from "../platform/platform.ts";

/** A file that may have copies. */
export interface Candidate {
  readonly abs: string;
  readonly rel: string;
  readonly size: number;
  /** Device and inode ("dev:ino"): paths that share it are one file (hard links). */
  readonly inode: string;
  /** Order of the candidate in the walk (ties in the output are broken by it). */
  readonly order: number;
}

/** A group of files with the same contents. */
export interface DuplicateGroup {
  readonly size: number;
  /** Algorithm-prefixed digest of the contents, e.g. "sha256:…". */
  readonly digest: string;
  /** Members in walk order. */
  readonly members: readonly Candidate[];
}

/** Bytes hashed at each end of a file in the second round. */
export const EDGE_BLOCK = 4096;
const STREAM_BLOCK = 1024 * 1024;

/** Contents of small files kept from the second round (so the third need not reopen them), up to this total. */
const KEEP_BUDGET = 64 * 1024 * 1024;

/** Reusable buffers of one run, and the small files' contents kept between rounds. */
interface Buffers {
  readonly edge: Uint8Array;
  readonly stream: Uint8Array;
  readonly kept: Map<Candidate, Uint8Array>;
  keptBytes: number;
}

function readAt(fd: number, buf: Uint8Array, length: number, pos: number): number {
  let got = 0;
  while (got < length) {
    const n = platform.read(fd, buf.subarray(got), length - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/**
 * Hashes the first and last EDGE_BLOCK bytes (a file of at most two blocks whole) with the fast 64-bit hash.
 * Only files that still share a key afterwards get the full-content digest.
 */
function edgeHash(c: Candidate, bufs: Buffers, ctx: RunContext): string | null {
  let fd: number;
  try {
    fd = platform.open(c.abs);
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  }
  try {
    const buf = bufs.edge;
    let n: number;
    if (c.size <= 2 * EDGE_BLOCK) n = readAt(fd, buf, c.size, 0);
    else {
      n = readAt(fd, buf, EDGE_BLOCK, 0);
      n += readAt(fd, buf.subarray(EDGE_BLOCK), EDGE_BLOCK, c.size - EDGE_BLOCK);
    }
    ctx.read(n);
    if (c.size <= 2 * EDGE_BLOCK && n === c.size && bufs.keptBytes + n <= KEEP_BUDGET) {
      bufs.kept.set(c, buf.slice(0, n));
      bufs.keptBytes += n;
    }
    return platform.hash64(buf.subarray(0, n));
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  } finally {
    try {
      platform.close(fd);
    } catch {}
  }
}

/** Digests the whole file with the reported algorithm; null when it cannot be read or changed size. */
function fullDigest(c: Candidate, bufs: Buffers, ctx: RunContext): string | null {
  const kept = bufs.kept.get(c);
  if (kept !== undefined) {
    const h = platform.createHasher();
    h.update(kept);
    return `${platform.hashAlgorithm}:${h.digest()}`;
  }
  let fd: number;
  try {
    fd = platform.open(c.abs);
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  }
  try {
    const h = platform.createHasher();
    let total = 0;
    for (;;) {
      const n = platform.read(fd, bufs.stream, bufs.stream.length, null);
      if (n === 0) break;
      h.update(bufs.stream.subarray(0, n));
      total += n;
      if (ctx.shouldStop()) return null;
    }
    ctx.read(total);
    if (total !== c.size) {
      ctx.error({ code: "UNREADABLE", message: "file changed size while being read; skipped", path: c.abs });
      return null;
    }
    return `${platform.hashAlgorithm}:${h.digest()}`;
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  } finally {
    try {
      platform.close(fd);
    } catch {}
  }
}

function groupBy<K>(items: readonly Candidate[], keyOf: (c: Candidate) => K | null): Array<[K, Candidate[]]> {
  const map = new Map<K, Candidate[]>();
  for (const c of items) {
    const k = keyOf(c);
    if (k === null) continue;
    const list = map.get(k);
    if (list) list.push(c);
    else map.set(k, [c]);
  }
  return [...map.entries()].filter((g) => g[1].length > 1);
}

/**
 * Finds groups of identical files.
 * @param candidates files in walk order (already filtered by size and type)
 * @param ctx the run context (errors, bytes read, deadline)
 * @returns the groups, sorted by wasted bytes (size × (count − 1)) descending, then by first path
 */
export function findDuplicates(candidates: readonly Candidate[], ctx: RunContext): DuplicateGroup[] {
  // Hard links: one inode is one file, represented by its first path in walk order.
  const seen = new Set<string>();
  const files: Candidate[] = [];
  for (const c of candidates) {
    if (seen.has(c.inode)) continue;
    seen.add(c.inode);
    files.push(c);
  }
  const bufs: Buffers = {
    edge: new Uint8Array(2 * EDGE_BLOCK),
    stream: new Uint8Array(STREAM_BLOCK),
    kept: new Map(),
    keptBytes: 0,
  };
  const groups: DuplicateGroup[] = [];
  for (const [size, bySize] of groupBy(files, (c) => c.size)) {
    if (ctx.shouldStop()) break;
    for (const [, byEdge] of groupBy(bySize, (c) => edgeHash(c, bufs, ctx))) {
      if (ctx.shouldStop()) break;
      for (const [digest, same] of groupBy(byEdge, (c) => fullDigest(c, bufs, ctx))) {
        same.sort((a, b) => a.order - b.order);
        groups.push({ size, digest, members: same });
      }
    }
  }
  groups.sort(
    (a, b) =>
      b.size * (b.members.length - 1) - a.size * (a.members.length - 1) ||
      (a.members[0] as Candidate).order - (b.members[0] as Candidate).order,
  );
  return groups;
}
