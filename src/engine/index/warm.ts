/*! Engine, warm index: the per-root warm state of a long-lived server. It remembers completed walks (replayed
 * with the same entries, errors and counters, in order) and builds a trigram index of the tree's text in the
 * background, a slice at a time so the server keeps answering. A recursive watch keeps both fresh: a created,
 * deleted or renamed entry or a changed ignore file forgets the remembered walks; a changed file leaves the
 * index (it is searched again). Without a watch, walks are not remembered and each file the index would rule
 * out is compared with its indexed stats first. It never writes anything. */
import * as fs from "node:fs";
import * as path from "node:path";
import * as v from "valibot";
import { WalkOptionsSchema, walkEntries } from "../../contract/walk-options.ts";
import { insideDir, platform } from "../../platform/platform.ts";
import { type TreeWatch, watchTreeInSlices } from "../../platform/tree-watch.ts";
import { isNegated } from "../glob.ts";
import { IGNORE_FILE_NAMES } from "../ignore.ts";
import { compileWalk } from "../plan.ts";
import { quietContext, type RunContext } from "../run.ts";
import type { SearchSpec } from "../search/search-file.ts";
import { type Entry, gives, selectingAll, type WalkPlan, walk } from "../walk.ts";
import { type AnswerSource, literalQueryOf, type WarmGrep, type WarmProvider, without } from "./provider.ts";
import { type MemoryWalk, type RecordedWalk, recordingWalk, recordWalk, replay } from "./recorded-walk.ts";
import { readIndexText, textBuffer } from "./text.ts";
import { type IndexStats, TrigramIndex } from "./trigrams.ts";

/** How a root's warm state stands (reported by capabilities). */
export type WarmState = "building" | "ready" | "warm_list";

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
}

/** Settings of the warm state. */
export interface WarmOptions {
  /** Files larger than this are not indexed (they are always searched). */
  readonly maxFileSize: number;
  /** The index may use at most this fraction of the indexed text's size. */
  readonly budgetRatio: number;
  /** The index may use at most this many bytes whatever the text's size. */
  readonly budgetBytes: number;
  /** Watch the tree (false: per-query stat checks only). */
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
}

/** A remembered walk, and the index ids of its entries (for the index they were looked up in). */
interface Memo {
  readonly gen: number;
  readonly rec: RecordedWalk;
  ids: Int32Array | null;
  idsFor: TrigramIndex | null;
}

const WALK_KEYS = Object.keys(walkEntries);
/**
 * Walk options that only select among the entries a walk reaches (plan.ts puts them in `select`, `selectDirs`
 * and `minDepth`): left out of a remembered walk's key. The walk is recorded selecting every entry and each run's
 * plan selects as it is replayed, so queries that differ only in their globs or types share one walk. A negated
 * glob excludes (a directory is not entered): those stay in the key.
 */
const SELECT_ONLY: ReadonlySet<string> = new Set([
  "types",
  "extensions",
  "file_types",
  "file_types_not",
  "type_add",
  "min_depth",
]);
const MEMOS = 8;
const SLICE_MS = 8;
const FIRST_BLOCK = 64 * 1024;
/** Rebuild the index when this many of its files changed (and at least this share of them). */
const REBUILD_DEAD = 256;
const REBUILD_SHARE = 0.05;
/** The build gives up early once this much text is in and a lower bound of its index is over the budget's
 * ratio by EARLY_RATIO_MARGIN (later, larger files could still bring the ratio down a little, not that much). */
const EARLY_RATIO_TEXT = 32 * 1024 * 1024;
const EARLY_RATIO_MARGIN = 1.25;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** How long one slice of the watch's set-up may take before the server answers what has come. */
const WATCH_SLICE_MS = 20;
/** How often the tree's own watch is read between calls. */
const DRAIN_MS = 100;

/**
 * Creates the warm state of one root.
 */
