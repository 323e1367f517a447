/*! Engine, persisted index: the CLI's opt-in trigram index of a tree (`rglob index`), kept in the user's cache
 * directory (never inside the tree), keyed by the tree's real path, and the provider through which `rglob grep`
 * uses it. The index is the warm server's TrigramIndex, frozen and written as one file (a header, then the
 * arrays), atomically. A grep run still walks the tree (new, deleted and newly ignored files are the walk's);
 * a file is left unread only when the index rules it out and its size, mtime, ctime and inode are those it
 * was indexed with. An index that is stale, corrupt, truncated, of another root, version or format is not
 * used: the answer is then the cold one. docs/decisions/0028-warm-index.md. */
import * as os from "node:os";
import * as path from "node:path";
import { RglobError } from "../../contract/errors.ts";
import { PACKAGE_VERSION } from "../../contract/versions.ts";
import {
  type BigPathStats,
  closeDescriptor,
  makePrivateDir,
  mapOpenedFile,
  readInto,
  readWhole,
  realPath,
  removeFile,
  renamePath,
  statDescriptorBig,
  statPath,
  writeNewPrivateFile,
} from "../../platform/files.ts";
import { insideDir, platform } from "../../platform/platform.ts";
import { routes } from "../../platform/routes.ts";
import { collectGarbage, onBun } from "../../platform/runtime.ts";
import { newestTime, STAT_OK, STAT_WORDS, sameWords, wordsOfStats } from "../../platform/stat-words.ts";
import { startWorker } from "../../platform/workers.ts";
import { lexedByName } from "../regions/regions.ts";
import { type GrepNeeds, type RunContext, tick, yielder } from "../run.ts";
import type { SearchSpec } from "../search/search-file.ts";
import { type Entry, type WalkPlan, walk } from "../walk.ts";
import { walkKey } from "../walk-key.ts";
import { stillSo, type Witnessed, witnessFlags, witnessingInto } from "../witness.ts";
import {
  hashHolds,
  headerLength,
  INDEX_FORMAT,
  JoinedText,
  notUtf8Exactly,
  PREFIX,
  prefixHash,
  type Toc,
  type TocRow,
  tocOf,
  type WalkSectionCounts,
  writeIndexBytes,
} from "./format.ts";
import { PathTable } from "./path-table.ts";
import { pathStarts } from "./paths-section.ts";
import { literalQueryOf, type WarmGrep, type WarmProvider, without } from "./provider.ts";
import { type MemoryWalk, type Payload, PlainWalk, recordingWalk, replay } from "./recorded-walk.ts";
import {
  fileChecksOf,
  type ItemChecks,
  jobMemory,
  NOT_STARTED,
  type OpenedIndex,
  openIndexFile,
  SAME,
  STATE,
  type StatJob,
  TAKING,
  takeChunks,
  UNCHECKED,
  viewsOf,
  type WatchedStatJob,
  watchedMemory,
  witnessChecksOf,
} from "./stat-job.ts";
import { readIndexText, textBuffer } from "./text.ts";
import { TrigramIndex } from "./trigrams.ts";
import { unlexedAt } from "./warm/selections.ts";

/** Files larger than this are not indexed, by `rglob index` or a warm server (they are always searched). */
export const INDEX_MAX_FILE_SIZE = 10 * 1024 * 1024;
/**
 * A file modified this close to the moment it was read is not indexed: a later write within the same tick of
 * the file system's clock, of the same size, would leave its stats as they were (git's "racily clean" entries).
 */
const RACY_NS = 2_000_000_000n;
const RACY_S = 2;
/** Per-file facts: size, mtime, ctime and inode as words (stat-words.ts). */
const FACTS = STAT_WORDS;

/** The walk options an index is built with (the header records them). */
export const INDEX_WALK = { hidden: true, respect_gitignore: true, follow_symlinks: false } as const;

/** The JSON header of an index file. */
interface IndexHeader {
  readonly format: number;
  readonly rglob: string;
  readonly root: string;
  /** The device and inode of the tree's root directory when it was indexed (a tree made again is another). */
  readonly root_id: string;
  /** What wrote it: `rglob index`, or a warm server (`rglob mcp`) after its build (then no walk is kept). */
  readonly writer: "index" | "server";
  readonly options: typeof INDEX_WALK & { readonly max_file_size: number };
  readonly built_at: string;
  readonly build_ms: number;
  readonly files: number;
  readonly trigrams: number;
  readonly text_bytes: number;
  readonly posting_bytes: number;
  readonly path_bytes: number;
  /** Files with a 4-gram bitset (quads.ts) and the bytes of those bitsets. */
  readonly quad_files: number;
  readonly quad_bytes: number;
  /** Files the walk met that are not indexed (binary, too large, UTF-16, unreadable, just modified). */
  readonly not_indexed: number;
  /** The recorded walk of a plain grep of the tree, or null when none could be kept. */
  readonly walk: StoredWalkHeader | null;
  /** The table of contents (format.ts), in a header read back from a file. */
  readonly sections?: readonly TocRow[];
}

/** What the header says of the recorded walk: its key and the lengths of its sections. */
interface StoredWalkHeader extends WalkSectionCounts {
  /** The walk it stands for (walkKeyOf): a grep run whose walk has this key may replay it. */
  readonly key: string;
}

/**
 * Returns where the index of a tree is kept: a name derived from the tree's real path, in the cache directory.
 * @param root the tree's real path
 * @param indexDir where indexes are kept (the Config's indexDir)
 * @returns the index file's path
 */
export function indexPathFor(root: string, indexDir: string): string {
  const h = platform.createHasher();
  h.update(Buffer.from(root, "utf8"));
  return path.join(indexDir, `${h.digest().slice(0, 32)}.rgi`);
}

/** The real path of a path that may not exist yet: its longest existing prefix resolved, the rest appended. */
function realish(p: string): string {
  const rest: string[] = [];
  let at = path.resolve(p);
  while (true) {
    try {
      return path.join(realPath(at), ...rest.reverse());
    } catch {
      const up = path.dirname(at);
      if (up === at) return path.join(at, ...rest.reverse());
      rest.push(path.basename(at));
      at = up;
    }
  }
}

/** What building an index gave. */
interface BuildReport {
  readonly header: IndexHeader;
  readonly indexPath: string;
  readonly indexBytes: number;
}

/**
 * Builds the index of a tree and writes it to the cache (a temporary file, then renamed over the old index).
 * @param plan the walk of the tree (hidden files included, ignore rules on, symlinks not followed)
 * @param ctx the run context (the walk's errors and skips, files searched, bytes read)
 * @param indexDir where indexes are kept (the Config's indexDir)
 * @param grepWalk compiles the walk of a plain grep of the tree (its recording is kept with the index), or null
 * @returns what was built, or null when the run was stopped (nothing is written then; Ctrl-C and SIGTERM are
 *   heard during the walk)
 * @throws RglobError BAD_PREDICATE when the cache directory is inside the tree
 */
