/*! Engine: duplicate detection. Narrows candidates in rounds that read more only where needed: same size →
 * same 64-bit hash of the head and tail blocks → same bytes (compared natively, chunk by chunk), then one digest
 * per group. Hard links to one inode count as one file, read once; a group lists each of its paths. A file whose
 * size, mtime or inode changed since the walk looked at it is an error, never a member. It yields to the event loop and stops at the deadline. It never
 * writes; it reads only through platform/. */
import { fsErrorInfo } from "../contract/errors.ts";
import { type Confinement, platform } from "../platform/platform.ts";
import { statFields } from "../platform/stat-words.ts";
import type { RunContext } from "./run.ts";
import { tick, yielder } from "./run.ts";

/** A file that may have copies. */
export interface Candidate {
  readonly abs: string;
  readonly rel: string;
  readonly size: number;
  /** Modification time when the walk looked at it (ms). */
  readonly mtimeMs: number;
  /** Device and inode ("dev:ino"): paths that share it are one file (hard links). */
  readonly inode: string;
  /** Order of the candidate in the walk (ties in the output are broken by it). */
  readonly order: number;
}

/** A group of files with the same contents. */
interface DuplicateGroup {
  readonly size: number;
  /** Algorithm-prefixed digest of the contents, e.g. "sha256:…". */
  readonly digest: string;
  /**
   * The distinct files (inodes), each as its paths in walk order (more than one: hard links), ordered by their
   * first path in walk order. At least two files, or one file of several paths (a file with hard links only).
   */
  readonly files: readonly (readonly Candidate[])[];
}

/** What findDuplicates found. */
interface Duplicates {
  /** Groups of at least two files, most wasted bytes first; then the files with hard links only when asked. */
  readonly groups: DuplicateGroup[];
  /** Files with more than one path whose only identical paths are their own hard links (listed or not). */
  readonly hardLinkOnly: number;
  /** The first of them (HARD_LINK_ONLY_NAMED + 1 at most), each as its paths relative to the base, in walk order. */
  readonly hardLinkOnlySets: Array<{ rel: string[]; abs: string[] }>;
}

/** The files with hard links only that a result names when it does not list them (the texts say the rest). */
const HARD_LINK_ONLY_NAMED = 5;

/** Bytes hashed at each end of a file in the second round. */
const EDGE_BLOCK = 4096;
const STREAM_BLOCK = 1024 * 1024;

/** Contents of small files kept from the second round (so the third need not reopen them), up to this total. */
const KEEP_BUDGET = 64 * 1024 * 1024;

/** Descriptors of files larger than the edges kept open from the second round for the third, at most. */
const MAX_HELD = 256;

/** Size of the blocks the small files' kept contents are copied into (one allocation for many files). */
const SLAB = 1024 * 1024;

/** Classes of different contents tried per candidate group before the rest is told apart by digest alone. */
const MAX_CLASSES = 4;

/** Reusable buffers of one run, and the small files' contents kept between rounds. */
interface Buffers {
  readonly edge: Uint8Array;
  readonly stream: Uint8Array;
  /** The second file's chunk when two files are compared. */
  readonly other: Uint8Array;
  readonly kept: Map<Candidate, Uint8Array>;
  keptBytes: number;
  /** The block small files' contents are copied into, and how much of it is used. */
  slab: Uint8Array;
  slabUsed: number;
  /**
   * Descriptors opened in the second round and kept open for the rest of their size's rounds (files larger than
   * the edges, which the third round compares or digests): each is opened once. Closed when the size is done.
   */
  readonly held: Map<Candidate, number>;
  /** When each file's contents were last read (Date.now()), for the racy-timestamp check. */
  readonly readAt: Map<Candidate, number>;
  /** Says when a loop over the chunks of a large file should yield to the event loop (every 25 ms of work). */
  readonly chunkDue: () => boolean;
  /** What each file opened must be (the walk plan's), or null. */
  readonly confine: Confinement | null;
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
  const fd = openFor(c, bufs, ctx);
  if (fd === null) return null;
  let hold = false;
  try {
    const buf = bufs.edge;
    let n: number;
    if (c.size <= 2 * EDGE_BLOCK) n = readAt(fd, buf, c.size, 0);
    else {
      n = readAt(fd, buf, EDGE_BLOCK, 0);
      n += readAt(fd, buf.subarray(EDGE_BLOCK), EDGE_BLOCK, c.size - EDGE_BLOCK);
    }
    ctx.read(n);
    bufs.readAt.set(c, Date.now());
    if (c.size <= 2 * EDGE_BLOCK && n === c.size && bufs.keptBytes + n <= KEEP_BUDGET)
      keepSmall(c, buf, n, bufs);
    hold = c.size > 2 * EDGE_BLOCK && bufs.held.size < MAX_HELD;
    if (hold) bufs.held.set(c, fd);
    return platform.hash64(buf.subarray(0, n));
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  } finally {
    if (!hold) closeQuietly(fd);
  }
}