export class WarmRoot implements WarmProvider {
  /** The watch: the tree's own, read before each call (tree-watch.ts), or Bun's fs.watch where that is not there. */
  private watcher: TreeWatch | fs.FSWatcher | null = null;
  /** Whether the watch's events are all taken in by `settle()` (the tree's own watch). */
  private synchronous = false;
  private watching = false;
  /** Bumped by every change to the tree's shape or its ignore files: remembered walks older than it are void. */
  private gen = 0;
  private readonly memos = new Map<string, Memo>();
  private index: TrigramIndex | null = null;
  private building: TrigramIndex | null = null;
  private state: WarmState = "building";
  private reason: string | null = null;
  private buildMs: number | null = null;
  private closed = false;
  private rebuildPending = false;
  private drainTimer: ReturnType<typeof setInterval> | null = null;
  /** Calls in flight: the watch's set-up and the index build wait for them (turn). */
  private holds = 0;
  private resumes: Array<() => void> = [];

  /**
   * @param root the root's real path
   * @param options budget, size cap and watching
   */
  constructor(
    readonly root: string,
    private readonly options: WarmOptions,
  ) {}

  /**
   * Starts watching (a slice of directories at a time, so the server answers `initialize` and other requests
   * meanwhile) and then builds the index in the background. Both wait while calls are in flight (`hold`).
   */
  start(): void {
    if (!this.options.watch) {
      void this.build();
      return;
    }
    void this.startWatch()
      .catch((err: unknown) => {
        this.reason = `not watching: ${err instanceof Error ? err.message : String(err)}`;
      })
      .then(() => this.build());
  }

  /**
   * Holds the background work (the watch's set-up, the index build) back while a call is answered: on the one
   * thread they would take turns with it. Until the watch is set up nothing warm answers (no walk is remembered,
   * `memoKey`; no index): a call then walks cold, as the CLI does.
   * @returns the release (the first call of it counts; later ones do nothing)
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.resume();
    };
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
    this.stopWatch();
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
    };
  }

  private async startWatch(): Promise<void> {
    const own = await watchTreeInSlices(
      this.root,
      { onEvent: (event, rel) => this.changed(event, rel), onLost: (reason) => this.lostWatch(reason) },
      this.options.sliceMs ?? WATCH_SLICE_MS,
      () => this.closed,
      () => this.turn(),
    );
    if (this.closed) {
      own?.close();
      return;
    }
    if (own !== null) {
      this.watcher = own;
      this.watching = true;
      this.synchronous = true;
      // Events also come in between calls, so the index is kept fresh while the server is idle.
      this.drainTimer = setInterval(() => own.drain(), DRAIN_MS);
      this.drainTimer.unref?.();
      return;
    }
    try {
      const w = fs.watch(this.root, { recursive: true }, (event, name) => this.changed(event, name));
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
    this.gen++;
    this.memos.clear();
    this.reason = `${reason}; checking files per query`;
  }

  private stopWatch(): void {
    if (this.drainTimer !== null) clearInterval(this.drainTimer);
    this.drainTimer = null;
    this.watcher?.close();
    this.watcher = null;
    this.watching = false;
    this.synchronous = false;
  }

  /**
   * Takes in every change made so far, when the watch can tell (the tree's own watch): a call answered after
   * this has seen each change its client made before asking.
   * @returns whether it could (false: Bun's fs.watch, whose events come later; or no watch)
   */
  settle(): boolean {
    if (!this.synchronous) return !this.watching;
    (this.watcher as TreeWatch).drain();
    return true;
  }

  private changed(event: string, name: string | Buffer | null): void {
    // The watch does not say what changed, or names it lossily (a name that is not valid UTF-8 comes as U+FFFD,
    // which cannot name the entry the walk holds): forget everything.
    if (name === null || name === undefined || String(name).includes("\ufffd")) {
      this.gen++;
      this.memos.clear();
      this.index = null;
      if (this.state === "ready") this.state = "building";
      this.scheduleRebuild();
      return;
    }
    const rel = String(name);
    // Inside a repository's metadata only the exclude file (and the directory itself) matters to the walk. A
    // `.git` component, not a name that starts with it: a `.gitignore` is an ignore file.
    const parts = rel.split(path.sep);
    const git = parts.indexOf(".git");
    if (git >= 0) {
      const after = parts.slice(git + 1).join("/");
      if (after !== "" && after !== "info" && after !== "info/exclude") return;
    }
    const abs = path.join(this.root, rel);
    for (const idx of [this.index, this.building]) idx?.invalidate(abs);
    let isDir = false;
    try {
      isDir = platform.lstat(abs).isDirectory();
    } catch {}
    // Created, deleted or renamed entries, ignore files and directories (their permissions) change the walk.
    if (
      event === "rename" ||
      isDir ||
      (IGNORE_FILE_NAMES as readonly string[]).includes(path.basename(rel)) ||
      git >= 0
    )
      this.gen++;
    // A renamed, created or replaced directory: the paths below it may now hold other files.
    if (event === "rename" && isDir) for (const idx of [this.index, this.building]) idx?.invalidateBelow(abs);
    const idx = this.index;
    if (idx !== null && idx.dead >= REBUILD_DEAD && idx.dead >= idx.size * REBUILD_SHARE)
      this.scheduleRebuild();
  }