export async function buildIndex(
  plan: WalkPlan,
  ctx: RunContext,
  indexDir: string,
  grepWalk: (() => WalkPlan) | null = null,
): Promise<BuildReport | null> {
  const root = plan.baseReal;
  const file = indexPathFor(root, indexDir);
  const dir = path.dirname(file);
  if (insideDir(realish(dir), root) || insideDir(path.resolve(dir), plan.base))
    throw new RglobError(
      "BAD_PREDICATE",
      `the cache directory ${path.dirname(dir)} is inside the tree to index; set RGLOB_CACHE_DIR to a directory outside it`,
      { path: dir },
    );
  const started = performance.now();
  const rootId = rootIdentity(root);
  const idx = new TrigramIndex();
  let facts = new Uint32Array(FACTS * 1024);
  const rels: string[] = [];
  let notIndexed = 0;
  let buf: Buffer = Buffer.alloc(64 * 1024);
  // The event loop gets a turn every 25 ms, so Ctrl-C and SIGTERM stop a long build (ctx stops it).
  const due = yielder(64);
  for (const e of walk(plan, ctx, null)) {
    if (due()) await tick();
    if (ctx.shouldStop()) return null;
    const bytes = readIndexable(e, plan, buf, (b) => {
      buf = b;
    });
    if (bytes === null) {
      notIndexed++;
      continue;
    }
    ctx.read(bytes.view.length);
    const id = idx.size;
    idx.add(e.abs, bytes.view, {
      size: bytes.view.length,
      mtimeMs: Number(bytes.st.mtimeNs / 1_000_000n),
      ctimeMs: Number(bytes.st.ctimeNs / 1_000_000n),
      ino: Number(bytes.st.ino),
    });
    // Other hard links: a server that loads this index reads the file at each query (ADR 0032).
    if (bytes.st.nlink > 1n) idx.markLinked(id);
    // A segment's worth of pending postings is frozen at once: the build's memory is bounded (trigrams.ts).
    if (idx.spillDue) idx.spill();
    if ((rels.length + 1) * FACTS > facts.length) {
      const grown = new Uint32Array(facts.length * 2);
      grown.set(facts);
      facts = grown;
    }
    wordsOfStats(bytes.st, facts, rels.length * FACTS);
    rels.push(path.relative(root, realOf(plan, e)).split(path.sep).join("/"));
  }
  if (ctx.shouldStop()) return null;
  // The walk's garbage is collected before the freeze allocates the merged lists, and the recorded walk's (its
  // entries, paths and joined texts) before the file's bytes are made: JSC would otherwise let each grow with
  // the next (docs/decisions/0044-build-memory.md).
  collectGarbage();
  idx.freeze();
  // The merged segments are collected before the walk is recorded again: that walk runs in one go (no turn of
  // the event loop, when Bun collects on its own), so it collects its own garbage as it goes (recordCollecting).
  collectGarbage();
  const recorded = grepWalk === null ? null : recordStoredWalk(grepWalk, ctx, idx, rels);
  if (ctx.shouldStop()) return null;
  collectGarbage();
  const parts = idx.frozenParts();
  const pathText = new JoinedText(rels);
  const header: IndexHeader = {
    format: INDEX_FORMAT,
    rglob: PACKAGE_VERSION,
    root,
    root_id: rootId,
    writer: "index",
    options: { ...INDEX_WALK, max_file_size: INDEX_MAX_FILE_SIZE },
    built_at: new Date().toISOString(),
    build_ms: Math.round(performance.now() - started),
    files: rels.length,
    trigrams: parts.keys.length,
    text_bytes: parts.textBytes,
    posting_bytes: parts.data.length,
    path_bytes: pathText.byteLength,
    quad_files: parts.quadIds.length / 2,
    quad_bytes: parts.quads.length,
    not_indexed: notIndexed,
    walk: recorded?.header ?? null,
  };
  const body = serialize(header, facts.subarray(0, rels.length * FACTS), parts, pathText, recorded);
  writeIndexFile(file, body);
  return { header, indexPath: file, indexBytes: body.length };
}

/** Writes an index file: a temporary file of this user only, then renamed over the old one. */
function writeIndexFile(file: string, body: Buffer): void {
  const dir = path.dirname(file);
  try {
    makePrivateDir(dir);
  } catch (err) {
    throw cacheError(err, `cannot make the cache directory ${dir}`, dir);
  }
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    writeNewPrivateFile(tmp, body);
    renamePath(tmp, file);
  } catch (err) {
    try {
      removeFile(tmp);
    } catch {}
    throw cacheError(err, "cannot write the index", file);
  }
}

/**
 * The identity of a tree's root directory (device and inode, as the warm server checks at each call): an index
 * of a tree removed and made again at the same path is not used.
 * @param root the tree's real path
 * @returns the identity, or why there is none
 */
function rootIdentity(root: string): string {
  try {
    const st = statPath(root);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : "not a directory";
  } catch (err) {
    return `absent (${(err as NodeJS.ErrnoException).code ?? "error"})`;
  }
}

/**
 * Writes a warm server's index of its root to the cache, in the format `rglob index` writes (without a recorded
 * walk), so that a server started again loads it instead of building (loadIndex, then a stat of each file). A
 * file the index no longer vouches for is written as changed: one the watch saw change, one whose path is not
 * exactly UTF-8, and one modified in the last RACY_S seconds (a later write in the same tick of the file
 * system's clock would leave its stats as they are).
 * @param root the tree's real path (the server's root)
 * @param indexDir where indexes are kept (the Config's indexDir)
 * @param rootId its identity when the server started watching it
 * @param idx the frozen index
 * @param words STAT_WORDS words per file id, as read for the index
 * @param buildMs how long the build took
 * @returns the file and its size, or null when not written (the cache directory is inside the tree)
 * @throws RglobError when the file cannot be written
 */
export function writeServerIndex(
  root: string,
  indexDir: string,
  rootId: string,
  idx: TrigramIndex,
  words: Uint32Array,
  buildMs: number,
  walked: ServerWalk | null = null,
): { indexPath: string; indexBytes: number; walk: boolean } | null {
  const file = indexPathFor(root, indexDir);
  if (insideDir(realish(path.dirname(path.dirname(file))), root)) return null;
  const parts = idx.frozenParts();
  const n = idx.size;
  const flags = Uint8Array.from(parts.flags);
  const abs = idx.pathsById();
  const prefix = root.endsWith("/") ? root : `${root}/`;
  // As `rglob index` reads it (readIndexable): the mtime, seconds and nanoseconds (stat-words.ts).
  const racy = Date.now() / 1000 - RACY_S;
  const mtimeOf = (at: number) =>
    ((words[at + 3] as number) | 0) * 4294967296 +
    (words[at + 2] as number) +
    (words[at + 4] as number) / 1e9;
  const rels: string[] = new Array(n);
  for (let id = 0; id < n; id++) {
    const p = abs[id];
    const rel = p === null || p === undefined || !p.startsWith(prefix) ? null : p.slice(prefix.length);
    if (rel === null || notUtf8Exactly(rel) || rel.includes("\0") || mtimeOf(id * FACTS) > racy) {
      flags[id] = (flags[id] as number) | 1;
      rels[id] = "";
    } else rels[id] = rel;
  }
  const pathText = new JoinedText(rels);
  const recorded = walked === null ? null : serverWalkSections(walked, idx, rels);
  const header: IndexHeader = {
    format: INDEX_FORMAT,
    rglob: PACKAGE_VERSION,
    root,
    root_id: rootId,
    writer: "server",
    options: { ...INDEX_WALK, max_file_size: INDEX_MAX_FILE_SIZE },
    built_at: new Date().toISOString(),
    build_ms: buildMs,
    files: n,
    trigrams: parts.keys.length,
    text_bytes: parts.textBytes,
    posting_bytes: parts.data.length,
    path_bytes: pathText.byteLength,
    quad_files: parts.quadIds.length / 2,
    quad_bytes: parts.quads.length,
    not_indexed: 0,
    walk: recorded?.header ?? null,
  };
  const body = serialize(header, words.subarray(0, n * FACTS), { ...parts, flags }, pathText, recorded);
  writeIndexFile(file, body);
  return { indexPath: file, indexBytes: body.length, walk: recorded !== null };
}

