/*! Engine, warm index: the per-root warm state of a long-lived server. It remembers completed walks (replayed
 * with the same entries, errors and counters, in order) and builds a trigram index of the tree's text in the
 * background, a slice at a time so the server keeps answering. A recursive watch keeps both fresh: a created,
 * deleted or renamed entry or a changed ignore file forgets the remembered walks; a changed file leaves the
 * index (it is searched again). Without a watch, walks are not remembered and each file the index would rule
 * out is compared with its indexed stats first. It writes only its index, to the cache (a restarted server loads
 * and checks it instead of building: load, persist; docs/decisions/0035-index-at-scale.md). Its parts are in
 * warm/: the remembered walks (remembered.ts), the build's reading of the tree (build.ts), what a grep answered
 * from the index is given (query.ts) and offered (grep.ts), the walk a loaded index was written with
 * (stored-walk.ts), the structures that keep no state of the root's, and a server's roots (set.ts). */
import * as v from "valibot";
import { WalkOptionsSchema } from "../../contract/walk-options.ts";
import { type PathWatcher, pathExists, watchRecursive } from "../../platform/files.ts";
import { joinPath } from "../../platform/names.ts";
import { platform } from "../../platform/platform.ts";
import { collectGarbage } from "../../platform/runtime.ts";
import {
  lookForWriting,
  openForWriting,
  type TreeWatch,
  watchTreeInSlices,
} from "../../platform/tree-watch.ts";
import { type GitPlaces, IGNORE_FILE_NAMES } from "../ignore.ts";
import { compileWalk } from "../plan.ts";
import type { GrepNeeds, RunContext } from "../run.ts";
import type { SearchSpec } from "../search/search-file.ts";
import { type Entry, VCS_DIRS, type WalkPlan, walk } from "../walk.ts";
import type { Witnessed } from "../witness.ts";
import { BinaryVerdicts } from "./binary-verdicts.ts";
import { LookMemos } from "./look-memo.ts";
import { indexPathFor, type LoadedIndex, loadIndex, type ServerWalk, writeServerIndex } from "./persist.ts";
import type { WarmGrep, WarmLook, WarmProvider } from "./provider.ts";
import { replayPicked } from "./recorded-walk.ts";
import { SAME, UNCHECKED } from "./stat-job.ts";
import { type IndexStats, TrigramIndex } from "./trigrams.ts";
import { type BuildWalk, readTree } from "./warm/build.ts";
import { draining, type GrepHost, paced, suspectOf, warmGrep } from "./warm/grep.ts";
import { type Checkable, checkable, idsOfInodes, indexedWords } from "./warm/indexed-words.ts";
import { linkedBelow, markLinked } from "./warm/linked.ts";
import { identityOf, mountsAt } from "./warm/mounts.ts";
import type { QueryChecks } from "./warm/query.ts";
import { type Memo, RememberedWalks } from "./warm/remembered.ts";
import { makeShared, selectionOf } from "./warm/selections.ts";
import { StatsBeside, type StoredDirs, storedDirsOf } from "./warm/stored-dirs.ts";
import {
  adoptStored,
  defaultMemo,
  recordDefault,
  type StoredDefault,
  serverDefaultPlan,
  storedDefault,
} from "./warm/stored-walk.ts";

/** How a root's warm state stands (reported by capabilities). */
type WarmState = "building" | "ready" | "warm_list";

/** A root's warm state as reported. */
export interface WarmStatus {
  readonly root: string;
  /** building: the index is being built (answers use the file list); ready: answers use the index;
   * warm_list: no index (over the memory budget, or turned off), answers use the file list only. */
  readonly state: WarmState;
  readonly watching: boolean;
  readonly reason: string | null;
  readonly files: number | null;
  readonly trigrams: number | null;
  /** Estimated memory of the index. */
  readonly index_bytes: number | null;
  /** Bytes of text indexed. */
  readonly text_bytes: number | null;
  readonly build_ms: number | null;
  /** How the last grep answered from the index was kept exact (tests: the fast path is taken). */
  readonly checks?: QueryChecks;
  /**
   * The ignored-entries looks remembered now, how many were kept so far, and how many looks were answered from
   * one (look-memo.ts; present once a look was kept).
   */
  readonly looks?: { readonly remembered: number; readonly kept: number; readonly answered: number };
}

/** Settings of the warm state. */
export interface WarmOptions {
  /** Files larger than this are not indexed (they are always searched). */
  readonly maxFileSize: number;
  /** The index may use at most this fraction of the indexed text's size. */
  readonly budgetRatio: number;
  /** The index may use at most this many bytes whatever the text's size. */
  readonly budgetBytes: number;
  /** Watch the tree (false: per-query stat checks only; RGLOB_WATCH=0). */
  readonly watch: boolean;
  /**
   * The most entries the remembered walks of a root hold together (the least recently used is let go first; a
   * walk of more is answered from, never kept): a walk is remembered whole, so this bounds their memory.
   */
  readonly rememberedEntries: number;
  /**
   * How long a slice of the background work (the watch's set-up, the index build) may take before it gives the
   * event loop a turn (ms; default: 20 for the set-up, 8 for the build; 0: a turn after each step).
   */
  readonly sliceMs?: number;
  /** Every file the index rules out is stat'ed at each query, as before the suspects (RGLOB_WARM_CHECK=stat). */
  readonly statEveryFile?: boolean;
  /** The index is neither loaded from the cache nor written to it (RGLOB_INDEX=0). */
  readonly noCache?: boolean;
  /** The fewest files an index covers to be written to the cache (RGLOB_PERSIST_MIN_FILES; default PERSIST_MIN_FILES). */
  readonly persistMinFiles?: number | null;
  /** A test's gate: the watch is set up only once this path exists (RGLOB_TEST_WATCH_GATE). */
  readonly watchGate?: string | null;
  /** Before the watch is trusted, every stat check a query leaves to the stat worker (RGLOB_STAT_SPLIT=worker). */
  readonly statsInWorker?: boolean;
  /** A test's gate: the index build, every file read, freezes only once this path exists (RGLOB_TEST_BUILD_GATE). */
  readonly buildGate?: string | null;
  /**
   * A test's gate: each pass of the check of every file after the watch is set up (recheck) waits halfway, its
   * first half stat'ed, until this path exists (RGLOB_TEST_RECHECK_GATE).
   */
  readonly recheckGate?: string | null;
  /** A test's limit: the watch fails after this many directories, as at the inotify limit (RGLOB_TEST_WATCH_LIMIT). */
  readonly watchLimit?: number | null;
  /** Where a line goes when the watch fails or loses events (the server's log, stderr). */
  readonly log?: (line: string) => void;
  /** Where persisted indexes are kept (the Config's indexDir); absent: none is loaded from or written to it. */
  readonly indexDir?: string;
  /** Where git's config files are looked for (the Config's git; absent: the engine's default). */
  readonly git?: GitPlaces;
  /**
   * Told, a turn later, when a root's index comes to answer as it will from then on (a build made ready, a loaded
   * index checked once watched): the server rehearses a query of it then, or the first real query would pay for
   * what no call has run yet.
   */
  readonly onTrusted?: (root: string) => Promise<void>;
}

/** A look at every process spread over idle turns (WarmRoot.idleLook), which settle may finish in one go. */
interface IdleLookRun {
  readonly look: Generator<void, Set<number> | null, void>;
  /** lookEpoch and nameSeq when it began: it answers the names and resets made before. */
  readonly epoch: number;
  readonly seq: number;
  /** Its steps so far (one a process) and their time (ms). */
  steps: number;
  ms: number;
}

const SLICE_MS = 8;
/** Paths of a loaded index placed in its table between two looks at the clock (mapPaths). */
const PATHS_SLICE = 2048;
/** Rebuild the index when this many of its files changed (and at least this share of them). */
const REBUILD_DEAD = 256;
const REBUILD_SHARE = 0.05;
/**
 * A built index of at least this many files is written to the cache (persist.ts), for the next server started
 * on the tree to load (RGLOB_PERSIST_MIN_FILES sets it; RGLOB_INDEX=0: never written nor loaded).
 */
const PERSIST_MIN_FILES = 10_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** How long one slice of the watch's set-up may take before the server answers what has come. */
const WATCH_SLICE_MS = 20;
/** How often the tree's own watch is read between calls (its own reads and listings are events too). */
const DRAIN_MS = 25;
/** How often a check of every file waiting for the watch to be whole again looks (ms). */
const WHOLE_WAIT_MS = 20;
/**
 * Files named by closes that wrote nothing (WarmRoot.named) kept as suspects until a look; past this many, one
 * look at everything before the next answer costs less than reading them all at each query.
 */
const NAMED_MAX = 256;
/** How long after the last reset an idle look begins (ms): resets still coming would make it void. */
const LOOK_QUIET_MS = 20;
/** How long a slice of the look through /proc between calls may take (a call that comes waits for its end). */
const IDLE_LOOK_SLICE_MS = 4;
/**
 * What reading a named file as a suspect costs a query, about (ms: 170 suspects took 40-49 ms of a literal found
 * nowhere on a loaded machine): past as many of them as a look costs, settle looks instead of reading them.
 */