  private scheduleRebuild(): void {
    if (this.rebuildPending || this.building !== null || this.closed) return;
    this.rebuildPending = true;
    setTimeout(() => {
      this.rebuildPending = false;
      if (this.building === null) void this.build();
    }, 200);
  }

  /**
   * The key of a plan's remembered walk, or null when its walk cannot be remembered and replayed (the watch must
   * see every change it depends on).
   * @param plan the plan
   * @param filesOnly the key of the same walk for a plan with this filesOnly (which only decides which roots are
   *   walked: the same for a walk of directories alone)
   */
  private memoKey(plan: WalkPlan, filesOnly = plan.source.plan.filesOnly ?? false): string | null {
    if (!this.watching || plan.readsStats || plan.follow || !insideDir(plan.baseReal, this.root)) return null;
    const o = plan.source.options as unknown as Record<string, unknown>;
    const walkOptions: Record<string, unknown> = {};
    for (const k of WALK_KEYS) {
      if (SELECT_ONLY.has(k)) continue;
      walkOptions[k] = k === "patterns" ? (o.patterns as readonly string[]).filter(isNegated) : o[k];
    }
    const p = plan.source.plan;
    // filesOnly decides which roots are walked (a named FIFO is not); namedFilesPastGlobs only selects.
    return JSON.stringify([walkOptions, p.cwd, filesOnly]);
  }

  /**
   * Returns what the warm state offers a grep run.
   * @param plan the run's compiled walk
   * @param spec the run's search spec
   * @param bounded whether max_bytes bounds the run
   * @param listsNonMatching whether the run lists the files without a match
   * @returns the seam for the run
   */
  grep(plan: WalkPlan, spec: SearchSpec, bounded: boolean, listsNonMatching: boolean): WarmGrep {
    const key = this.memoKey(plan);
    const memo = key === null ? undefined : this.memos.get(key);
    const fresh = memo !== undefined && memo.gen === this.gen;
    const candidates = bounded ? null : this.candidatesFor(plan, spec);
    const source: AnswerSource = candidates !== null ? "index" : fresh ? "warm_list" : "cold";
    const idx = this.index;
    const maxFileSize = spec.maxFileSize;
    const checkStats = !this.watching;
    // Files ruled out have no effect on the answer (no record, error or skip) unless it lists the files that
    // do not match: then they are given to the run as found empty; otherwise they are left out of the walk.
    const leaveOut = candidates !== null && !listsNonMatching;
    // Set when the walk is a replay that leaves ruled-out entries out: every entry it gives was checked then.
    let replayed = false;
    const ruledOut = (e: Entry): boolean => {
      if (candidates === null || idx === null || replayed) return false;
      const id = idx.idOfPath(e.abs);
      if (id < 0 || candidates[id] === 1) return false;
      const facts = idx.factsOf(id);
      if (facts.size > maxFileSize) return false;
      if (checkStats) {
        try {
          const st = platform.stat(e.abs);
          if (
            st.size !== facts.size ||
            st.mtimeMs !== facts.mtimeMs ||
            st.ctimeMs !== facts.ctimeMs ||
            st.ino !== facts.ino
          )
            return false;
        } catch {
          return false;
        }
      }
      return true;
    };
    return {
      source,
      walk: (p, ctx, after) => {
        if (after === null && key !== null) {
          const m = this.memoFor(key, p, ctx);
          if (!leaveOut || idx === null || candidates === null) return replay(m.rec, p, ctx, null, true);
          // Entries the index rules out (whether each is still live is asked when the replay reaches it).
          const ids = this.idsOf(m, idx);
          const drop = new Uint8Array(m.rec.entries);
          for (let i = 0; i < ids.length; i++) {
            const id = ids[i] as number;
            if (id >= 0 && candidates[id] === 0 && idx.sizeOf(id) <= maxFileSize) drop[i] = 1;
          }
          replayed = true;
          return replay(m.rec, p, ctx, (i) => drop[i] === 1 && idx.isLive(ids[i] as number), true);
        }
        const cold = walk(p, ctx, after);
        return leaveOut ? without(cold, ruledOut) : cold;
      },
      ruledOut,
      sizeOf: (e) => {
        if (idx === null) return null;
        const id = idx.idOfPath(e.abs);
        return id < 0 ? null : idx.sizeOf(id);
      },
    };
  }