/** The walk a server's build recorded (its default walk), to be kept with the index it writes. */
export interface ServerWalk {
  readonly plan: WalkPlan;
  readonly rec: MemoryWalk;
  /** What the walk read, with the stats it had (checked again before it is written). */
  readonly witnessed: readonly Witnessed[];
  /** When the walk began (seconds since the epoch). */
  readonly began: number;
  /** Whether the server's watch saw no change to the tree's shape since the walk began. */
  readonly watched: boolean;
}

/**
 * The sections of a server's recorded walk, or null when it cannot be kept: a path it depends on no longer
 * stats as it did, or changed less than RACY_S ago (a later change in the same tick of the clock would leave
 * its stats as they are, and a restarted server would replay a walk that no longer holds). A path changed less
 * than RACY_S before the walk began may have changed again in that tick after it was read: the walk is kept
 * then only when the watch saw no change since it began (as recordStoredWalk, which waits instead).
 */
function serverWalkSections(w: ServerWalk, idx: TrigramIndex, rels: readonly string[]): WalkSections | null {
  const key = walkKeyOf(w.plan);
  if (key === null) return null;
  const racy = Date.now() / 1000 - RACY_S;
  const early = w.began - RACY_S;
  for (const x of w.witnessed) {
    if (x.outcome === STAT_OK && !x.kindOnly) {
      const t = newestTime(x.words, 0);
      if (t > racy || (t > early && !w.watched)) return null;
    }
    if (!stillSo(x)) return null;
  }
  return walkSections(key, w.plan, w.rec, w.witnessed, idx, rels);
}

/**
 * The error of a cache directory or index file that cannot be made, written or removed: PERM when permission
 * is denied or the file system is read-only, else UNREADABLE; the system's code in the message.
 * @param err what the call threw
 * @param what what could not be done
 * @param at the path concerned
 * @returns the error to throw
 */
function cacheError(err: unknown, what: string, at: string): RglobError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const denied = code === "EACCES" || code === "EPERM" || code === "EROFS";
  const detail = code === undefined ? String((err as Error)?.message ?? err) : code;
  return new RglobError(
    denied ? "PERM" : "UNREADABLE",
    `${what}: ${detail}; RGLOB_CACHE_DIR sets rglob's cache directory`,
    { path: at, cause: err },
  );
}

/** The real path of a walked entry (no symlink is followed below a root, so the root's real path leads). */
function realOf(plan: WalkPlan, e: Entry): string {
  const r = plan.roots[e.root];
  if (r === undefined || !e.abs.startsWith(r.abs)) return "";
  return r.real + e.abs.slice(r.abs.length);
}

/**
 * Reads a file to index: a regular file up to the size cap, read whole, without a NUL byte (binary whatever
 * the sniff window), not UTF-16, not modified in the last moments. Null when it is not indexed.
 */
function readIndexable(
  e: Entry,
  plan: WalkPlan,
  buf: Buffer,
  grow: (b: Buffer) => void,
): { view: Buffer; st: BigPathStats } | null {
  let fd: number;
  try {
    fd = platform.openListed(e.abs, plan.confine, e);
  } catch {
    return null;
  }
  try {
    const st = statDescriptorBig(fd);
    if (!st.isFile() || st.size > BigInt(INDEX_MAX_FILE_SIZE)) return null;
    const size = Number(st.size);
    const b = textBuffer(buf, size);
    if (b !== buf) grow(b);
    // A NUL byte anywhere: binary, whatever the sniff window.
    const view = readIndexText(fd, size, b, Number.POSITIVE_INFINITY);
    if (view === null) return null;
    const now = BigInt(Date.now()) * 1_000_000n;
    if (st.mtimeNs > now - RACY_NS) return null;
    return { view, st };
  } catch {
    return null;
  } finally {
    try {
      platform.close(fd);
    } catch {}
  }
}

/** A recorded walk as it is written: the header's part and the sections. */
interface WalkSections {
  readonly header: StoredWalkHeader;
  /** Per witnessed path: its words. */
  readonly seen: Uint32Array;
  readonly args: Int32Array;
  readonly ids: Int32Array;
  readonly ops: Uint8Array;
  readonly types: Uint8Array;
  readonly follow: Uint8Array;
  readonly rels: JoinedText;
  readonly witness: JoinedText;
  readonly payloads: Buffer;
}

/**
 * Whether the 4-gram bitsets' table holds: ids ascending and below the file count, each length a power of two,
 * the lengths summing to the section's bytes (the one check: TrigramIndex.fromParts takes the table as it is).
 */
function quadsHold(quadIds: Uint32Array, files: number, bytes: number): boolean {
  let sum = 0;
  for (let j = 0; j < quadIds.length; j += 2) {
    const id = quadIds[j] as number;
    const len = quadIds[j + 1] as number;
    if (id >= files || (j > 0 && id <= (quadIds[j - 2] as number)) || len === 0 || (len & (len - 1)) !== 0)
      return false;
    sum += len;
  }
  return sum === bytes;
}

/** An index file's bytes: the header and the sections of format.ts's table. */
function serialize(
  h: IndexHeader,
  facts: Uint32Array,
  parts: ReturnType<TrigramIndex["frozenParts"]>,
  paths: JoinedText,
  walkParts: WalkSections | null,
): Buffer {
  const { header: _, ...walk } = walkParts ?? { header: null };
  return writeIndexBytes(h as IndexHeader & Readonly<Record<string, unknown>>, {
    facts,
    keys: parts.keys,
    starts: parts.starts,
    flags: parts.flags,
    paths,
    data: parts.data,
    quadids: parts.quadIds,
    quads: parts.quads,
    ...walk,
  });
}

/**
 * Returns the key of a walk whose recording can be kept with an index, or null: one directory root, given as
 * the base (no path operands), symlinks not followed, no predicate that reads stats (their answers change
 * without a directory changing), on a platform with POSIX paths.
 * @param plan the compiled walk
 * @returns the key (walk-key.ts): the walk options (the base resolved), the cwd when globs are given, the plan's
 * kind, and the environment that says where git's config files are
 */