/** Keeps a small file's contents, copied into the current slab (a new one when it is full). */
function keepSmall(c: Candidate, buf: Uint8Array, n: number, bufs: Buffers): void {
  if (bufs.slabUsed + n > bufs.slab.length) {
    bufs.slab = new Uint8Array(SLAB);
    bufs.slabUsed = 0;
  }
  const at = bufs.slabUsed;
  bufs.slab.set(buf.subarray(0, n), at);
  bufs.kept.set(c, bufs.slab.subarray(at, at + n));
  bufs.slabUsed += n;
  bufs.keptBytes += n;
}

function closeQuietly(fd: number): void {
  try {
    platform.close(fd);
  } catch {}
}

/**
 * A descriptor to read a file by: the one kept from the second round, else opened now (reported when it cannot
 * be). Give it back with `release`.
 */
function openFor(c: Candidate, bufs: Buffers, ctx: RunContext): number | null {
  const held = bufs.held.get(c);
  if (held !== undefined) return held;
  try {
    return platform.open(c.abs, bufs.confine);
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  }
}

/** Closes a descriptor from `openFor` unless it is one kept for the size's rounds. */
function release(c: Candidate, fd: number, bufs: Buffers): void {
  if (bufs.held.get(c) !== fd) closeQuietly(fd);
}

/** Closes the descriptors kept for a size's rounds. */
function releaseHeld(bufs: Buffers): void {
  for (const fd of bufs.held.values()) closeQuietly(fd);
  bufs.held.clear();
}

/** Digests a small file's contents kept from the second round; undefined when they were not kept. */
function keptDigest(c: Candidate, bufs: Buffers): string | undefined {
  const kept = bufs.kept.get(c);
  if (kept === undefined) return undefined;
  const h = platform.createHasher();
  h.update(kept);
  return `${platform.hashAlgorithm}:${h.digest()}`;
}

/**
 * Digests the whole file with the reported algorithm; null when it cannot be read or changed size. A large file
 * is read chunk by chunk, yielding to the event loop between chunks (a server still answers a ping or a
 * cancellation while it reads).
 */
async function fullDigest(c: Candidate, bufs: Buffers, ctx: RunContext): Promise<string | null> {
  const kept = keptDigest(c, bufs);
  if (kept !== undefined) return kept;
  const fd = openFor(c, bufs, ctx);
  if (fd === null) return null;
  try {
    const h = platform.createHasher();
    let total = 0;
    for (;;) {
      // At a position: a descriptor kept from the second round may be read again (settle).
      const n = platform.read(fd, bufs.stream, bufs.stream.length, total);
      if (n === 0) break;
      h.update(bufs.stream.subarray(0, n));
      total += n;
      if (bufs.chunkDue()) await tick();
      if (ctx.shouldStop()) return null;
    }
    ctx.read(total);
    bufs.readAt.set(c, Date.now());
    if (total !== c.size) {
      ctx.error({ code: "UNREADABLE", message: "file changed size while being read; skipped", path: c.abs });
      return null;
    }
    return `${platform.hashAlgorithm}:${h.digest()}`;
  } catch (err) {
    ctx.error(fsErrorInfo(err, c.abs));
    return null;
  } finally {
    release(c, fd, bufs);
  }
}