  /**
   * Returns a walk of the plan through its remembered walk (replayed, or walked and remembered), or null when
   * the plan's walk cannot be remembered.
   * @param plan the run's compiled walk
   * @returns a function that walks it with a run context, or null
   */
  walker(plan: WalkPlan): ((ctx: RunContext) => Iterator<Entry>) | null {
    const key = this.memoKey(plan);
    if (key === null) return null;
    return (ctx) => replay(this.memoFor(key, plan, ctx).rec, plan, ctx, null, true);
  }

  /** The fresh remembered walk of a key, walked (and remembered) now when there is none. */
  private memoFor(key: string, plan: WalkPlan, ctx: RunContext): Memo {
    const m = this.memos.get(key);
    if (m !== undefined && m.gen === this.gen) {
      this.memos.delete(key);
      this.memos.set(key, m); // most recently used last
      return m;
    }
    if (m !== undefined) this.memos.delete(key);
    return this.remember(key, plan, ctx);
  }

  /** The index ids of a remembered walk's entries (-1: not indexed), looked up once per index. */
  private idsOf(m: Memo, idx: TrigramIndex): Int32Array {
    if (m.ids !== null && m.idsFor === idx) return m.ids;
    const ids = new Int32Array(m.rec.entries);
    for (let i = 0; i < ids.length; i++) ids[i] = idx.idOfPath(m.rec.absOf(i));
    m.ids = ids;
    m.idsFor = idx;
    return ids;
  }

  /** The index's candidate map for a run, or null when the index cannot narrow it. */
  private candidatesFor(plan: WalkPlan, spec: SearchSpec): Uint8Array | null {
    const idx = this.index;
    if (idx === null || this.state !== "ready") return null;
    const q = literalQueryOf(spec);
    if (q === null || !insideDir(plan.baseReal, this.root)) return null;
    return idx.candidates(q);
  }

  /**
   * Walks the plan to its end selecting every entry (`selectingAll`: the walk of every plan with this key),
   * remembering its entries and its calls on the run context (not made on the run's context: the replay makes
   * them). A query that stops after a few records still leaves a whole walk to replay. Kept when the tree did
   * not change meanwhile.
   */
  private remember(key: string, plan: WalkPlan, ctx: RunContext): Memo {
    const startGen = this.gen;
    const memo: Memo = { gen: startGen, rec: recordWalk(selectingAll(plan), ctx), ids: null, idsFor: null };
    this.keep(key, memo);
    return memo;
  }

  /**
   * Keeps a remembered walk when it is still fresh (no change to the tree's shape since it began) and within the
   * budget, letting go of the least recently used past it.
   */
  private keep(key: string, memo: Memo): void {
    if (memo.gen !== this.gen || !this.watching || memo.rec.entries > this.options.rememberedEntries) return;
    this.memos.delete(key);
    this.memos.set(key, memo);
    while (this.memos.size > MEMOS || this.remembered().entries > this.options.rememberedEntries) {
      this.memos.delete(this.memos.keys().next().value as string);
    }
  }

  /**
   * The keys remembered now and the entries their walks hold (tests and the budget's check): a walk kept for two
   * keys (the index build's) counts once.
   */
  remembered(): { readonly walks: number; readonly entries: number } {
    let entries = 0;
    const counted = new Set<RecordedWalk>();
    for (const m of this.memos.values()) {
      if (counted.has(m.rec)) continue;
      counted.add(m.rec);
      entries += m.rec.entries;
    }
    return { walks: this.memos.size, entries };
  }