export function walkKeyOf(plan: WalkPlan): string | null {
  const o = plan.source.options as unknown as Record<string, unknown>;
  const root = plan.roots[0];
  if (
    path.sep !== "/" ||
    plan.readsStats ||
    plan.follow ||
    plan.roots.length !== 1 ||
    root === undefined ||
    root.type !== "dir" ||
    root.abs !== plan.base ||
    (o.paths as readonly string[]).length > 0
  )
    return null;
  // Replayed as recorded, its dependencies checked by their stats (walk-key.ts).
  return walkKey(plan, "persisted");
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Entries of the recorded walk between two full collections: the walk runs in one go (no turn of the event loop,
 * when Bun collects on its own), and its garbage, about 700 bytes an entry, would otherwise pile up on top of what
 * it keeps (docs/decisions/0046-index-walk-collected.md).
 */
const RECORD_SLICE = 1 << 17;

/**
 * Records a walk with the witness on, a full collection after every RECORD_SLICE entries.
 * @param compile compiles the walk
 * @param ctx the run context whose methods are recorded
 * @returns its key, plan and recording (null when it cannot be kept), and what it witnessed
 */
function recordCollecting(
  compile: () => WalkPlan,
  ctx: RunContext,
): { value: { key: string; plan: WalkPlan; rec: MemoryWalk } | null; witnessed: Witnessed[] } {
  const seen = new Map<string, Witnessed>();
  const keyed = witnessingInto(seen, () => {
    const plan = compile();
    const key = walkKeyOf(plan);
    return key === null ? null : { key, plan };
  });
  if (keyed === null) return { value: null, witnessed: [...seen.values()] };
  const done: { rec: MemoryWalk | null } = { rec: null };
  const steps = recordingWalk(keyed.plan, ctx, (r) => {
    done.rec = r;
  });
  const every = ctx.recordSlice != null && ctx.recordSlice > 0 ? ctx.recordSlice : RECORD_SLICE;
  const slice = () => {
    for (let i = 0; i < every; i++) if (steps.next().done === true) return true;
    return false;
  };
  while (!witnessingInto(seen, slice)) collectGarbage();
  const value = done.rec === null ? null : { ...keyed, rec: done.rec };
  return { value, witnessed: [...seen.values()] };
}

/**
 * Records the walk of a plain grep of the tree with the witness on, for the index file. A directory or file the
 * walk depends on that changed less than RACY_S before the walk began could change again within the same tick
 * of the file system's clock without its stats showing it: then the walk is recorded again once that moment is
 * RACY_S old (a wait of at most that long), and not kept when the tree is still changing.
 * @returns the sections, or null when no recording can be kept
 */
function recordStoredWalk(
  compile: () => WalkPlan,
  ctx: RunContext,
  idx: TrigramIndex,
  indexed: readonly string[],
): WalkSections | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    const began = Date.now() / 1000;
    const { value, witnessed } = recordCollecting(compile, ctx);
    if (value === null || ctx.shouldStop()) return null;
    let newest = 0;
    for (const w of witnessed)
      if (w.outcome === STAT_OK && !w.kindOnly) newest = Math.max(newest, newestTime(w.words, 0));
    if (newest <= began - RACY_S)
      return walkSections(value.key, value.plan, value.rec, witnessed, idx, indexed);
    if (attempt === 0) {
      const wait = Math.ceil((newest + RACY_S) * 1000 - Date.now()) + 1;
      if (wait > 0) sleep(Math.min(wait, RACY_S * 1000 + 1));
    }
  }
  return null;
}

/** The longest path, in bytes, the system takes whole (Linux's PATH_MAX, its NUL included). */
const PATH_MAX = 4096;

/** Whether a path is too long to be opened or stat'ed by its path (ENAMETOOLONG). */
const tooLong = (p: string): boolean => p.length >= PATH_MAX / 3 && Buffer.byteLength(p, "utf8") >= PATH_MAX;

function walkSections(
  key: string,
  plan: WalkPlan,
  rec: MemoryWalk,
  witnessed: readonly Witnessed[],
  idx: TrigramIndex,
  indexed: readonly string[],
): WalkSections | null {
  const root = plan.roots[0];
  if (root === undefined || !rec.plainBelow(root.abs)) return null;
  // A path the system cannot take whole (PATH_MAX) cannot be checked or opened by its path: the walk reaches
  // it from its directory's descriptor, a replay could not, so no walk is kept.
  for (const w of witnessed) if (tooLong(w.path)) return null;
  const relList: string[] = [];
  const ids = new Int32Array(rec.entries);
  for (let i = 0; i < rec.entries; i++) {
    if (tooLong(rec.absOf(i))) return null;
    const id = idx.idOfPath(rec.absOf(i));
    ids[i] = id;
    // An indexed file's relative path is in the index already (when the walk's base is the tree's real path).
    const rel = rec.relOf(i);
    relList.push(id >= 0 && indexed[id] === rel ? "" : rel);
  }
  const witnessPaths = witnessed.map((w) => w.path);
  if (relList.some(notUtf8Exactly) || witnessPaths.some(notUtf8Exactly)) return null;
  const rels = new JoinedText(relList);
  const witness = new JoinedText(witnessPaths);
  const seen = new Uint32Array(witnessed.length * STAT_WORDS);
  for (let i = 0; i < witnessed.length; i++) seen.set((witnessed[i] as Witnessed).words, i * STAT_WORDS);
  const payloads = Buffer.from(JSON.stringify(rec.payloads), "utf8");
  return {
    header: {
      key,
      entries: rec.entries,
      steps: rec.ops.length,
      witnessed: witnessed.length,
      rel_bytes: rels.byteLength,
      witness_bytes: witness.byteLength,
      payload_bytes: payloads.length,
    },
    seen,
    args: rec.args,
    ids,
    ops: rec.ops,
    types: rec.typeCodes(),
    // Per witnessed path: how it was stat'ed and what counts (witnessFlags).
    follow: Uint8Array.from(witnessed, witnessFlags),
    rels,
    witness,
    payloads,
  };
}

/** A recorded walk read back: its key, the replayable recording, the entries' index ids, what it depends on. */
export interface StoredWalk {
  readonly key: string;
  /**
   * The recording (parsed when first asked for).
   * @param base the base its entries are below (the walk's key holds it)
   */
  recording(base: string): PlainWalk;
  readonly ids: Int32Array;
  /** How many paths it depends on. */
  readonly witnessed: number;
  /** Whether the i-th of them stats as it did (false when the recording's paths are not readable). */
  stillWitnessed(i: number): boolean;
  /** Whether every path it depends on stats as it did (checked when first asked, then remembered). */
  fresh(): boolean;
  /** The paths it depends on, with the stats they had (decoded when asked for). */
  witnesses(): Witnessed[];
  /** The i-th of them alone (decoded when asked for), or null when the recording's paths are not readable. */
  witness(i: number): Witnessed | null;
}

/** An index read back and checked. */
export interface LoadedIndex {
  readonly header: IndexHeader;
  readonly index: TrigramIndex;
  /** Per file id: size, mtime (ns), ctime (ns), inode. */
  readonly facts: Uint32Array;
  /** Relative paths (POSIX) of the file ids (decoded when first asked for). */
  readonly paths: readonly string[];
  /** The relative path of one file id (without decoding the others). */
  pathAt(id: number): string;
  /** Checks of file ids' stats against those they were indexed with (close them when done). */
  fileChecks(): ItemChecks;
  /** The section of the files' relative paths (NUL-separated, by id) and where each starts in it (pathStarts). */
  readonly pathSection: Uint8Array;
  readonly pathStarts: Int32Array;
  /** Where the facts and the paths lie in the file (the stat worker reads them there). */
  readonly factsAt: number;
  readonly pathsAt: number;
  /** The body's hash as the file's prefix holds it (checked). */
  readonly hash: string;
  readonly bytes: number;
  /** The walk of a plain grep recorded with it, or null. */
  readonly walk: StoredWalk | null;
}