/** How comparing a candidate with a class representative went. */
type Comparison = "same" | "different" | "bad-candidate" | "bad-representative";

/** A class representative up to this size is read whole once and kept, not reopened for each comparison. */
const REP_WHOLE = 256 * 1024;

/** Reports a file whose size changed while it was read. */
function changedSize(x: Candidate, ctx: RunContext): void {
  ctx.error({ code: "UNREADABLE", message: "file changed size while being read; skipped", path: x.abs });
}

/**
 * The whole contents of a class representative, read once and kept (within the budget) when it is small
 * enough: null when it is not kept, "bad" when it cannot be read whole (reported).
 */
function keepWhole(rep: Candidate, bufs: Buffers, ctx: RunContext): Uint8Array | "bad" | null {
  const kept = bufs.kept.get(rep);
  if (kept !== undefined) return kept;
  if (rep.size > REP_WHOLE || bufs.keptBytes + rep.size > KEEP_BUDGET) return null;
  const fd = openFor(rep, bufs, ctx);
  if (fd === null) return "bad";
  try {
    const buf = new Uint8Array(rep.size);
    const n = readAt(fd, buf, rep.size, 0);
    ctx.read(n);
    bufs.readAt.set(rep, Date.now());
    if (n !== rep.size || platform.read(fd, bufs.other, 1, rep.size) !== 0) {
      changedSize(rep, ctx);
      return "bad";
    }
    bufs.kept.set(rep, buf);
    bufs.keptBytes += n;
    return buf;
  } catch (err) {
    ctx.error(fsErrorInfo(err, rep.abs));
    return "bad";
  } finally {
    release(rep, fd, bufs);
  }
}

/** Compares two small files by the contents kept from the second round; null when either was not kept. */
function compareKept(rep: Candidate, c: Candidate, bufs: Buffers): Comparison | null {
  const keptRep = bufs.kept.get(rep);
  const keptC = bufs.kept.get(c);
  if (keptRep === undefined || keptC === undefined) return null;
  return Buffer.from(keptRep.buffer, keptRep.byteOffset, keptRep.length).equals(keptC) ? "same" : "different";
}

/**
 * Compares two files of the same size byte by byte, chunk by chunk (stopping at the first difference), yielding
 * to the event loop between chunks. Reading from the page cache and comparing natively costs far less than
 * digesting every copy. A representative small enough is read once and kept (keepWhole): its chunks are then
 * views of its kept bytes.
 */
async function compare(rep: Candidate, c: Candidate, bufs: Buffers, ctx: RunContext): Promise<Comparison> {
  const kept = compareKept(rep, c, bufs);
  if (kept !== null) return kept;
  const whole = keepWhole(rep, bufs, ctx);
  if (whole === "bad") return "bad-representative";
  const fr = whole === null ? openFor(rep, bufs, ctx) : -1;
  if (fr === null) return "bad-representative";
  const fc = openFor(c, bufs, ctx);
  if (fc === null) {
    if (fr >= 0) release(rep, fr, bufs);
    return "bad-candidate";
  }
  const a = bufs.stream;
  const b = bufs.other;
  const size = c.size;
  try {
    for (let pos = 0; pos < size; ) {
      if (pos > 0 && bufs.chunkDue()) await tick();
      if (ctx.shouldStop()) return "different";
      const want = Math.min(a.length, size - pos);
      let na = want;
      if (whole === null) {
        try {
          na = readAt(fr, a, want, pos);
        } catch (err) {
          ctx.error(fsErrorInfo(err, rep.abs));
          return "bad-representative";
        }
      }
      let nb: number;
      try {
        nb = readAt(fc, b, want, pos);
      } catch (err) {
        ctx.error(fsErrorInfo(err, c.abs));
        return "bad-candidate";
      }
      ctx.read((whole === null ? na : 0) + nb);
      const now = Date.now();
      if (whole === null) bufs.readAt.set(rep, now);
      bufs.readAt.set(c, now);
      if (na !== want) {
        changedSize(rep, ctx);
        return "bad-representative";
      }
      if (nb !== want) {
        changedSize(c, ctx);
        return "bad-candidate";
      }
      const va =
        whole === null
          ? Buffer.from(a.buffer, a.byteOffset, want)
          : Buffer.from(whole.buffer, whole.byteOffset + pos, want);
      if (!va.equals(b.subarray(0, want))) return "different";
      pos += want;
    }
    // A file that grew since its size was taken is not the file that was compared.
    if (platform.read(fc, b, 1, size) !== 0) {
      changedSize(c, ctx);
      return "bad-candidate";
    }
    return "same";
  } finally {
    if (fr >= 0) release(rep, fr, bufs);
    release(c, fc, bufs);
  }
}