const SUSPECT_READ_MS = 0.25;
/** How often it is read while a call is answered (the call's own reads are events too). */
const BUSY_DRAIN_MS = 10;
/** How long the rehearsal waits for the look its reads asked for (rehearsalLooked). */
const REHEARSAL_LOOK_MS = 2000;

/** Whether a path's last component is an ignore file's name (`.gitignore`, `.ignore`). */
function isIgnoreFileName(p: string): boolean {
  return (IGNORE_FILE_NAMES as readonly string[]).includes(p.slice(p.lastIndexOf("/") + 1));
}

/** Per remembered walk, the index its structures were made for between calls (prepare), or null for none. */
const preparedOf = new WeakMap<Memo, TrigramIndex | null>();

export class WarmRoot implements WarmProvider {
  /** The watch: the tree's own, read before each call (tree-watch.ts), or Bun's fs.watch where that is not there. */
  private watcher: TreeWatch | PathWatcher | null = null;
  /** Whether the watch's events are all taken in by `settle()` (the tree's own watch). */
  private synchronous = false;
  private watching = false;
  /** Bumped by every change to the tree's shape or its ignore files: remembered walks older than it are void. */
  private gen = 0;
  /** The walks remembered and those being recorded (warm/remembered.ts). */
  private readonly walks: RememberedWalks;
  /** Bumped when the warm state starts again from scratch (restart): work of an older epoch stops. */
  private epoch = 0;
  /** The root's identity and its mounts when the watch was set up (verify). */
  private rootId = "";
  /** The watch saw the root's directory deleted or moved away (verify starts again, whatever the identity says). */
  private rootGone = false;
  private mounts = "";
  private index: TrigramIndex | null = null;
  private building: TrigramIndex | null = null;
  private state: WarmState = "building";
  private reason: string | null = null;
  private buildMs: number | null = null;
  private closed = false;
  private rebuildPending = false;
  private drainTimer: ReturnType<typeof setInterval> | null = null;
  private busyDrain: ReturnType<typeof setInterval> | null = null;
  /**
   * The inodes held open for writing or mapped shared and writable when the watch was set up (or when it lost
   * track: onReset), which it cannot have seen opened; null: not known (every ruled-out file is stat'ed).
   */
  private held: Set<number> | null = null;
  private heldIds: { readonly idx: TrigramIndex; readonly held: Set<number>; readonly ids: number[] } | null =
    null;
  private rescanDue = false;
  /**
   * Files whose last close (one that wrote nothing) left no open seen, relative, with when (nameSeq): a writer
   * whose open merged with the reader's may hold them (ADR 0032). Suspects until a look at every process that
   * began after they were named (lookWhileIdle, or settle's).
   */
  private readonly named = new Map<string, number>();
  private nameSeq = 0;
  /** When the last reset came (performance.now()): idle looks wait until they stop (LOOK_QUIET_MS). */
  private lastReset = Number.NEGATIVE_INFINITY;
  /** When rescanDue was set (nameSeq): a look begun after it answers it. */
  private rescanAt = 0;
  /** Bumped by each look at every process made in one go: a look spread over idle turns begun before is void. */
  private lookEpoch = 0;
  private idleLooking = false;
  /** The look spread over idle turns now under way (idleLook): settle may finish it instead of reading suspects. */
  private lookNow: IdleLookRun | null = null;
  /** What the last look made whole cost: its steps (one a process) and their time (ms, wall, between turns). */
  private lookCost: { steps: number; ms: number } | null = null;
  /** A build ended whose reads (an open and a close of each file) the drain timer or settle has not taken in. */
  private buildReadsQueued = false;
  /** Looks at every process made by the last settle (capabilities' checks.proc_looks). */
  private settleLooks = 0;
  /** A directory was made or moved in since the open files were last looked for (a rebuild looks again). */
  private scanStale = false;
  /** Every file the index rules out is stat'ed at each query, as before the suspects (options.statEveryFile). */
  private get statEveryFile(): boolean {
    return this.options.statEveryFile === true;
  }
  private lastChecks: QueryChecks | null = null;
  /** Calls in flight: the watch's set-up and the index build wait for them (turn). */
  private holds = 0;
  /** Whether a remembered walk's shared structures are being made between calls (prepare). */
  private preparing = false;
  /** The plans that select every file and every entry (everyEntryPlans), compiled once. */
  private everyEntry: readonly WalkPlan[] | null = null;
  private resumes: Array<() => void> = [];
  /** The binary files queries met, by the words they had then: not read again while unchanged (ADR 0034). */
  private readonly binaries = new BinaryVerdicts();
  /** The ignored-entries looks remembered (look-memo.ts, #36). */
  private readonly looks = new LookMemos({
    shape: () => this.gen,
    trusted: () => this.trustsWatch(),
    suspects: () => suspectOf(this.host()),
    walk: (plan, ctx, after) => this.draining(walk(plan, this.paced(ctx), after)),
    turn: () => this.turn(),
    drain: () => this.liveWatch()?.drain(),
    afterReads: () => this.afterCall(),
  });

  /**
   * @param root the root's real path
   * @param options budget, size cap and watching
   */
  constructor(
    readonly root: string,
    private readonly options: WarmOptions,
  ) {
    this.walks = new RememberedWalks(root, {
      gen: () => this.gen,
      epoch: () => this.epoch,
      closed: () => this.closed,
      watchWhole: () => this.watchWhole(),
      paced: (ctx) => this.paced(ctx),
      turn: () => this.turn(),
      sliceMs: () => this.options.sliceMs ?? SLICE_MS,
      rememberedEntries: options.rememberedEntries,
    });
  }

  /**
   * Starts watching (a slice of directories at a time, so the server answers `initialize` and other requests
   * meanwhile) and then builds the index in the background. Both wait while calls are in flight (`hold`).
   */
  start(): void {
    this.rootId = identityOf(this.root);
    this.mounts = mountsAt(this.root);
    if (!this.options.watch) {
      // Without a watch every file the index would rule out is stat'ed at each query: a loaded index serves too.
      void this.loadOrBuild();
      return;
    }
    void this.loadThenWatch(this.epoch);
  }

  /**
   * A root watched: the index the cache holds is loaded and checked first (load) and answers at once, each file
   * it rules out stat'ed at each query, as without a watch; then the watch is set up, a slice of directories at a
   * time; then every indexed file is stat'ed once more (recheck), and only then does the watch vouch for the
   * files the index rules out. A change made before the watch covered its directory has no event, and is seen by
   * that second stat; a change after it is the watch's (docs/decisions/0035-index-at-scale.md). Without a usable
   * cache file the watch is set up first and the index built (the build's reads must all follow the watch).
   */
  private async loadThenWatch(epoch: number): Promise<void> {
    const gone = () => epoch !== this.epoch || this.closed;
    let loaded: LoadedIndex | null = null;
    const indexDir = this.indexDir();
    if (indexDir !== null) {
      // Not stat'ed here: every file is stat'ed once the watch is whole (recheck), and until then each query
      // stats the files the index rules out; a stat before the watch would be a second pass over every file.
      loaded = await this.load(indexDir, false);
      if (gone()) return;
    }
    // The loaded walk's structures that queries share (its entries' index ids, skeleton, the selections of every
    // file and every entry) are made before the watch is set up, as part of the restart: neither the queries
    // before the watch is trusted nor the first after it pay for them.
    const stored = this.stored;
    if (loaded !== null && stored !== null) await this.prepareStored(stored, loaded.index);
    if (gone()) return;
    // Then the table of ids by path (after the walk's ids, which the queries meanwhile take from the file).
    if (loaded !== null) await this.mapPaths(loaded.index, gone);
    if (gone()) return;
    // The directories the walk written with the index listed are watched without a listing when they stat as it
    // recorded them (tree-watch.ts's `known`).
    let dirs: StoredDirs | null = null;
    // A call that came while the walk's structures were made goes first (they are what it needs).
    if (loaded !== null) await this.turn();
    if (gone()) return;
    try {
      dirs =
        loaded?.walk == null
          ? null
          : await storedDirsOf(this.root, loaded.walk, async () => {
              await this.turn();
              return !gone();
            });
    } catch {}
    // A call that came meanwhile is answered before the stat worker and the set-up start (each a block of work).
    if (loaded !== null) await this.turn();
    if (gone()) return;
    // The indexed files are stat'ed on the other core as the set-up watches their directories (StatsBeside).
    const beside =
      loaded === null || dirs === null || indexDir === null
        ? null
        : StatsBeside.start(loaded, indexPathFor(this.root, indexDir), this.root, dirs, this.forgets);
    try {
      // RGLOB_TEST_WATCH_GATE (a test setting): the watch is set up only once that path exists, so a test can
      // change the tree between the load's check and the watch.
      const gate = this.options.watchGate ?? null;
      if (beside !== null) await this.turn();
      while (gate !== null && !pathExists(gate) && !gone()) await sleep(50);
      await this.startWatch(dirs, beside).catch((err: unknown) => {
        this.notWatching(err instanceof Error ? err.message : String(err));
      });
      if (gone()) return;
      if (loaded === null) void this.build();
      else if (this.synchronous) await this.recheck(loaded, epoch, beside);
      else if (this.watching) {
        this.unverified = null;
        this.loadedChecks = null;
        this.stored = null;
      }
    } finally {
      beside?.stop();
    }
    // No watch (it failed, or the user's inotify watches ran out): each query stats the files the index rules
    // out, and the walk written with the index is replayed after a stat of what it depends on, as before a watch.
    // A loaded index has the default walk recorded at once, as a build keeps its own walk (once watched: a walk
    // is remembered only under the watch).
    if (loaded !== null && !gone()) this.recordDefault();
  }