/**
 * Reads an opened index file: mapped, private and copy-on-write, where the platform maps it (Linux under Bun),
 * else into memory of its own (8-byte aligned for the typed-array views). The copy cost most of a restart's
 * load on 277k files (142 MB: 0.6-1.6 s against 0.1-0.15 s mapped, the hash check included). A mapping faults
 * (SIGBUS, which kills the process) when the file is truncated in place while it is mapped: rglob only ever
 * replaces an index file whole (renamed over it), so only another program writing into the user's cache can
 * (docs/decisions/0052-index-file-mapped.md; 0028 chose the copy for that reason, at 51 MB).
 * @param fd the open file
 * @param size its size when it was opened
 * @param map whether to map it (a server's load); a CLI grep reads its copy, and so lives through another program
 *   truncating the file in place (ADR 0028)
 * @returns its bytes, or why it is not used (not an index, another format, shorter than when opened)
 */
function readIndexFile(fd: number, size: number, map: boolean): Buffer | string {
  // The prefix first: a file that is not an index (or of another format) is not read whole, however large.
  const head = Buffer.alloc(PREFIX);
  const got0 = size < PREFIX ? 0 : readInto(fd, head, 0, PREFIX, 0);
  const prefix = headerLength(head, got0 < PREFIX ? got0 : size);
  if (typeof prefix === "string") return prefix;
  // Mapped where it can be: a read copies every byte into fresh memory first, a mapping reads each page of the
  // page cache as the hash check touches it (ADR 0052).
  const mapped = map ? mapOpenedFile(fd, size) : null;
  if (mapped !== null) return mapped;
  return readWhole(fd, size, 0) ?? "truncated";
}

/**
 * Reads the index of a tree and checks it: magic, format, rglob version, root, options, length and the hash
 * of its body. Anything else is not used.
 * @param root the tree's real path
 * @param file the index file (indexPathFor), or the file as openIndexFile opened it (left open)
 * @returns the index, or the reason it is not used (null reason: there is none)
 */
export function loadIndex(
  root: string,
  file: string | OpenedIndex,
  map = false,
): { index: LoadedIndex; reason: null } | { index: null; reason: string | null } {
  const opened = typeof file === "string" ? openIndexFile(file) : file;
  if ("reason" in opened) return { index: null, reason: opened.reason };
  let read: Buffer | string;
  try {
    read = readIndexFile(opened.fd, opened.size, map);
  } catch (err) {
    return { index: null, reason: `unreadable: ${(err as Error).message}` };
  } finally {
    if (typeof file === "string") closeDescriptor(opened.fd);
  }
  const bad = (why: string) => ({ index: null, reason: why });
  if (typeof read === "string") return bad(read);
  const raw = read;
  const jsonLen = headerLength(raw, raw.length);
  if (typeof jsonLen === "string") return bad(jsonLen);
  if (!hashHolds(raw)) return bad("corrupt (hash)");
  let h: IndexHeader;
  try {
    h = JSON.parse(raw.toString("utf8", PREFIX, PREFIX + jsonLen)) as IndexHeader;
  } catch {
    return bad("corrupt header");
  }
  if (h.format !== INDEX_FORMAT) return bad(`format ${h.format}, not ${INDEX_FORMAT}`);
  if (h.rglob !== PACKAGE_VERSION) return bad(`built by rglob ${h.rglob}, this is ${PACKAGE_VERSION}`);
  if (h.root !== root) return bad(`built for another tree (${h.root})`);
  const o = h.options;
  if (
    o?.hidden !== INDEX_WALK.hidden ||
    o.respect_gitignore !== INDEX_WALK.respect_gitignore ||
    o.follow_symlinks !== INDEX_WALK.follow_symlinks ||
    o.max_file_size !== INDEX_MAX_FILE_SIZE
  )
    return bad("built with other options");
  const counts = [
    h.files,
    h.trigrams,
    h.text_bytes,
    h.posting_bytes,
    h.path_bytes,
    h.quad_files,
    h.quad_bytes,
  ];
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0)) return bad("corrupt header");
  const toc = tocOf(h, jsonLen, raw.length);
  if (typeof toc === "string") return bad(toc);
  const at = toc.offset;
  const pathsEnd = at.paths + h.path_bytes;
  // Typed arrays need aligned offsets: the sections are aligned within the file (read at offset 0).
  const buf = raw;
  const ab = buf.buffer as ArrayBuffer;
  const o0 = buf.byteOffset;
  const facts = new Uint32Array(ab, o0 + at.facts, h.files * FACTS);
  const keys = new Uint32Array(ab, o0 + at.keys, h.trigrams);
  const starts = new Uint32Array(ab, o0 + at.starts, h.trigrams + 1);
  const flags = new Uint8Array(ab, o0 + at.flags, h.files);
  const data = new Uint8Array(ab, o0 + at.data, h.posting_bytes);
  const quadIds = new Uint32Array(ab, o0 + at.quadids, h.quad_files * 2);
  const quads = new Uint8Array(ab, o0 + at.quads, h.quad_bytes);
  if (!quadsHold(quadIds, h.files, h.quad_bytes)) return bad("corrupt sections");
  // Where each relative path starts; they are decoded when asked for.
  const pathOffsets = pathStarts(buf.subarray(at.paths, pathsEnd), h.files);
  if (pathOffsets === null || starts[h.trigrams] !== h.posting_bytes) return bad("corrupt sections");
  const pathAt = (id: number) =>
    buf.toString(
      "utf8",
      at.paths + (pathOffsets[id] as number),
      at.paths + (pathOffsets[id + 1] as number) - 1,
    );
  const pathSection = buf.subarray(at.paths, pathsEnd);
  const fileChecks = (): ItemChecks => fileChecksOf(root, pathSection, pathOffsets, facts);
  let pathList: string[] | null = null;
  const pathsOf = (): string[] => {
    pathList ??= h.files === 0 ? [] : buf.toString("utf8", at.paths, pathsEnd).split("\0");
    return pathList;
  };
  // Paths are stored POSIX; the walk gives the platform's.
  const sep = root.endsWith(path.sep) ? "" : path.sep;
  const native = path.sep === "/" ? (p: string) => p : (p: string) => p.split("/").join(path.sep);
  const abs = () => pathsOf().map((p) => (p === "" ? root : root + sep + native(p)));
  const sizes = new Float64Array(h.files);
  for (let i = 0; i < h.files; i++)
    sizes[i] = (facts[i * FACTS] as number) + (facts[i * FACTS + 1] as number) * 4294967296;
  // The paths' characters as the map will hold them (a byte each, the NUL after each taken by the root's "/").
  const chars = h.path_bytes + h.files * (root.length + sep.length - 1);
  // A server's lookups by path read the section's bytes (a map of every path is one block of a second or more at
  // 277k files); the CLI's grep, which replays its walk by ids, builds the map if it ever needs one.
  const table = map ? new PathTable(pathSection, pathOffsets, root, path.sep) : null;
  const index = TrigramIndex.fromParts(
    abs,
    { keys, starts, data, flags, textBytes: h.text_bytes, quadIds, quads },
    sizes,
    chars,
    table,
  );
  const stored = h.walk === null ? null : storedWalkOf(h.walk, buf, at, h.files, pathAt);
  if (stored === undefined) return bad("corrupt sections");
  const hash = prefixHash(raw);
  return {
    index: {
      header: h,
      index,
      facts,
      get paths() {
        return pathsOf();
      },
      pathAt,
      fileChecks,
      pathSection,
      pathStarts: pathOffsets,
      factsAt: at.facts,
      pathsAt: at.paths,
      hash,
      bytes: raw.length,
      walk: stored,
    },
    reason: null,
  };
}