/**
 * Splits candidates sharing size and edge hash into groups of identical contents: each is compared with the
 * first member of each group so far; each group of two or more gets one digest, of its first member. Past
 * MAX_CLASSES different contents, the rest is grouped by digest alone.
 */
async function confirm(
  cands: readonly Candidate[],
  bufs: Buffers,
  ctx: RunContext,
  due: () => boolean,
): Promise<Array<[string, Candidate[]]>> {
  const classes: Candidate[][] = [];
  const rest: Candidate[] = [];
  for (const c of cands) {
    if (due()) await tick();
    if (ctx.shouldStop()) return [];
    let placed = false;
    for (let k = 0; k < classes.length; k++) {
      const cls = classes[k] as Candidate[];
      const r =
        compareKept(cls[0] as Candidate, c, bufs) ?? (await compare(cls[0] as Candidate, c, bufs, ctx));
      if (r === "different") continue;
      if (r === "same") cls.push(c);
      if (r === "bad-representative") {
        // Its first member cannot be read any more: the group is dropped (its problem was reported).
        classes.splice(k, 1);
        k--;
        continue;
      }
      placed = true;
      break;
    }
    if (placed) continue;
    if (classes.length < MAX_CLASSES) classes.push([c]);
    else rest.push(c);
  }
  const out: Array<[string, Candidate[]]> = [];
  for (const cls of classes) {
    if (cls.length < 2) continue;
    const digest = await fullDigest(cls[0] as Candidate, bufs, ctx);
    if (digest !== null) out.push([digest, cls]);
  }
  if (rest.length > 1) {
    const byDigest = new Map<string, Candidate[]>();
    for (const c of rest) {
      if (due()) await tick();
      if (ctx.shouldStop()) return out;
      const d = keptDigest(c, bufs) ?? (await fullDigest(c, bufs, ctx));
      if (d === null) continue;
      const list = byDigest.get(d);
      if (list) list.push(c);
      else byDigest.set(d, [c]);
    }
    for (const g of byDigest) if (g[1].length > 1) out.push(g);
  }
  return out;
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
 * Says whether a file is still the one the walk looked at (same inode, size and mtime); reports it when not.
 * Checked after its contents were hashed, so a file rewritten before or while it was read is never a member.
 */
function unchanged(c: Candidate, bufs: Buffers, ctx: RunContext): "same" | "changed" | "racy" {
  // Without Node's stats object where statx is there (one per member); Node's stat reports a failure.
  let st: { size: number; mtimeMs: number; dev: number; ino: number } | null = statFields(c.abs, true);
  if (st === null) {
    try {
      st = platform.stat(c.abs);
    } catch (err) {
      ctx.error(fsErrorInfo(err, c.abs));
      return "changed";
    }
  }
  if (st.size !== c.size || st.mtimeMs !== c.mtimeMs || `${st.dev}:${st.ino}` !== c.inode) {
    ctx.error({ code: "UNREADABLE", message: CHANGED, path: c.abs });
    return "changed";
  }
  // A write in the same timestamp tick as the last read leaves mtime as it was: a file modified shortly before
  // it was read may have changed after (git's "racily clean" entries). It is read again once that has passed.
  return st.mtimeMs > (bufs.readAt.get(c) ?? 0) - racyMargin(st.mtimeMs) ? "racy" : "same";
}

const CHANGED =
  "file changed while duplicates were being found (size, mtime or inode); left out of every group";

/**
 * How long after a modification its timestamp may still not show a later one: a coarse kernel tick on file
 * systems with sub-second timestamps, two seconds on those that keep whole seconds (FAT keeps two).
 */
function racyMargin(mtimeMs: number): number {
  return mtimeMs % 1000 === 0 ? 2100 : 50;
}

/**
 * Settles members that were modified too shortly before they were read: waits until their timestamps can
 * show a change, reads each again, and keeps it when it is still unchanged and has the group's digest.
 * @returns the members that stay
 */
async function settle(
  members: Candidate[],
  racy: Candidate[],
  digest: string,
  bufs: Buffers,
  ctx: RunContext,
): Promise<Candidate[]> {
  const until = Math.max(...racy.map((c) => c.mtimeMs + racyMargin(c.mtimeMs))) + 1;
  while (Date.now() < until && !ctx.shouldStop())
    await new Promise((r) => setTimeout(r, Math.min(25, until - Date.now())));
  const out: Candidate[] = members.filter((c) => !racy.includes(c));
  for (const c of racy) {
    if (ctx.shouldStop()) return [];
    bufs.kept.delete(c);
    const again = await fullDigest(c, bufs, ctx);
    if (again === null) continue;
    const state = unchanged(c, bufs, ctx);
    if (state === "same" && again === digest) out.push(c);
    else if (state !== "changed") ctx.error({ code: "UNREADABLE", message: CHANGED, path: c.abs });
  }
  return out;
}

/** The wasted bytes of a group: its size times its files beyond the first (hard links free nothing). */
export function wastedOf(g: DuplicateGroup): number {
  return g.size * (g.files.length - 1);
}

/** Walk order of a group: that of its first path. */
const firstOrder = (g: DuplicateGroup): number => ((g.files[0] as Candidate[])[0] as Candidate).order;

/**
 * Finds groups of identical files. Yields to the event loop as it goes (so a server still answers) and stops
 * when ctx says so (deadline, cancellation), returning the groups completed so far.
 * @param candidates files in walk order (already filtered by size and type)
 * @param ctx the run context (errors, bytes read, deadline)
 * @param confine what each file opened must be (the walk plan's)
 * @param hardLinkOnly also return, after the others, a group of one file for each file whose only identical
 *   paths are its own hard links (its digest read for it)
 * @returns the groups, sorted by wasted bytes (size × (files − 1)) descending, then by first path, and the
 *   number of files with hard links only
 */
export async function findDuplicates(
  candidates: readonly Candidate[],
  ctx: RunContext,
  confine: Confinement | null = null,
  hardLinkOnly = false,
): Promise<Duplicates> {
  // Hard links: one inode is one file, read through its first path in walk order; its other paths join it.
  const pathsOf = new Map<string, Candidate[]>();
  const files: Candidate[] = [];
  for (const c of candidates) {
    const list = pathsOf.get(c.inode);
    if (list !== undefined) list.push(c);
    else {
      pathsOf.set(c.inode, [c]);
      files.push(c);
    }
  }
  const bufs = newBuffers(confine);
  const found = await groupFiles(files, bufs, ctx);
  const expand = (members: readonly Candidate[]): Candidate[][] =>
    members.map((m) => pathsOf.get(m.inode) as Candidate[]);
  const groups: DuplicateGroup[] = found.map((g) => ({
    size: g.size,
    digest: g.digest,
    files: expand(g.members),
  }));
  groups.sort((a, b) => wastedOf(b) - wastedOf(a) || firstOrder(a) - firstOrder(b));
  // Files of several paths in no group: their only identical paths are their own hard links.
  const grouped = new Set<string>();
  for (const g of found) for (const m of g.members) grouped.add(m.inode);
  const linkedOnly = files.filter(
    (f) => !grouped.has(f.inode) && (pathsOf.get(f.inode) as Candidate[]).length > 1,
  );
  if (hardLinkOnly)
    for (const f of linkedOnly) {
      if (ctx.shouldStop()) break;
      const digest = await soleDigest(f, bufs, ctx);
      if (digest !== null) groups.push({ size: f.size, digest, files: expand([f]) });
    }
  const hardLinkOnlySets = linkedOnly.slice(0, HARD_LINK_ONLY_NAMED + 1).map((f) => {
    const paths = pathsOf.get(f.inode) as Candidate[];
    return { rel: paths.map((m) => m.rel), abs: paths.map((m) => m.abs) };
  });
  return { groups, hardLinkOnly: linkedOnly.length, hardLinkOnlySets };
}

/**
 * The digest of one file that is in no group, checked as a member is (unchanged since the walk, settled when
 * racy); null when it cannot be read or changed (reported).
 */
async function soleDigest(f: Candidate, bufs: Buffers, ctx: RunContext): Promise<string | null> {
  const digest = await fullDigest(f, bufs, ctx);
  if (digest === null) return null;
  const state = unchanged(f, bufs, ctx);
  if (state === "changed") return null;
  if (state === "racy" && (await settle([f], [f], digest, bufs, ctx)).length === 0) return null;
  return digest;
}

function newBuffers(confine: Confinement | null): Buffers {
  return {
    edge: new Uint8Array(2 * EDGE_BLOCK),
    stream: new Uint8Array(STREAM_BLOCK),
    other: new Uint8Array(STREAM_BLOCK),
    kept: new Map(),
    keptBytes: 0,
    slab: new Uint8Array(0),
    slabUsed: 0,
    held: new Map(),
    readAt: new Map(),
    chunkDue: yielder(1),
    confine,
  };
}

/** Groups distinct files (one path per inode) of identical contents, in no particular order. */
async function groupFiles(
  files: readonly Candidate[],
  bufs: Buffers,
  ctx: RunContext,
): Promise<Array<{ size: number; digest: string; members: Candidate[] }>> {
  const due = yielder(64);
  const groups: Array<{ size: number; digest: string; members: Candidate[] }> = [];
  outer: for (const [size, bySize] of groupBy(files, (c) => c.size)) {
    try {
      if (due()) await tick();
      if (ctx.shouldStop()) break;
      const byEdge = new Map<string, Candidate[]>();
      for (const c of bySize) {
        if (due()) await tick();
        if (ctx.shouldStop()) break outer;
        const k = edgeHash(c, bufs, ctx);
        if (k === null) continue;
        const list = byEdge.get(k);
        if (list) list.push(c);
        else byEdge.set(k, [c]);
      }
      for (const edgeGroup of byEdge.values()) {
        if (edgeGroup.length < 2) continue;
        if (due()) await tick();
        if (ctx.shouldStop()) break outer;
        for (const [digest, same] of await confirm(edgeGroup, bufs, ctx, due)) {
          let members: Candidate[] = [];
          const racy: Candidate[] = [];
          for (const c of same) {
            if (due()) await tick();
            if (ctx.shouldStop()) break outer;
            const state = unchanged(c, bufs, ctx);
            if (state !== "changed") members.push(c);
            if (state === "racy") racy.push(c);
          }
          if (racy.length > 0 && members.length >= 2)
            members = await settle(members, racy, digest, bufs, ctx);
          if (members.length < 2) continue;
          members.sort((a, b) => a.order - b.order);
          groups.push({ size, digest, members });
        }
      }
    } finally {
      // The descriptors kept for this size's rounds (also when the rounds stop early).
      releaseHeld(bufs);
    }
  }
  return groups;
}