  /**
   * Fills a loaded index's table of ids by path (path-table.ts) a slice at a time, as part of the restart: the
   * first lookup by path (the first event of the watch, the first query's suspects) then costs what later ones do.
   * @param idx the loaded index
   * @param gone whether the root was given up
   */
  private async mapPaths(idx: TrigramIndex, gone: () => boolean): Promise<void> {
    const sliceMs = this.options.sliceMs ?? SLICE_MS;
    for (;;) {
      const until = performance.now() + sliceMs;
      let done = idx.mapPathsSome(PATHS_SLICE);
      while (!done && performance.now() < until) done = idx.mapPathsSome(PATHS_SLICE);
      if (done || gone()) return;
      await this.turn();
    }
  }

  /** Loads the index the cache holds for the root when it is usable (load), else builds one. */
  private async loadOrBuild(): Promise<void> {
    const indexDir = this.indexDir();
    if (indexDir === null || (await this.load(indexDir)) === null) void this.build();
    else this.recordDefault();
  }

  /**
   * Loads the root's index from the cache (written by a server before, or by `rglob index`), before the watch
   * is set up, and checks it before it answers: the file as loadIndex checks it (this user's regular file, read
   * into memory, hash, format, version, root path and identity), then every indexed file's stats against those
   * it was indexed with (a file changed while no server watched is no longer the index's). Meanwhile calls walk
   * cold, as during a build. Until the watch is set up and the files stat'ed again (recheck), each query stats
   * the files the index rules out (`unverified`).
   * @param indexDir where indexes are kept
   * @param check stat every indexed file before it answers (false: the watch's recheck does it once whole)
   * @returns the index file loaded (also when the root was given up meanwhile), or null: build one
   */
  private async load(indexDir: string, check = true): Promise<LoadedIndex | null> {
    const started = performance.now();
    const epoch = this.epoch;
    const forgets = this.forgets;
    let loaded: LoadedIndex;
    try {
      const r = loadIndex(this.root, indexPathFor(this.root, indexDir), true);
      if (r.index === null) {
        if (r.reason !== null && this.reason === null)
          this.reason = `the cached index is not used: ${r.reason}`;
        return null;
      }
      loaded = r.index;
    } catch {
      return null;
    }
    // A tree removed and made again at the path (or a directory above it replaced) is another tree: its files
    // may hold the same stats by chance, and the CLI's recorded walk is checked by the paths it read, but the
    // server's index has no walk to vouch for it.
    if (loaded.header.root_id !== this.rootId) {
      if (this.reason === null)
        this.reason = "the cached index is not used: built for a tree since removed or replaced at this path";
      return null;
    }
    const idx = loaded.index;
    const files = loaded.header.files;
    const before = this.reason;
    if (!check) {
      this.loadedBefore = before;
      this.adopt(
        loaded,
        started,
        `loaded from the cache (${files} files): each query stats the files it rules out until the watch is set up and every file checked`,
      );
      return loaded;
    }
    // Changes the watch reports while the files are checked mark the index too.
    this.building = idx;
    const sliceMs = this.options.sliceMs ?? SLICE_MS;
    let slice = performance.now();
    let changed = 0;
    const checks = loaded.fileChecks();
    try {
      for (let id = 0; id < files; id++) {
        if ((id & 255) === 0 && performance.now() - slice > sliceMs) {
          await this.turn();
          slice = performance.now();
          if (this.closed || this.epoch !== epoch || this.building !== idx) return loaded;
        }
        if (idx.isLive(id) && !checks.unchanged(id)) {
          idx.invalidateId(id);
          changed++;
        }
      }
    } finally {
      checks.close();
    }
    if (this.building !== idx) return loaded;
    this.building = null;
    // The watch lost track meanwhile, or most files changed: built again.
    if (this.forgets !== forgets || (changed >= REBUILD_DEAD && changed >= files * REBUILD_SHARE))
      return null;
    this.adopt(
      loaded,
      started,
      `loaded from the cache and checked: ${changed} of ${files} files changed since it was written`,
    );
    return loaded;
  }

  /**
   * Makes a loaded index the root's (ready, unverified until the watch's recheck), with the default walk written
   * with it, and says how in the reason.
   * @param loaded the index file loaded
   * @param started when the load began (performance.now())
   * @param how what the reason adds
   */
  private adopt(loaded: LoadedIndex, started: number, how: string): void {
    const idx = loaded.index;
    indexedWords.set(idx, loaded.facts);
    this.stored = storedDefault(loaded, this.walks, this.root, () => this.defaultPlan(), this.options.git);
    this.unverified = idx;
    this.loadedChecks = loaded;
    this.index = idx;
    this.state = "ready";
    this.buildMs = Math.round(performance.now() - started);
    this.reason = this.reason === null ? how : `${this.reason}; ${how}`;
    this.loaded++;
  }

  /**
   * Stats every file of a loaded index again once the watch is set up: a file changed after load() checked it
   * and before the watch covered its directory sent no event the watch could read. Until this is done queries
   * stat every file the index rules out (trustsWatch). Changes after it are the watch's. Events lost (an
   * overflow) before the watch vouches make it stat every file again.
   * @param loaded the index and its checks
   * @param epoch the state's epoch when it began
   * @param beside the stat worker's answers from the watch's set-up (a restart), or null
   * @param before the files found changed by the passes before (the reason counts them all)
   */
  private async recheck(
    loaded: Checkable,
    epoch: number,
    beside: StatsBeside | null = null,
    before = 0,
  ): Promise<void> {
    const idx = loaded.index;
    const sliceMs = this.options.sliceMs ?? SLICE_MS;
    let slice = performance.now();
    let changed = before;
    let aside = 0;
    const checks = loaded.fileChecks();
    const stale = () => this.closed || this.epoch !== epoch || this.index !== idx;
    // this.forgets when the last pass began.
    let forgets = -1;
    try {
      // The watch lost events meanwhile (its queue overflowed and it was set up again: changed(null)): a file
      // stat'ed before may have changed since with no event left to say so; every file is stat'ed again.
      for (let first = true; forgets !== this.forgets; first = false) {
        // The watch set up (again, when its queue overflowed meanwhile): a pass begins once it is whole.
        while (this.watching && !this.watchWhole()) {
          await sleep(WHOLE_WAIT_MS);
          if (stale()) return;
        }
        if (!this.watching) return;
        forgets = this.forgets;
        // What this pass finds unchanged with the watch whole, queries meanwhile take as the watch's (vouchedNow):
        // a change after the stat is an event, one before it shows in the stat (ADR 0035, "A query shares …").
        const vouched = this.synchronous ? new Uint8Array(loaded.header.files) : null;
        this.vouched = vouched === null ? null : { idx, forgets, ids: vouched };
        // The first pass takes what the stat worker answered while the watch was set up (each file stat'ed after
        // its directory's watch was added), when no event was lost since it began; it stats the rest itself.
        const answers =
          first && beside !== null
            ? await beside.finish(this.forgets, this.watcher as TreeWatch, checks, sliceMs, stale, () =>
                this.turn(),
              )
            : null;
        if (stale()) return;
        for (let id = 0, files = loaded.header.files; id < files; id++) {
          if ((id & 255) === 0 && performance.now() - slice > sliceMs) {
            await this.turn();
            slice = performance.now();
            if (stale()) return;
            // Events lost again: this pass's stats vouch for nothing; the next begins once the watch is whole.
            if (forgets !== this.forgets) break;
          }
          if (
            id === files >> 1 &&
            (await this.atGate(this.options.recheckGate, "half of the files checked again, the check", stale))
          )
            return;
          if (!idx.isLive(id)) continue;
          // Stat'ed unchanged by a query of this pass already (warm/grep.ts): the watch's since.
          if (vouched !== null && vouched[id] === 1) continue;
          const answer = answers === null ? UNCHECKED : (answers[id] as number);
          if (answer !== UNCHECKED) aside++;
          if (answer === SAME || (answer === UNCHECKED && checks.unchanged(id))) {
            if (vouched !== null) vouched[id] = 1;
            continue;
          }
          idx.invalidateId(id);
          changed++;
        }
        if (this.synchronous) (this.watcher as TreeWatch).drain();
        if (this.closed || this.epoch !== epoch || this.index !== idx || !this.watching) return;
      }
    } finally {
      checks.close();
      if (this.vouched?.idx === idx && stale()) this.vouched = null;
    }
    if (this.index !== idx || this.unverified !== idx) return;
    const walks = this.walksLoaded;
    await adoptStored(this.host(), idx, epoch);
    if (this.index !== idx || this.unverified !== idx) return;
    // The default walk's shared structures are made before the watch vouches (ADR 0034): the first query then
    // costs its candidates, not a selection of every entry.
    const made = this.defaultMemo();
    if (made !== null) await this.prepare(made, idx);
    if (this.index !== idx || this.unverified !== idx) return;
    // Events lost while those were made (between turns): every file is stat'ed again before the watch vouches.
    if (forgets !== this.forgets) return this.recheck(loaded, epoch, null, changed);
    this.unverified = null;
    this.vouched = null;
    this.loadedChecks = null;
    await this.rehearsal();
    if (this.closed || this.index !== idx) return;
    const walk = this.walksLoaded > walks ? "; the default walk is the one written with the index" : "";
    const listed = this.dirsListed;
    const watch =
      listed === null ? "" : `; the watch listed ${listed.listed} of the walk's ${listed.of} directories`;
    if (this.beforeOverflow !== undefined) {
      this.overflowsChecked++;
      const times = this.overflowsChecked === 1 ? "" : ` (${this.overflowsChecked} times)`;
      // Repaired in place (a stat of each directory): how many it listed again.
      const repair = this.synchronous ? (this.watcher as TreeWatch).lastRepair() : null;
      const again =
        repair === null
          ? ""
          : `; the watch was repaired, ${repair.listed} of its ${repair.dirs} directories listed again`;
      const how = `the watch's queue overflowed${times}: the index was kept and every file checked again, ${changed} of ${loaded.header.files} changed${again}`;
      this.reason = this.beforeOverflow === null ? how : `${this.beforeOverflow}; ${how}`;
      this.say(`${how}; the watch vouches for the files again`);
      // The default walk, when another overflow forgot it while it was recorded again (checkAgain).
      this.recordDefault();
    } else if (this.loadedBefore !== undefined) {
      // Loaded unchecked (load(false)): this was the one stat of every file.
      const beside =
        aside === 0 ? "" : ` (${aside} stat'ed on a second thread as their directories were watched)`;
      const how = `loaded from the cache and checked once watched: ${changed} of ${loaded.header.files} files changed since it was written${beside}${watch}${walk}`;
      this.reason = this.loadedBefore === null ? how : `${this.loadedBefore}; ${how}`;
      this.loadedBefore = undefined;
      this.say(how);
    } else
      this.reason = `${this.reason ?? ""}; watched, and checked again: ${changed} more changed while the watch was set up${watch}${walk}`;
    if (idx.dead >= REBUILD_DEAD && idx.dead >= idx.size * REBUILD_SHARE) this.scheduleRebuild();
  }