/**
 * Reads the recorded walk's sections (they are parsed when first used).
 * @returns the walk, or undefined when its sections are not consistent
 */
function storedWalkOf(
  w: StoredWalkHeader,
  buf: Buffer,
  at: Toc["offset"],
  files: number,
  pathAt: (id: number) => string,
): StoredWalk | undefined {
  const ok = [w.entries, w.steps, w.witnessed, w.rel_bytes, w.witness_bytes, w.payload_bytes].every(
    (n) => Number.isSafeInteger(n) && n >= 0,
  );
  if (!ok || typeof w.key !== "string") return undefined;
  const ab = buf.buffer as ArrayBuffer;
  const o0 = buf.byteOffset;
  const ids = new Int32Array(ab, o0 + at.ids, w.entries);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (id < -1 || id >= files) return undefined;
  }
  let recording: PlainWalk | null = null;
  let fresh: boolean | null = null;
  // The checks of the witnessed paths (made when first needed; null when their section is not readable).
  let witnessChecks: ItemChecks | null | undefined;
  // Where each witnessed path and its flags and stats are (found when first needed; null: not readable).
  let decoded: { names: Buffer; starts: Int32Array; flags: Uint8Array; seen: Uint32Array } | null | undefined;
  return {
    key: w.key,
    ids,
    recording(base) {
      if (recording !== null && recording.base === base) return recording;
      const ops = new Uint8Array(ab, o0 + at.ops, w.steps);
      const args = new Int32Array(ab, o0 + at.args, w.steps);
      const rels = w.entries === 0 ? [] : buf.toString("utf8", at.rels, at.rels + w.rel_bytes).split("\0");
      const payloads = JSON.parse(
        buf.toString("utf8", at.payloads, at.payloads + w.payload_bytes),
      ) as Payload[];
      const types = new Uint8Array(ab, o0 + at.types, w.entries);
      // An empty relative path is an indexed file's, which the index holds (decoded when replayed).
      recording = new PlainWalk(ops, args, payloads, rels, types, base, (i) => pathAt(ids[i] as number));
      return recording;
    },
    witnessed: w.witnessed,
    stillWitnessed(i) {
      if (witnessChecks === undefined) {
        const names = buf.subarray(at.witness, at.witness + w.witness_bytes);
        const starts = pathStarts(names, w.witnessed);
        witnessChecks =
          starts === null
            ? null
            : witnessChecksOf(
                names,
                starts,
                new Uint8Array(ab, o0 + at.follow, w.witnessed),
                new Uint32Array(ab, o0 + at.seen, w.witnessed * STAT_WORDS),
              );
      }
      return witnessChecks?.unchanged(i) === true;
    },
    witnesses() {
      const out: Witnessed[] = new Array(w.witnessed);
      for (let i = 0; i < w.witnessed; i++) {
        const one = this.witness(i);
        if (one === null) return [];
        out[i] = one;
      }
      return out;
    },
    witness(i) {
      if (decoded === undefined) {
        const names = buf.subarray(at.witness, at.witness + w.witness_bytes);
        const starts = pathStarts(names, w.witnessed);
        decoded =
          starts === null
            ? null
            : {
                names,
                starts,
                flags: new Uint8Array(ab, o0 + at.follow, w.witnessed),
                seen: new Uint32Array(ab, o0 + at.seen, w.witnessed * STAT_WORDS),
              };
      }
      if (decoded === null) return null;
      const { names, starts, flags, seen } = decoded;
      const f = flags[i] as number;
      return {
        path: names.toString("utf8", starts[i] as number, (starts[i + 1] as number) - 1),
        follow: (f & 1) === 1,
        outcome: ((f >> 1) & 3) as Witnessed["outcome"],
        kindOnly: (f & 8) !== 0,
        words: seen.slice(i * STAT_WORDS, (i + 1) * STAT_WORDS),
      };
    },
    fresh() {
      if (fresh !== null) return fresh;
      fresh = true;
      for (let i = 0; fresh && i < w.witnessed; i++) fresh = this.stillWitnessed(i);
      return fresh;
    },
  };
}

/**
 * Counts the indexed files whose stats changed since they were indexed (or that are gone).
 * @param idx the index
 * @returns the count
 */
export function changedFiles(idx: LoadedIndex): number {
  let n = 0;
  const checks = idx.fileChecks();
  try {
    for (let id = 0; id < idx.header.files; id++) if (!checks.unchanged(id)) n++;
  } finally {
    checks.close();
  }
  return n;
}

/** Whether a file's stats (not following a symlink) are those it was indexed with. */
function unchanged(abs: string, facts: Uint32Array, id: number): boolean {
  return sameWords(abs, false, facts, id * FACTS);
}

/** Below this many files the stats are checked in the calling thread only (a worker's start costs more). */
const PARALLEL_STATS = 4096;

/** A worker started for checkStats before the index is read (its start-up overlaps the read), or null. */
function startStatWorker(): Worker | null {
  if (typeof Worker === "undefined" || !onBun || path.sep !== "/") return null;
  if (os.availableParallelism() < 2) return null;
  try {
    const w = startWorker("engine/index/stat-worker");
    w.unref(); // never what keeps the process alive
    return w;
  } catch {
    return null;
  }
}

/** The stat worker's job for a restarted server's watch set-up (startWatchedStats). */
export interface WatchedStats {
  readonly worker: Worker;
  readonly files: number;
  readonly out: SharedArrayBuffer;
}

/**
 * Starts the stat worker on a loaded index's files for a restarted server whose watch is about to be set up from
 * the directories of the walk written with the index (stat-job.ts's WatchedStatJob): it stats each file once
 * the set-up says the directory holding it is watched, on the other core, while this thread sets the watch up.
 * @param loaded the loaded index
 * @param file the index file it was read from (the worker reads it again and gives up when it is another)
 * @param root the tree's real path
 * @param dirs the directories the set-up watches, in its order, relative to the root
 * @returns the job, or null (one core, no worker, or no file)
 */