  private async build(): Promise<void> {
    const started = performance.now();
    const idx = new TrigramIndex();
    this.building = idx;
    if (this.index === null) this.state = "building";
    let slice = performance.now();
    const sliceMs = this.options.sliceMs ?? SLICE_MS;
    const stopped = () => this.closed;
    try {
      const { plan } = compileWalk(
        v.parse(WalkOptionsSchema, {
          base: this.root,
          hidden: true,
          respect_gitignore: true,
          follow_symlinks: false,
          strict_base: true,
        }),
        { filesOnly: true, cwd: this.root },
      );
      let buf: Buffer = Buffer.alloc(FIRST_BLOCK);
      const budget = this.options.budgetBytes;
      // The walk is recorded as it goes, selecting every entry (the files to index are those the plan gives):
      // whole and still fresh at its end, it is the remembered walk of the plan's key, which is a grep's and a
      // count's with the server's defaults, and of find's with them (filesOnly decides only which roots are walked;
      // here the one root is a directory). The first of those calls then need not walk the tree again.
      const gen = this.gen;
      let recorded: MemoryWalk | null = null;
      const walked = recordingWalk(selectingAll(plan), quietContext(stopped, 1), (rec) => {
        recorded = rec;
      });
      for (const e of walked) {
        if (performance.now() - slice > sliceMs) {
          await this.turn();
          slice = performance.now();
        }
        if (this.closed || this.building !== idx) return;
        if (!gives(plan, e)) continue;
        let fd: number;
        try {
          // From the descriptor of the directory the walk is in (no path to resolve, no symlink followed); by
          // path and checked when it is closed.
          fd = platform.openListed(e.abs, plan.confine, e);
        } catch {
          continue;
        }
        try {
          const st = platform.fstat(fd);
          if (!st.isFile() || st.size > this.options.maxFileSize) continue;
          buf = textBuffer(buf, st.size);
          // Grew past its size while read, binary (a NUL in the first block) or UTF-16: searched, not indexed.
          const view = readIndexText(fd, st.size, buf, FIRST_BLOCK);
          if (view === null) continue;
          idx.add(e.abs, view, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
          if (idx.postingSize > budget) {
            this.overBudget(idx, `the index would exceed ${Math.round(budget / 1048576)} MiB`);
            return;
          }
          // A tree whose index is already clearly over the ratio (many small files: paths and per-file facts
          // weigh on them) is not built to the end: its pending postings would hold several times the final
          // index meanwhile (a generated tree of 500,000 files of 350 bytes peaked at 677 MiB).
          if (
            (idx.size & 1023) === 0 &&
            idx.textSize >= EARLY_RATIO_TEXT &&
            idx.frozenAtLeast > idx.textSize * this.options.budgetRatio * EARLY_RATIO_MARGIN
          ) {
            this.overBudget(
              idx,
              `the index would take over ${(idx.frozenAtLeast / idx.textSize).toFixed(2)}x the text (budget ${this.options.budgetRatio}x; judged on the first ${Math.round(idx.textSize / 1048576)} MiB)`,
            );
            return;
          }
        } catch {
        } finally {
          try {
            platform.close(fd);
          } catch {}
        }
      }
      if (recorded !== null) {
        const memo: Memo = { gen, rec: recorded, ids: null, idsFor: null };
        for (const filesOnly of [true, false]) {
          const key = this.memoKey(plan, filesOnly);
          const had = key === null ? undefined : this.memos.get(key);
          if (key !== null && (had === undefined || had.gen !== this.gen)) this.keep(key, memo);
        }
      }
      // Frozen a step at a time, between turns of the event loop as the walk was.
      const steps = idx.freezing();
      for (let r = steps.next(); r.done !== true; r = steps.next()) {
        if (performance.now() - slice > sliceMs) {
          await this.turn();
          slice = performance.now();
        }
        if (this.closed || this.building !== idx) return;
      }
      const s = idx.stats();
      if (s.memoryBytes > s.textBytes * this.options.budgetRatio && s.memoryBytes > 1 << 20) {
        this.overBudget(
          idx,
          `the index would take ${(s.memoryBytes / s.textBytes).toFixed(2)}x the text (budget ${this.options.budgetRatio}x)`,
        );
        return;
      }
      this.index = idx;
      this.building = null;
      this.state = "ready";
      this.buildMs = Math.round(performance.now() - started);
    } catch (err) {
      if (this.building === idx) this.overBudget(idx, `index build failed: ${String(err)}`);
    }
  }

  private overBudget(idx: TrigramIndex, why: string): void {
    if (this.building !== idx) return;
    this.building = null;
    this.index = null;
    this.state = "warm_list";
    this.reason = why;
  }
}

/** The warm states of a server's roots. */
export class WarmSet implements WarmProvider {
  private readonly roots = new Map<string, WarmRoot>();