  /**
   * A test's gate (RGLOB_TEST_RECHECK_GATE: a pass of recheck, its first half stat'ed): waits for that path, so
   * that a test can query and change the tree meanwhile; its log says so first.
   * @param gate the path, or null/undefined: none
   * @param what what waits, for the log
   * @param stale whether the root was given up
   * @returns whether the root was given up meanwhile
   */
  private async atGate(
    gate: string | null | undefined,
    what: string,
    stale: () => boolean,
  ): Promise<boolean> {
    if (gate == null || pathExists(gate)) return false;
    this.say(`${what} waits at its gate (a test setting)`);
    while (!pathExists(gate) && !stale()) await sleep(50);
    return stale();
  }

  /**
   * The files the recheck under way found unchanged, each stat'ed after the watch was whole (so a change since
   * is an event, which made its id dead), while the watch vouches (watchVouches): none lost since (`forgets`),
   * the same index, the open, held and linked files read as suspects (markSuspects).
   * @returns per file id, 1 when vouched; null when nothing is
   */
  private vouchedNow(idx: TrigramIndex): Uint8Array | null {
    const v = this.vouched;
    if (v === null || v.idx !== idx || v.forgets !== this.forgets || this.unverified !== idx) return null;
    return this.watchVouches() ? v.ids : null;
  }

  /**
   * Has the server rehearse a query of the root (onTrusted), a turn later: the index answers as it will from now
   * on. A loaded index's check waits for it before its reason says so (the first query after that reason then
   * costs what later ones do).
   */
  private async rehearsal(): Promise<void> {
    const told = this.options.onTrusted;
    if (told === undefined || this.closed) return;
    await new Promise((resolve) => setImmediate(resolve));
    if (this.closed) return;
    await told(this.root);
    await this.rehearsalLooked();
  }

  /**
   * After the rehearsal: waits (at most REHEARSAL_LOOK_MS) for the look at every process its reads asked for (the
   * files it read are named: reset), made between calls as after any call, so that the first client's query does
   * not finish it (settleNamed) or read those files as suspects. A client's call that comes meanwhile ends the wait.
   */
  private async rehearsalLooked(): Promise<void> {
    const until = performance.now() + REHEARSAL_LOOK_MS;
    while (this.synchronous && !this.closed && this.holds === 0 && performance.now() < until) {
      (this.watcher as TreeWatch).drain();
      if (this.named.size === 0 && !this.rescanDue) return;
      this.lookWhileIdle();
      await sleep(5);
    }
  }

  /**
   * The watch while it is set up (a loaded index answers meanwhile): calls read its queue as they read the tree
   * (liveWatch), or their own opens and listings overflow it.
   */
  private settingUp: TreeWatch | null = null;

  /** The tree's own watch, whole or being set up, whose queue is read as a call goes (null: none). */
  private liveWatch(): TreeWatch | null {
    return this.synchronous ? (this.watcher as TreeWatch) : this.settingUp;
  }

  /**
   * The state's reason before an index was loaded without a stat of its files (load(false)), until recheck says
   * how many changed (undefined: loaded and checked, or none loaded).
   */
  private loadedBefore: string | null | undefined = undefined;
  /** A loaded index whose files were not stat'ed again since the watch was set up (recheck): queries stat. */
  private unverified: TrigramIndex | null = null;
  /**
   * The pass of recheck under way: per file id, 1 once it stat'ed the file unchanged with the watch whole, and
   * the state's `forgets` when the pass began (vouchedNow); null: none.
   */
  private vouched: { readonly idx: TrigramIndex; readonly forgets: number; readonly ids: Uint8Array } | null =
    null;
  /**
   * The loaded index file's checks while its index is unverified: a query stats the files it rules out by their
   * bytes in the file, relative to the tree's descriptor opened for that query (as recheck does), not by paths
   * made for each (null: by path, sameAsIndexed).
   */
  private loadedChecks: LoadedIndex | null = null;

  /** How many times an index was loaded from the cache instead of built (tests). */
  loaded = 0;
  /** How many times the walk a loaded index was written with became the remembered default walk (tests). */
  walksLoaded = 0;
  /**
   * The walk the loaded index was written with, while the watch is not trusted yet (unverified): a grep of the
   * same walk replays it once every path it depends on stats as it did (checked at each such call), and when
   * the watch is trusted it becomes the remembered default walk (adoptStored).
   */
  private stored: StoredDefault | null = null;
  /**
   * The directories of the walk written with the index that the watch's set-up stat'ed, each after its watch was
   * added, all as recorded, and the generation before the set-up began (startWatch): adoptStored need not stat
   * them again while it is the generation still.
   */
  private dirsVerified: { readonly gen: number; readonly witnessed: Uint8Array } | null = null;
  /** How many of the walk's directories the watch's set-up listed, of how many (the reason says so). */
  private dirsListed: { readonly listed: number; readonly of: number } | null = null;
  /** The build's walk and what it read, until the index is written with it (persist). */
  private buildWalk: BuildWalk | null = null;
  /** Bumped when a watch event forgets everything (it did not say what changed). */
  private forgets = 0;

  /**
   * Writes a built index to the cache (writeServerIndex) when it covers at least PERSIST_MIN_FILES files, after
   * the watch's events so far are taken in; a failure to write only leaves the cache without it.
   */
  /** Where this root's index is loaded from and written to, or null: nowhere (RGLOB_INDEX=0, or not given). */
  private indexDir(): string | null {
    return this.options.noCache === true ? null : (this.options.indexDir ?? null);
  }

  private async persist(idx: TrigramIndex): Promise<void> {
    const indexDir = this.indexDir();
    if (indexDir === null || idx.size < (this.options.persistMinFiles ?? PERSIST_MIN_FILES)) return;
    await this.turn();
    if (this.closed || this.index !== idx) return;
    if (this.synchronous) (this.watcher as TreeWatch).drain();
    const words = indexedWords.get(idx);
    // The build's walk is written with it when every path it depends on still stats as it did (writeServerIndex
    // checks them); `watched`: the watch saw no change to the tree's shape since the walk began.
    const bw = this.buildWalk;
    this.buildWalk = null;
    if (this.index !== idx || words === undefined) return;
    const walked: ServerWalk | null =
      bw === null
        ? null
        : {
            plan: bw.plan,
            rec: bw.rec,
            witnessed: [...bw.seen.values()],
            began: bw.began,
            watched: bw.gen === this.gen && this.synchronous && this.watching,
          };
    // The file's bytes are made in one buffer beside the index: the build's garbage is collected first, so that
    // they come on top of what the server keeps, not of that too (ADR 0044).
    collectGarbage();
    try {
      writeServerIndex(this.root, indexDir, this.rootId, idx, words, this.buildMs ?? 0, walked);
    } catch {}
    // And those bytes, and the build's walk let go above, are garbage now: the server settles at what it keeps.
    collectGarbage();
  }