export function startWatchedStats(
  loaded: LoadedIndex,
  file: string,
  root: string,
  dirs: readonly string[],
): WatchedStats | null {
  const files = loaded.header.files;
  // Whatever the tree's size: a small tree's job is short, and the caller stats on its own thread what the
  // worker has not answered (or everything, when the worker is not ready when the set-up ends).
  if (files === 0) return null;
  const worker = startStatWorker();
  if (worker === null) return null;
  try {
    const out = watchedMemory(files);
    // Where the sections lie, not copies of them: the worker reads them (on 277k files, copying them into
    // shared memory held this thread, and a call that came meanwhile, for half a second).
    const job: WatchedStatJob = {
      kind: "watched",
      file,
      hash: loaded.hash,
      root,
      factsAt: loaded.factsAt,
      pathsAt: loaded.pathsAt,
      pathBytes: loaded.header.path_bytes,
      files,
      dirs: dirs.join("\0"),
      out,
      map: true,
      routes: routes(),
    };
    worker.postMessage(job);
    return { worker, files, out };
  } catch {
    worker.terminate();
    return null;
  }
}

/** A job given to the stat worker before the index is read (stat-job.ts). */
interface EarlyStats {
  readonly worker: Worker;
  readonly hash: string;
  readonly out: SharedArrayBuffer;
}

/**
 * Reads an index file's header and, when its recorded walk is the one a grep is about to replay (same key) and
 * the tree is large enough, starts the stat worker with its part of the checks (ids from three tenths of the
 * files to the last), so that it works while this thread reads the whole file.
 * @param file the index file (the worker opens it as openIndexFile does and checks it has the same hash)
 * @param fd the index file as opened here (openIndexFile)
 * @param size its size when it was opened
 * @param root the tree's real path
 * @param key the grep's walk key (walkKeyOf)
 * @param map whether the worker maps the file (a server) or reads copies (a CLI grep: readIndexFile)
 * @returns the job, or null when there is none to give (loadIndex says why a header is not used)
 */
function startEarlyStats(
  file: string,
  fd: number,
  size: number,
  root: string,
  key: string,
  map: boolean,
): EarlyStats | null {
  let worker: Worker | null = null;
  try {
    const head = Buffer.alloc(64 * 1024);
    const jsonLen = headerLength(head, readInto(fd, head, 0, head.length, 0));
    if (typeof jsonLen === "string") return null;
    const h = JSON.parse(head.toString("utf8", PREFIX, PREFIX + jsonLen)) as IndexHeader;
    if (h.root !== root || h.walk?.key !== key || !Number.isSafeInteger(h.files) || h.files < PARALLEL_STATS)
      return null;
    worker = startStatWorker();
    if (worker === null) return null;
    const toc = tocOf(h, jsonLen, size);
    if (typeof toc === "string") return null;
    const at = toc.offset;
    const hash = prefixHash(head);
    const witnessed = h.walk.witnessed;
    const out = jobMemory(witnessed + h.files);
    const job: StatJob = {
      file,
      hash,
      root,
      factsAt: at.facts,
      pathsAt: at.paths,
      pathBytes: h.path_bytes,
      files: h.files,
      witnessed,
      seenAt: at.seen,
      witnessFlagsAt: at.follow,
      witnessAt: at.witness,
      witnessBytes: h.walk.witness_bytes,
      out,
      map,
      routes: routes(),
    };
    worker.postMessage(job);
    return { worker, hash, out };
  } catch {
    worker?.terminate();
    return null;
  }
}

/**
 * Checks whether the paths a recorded walk depends on, and which indexed files, still stat as they did. With
 * the stat worker's job for this index, this thread takes chunks of them from the counter the worker takes
 * them from (the worker started first, while this thread read the index), and last checks itself what the
 * worker left unanswered (it gave up, or has not answered in 10 s).
 * @param loaded the index
 * @param ids the file ids to check
 * @param early the stat worker's job for this index, or null
 * @param stored the recorded walk
 * @param leave every chunk is left to the worker (RGLOB_STAT_SPLIT=worker: tests make sure of its answers)
 * @returns per file id, 1 when its stats are unchanged (ids not asked for are 0); whether the walk is fresh
 */
function checkStats(
  loaded: LoadedIndex,
  ids: readonly number[],
  early: EarlyStats | null,
  stored: StoredWalk,
  leave: boolean,
): { same: Uint8Array; fresh: boolean } {
  const checks = loaded.fileChecks();
  try {
    return checkWith(checks, loaded, ids, early, stored, leave);
  } finally {
    checks.close();
  }
}

/** checkStats with the index's file checks open. */
function checkWith(
  checks: ItemChecks,
  loaded: LoadedIndex,
  ids: readonly number[],
  early: EarlyStats | null,
  stored: StoredWalk,
  leave: boolean,
): { same: Uint8Array; fresh: boolean } {
  const files = loaded.header.files;
  const same = new Uint8Array(files);
  // The worker's answers hold for this index only (the file it read has the same hash).
  const job = early !== null && early.hash === loaded.hash ? early : null;
  if (job === null) {
    const fresh = stored.fresh();
    for (const id of ids) same[id] = checks.unchanged(id) ? 1 : 0;
    return { same, fresh };
  }
  const w = stored.witnessed;
  const wanted = new Uint8Array(files);
  for (const id of ids) wanted[id] = 1;
  const { control, answers } = viewsOf(job.out);
  if (!leave)
    takeChunks(control, answers, w + files, (item) =>
      item < w ? stored.stillWitnessed(item) : wanted[item - w] === 1 ? checks.unchanged(item - w) : null,
    );
  // The chunk the worker holds, if any (a few hundred stat calls), or all of them. A worker that has not
  // answered in 10 s (or failed) is not waited for.
  const until = Date.now() + 10_000;
  for (let s = Atomics.load(control, STATE); s === TAKING || (leave && s === NOT_STARTED); ) {
    const left = until - Date.now();
    if (left <= 0) break;
    Atomics.wait(control, STATE, s, left);
    s = Atomics.load(control, STATE);
  }
  let fresh = true;
  for (let i = 0; fresh && i < w; i++) {
    const answer = answers[i] as number;
    fresh = answer === UNCHECKED ? stored.stillWitnessed(i) : answer === SAME;
  }
  for (const id of ids) {
    const answer = answers[w + id] as number;
    same[id] = (answer === UNCHECKED ? checks.unchanged(id) : answer === SAME) ? 1 : 0;
  }
  return { same, fresh };
}

/**
 * The same checks for a loaded index whose watch is not trusted yet (a restarted server's first queries): the
 * paths its recorded walk depends on and the given file ids, stat'ed now on this thread and, for a large tree,
 * on the stat worker started for them (it reads the index file again and gives up when it is another).
 * @param loaded the index (its recorded walk must be there)
 * @param file the index file it was read from
 * @param root the tree's real path
 * @param ids the file ids to check
 * @param leave every chunk is left to the worker (RGLOB_STAT_SPLIT=worker)
 * @returns per file id, 1 when its stats are unchanged (ids not asked for are 0); whether the walk is fresh;
 *   null without the worker (the tree is small, or the file is not the one loaded): the caller stats
 */