  constructor(private readonly options: WarmOptions) {}

  /**
   * Starts the warm state of each root not yet warm.
   * @param roots real paths of the roots
   */
  ensure(roots: readonly string[]): void {
    for (const r of roots) {
      if (this.roots.has(r)) continue;
      const w = new WarmRoot(r, this.options);
      this.roots.set(r, w);
      w.start();
    }
  }

  /**
   * Holds every root's background work back while a call is answered (WarmRoot.hold).
   * @returns the release
   */
  hold(): () => void {
    const releases = [...this.roots.values()].map((w) => w.hold());
    return () => {
      for (const r of releases) r();
    };
  }

  /**
   * Takes in every change made so far in each root (WarmRoot.settle).
   * @returns whether every root could; when not, the caller gives watch events a turn of the event loop
   */
  settle(): boolean {
    let all = true;
    for (const w of this.roots.values()) all = w.settle() && all;
    return all;
  }

  /** Stops every root's watch and build. */
  close(): void {
    for (const w of this.roots.values()) w.close();
    this.roots.clear();
  }

  /** Each root's state. */
  status(): WarmStatus[] {
    return [...this.roots.values()].map((w) => w.status());
  }

  /**
   * Returns the seam of the root that holds the run's base (the innermost), or a cold one.
   * @param plan the run's compiled walk
   * @param spec the run's search spec
   * @param bounded whether max_bytes bounds the run
   * @returns the seam
   */
  grep(plan: WalkPlan, spec: SearchSpec, bounded: boolean, listsNonMatching: boolean): WarmGrep {
    let best: WarmRoot | null = null;
    for (const w of this.roots.values()) {
      if (insideDir(plan.baseReal, w.root) && (best === null || w.root.length > best.root.length)) best = w;
    }
    if (best !== null) return best.grep(plan, spec, bounded, listsNonMatching);
    return {
      source: "cold",
      walk: (p, ctx, after) => walk(p, ctx, after),
      ruledOut: () => false,
      sizeOf: () => null,
    };
  }

  /**
   * Returns the remembered walk of the root that holds the run's base (the innermost), or null.
   * @param plan the run's compiled walk
   * @returns a function that walks it with a run context, or null
   */
  walker(plan: WalkPlan): ((ctx: RunContext) => Iterator<Entry>) | null {
    let best: WarmRoot | null = null;
    for (const w of this.roots.values()) {
      if (insideDir(plan.baseReal, w.root) && (best === null || w.root.length > best.root.length)) best = w;
    }
    return best?.walker(plan) ?? null;
  }
}

/**
 * Returns the warm state's settings: files up to 10 MiB indexed (grep's agent default max_file_size), an index
 * of at most half the text it covers; RGLOB_INDEX_BUDGET_MB caps it in bytes (default 1024), RGLOB_WATCH=0
 * turns watching off (per-query checks only); remembered walks of a root hold at most 2M entries together.
 * @returns the settings
 */
export function warmOptions(): WarmOptions {
  const mb = Number(process.env.RGLOB_INDEX_BUDGET_MB ?? 1024);
  return {
    maxFileSize: 10 * 1024 * 1024,
    budgetRatio: 0.5,
    budgetBytes: (Number.isFinite(mb) && mb >= 0 ? mb : 1024) * 1024 * 1024,
    watch: process.env.RGLOB_WATCH !== "0",
    // About 300 bytes an entry (its path strings and columns; measured on babel's 40k): 600 MB at most.
    rememberedEntries: 2_000_000,
  };
}