  /**
   * Checks at each call what no watch reports (docs/decisions/0032-freshness-model.md): the directory at the
   * root's path is the one watched (same device and inode: not removed and made again, not replaced through a
   * directory above it, nothing mounted over it) and the mounts at or below it are those it had. On any
   * difference everything is forgotten and the root is watched and indexed again from its path; meanwhile calls
   * walk cold.
   */
  private verify(): void {
    if (this.closed) return;
    const id = identityOf(this.root);
    const mounts = mountsAt(this.root);
    if (id === this.rootId && mounts === this.mounts && !this.rootGone) return;
    this.restart(
      id !== this.rootId
        ? `the root's directory changed (${id})`
        : this.rootGone
          ? "the root's directory was deleted or moved away (a directory now at its path may reuse its inode)"
          : "a mount changed at or below the root",
    );
  }

  /** Forgets everything and starts again from the root's path (a new watch, a new index). */
  private restart(why: string): void {
    this.epoch++;
    this.looks.clear();
    this.stopWatch();
    this.forgetWalks();
    this.index = null;
    this.loadedChecks = null;
    this.building = null;
    this.stored = null;
    this.buildWalk = null;
    this.state = "building";
    this.reason = `${why}: watched and indexed again`;
    this.beforeOverflow = undefined;
    this.overflowsChecked = 0;
    this.restarts++;
    this.rootGone = false;
    this.start();
  }

  /** How many times the warm state started again from scratch (tests). */
  restarts = 0;

  /** Forgets the remembered walks and those being recorded. */
  private forgetWalks(): void {
    this.gen++;
    this.walks.forget();
  }