export function checkLoaded(
  loaded: LoadedIndex,
  file: string,
  root: string,
  ids: readonly number[],
  leave: boolean,
): { same: Uint8Array; fresh: boolean } | null {
  const stored = loaded.walk;
  if (stored === null) return null;
  let early: EarlyStats | null = null;
  const opened = openIndexFile(file);
  if (!("reason" in opened)) {
    try {
      early = startEarlyStats(file, opened.fd, opened.size, root, stored.key, true);
    } finally {
      closeDescriptor(opened.fd);
    }
  }
  // Without the worker (or its file is not the one loaded): null, the caller stats as before (checkStats would
  // remember the walk fresh).
  if (early === null || early.hash !== loaded.hash) {
    early?.worker.terminate();
    return null;
  }
  try {
    return checkStats(loaded, ids, early, stored, leave);
  } finally {
    early.worker.terminate();
  }
}

/**
 * Removes the index of a tree.
 * @param root the tree's real path
 * @param indexDir where indexes are kept (the Config's indexDir)
 * @returns whether there was one
 */
export function removeIndex(root: string, indexDir: string): boolean {
  try {
    removeFile(indexPathFor(root, indexDir));
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw cacheError(err, "cannot remove the index", indexPathFor(root, indexDir));
  }
}

/**
 * The CLI's provider: for a grep run, the persisted index of the tree holding its first root that has one
 * (the root itself or a directory above it), read once per process; off when the switches say so (RGLOB_INDEX=0).
 */
export class PersistedIndexes implements WarmProvider {
  /**
   * @param switches the environment's switches (a Config): index false (RGLOB_INDEX=0) turns it off;
   * statsInWorker (RGLOB_STAT_SPLIT=worker) leaves every stat check to the worker
   */
  constructor(
    private readonly switches: {
      readonly index: boolean;
      readonly statsInWorker?: boolean;
      /** Where indexes are kept (RGLOB_CACHE_DIR's `index`, else the platform's cache directory's). */
      readonly indexDir: string;
    },
  ) {}

  private readonly loaded = new Map<string, LoadedIndex | null>();
  /** The stat worker's job, given from the index file's header before the file is read; ended after the checks. */
  private early: EarlyStats | null = null;

  /**
   * Finds the index of the tree holding the plan's first root that has one (read once per process).
   * @param plan the grep's walk
   * @param key the grep's walk key when the index may be able to rule files out (a stat worker may be started
   * for a recorded walk of that key), else null
   */
  private find(plan: WalkPlan, key: string | null): LoadedIndex | null {
    for (const r of plan.roots) {
      // An index covers a directory: a file root looks from the directory holding it.
      let dir = r.type === "dir" ? r.real : path.dirname(r.real);
      while (true) {
        let hit = this.loaded.get(dir);
        if (hit === undefined) {
          const file = indexPathFor(dir, this.switches.indexDir);
          // Opened once (a regular file of this user, never a FIFO or a device): the header, then the whole.
          const opened = openIndexFile(file);
          hit = null;
          if (!("reason" in opened)) {
            try {
              if (key !== null && this.early === null)
                this.early = startEarlyStats(file, opened.fd, opened.size, dir, key, false);
              hit = loadIndex(dir, opened).index;
            } finally {
              closeDescriptor(opened.fd);
            }
          }
          this.loaded.set(dir, hit);
        }
        if (hit !== null) return hit;
        const up = path.dirname(dir);
        if (up === dir) break;
        dir = up;
      }
    }
    return null;
  }

  /** The CLI remembers no walk: every other operation walks cold. */
  walker(): null {
    return null;
  }

  grep(plan: WalkPlan, spec: SearchSpec, needs: GrepNeeds): WarmGrep {
    try {
      return this.grepSeam(plan, spec, needs);
    } finally {
      // The stat worker's part, if any, is done by now (checkStats waits for it).
      this.early?.worker.terminate();
      this.early = null;
    }
  }

  private grepSeam(plan: WalkPlan, spec: SearchSpec, needs: GrepNeeds): WarmGrep {
    const { readsAll, listsNonMatching, unlexed } = needs;
    const cold = (source: "cold" | null): WarmGrep => ({
      source,
      walk: (p, ctx, after) => walk(p, ctx, after),
      ruledOut: () => false,
      sizeOf: () => null,
    });
    if (!this.switches.index) return cold(null);
    const q = literalQueryOf(spec);
    // Bounded by bytes read (max_bytes), a run must read what the cold run reads; a followed symlink may lead
    // anywhere.
    const narrows = q !== null && !readsAll && !plan.follow;
    const key = walkKeyOf(plan);
    const loaded = this.find(plan, narrows ? key : null);
    if (loaded === null) return cold(null);
    if (!narrows) return cold("cold");
    const idx = loaded.index;
    const candidates = idx.candidates(q);
    if (candidates === null) return cold("cold");
    const facts = loaded.facts;
    const maxFileSize = spec.maxFileSize;
    // Set when the walk is a replay that leaves ruled-out files out: every entry it gives was checked then.
    let replayed = false;
    const ruledOut = (e: Entry): boolean => {
      if (replayed) return false;
      // grep's `in` is given the files it cannot lex by their name: it counts them or reads their `#!` line.
      if (unlexed && lexedByName(e.name) !== true) return false;
      const id = idx.idOfPath(realOf(plan, e));
      if (id < 0 || candidates[id] === 1) return false;
      // Over the query's size cap, the cold answer is its TOO_LARGE.
      if (idx.sizeOf(id) > maxFileSize) return false;
      return unchangedId(id, e.abs);
    };
    // The walk recorded with the index stands for this run's walk when it is the same walk and nothing it
    // depends on changed (a directory's listing, an ignore file, a .git entry): the tree is then not walked.
    // The same walk reaches every indexed file, so the files the index rules out are checked all at once, in
    // two threads, while this one checks what the recorded walk depends on.
    const stored = loaded.walk;
    let replayable: StoredWalk | null = null;
    let same: Uint8Array | null = null;
    if (stored !== null && stored.key === key) {
      const toCheck: number[] = [];
      for (let id = 0; id < candidates.length; id++)
        if (candidates[id] === 0 && idx.sizeOf(id) <= maxFileSize) toCheck.push(id);
      const checked = checkStats(loaded, toCheck, this.early, stored, this.switches.statsInWorker === true);
      same = checked.same;
      if (checked.fresh) replayable = stored;
    }
    const unchangedId = (id: number, abs: string): boolean =>
      same !== null ? same[id] === 1 : unchanged(abs, facts, id);
    return {
      source: "index",
      // Ruled-out files give nothing (no record, error or skip) unless the run lists the files without a match.
      walk: (p, ctx, after) => {
        if (replayable !== null && after === null) {
          const rec = replayable.recording(p.base);
          if (listsNonMatching) return replay(rec, p, ctx, null);
          const ids = replayable.ids;
          replayed = true;
          // Checked above: ruled out by the index, within the size cap, stats unchanged.
          const checked = same as Uint8Array;
          return replay(rec, p, ctx, (i) => {
            const id = ids[i] as number;
            if (id < 0 || checked[id] !== 1) return false;
            return !unlexed || !unlexedAt(rec, i);
          });
        }
        return listsNonMatching ? walk(p, ctx, after) : without(walk(p, ctx, after), ruledOut);
      },
      ruledOut,
      sizeOf: (e) => {
        const id = idx.idOfPath(realOf(plan, e));
        return id < 0 ? null : idx.sizeOf(id);
      },
    };
  }
}