  /**
   * Holds the background work (the watch's set-up, the index build) back while a call is answered: on the one
   * thread they would take turns with it. Until the watch is set up nothing warm answers (no walk is remembered,
   * `RememberedWalks.key`; no index): a call then walks cold, as the CLI does.
   * @returns the release (the first call of it counts; later ones do nothing)
   */
  hold(): () => void {
    const live = this.liveWatch();
    if (this.holds++ === 0 && live !== null && this.busyDrain === null) {
      // A call may read many files, each an open and a close event: read them as they come, so that the queue
      // (16,384 events by default) does not overflow into a recrawl.
      const w = live;
      this.busyDrain = setInterval(() => w.drain(), BUSY_DRAIN_MS);
      this.busyDrain.unref?.();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) {
        if (this.busyDrain !== null) clearInterval(this.busyDrain);
        this.busyDrain = null;
        // Resumed on the next turn, once the answer is sent (its promise chain runs first): resumed here, the
        // background work's slice ran before the send (#36).
        setImmediate(() => {
          if (this.holds === 0) this.resume();
        });
        // The call's own reads named files (closes that left no open seen): the look they wait for begins as
        // soon as the answer is out, not at the next tick of the drain timer (up to DRAIN_MS later), so that a
        // query soon after finds them looked at rather than reads them all.
        if (this.synchronous) setImmediate(() => this.afterCall());
      }
    };
  }

  /** Right after the last call in flight: the events it made taken in, and the look they ask for begun. */
  private afterCall(): void {
    if (this.holds > 0 || this.closed || !this.synchronous) return;
    (this.watcher as TreeWatch).drain();
    this.lookWhileIdle(true);
  }

  private resume(): void {
    const waiting = this.resumes;
    this.resumes = [];
    for (const r of waiting) r();
  }

  /** What the background work awaits between its slices: a turn of the event loop, then the calls in flight. */
  private async turn(): Promise<void> {
    await nextTurn();
    while (this.holds > 0 && !this.closed) await new Promise<void>((resolve) => this.resumes.push(resolve));
  }

  /** Stops watching and any build. */
  close(): void {
    this.closed = true;
    this.looks.clear();
    this.stopWatch();
    this.forgetWalks();
    this.stored = null;
    this.buildWalk = null;
    this.index = null;
    this.loadedChecks = null;
    this.building = null;
    this.resume();
  }

  /** The state as reported in capabilities. */
  status(): WarmStatus {
    const s: IndexStats | null = this.index?.stats() ?? null;
    return {
      root: this.root,
      state: this.state,
      watching: this.watching,
      reason: this.reason,
      files: s?.files ?? null,
      trigrams: s?.trigrams ?? null,
      index_bytes: s?.memoryBytes ?? null,
      text_bytes: s?.textBytes ?? null,
      build_ms: this.buildMs,
      ...(this.lastChecks !== null ? { checks: { ...this.lastChecks } } : {}),
      ...(this.looks.kept > 0
        ? { looks: { remembered: this.looks.size, kept: this.looks.kept, answered: this.looks.answered } }
        : {}),
    };
  }

  /**
   * @param dirs the directories of the walk written with a loaded index: watched without a listing when they
   *   stat as recorded
   * @param beside the stat worker's job, told between slices how many of `dirs` are watched
   */
  private async startWatch(dirs: StoredDirs | null = null, beside: StatsBeside | null = null): Promise<void> {
    const epoch = this.epoch;
    // Every change from here on is an event once its directory is watched; a directory of `dirs` is stat'ed just
    // after its watch is added, so one that stats as recorded needs no other stat before the walk is trusted
    // (adoptStored) while no event came since this generation.
    const gen = this.gen;
    const stopped = () => this.closed || this.epoch !== epoch;
    const own = await watchTreeInSlices(
      this.root,
      {
        onEvent: (event, rel) => this.changed(event, rel),
        onLost: (reason) => this.lostWatch(reason),
        onRootGone: () => {
          this.rootGone = true;
        },
        onReset: (rel) => this.reset(rel),
        onRepaired: () => this.lostEvents(true),
      },
      this.options.sliceMs ?? WATCH_SLICE_MS,
      stopped,
      async () => {
        // The stat worker may stat the files of the directories watched so far.
        beside?.progress(this.settingUp);
        await this.turn();
      },
      (w) => {
        this.settingUp = w;
        // Its events read on a thread of its own as they come, kept in order for the drains: the set-up's own
        // listings, the build's reads, or another process reading the tree outrun a drain every DRAIN_MS.
        w.readOnThread();
      },
      this.options.watchLimit ?? null,
      dirs,
    ).finally(() => {
      this.settingUp = null;
    });
    if (stopped()) {
      own?.close();
      return;
    }
    if (own !== null) {
      this.watcher = own;
      this.watching = true;
      this.synchronous = true;
      const use = own.knownUse();
      this.dirsListed = dirs === null || use === null ? null : { listed: use.listed, of: dirs.rels.length };
      this.dirsVerified =
        dirs !== null && use !== null && use.differ === 0 ? { gen, witnessed: dirs.witnessed } : null;
      // What the watch cannot have seen opened: files held open for writing or mapped before it was set up.
      this.held = this.lookInOneGo();
      this.heldIds = null;
      this.rescanDue = false;
      // Events also come in between calls, so the index is kept fresh while the server is idle.
      this.drainTimer = setInterval(() => {
        own.drain();
        this.buildReadsQueued = false;
        this.lookWhileIdle();
        this.prepareWhileIdle();
      }, DRAIN_MS);
      this.drainTimer.unref?.();
      return;
    }
    try {
      const w = watchRecursive(this.root, (event, name) => this.changed(event, name));
      w.on("error", () => this.lostWatch());
      this.watcher = w;
      this.watching = true;
    } catch (err) {
      this.reason = `not watching: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** A watch that failed: fall back to per-query checks, forgetting what it kept fresh. */
  private lostWatch(reason = "the watch failed"): void {
    this.stopWatch();
    this.forgetWalks();
    this.reason = `${reason}; checking files per query`;
    this.say(this.reason);
  }

  /**
   * The watch could not be set up: the state says why (after what it says already, such as the index loaded),
   * and the log; calls check files per query, as without a watch (answers stay those of a cold search).
   */
  private notWatching(why: string): void {
    const line = `not watching: ${why}; checking files per query`;
    this.reason = this.reason === null ? line : `${this.reason}; ${line}`;
    this.say(line);
  }

  /** A line for the server's log, naming the root. */
  private say(line: string): void {
    this.options.log?.(`warm index of ${this.root}: ${line}`);
  }

  private stopWatch(): void {
    this.settingUp = null;
    this.dirsVerified = null;
    if (this.busyDrain !== null) clearInterval(this.busyDrain);
    this.busyDrain = null;
    this.held = null;
    this.heldIds = null;
    this.named.clear();
    this.lookEpoch++;
    if (this.drainTimer !== null) clearInterval(this.drainTimer);
    this.drainTimer = null;
    this.watcher?.close();
    this.watcher = null;
    this.watching = false;
    this.synchronous = false;
    this.binaries.clear();
  }

  /**
   * Takes in every change made so far, when the watch can tell (the tree's own watch): a call answered after
   * this has seen each change its client made before asking.
   * @returns whether it could (false: Bun's fs.watch, whose events come later; or no watch)
   */
  settle(): boolean {
    // The events first: one of them may say the root's directory went away, which its identity by path cannot
    // tell when a directory made again at the path reuses the inode number.
    if (this.synchronous) (this.watcher as TreeWatch).drain();
    this.buildReadsQueued = false;
    this.settleLooks = 0;
    // A look at everything is due (a reset): the look under way between calls answers it when it began after it
    // (its rest costs at most what a new look costs); else, or if it was made void, a look in one go.
    const now = this.lookNow;
    if (
      this.rescanDue &&
      this.synchronous &&
      now !== null &&
      now.epoch === this.lookEpoch &&
      now.seq >= this.rescanAt
    )
      this.finishLook(now);
    if (this.rescanDue && this.synchronous) {
      this.rescanDue = false;
      this.held = this.lookInOneGo();
      this.named.clear();
      this.lookEpoch++;
      this.settleLooks++;
    } else if (this.synchronous && this.named.size > 0) this.settleNamed();
    this.verify();
    if (!this.synchronous) return !this.watching;
    return true;
  }

  /**
   * Before an answer, while the look between calls (idleLook, begun as soon as the last answer was out:
   * afterCall) is under way: finished now when the rest of it costs less than reading, as suspects, the named
   * files it answers (the last call's own reads, mostly). The rest is estimated from the last whole look (its
   * steps and their time), the reads at SUSPECT_READ_MS a file. It is the look lookWhileIdle makes, only sooner:
   * what it finds held stays a suspect (held); the names it answers leave the suspects as after an idle look.
   */
  private settleNamed(): void {
    const cost = this.lookCost;
    const now = this.lookNow;
    if (cost === null || cost.steps === 0 || now === null || now.epoch !== this.lookEpoch) return;
    let answers = 0;
    for (const at of this.named.values()) if (at <= now.seq) answers++;
    const rest = (Math.max(0, cost.steps - now.steps) / cost.steps) * cost.ms;
    if (answers * SUSPECT_READ_MS <= rest) return;
    this.finishLook(now);
  }

  /** Finishes the look under way between calls now, before an answer (its idle turns then stop). */
  private finishLook(now: IdleLookRun): void {
    const t0 = performance.now();
    let r = now.look.next();
    now.steps++;
    while (r.done !== true) {
      r = now.look.next();
      now.steps++;
    }
    now.ms += performance.now() - t0;
    this.lookNow = null;
    this.endLook(now, r.value);
  }

  /**
   * The look at every process in one go (openForWriting), its cost kept (lookCost).
   * @returns the inodes held open for writing or mapped, or null where /proc cannot be read
   */
  private lookInOneGo(): Set<number> | null {
    const t0 = performance.now();
    const look = lookForWriting(this.root);
    let steps = 1;
    let r = look.next();
    for (; r.done !== true; steps++) r = look.next();
    if (r.value !== null) this.lookCost = { steps, ms: performance.now() - t0 };
    return r.value;
  }

  /**
   * What the watch knows of open files cannot be trusted (TreeWatch's onReset). A file named (a close that wrote
   * nothing, to no open seen) is a suspect until an idle look (lookWhileIdle): a writer whose open merged with
   * the reader's holds it still, by a descriptor or a mapping (a mapping keeps the file open: its close comes
   * when it goes, after writing, and is looked at as everything), and is found by that look. Anything else, and
   * the build's own reads (every file), is looked at before the next answer (settle), or by an idle look first.
   */
  private reset(rel?: string): void {
    this.lastReset = performance.now();
    // A look at everything is due already: it is moved to begin after this (the named file is found by it too),
    // not named (every close of another process reading the whole tree comes here).
    if (this.rescanDue) {
      this.rescanAt = ++this.nameSeq;
      return;
    }
    if (
      rel === undefined ||
      this.building !== null ||
      this.buildReadsQueued ||
      this.named.size >= NAMED_MAX
    ) {
      this.rescanDue = true;
      this.rescanAt = ++this.nameSeq;
      // The look before the next answer finds whoever holds the named files too.
      this.named.clear();
      return;
    }
    this.named.set(rel, ++this.nameSeq);
  }

  /**
   * Between calls (the drain timer): the look at every process that the named files (or a reset) wait for,
   * openForWriting spread over turns of the event loop that let a call in first (turn). When it ends, the files
   * named before it began leave the suspects, unless a process holds them open for writing or mapped (then they
   * are held); a look made in one go meanwhile (settle) makes it void.
   */
  private lookWhileIdle(soon = false): void {
    if (this.idleLooking || this.holds > 0 || !this.synchronous || this.closed) return;
    // Not while resets keep coming (another process reading the whole tree: a close of every file): each look
    // ended with newer ones due and another began, look after look (a third of a server's CPU while rg read babel
    // again and again, #36); one look once they stop answers them all. Right after a call (soon), its own reads.
    if (!soon && performance.now() - this.lastReset < LOOK_QUIET_MS) return;
    // Not while an index is built: its own reads are an open and a close of every file, each a reset, so every
    // look ended with newer resets due and another began, look after look (38% of a server's build's CPU, ADR
    // 0035). What they reset is looked for once after the build, here, or before an answer by settle.
    if (this.building !== null) return;
    if (this.named.size === 0 && !this.rescanDue) return;
    this.idleLooking = true;
    void this.idleLook().finally(() => {
      this.idleLooking = false;
    });
  }

  /**
   * The look at every process for the build's reads, made before its index answers: every event so far taken in
   * (each close of the build's own reads asks for a look: reset), then an idle look begun after them.
   * @returns whether it was made (false: no tree's own watch, or the look was made void)
   */
  private async lookAfterReads(): Promise<boolean> {
    if (!this.synchronous) return false;
    while (this.idleLooking && !this.closed) await sleep(5);
    if (this.closed || !this.synchronous) return false;
    (this.watcher as TreeWatch).drain();
    const epoch = this.lookEpoch;
    this.idleLooking = true;
    try {
      await this.idleLook();
    } finally {
      this.idleLooking = false;
    }
    return epoch === this.lookEpoch && this.synchronous;
  }

  private async idleLook(): Promise<void> {
    const run: IdleLookRun = {
      look: lookForWriting(this.root),
      epoch: this.lookEpoch,
      seq: this.nameSeq,
      steps: 0,
      ms: 0,
    };
    this.lookNow = run;
    // Short slices: a call that comes meanwhile waits for the end of one (or finishes it: settleNamed).
    const sliceMs = this.options.sliceMs ?? IDLE_LOOK_SLICE_MS;
    try {
      for (;;) {
        const t0 = performance.now();
        const until = t0 + sliceMs;
        let r = run.look.next();
        run.steps++;
        while (r.done !== true && performance.now() < until) {
          r = run.look.next();
          run.steps++;
        }
        run.ms += performance.now() - t0;
        if (r.done === true) {
          this.endLook(run, r.value);
          return;
        }
        await this.turn();
        // Finished by settle meanwhile, made void by a look in one go, or the root closed.
        if (this.closed || run.epoch !== this.lookEpoch || this.lookNow !== run) return;
      }
    } finally {
      if (this.lookNow === run) this.lookNow = null;
    }
  }

  /**
   * A look spread over idle turns made whole: the files held open for writing or mapped are those it found, and
   * the names and resets made before it began are answered.
   */
  private endLook(run: IdleLookRun, held: Set<number> | null): void {
    if (run.epoch !== this.lookEpoch || held === null || !this.synchronous) return;
    this.lookCost = { steps: run.steps, ms: run.ms };
    // The held files' ids are kept: markSuspects takes them again only when the inodes differ.
    this.held = held;
    for (const [rel, at] of this.named) if (at <= run.seq) this.named.delete(rel);
    if (this.rescanDue && this.rescanAt <= run.seq) this.rescanDue = false;
  }

  /**
   * The watch lost events: what they said of files (any file may have changed), and unless `shapeKept` what they
   * said of the tree's shape too. The index is kept where it can be and every file it holds stat'ed again
   * (checkAgain); the binary verdicts and remembered looks, which the watch vouched for, are let go; the
   * remembered walks too, unless the watch was repaired in place (`shapeKept`: tree-watch.ts reported each
   * directory whose listing changed meanwhile, which moved the generation as its events would have).
   * @param shapeKept whether the tree's shape is known (the watch repaired after its queue overflowed)
   */
  private lostEvents(shapeKept: boolean): void {
    const repair = shapeKept && this.synchronous ? (this.watcher as TreeWatch | null)?.lastRepair() : null;
    if (repair != null)
      this.say(
        `the watch's queue overflowed: the watch was repaired in ${repair.ms.toFixed(0)} ms, ${repair.listed} of its ${repair.dirs} directories listed again, ${repair.added} added`,
      );
    this.forgets++;
    this.binaries.clear();
    this.looks.clear();
    if (!shapeKept) this.forgetWalks();
    // A loaded index the watch does not vouch for yet is kept: every file is stat'ed again once the watch is
    // whole (recheck, which starts again after this), and each query stats what it rules out until then. The
    // default walk is recorded again between calls (once the watch is whole: RememberedWalks.key).
    if (this.index !== null && this.unverified === this.index && !this.rootGone) {
      this.recordDefault();
      return;
    }
    // The tree's own watch, repaired after its queue overflowed (tree-watch.ts): the index is kept and checked as
    // a restarted server checks the one it loads.
    if (this.index !== null && this.synchronous && this.building === null && !this.rootGone) {
      this.checkAgain(this.index);
      return;
    }
    if (this.index !== null)
      this.say("the watch lost events (its queue overflowed): the index is built again");
    this.index = null;
    this.loadedChecks = null;
    // The held files' ids are the dropped index's: kept, they would keep it in memory through the rebuild.
    this.heldIds = null;
    if (this.state === "ready") this.state = "building";
    this.scheduleRebuild();
  }

  private changed(event: string, name: string | Buffer | null): void {
    // The watch does not say what changed, or names it lossily (Bun's fs.watch gives a name that is not valid
    // UTF-8 with U+FFFD, which cannot name the entry the walk holds; the tree's own watch gives it losslessly,
    // names.ts): forget everything.
    if (name === null || name === undefined || (!this.synchronous && String(name).includes("\ufffd"))) {
      this.lostEvents(false);
      return;
    }
    const rel = String(name);
    // Inside a repository's metadata (a VCS directory) the walk lists and reads nothing: `.git`'s exclude file,
    // config and commondir are read when a call's walk is planned (repoContext, for a base in that repository),
    // and a remembered walk's key holds the rules so read (walk-key.ts), so a walk under other rules has another
    // key; the persisted walk stats them (witness.ts). An event there (the exclude file written or replaced,
    // `info` made) leaves every remembered walk right: none is let go, so an edit in one repository (a tool
    // rewriting its exclude file) does not make every walk cold. The `.git` entry itself (made, removed, a file
    // or a directory) changes where a repository begins. A `.git` component, not a name that starts with it: a
    // `.gitignore` is an ignore file.
    const parts = rel.split("/");
    for (let i = 0; i < parts.length - 1; i++) if (VCS_DIRS.has(parts[i] as string)) return;
    const git = parts.indexOf(".git");
    // Joined losslessly (Bun's path.join writes a lone surrogate, a byte that is not UTF-8, as U+FFFD).
    const abs = joinPath(this.root, rel);
    for (const idx of [this.index, this.building]) idx?.invalidate(abs);
    this.binaries.forget(abs, event === "rename");
    this.looks.changed(abs);
    let isDir = false;
    try {
      const st = platform.lstat(abs);
      isDir = st.isDirectory();
      // A hard link made in the tree (or a directory made or moved in, which may hold some): the file's other
      // names are read at each query from now on. A file in such a directory may also have been opened before
      // the directory was watched: the open files are looked for again before the next index build.
      if (event === "rename" && (isDir || (st.isFile() && st.nlink > 1))) {
        const inodes = isDir ? linkedBelow(abs) : new Set([st.ino]);
        if (isDir) this.scanStale = true;
        this.binaries.forgetInodes(inodes);
        for (const i of [this.index, this.building])
          if (i !== null) for (const id of idsOfInodes(i, inodes)) markLinked(i, id);
      }
    } catch {}
    // Created, deleted or renamed entries, ignore files and directories (their permissions) change the walk.
    const ignoreFile = isIgnoreFileName(rel);
    if (event === "rename" || isDir || ignoreFile || git >= 0) this.gen++;
    if (ignoreFile && event !== "rename" && !isDir && git < 0) {
      // An ignore file written in place (no entry made or removed) changes only the walks that read it: those
      // whose base is at or above its directory (it not in an ignored one). A walk below it holds its rules in
      // its key (walk-key.ts), one elsewhere never read it: those stay remembered, at the new generation. What
      // else the generation guards (walks being recorded, the index build's walk, the ignored-entries looks)
      // starts again. A walk that read an ignore file by another path than the root's (a base reached through a
      // symlink) is let go too. The ones kept still stat what they read before each replay (uncovered).
      const prefix = this.root.endsWith("/") ? this.root : `${this.root}/`;
      const read = (w: Witnessed) =>
        isIgnoreFileName(w.path) && (w.path === abs || !w.path.startsWith(prefix));
      this.walks.carryOver((m) => !m.checks.some(read));
    }
    // A renamed, created or replaced directory: the paths below it may now hold other files.
    if (event === "rename" && isDir) for (const idx of [this.index, this.building]) idx?.invalidateBelow(abs);
    const idx = this.index;
    if (idx !== null && idx.dead >= REBUILD_DEAD && idx.dead >= idx.size * REBUILD_SHARE)
      this.scheduleRebuild();
  }

  /**
   * After the watch lost events (its queue overflowed and it watches the tree again): the index is kept, and
   * every file it holds is stat'ed once more, as a restarted server's loaded index is (recheck): until then each
   * query stats the files the index rules out (unverified); a change made while events were lost shows in the
   * stat (size, mtime and ctime to the nanosecond, inode), one made since is the new watch's. Then the watch
   * vouches again. The default walk is recorded again between calls meanwhile (the watch's walks were forgotten).
   * @param idx the index kept
   * @param when when the events were lost, for the reason (empty: while the index was ready)
   */
  private checkAgain(idx: TrigramIndex, when = ""): void {
    this.unverified = idx;
    if (this.beforeOverflow === undefined) this.beforeOverflow = this.reason;
    const line = `the watch's queue overflowed${when}: the index is kept and every file stat'ed again (each query stats the files it rules out until then)`;
    this.reason = this.beforeOverflow === null ? line : `${this.beforeOverflow}; ${line}`;
    this.say(line);
    this.recordDefault();
    void this.recheck(checkable(idx), this.epoch);
  }

  /** The state's reason before the first overflow the index was kept through (undefined: none). */
  private beforeOverflow: string | null | undefined = undefined;
  /** How many overflows the index was kept through (the reason says so). */
  private overflowsChecked = 0;

  private scheduleRebuild(): void {
    if (this.rebuildPending || this.building !== null || this.closed) return;
    this.rebuildPending = true;
    setTimeout(() => {
      this.rebuildPending = false;
      if (this.scanStale && this.synchronous) {
        this.scanStale = false;
        this.held = openForWriting(this.root);
        this.heldIds = null;
        this.named.clear();
        this.lookEpoch++;
      }
      // The index dropped (and the walks forgotten with it) is garbage: collected before the new build, whose
      // memory would otherwise come on top of it (a rebuild of the 277k tree peaked 600 MiB over the first build).
      if (this.building === null && this.index === null) collectGarbage();
      if (this.building === null) void this.build();
    }, 200);
  }

  /**
   * Returns what the warm state offers a grep run (warm/grep.ts).
   * @param plan the run's compiled walk
   * @param spec the run's search spec
   * @param needs what the run asks besides its candidates
   * @returns the seam for the run
   */
  grep(plan: WalkPlan, spec: SearchSpec, needs: GrepNeeds): WarmGrep {
    return warmGrep(this.host(), plan, spec, needs);
  }

  /** What the root's parts in warm/grep.ts and warm/stored-walk.ts read and let go of its state through. */
  private hostMade: GrepHost | null = null;

  private host(): GrepHost {
    this.hostMade ??= {
      root: this.root,
      walks: this.walks,
      binaries: this.binaries,
      named: this.named,
      heldIds: () => this.heldIds,
      keepHeldIds: (ids) => {
        this.heldIds = ids;
      },
      stored: () => this.stored,
      letGo: (s) => {
        if (this.stored === s) this.stored = null;
      },
      takeStored: () => {
        const taken = { stored: this.stored, verified: this.dirsVerified };
        this.stored = null;
        this.dirsVerified = null;
        return taken;
      },
      adopted: () => {
        this.walksLoaded++;
      },
      ownWatch: () => (this.synchronous ? (this.watcher as TreeWatch) : null),
      held: () => this.held,
      index: () => this.index,
      unverified: () => this.unverified,
      loadedChecks: () => this.loadedChecks,
      indexDir: () => this.indexDir(),
      statsInWorker: () => this.options.statsInWorker === true,
      watching: () => this.watching,
      gen: () => this.gen,
      epoch: () => this.epoch,
      closed: () => this.closed,
      sliceMs: () => this.options.sliceMs ?? SLICE_MS,
      turn: () => this.turn(),
      settleLooks: () => this.settleLooks,
      noteChecks: (checks) => {
        this.lastChecks = checks;
      },
      trustsWatch: () => this.trustsWatch(),
      vouchedNow: (idx) => this.vouchedNow(idx),
      coldWalk: (plan, ctx, after) => this.draining(walk(plan, this.paced(ctx), after)),
    };
    return this.hostMade;
  }

  /** The run context of a walk of the tree that reads the tree's own watch as it goes (warm/grep.ts). */
  private paced(ctx: RunContext): RunContext {
    return paced(this.liveWatch(), ctx);
  }

  /** A walk that reads the tree's own watch every 64 entries it gives (warm/grep.ts). */
  private draining(entries: Iterator<Entry>): Generator<Entry> {
    return draining(() => this.liveWatch(), entries);
  }

  /**
   * Whether the watch vouches for the files the index rules out but the suspects (ADR 0032): the tree's own
   * watch (which reports opens and closes), and the files held open for writing or mapped when it began known.
   */
  private trustsWatch(): boolean {
    return this.watchVouches() && (this.unverified === null || this.unverified !== this.index);
  }

  /**
   * Whether the watch can vouch for the files it has seen unchanged, the suspects read: the tree's own watch,
   * whole, the held files looked for, no per-query stat asked for (RGLOB_WARM_CHECK=stat). For every indexed file
   * once the index is verified (trustsWatch); for those the check under way found unchanged before (vouchedNow).
   */
  private watchVouches(): boolean {
    return this.watchWhole() && this.synchronous && this.held !== null && !this.statEveryFile;
  }

  /**
   * Whether the tree is watched and the watch whole: not while the tree's own watch is watched again after an
   * overflow, a slice at a time (tree-watch.ts's `whole`), when a change in a directory not watched yet has no
   * event. Nothing relies on the watch then (no walk remembered or replayed, no look kept, the index unverified).
   */
  private watchWhole(): boolean {
    return this.watching && (!this.synchronous || (this.watcher as TreeWatch).whole());
  }

  /**
   * Between calls (the drain timer): makes, for each remembered walk, what the first query of its usual
   * selections would otherwise make, a slice at a time (prepare).
   */
  private prepareWhileIdle(): void {
    if (this.preparing || this.holds > 0 || this.closed || this.building !== null) return;
    const idx = this.index;
    for (const m of this.walks.values()) {
      if (preparedOf.has(m) && preparedOf.get(m) === idx) continue;
      this.preparing = true;
      void this.prepare(m, idx).finally(() => {
        this.preparing = false;
      });
      return;
    }
  }

  /**
   * Makes a remembered walk's structures that its queries share (ADR 0034): its skeleton (the skip counts,
   * errors and files counted between entries), the selection of every file (grep's and count's without globs
   * or types) and of every entry (find's), and with the index the index id of each entry, the entry of each id
   * and the selected entries the index does not hold. A query that comes first makes what it needs itself; one
   * that comes after pays only for its candidates. Between slices the calls in flight go first (turn); a walk
   * let go or an index replaced meanwhile ends it.
   * @param m the remembered walk
   * @param idx the ready index, or null
   * @param kept whether the walk may still answer (default: it is remembered)
   * @param current whether idx is still the index to prepare for (default: it is the root's index)
   */
  private async prepare(
    m: Memo,
    idx: TrigramIndex | null,
    kept: () => boolean = () => this.walks.holds(m),
    current: () => boolean = () => this.index === idx,
  ): Promise<void> {
    const sliceMs = this.options.sliceMs ?? SLICE_MS;
    let slice = performance.now();
    // Still worth it: the server open, the same index, the walk still remembered.
    const live = () => !this.closed && current() && kept();
    const pause = async (): Promise<boolean> => {
      if (performance.now() - slice <= sliceMs) return true;
      await this.turn();
      slice = performance.now();
      return live();
    };
    if (!(await makeShared(m, idx, this.everyEntryPlans(), pause, live))) return;
    if (live()) preparedOf.set(m, idx);
  }

  /**
   * Makes the shared structures of the walk written with a loaded index (prepare) while the watch is set up, its
   * entries' index ids taken from the walk's own: the file holds each entry's id (writeServerIndex looked each
   * up by its path), so no path is looked up (a lookup by path builds the map of every indexed path first: on
   * 277k files that and the lookups were most of the first query after a restart). An id the index no longer
   * holds live is none, as a lookup by path would give.
   * @param s the walk written with the index
   * @param idx the loaded index
   */
  private async prepareStored(s: StoredDefault, idx: TrigramIndex): Promise<void> {
    const m = s.memo;
    if (m.ids === null || m.idsFor !== idx) {
      const written = s.walk.ids;
      const ids = new Int32Array(written.length);
      for (let i = 0; i < ids.length; i++) {
        const id = written[i] as number;
        ids[i] = id >= 0 && idx.isLive(id) ? id : -1;
      }
      m.ids = ids;
      m.idsFor = idx;
    }
    // Worth it while the walk may still answer: before the watch is trusted, or remembered since (adoptStored).
    await this.prepare(m, idx, () => this.stored === s || this.walks.holdsWalk(m.rec));
  }

  /** The plans that select every file (grep's, count's) and every entry (find's): only their selections count. */
  private everyEntryPlans(): readonly WalkPlan[] {
    if (this.everyEntry === null) {
      const o = v.parse(WalkOptionsSchema, { base: this.root });
      this.everyEntry = [true, false].map((filesOnly) => compileWalk(o, { filesOnly, cwd: this.root }).plan);
    }
    return this.everyEntry;
  }

  /**
   * Returns a walk of the plan through its remembered walk (replayed, or walked and remembered), or null when
   * the plan's walk cannot be remembered.
   * @param plan the run's compiled walk
   * @returns a function that walks it with a run context, or null
   */
  /**
   * The ignored-entries looks this root remembers, or null while its watch cannot vouch for them (look-memo.ts).
   */
  look(): WarmLook | null {
    return this.synchronous && this.watchWhole() ? this.looks : null;
  }

  walker(plan: WalkPlan): ((ctx: RunContext) => Iterator<Entry>) | null {
    const key = this.walks.key(plan);
    if (key === null) return null;
    return (ctx) => {
      const m = this.walks.forCall(key, plan, ctx);
      return m !== null
        ? replayPicked(m.rec, plan, ctx, selectionOf(m.rec, plan).places)
        : this.draining(walk(plan, this.paced(ctx), null));
    };
  }

  /** The keys remembered now and the entries their walks hold (tests; RememberedWalks.remembered). */
  remembered(): { readonly walks: number; readonly entries: number } {
    return this.walks.remembered();
  }

  private async build(): Promise<void> {
    const started = performance.now();
    const idx = new TrigramIndex();
    this.building = idx;
    // An overflow of the watch's queue while the files are read moves it on (changed(null)).
    const forgets = this.forgets;
    if (this.index === null) this.state = "building";
    if (this.options.budgetBytes === 0) {
      this.overBudget(idx, "the index would exceed 0 MiB (RGLOB_INDEX_BUDGET_MB)");
      return;
    }
    try {
      // The tree read into the index (warm/build.ts); the walk it recorded is remembered and written with it.
      const built = await readTree(idx, this.defaultPlan(), this.options, this.options.sliceMs ?? SLICE_MS, {
        gone: (i) => this.closed || this.building !== i,
        closed: () => this.closed,
        turn: () => this.turn(),
        paced: (ctx) => this.paced(ctx),
        say: (line) => this.say(line),
        overBudget: (i, why) => this.overBudget(i, why),
        walked: (w) => {
          this.walks.keepWalk(w.plan, w.rec, w.seen, w.gen);
          this.buildWalk = w;
        },
        gen: () => this.gen,
      });
      if (built === null) return;
      const note = built.partial;
      if (note !== null) this.reason = this.reason === null ? note : `${this.reason}; ${note}`;
      // The queries of the new index share the build walk's structures, made before it answers (ADR 0034): the
      // first query after `ready` costs its candidates, as every later one does.
      const made = this.defaultMemo();
      if (made !== null) await this.prepare(made, idx, undefined, () => this.building === idx);
      if (this.closed || this.building !== idx) return;
      // The build's reads are an open and a close of each file: those not taken in yet are one look (reset). It is
      // made here, between calls, with every read taken in first: else the first query after `ready` would make
      // it before it answers (settle).
      const looked = await this.lookAfterReads();
      if (this.closed || this.building !== idx) return;
      this.buildReadsQueued = !looked;
      this.index = idx;
      this.building = null;
      this.buildMs = Math.round(performance.now() - started);
      await this.answerBuilt(idx, this.forgets !== forgets && this.synchronous);
    } catch (err) {
      if (this.building === idx) this.overBudget(idx, `index build failed: ${String(err)}`);
    }
  }

  /**
   * A built index made the root's (it answers from here on: candidatesFor): checked by stat first when the watch lost
   * events while the files were read (its queue overflowed and it watches the tree again: a file read before that
   * and changed while events were lost has no event to say so, and a change of the same size with its mtime
   * restored would be ruled out by what the build read; each query stats what it rules out until every file is
   * stat'ed again). Else the state says `ready` once the index is written to the cache (one write and two
   * collections of the heap, in one turn) and the rehearsal is over, as a loaded index's reason says it is checked:
   * a client that waits for `ready` does not wait for them in its first query (ADR 0051).
   * @param idx the index built
   * @param lost whether the watch lost events while it was built
   */
  private async answerBuilt(idx: TrigramIndex, lost: boolean): Promise<void> {
    if (lost) {
      this.state = "ready";
      this.checkAgain(idx, " while the index was built");
      void this.persist(idx);
      return;
    }
    await this.persist(idx);
    if (this.closed || this.index !== idx) return;
    await this.rehearsal();
    if (this.closed || this.index !== idx) return;
    this.state = "ready";
  }

  /** The remembered walk of the server's default plan, or null (warm/stored-walk.ts). */
  private defaultMemo(): Memo | null {
    return defaultMemo(this.walks, () => this.defaultPlan());
  }

  /** The walk of a grep, count or find with the server's defaults over the whole root: the index build's. */
  private defaultPlan(): WalkPlan {
    return serverDefaultPlan(this.root, this.options.git);
  }

  /** Records the default walk between calls (warm/stored-walk.ts). */
  private recordDefault(): void {
    recordDefault(this.walks, () => this.defaultPlan());
  }

  private overBudget(idx: TrigramIndex, why: string): void {
    if (this.building !== idx) return;
    this.building = null;
    this.index = null;
    this.state = "warm_list";
    this.reason = why;
  }
}
