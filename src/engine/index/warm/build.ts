/*! Engine, warm index: the index build's reading of the tree (walk, batches of files read by the build workers,
 * keys added in the walk's order, the freeze), a slice at a time between calls, recording the walk as it goes.
 * Never makes the index the root's, never writes it to the cache: the root (WarmRoot.build) decides. */
import { pathExists } from "../../../platform/files.ts";
import { collectGarbage } from "../../../platform/runtime.ts";
import { STAT_WORDS } from "../../../platform/stat-words.ts";
import { quietContext, type RunContext } from "../../run.ts";
import { gives, selectingAll, type WalkPlan } from "../../walk.ts";
import { type Witnessed, witnessingInto } from "../../witness.ts";
import { BUILD_BATCH, BuildReads, READ_FACTS, READ_INDEXED, READ_LINKED, READ_TRAP } from "../build-read.ts";
import { type MemoryWalk, recordingWalk } from "../recorded-walk.ts";
import type { TrigramIndex } from "../trigrams.ts";
import { indexedWords } from "./indexed-words.ts";
import { markLinked } from "./linked.ts";

/** Where the index build stands as it takes its batches' answers in (takeBatch). */
interface BuildProgress {
  /** The stat words of the files indexed so far, by id (grows). */
  words: Uint32Array;
  /** Set once the index reached the byte budget: no file is added after that. */
  full: string | null;
  /** Files left out once full. */
  left: number;
  /** When the event loop last had a turn. */
  slice: number;
}

/** The budgets and the test gate of a build (the warm state's options). */
interface BuildOptions {
  /** Files larger than this are not indexed. */
  readonly maxFileSize: number;
  /** The index may use at most this fraction of the indexed text's size. */
  readonly budgetRatio: number;
  /** The index may use at most this many bytes. */
  readonly budgetBytes: number;
  /** RGLOB_TEST_BUILD_GATE: every file read, the build waits for this path. */
  readonly buildGate?: string | null;
}

/** The build's walk and what it read, recorded whole. */
export interface BuildWalk {
  readonly plan: WalkPlan;
  readonly rec: MemoryWalk;
  readonly seen: Map<string, Witnessed>;
  /** The watch generation the walk began in. */
  readonly gen: number;
  /** When it began (s since the epoch). */
  readonly began: number;
}

/** What the build asks of the root it builds for (WarmRoot). */
interface BuildHost {
  /** Whether this build stops here: the server closed, or the root's build is another now. */
  gone(idx: TrigramIndex): boolean;
  closed(): boolean;
  /** A turn of the event loop, then the calls in flight. */
  turn(): Promise<void>;
  /** The run context of a walk of the tree that reads the tree's watch as it goes. */
  paced(ctx: RunContext): RunContext;
  /** A line for the server's log. */
  say(line: string): void;
  /** Gives the build up for a reason: the root answers from the file list. */
  overBudget(idx: TrigramIndex, why: string): void;
  /** Told the walk, recorded whole, once every file is read (before the freeze). */
  walked(w: BuildWalk): void;
  /** The watch's generation now. */
  gen(): number;
}

const FIRST_BLOCK = 64 * 1024;
/** The build gives up early once this much text is in and a lower bound of its index is over the budget's
 * ratio by EARLY_RATIO_MARGIN (later, larger files could still bring the ratio down a little, not that much). */
const EARLY_RATIO_TEXT = 32 * 1024 * 1024;
const EARLY_RATIO_MARGIN = 1.25;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads a tree into a new index: walks the plan (recording the walk), has the build workers read the files it
 * gives a batch at a time, adds their keys in the walk's order, and freezes the index, giving the event loop a
 * turn after each slice. Checks the budgets: the byte budget makes the index partial, the ratio gives it up.
 * @param idx the index to fill
 * @param plan the walk (the server's default)
 * @param options the budgets
 * @param sliceMs how long a slice may take before the event loop gets a turn
 * @param host the root built for
 * @returns null when the build stopped or was given up (host.overBudget was told); else the note of an index
 *   that holds only the first files (partial), or null
 */
export async function readTree(
  idx: TrigramIndex,
  plan: WalkPlan,
  options: BuildOptions,
  sliceMs: number,
  host: BuildHost,
): Promise<{ readonly partial: string | null } | null> {
  const progress: BuildProgress = {
    words: new Uint32Array(1024 * STAT_WORDS),
    full: null,
    left: 0,
    slice: performance.now(),
  };
  indexedWords.set(idx, progress.words);
  let reads: BuildReads | null = null;
  try {
    // The files are opened, read and cut into trigram keys by the build worker, a batch at a time, while this
    // thread walks on and adds the keys of the batches answered, in the walk's order (ids as a walk gives them).
    reads = new BuildReads({
      confine: plan.confine,
      maxFileSize: options.maxFileSize,
      nulScan: FIRST_BLOCK,
    });
    // The walk is recorded as it goes, selecting every entry (the files to index are those the plan gives):
    // whole and still fresh at its end, it is the remembered walk of the plan's key, which is a grep's and a
    // count's with the server's defaults, and of find's with them (filesOnly decides only which roots are walked;
    // here the one root is a directory). The first of those calls then need not walk the tree again.
    const gen = host.gen();
    const began = Date.now() / 1000;
    let recorded: MemoryWalk | null = null;
    const walked = recordingWalk(selectingAll(plan), host.paced(quietContext(host.closed, 1)), (rec) => {
      recorded = rec;
    });
    const seen = new Map<string, Witnessed>();
    let batch: string[] = [];
    // Stepped by hand (the paths it reads are witnessed a step at a time): ended below however the loop ends,
    // so the directories it holds open are closed.
    try {
      for (;;) {
        const step = witnessingInto(seen, () => walked.next());
        if (step.done === true) break;
        const e = step.value;
        if (performance.now() - progress.slice > sliceMs) {
          await host.turn();
          progress.slice = performance.now();
        }
        if (host.gone(idx)) return null;
        // Only regular files are read (a symlink not followed, a directory or a FIFO is never indexed; an entry
        // of a type not known is read by every query that reaches it, as any file not indexed).
        if (!gives(plan, e) || e.target !== "file") continue;
        // Full: the walk goes on (it is recorded whole) but no file is added after that; the files left out are
        // read by every query that reaches them, as unindexed files are.
        if (progress.full !== null) {
          progress.left++;
          continue;
        }
        batch.push(e.abs);
        if (batch.length < BUILD_BATCH) continue;
        reads.send(batch);
        batch = [];
        while (reads.full) if (!(await takeBatch(idx, reads, progress, sliceMs, options, host))) return null;
      }
    } finally {
      walked.return();
    }
    if (batch.length > 0) reads.send(batch);
    while (reads.pending > 0)
      if (!(await takeBatch(idx, reads, progress, sliceMs, options, host))) return null;
    reads.close();
    if (recorded !== null) host.walked({ plan, rec: recorded, seen, gen, began });
    // RGLOB_TEST_BUILD_GATE (a test setting): every file read, the build waits for that path, so that a test can
    // act while a build is under way (the watch's drain timer runs meanwhile, as between slices).
    const gate = options.buildGate ?? null;
    if (gate !== null && !pathExists(gate))
      host.say("every file read, the build waits at its gate (RGLOB_TEST_BUILD_GATE)");
    while (gate !== null && !pathExists(gate) && !host.gone(idx)) await sleep(50);
    if (host.gone(idx)) return null;
    // The walk's garbage (its entries, names and read buffers, the spilled chunks) is collected before the
    // freeze allocates the merged lists: JSC would otherwise let it grow with them (ADR 0044).
    collectGarbage();
    // Frozen a step at a time, between turns of the event loop as the walk was.
    const steps = idx.freezing();
    for (let r = steps.next(); r.done !== true; r = steps.next()) {
      if (performance.now() - progress.slice > sliceMs) {
        await host.turn();
        progress.slice = performance.now();
      }
      if (host.gone(idx)) return null;
    }
    // And the segments the freeze merged, before the query structures are made (ADR 0044).
    collectGarbage();
    const s = idx.stats();
    const paged = idx.pagedTextSize;
    if (s.memoryBytes > paged * options.budgetRatio && s.memoryBytes > 1 << 20) {
      host.overBudget(
        idx,
        `the index would take ${(s.memoryBytes / paged).toFixed(2)}x the text (budget ${options.budgetRatio}x; a file counts at least 4 KiB)`,
      );
      return null;
    }

    if (progress.full === null) return { partial: null };
    return {
      partial: `partial: ${progress.full}; it holds the first ${s.files} files, the other ${progress.left} are read by every query that reaches them`,
    };
  } finally {
    reads?.close();
  }
}

/**
 * Takes the oldest batch's answer into the index being built, file by file in the walk's order: each indexed
 * file's stat words (those of the descriptor read: the words checked at each query are the file's as read) and
 * keys; a segment's worth of pending postings frozen, a step at a time (the build's memory is bounded); the
 * byte budget (full: no file added after it) and the early ratio check (the build given up).
 * @param idx the index being built
 * @param reads the build's batches
 * @param p where the build stands (grown here)
 * @param sliceMs how long a slice may take before the event loop gets a turn
 * @param options the budgets
 * @param host the root built for
 * @returns false when the build ends here (closed, replaced, or given up)
 */
async function takeBatch(
  idx: TrigramIndex,
  reads: BuildReads,
  p: BuildProgress,
  sliceMs: number,
  options: BuildOptions,
  host: BuildHost,
): Promise<boolean> {
  const { paths, read } = await reads.next();
  if (host.gone(idx)) return false;
  let at = 0;
  // Whether every indexed file of the batch is added: then their keys are marked at once, by the batch's union.
  let whole = p.full === null;
  for (let i = 0; i < paths.length; i++) {
    const flags = read.flags[i] as number;
    const n = read.counts[i] as number;
    const from = at;
    at += n;
    if (p.full !== null) {
      // Sent before the index was full: left out as those the walk meets after.
      p.left++;
      continue;
    }
    if ((flags & READ_INDEXED) === 0) continue;
    const id = idx.size;
    if ((id + 1) * STAT_WORDS > p.words.length) {
      const more = new Uint32Array(p.words.length * 2);
      more.set(p.words);
      p.words = more;
      indexedWords.set(idx, more);
    }
    p.words.set(read.words.subarray(i * STAT_WORDS, (i + 1) * STAT_WORDS), id * STAT_WORDS);
    const f = i * READ_FACTS;
    const facts = {
      size: read.facts[f] as number,
      mtimeMs: read.facts[f + 1] as number,
      ctimeMs: read.facts[f + 2] as number,
      ino: read.facts[f + 3] as number,
    };
    const keys = read.keys.subarray(from, at);
    idx.addKeys(
      paths[i] as string,
      keys,
      facts,
      read.facts[f + 4] as number,
      (flags & READ_TRAP) !== 0,
      read.quads[i] ?? null,
    );
    if ((flags & READ_LINKED) !== 0) markLinked(idx, id);
    if (idx.buildingSize > options.budgetBytes) {
      const b = options.budgetBytes;
      p.full = `the index reached its budget of ${b >= 1048576 ? `${Math.round(b / 1048576)} MiB` : `${Math.round(b / 1024)} KiB`}`;
    }
    // Once full, no later file of the batch is added: the keys of those added are marked one by one.
    if (p.full !== null && whole) {
      idx.markKeys(read.keys.subarray(0, at));
      whole = false;
    }
    if (p.full !== null) continue;
    const over = overWhileBuilding(idx, options.budgetRatio);
    if (over !== null) {
      host.overBudget(idx, over);
      return false;
    }
  }
  if (whole) idx.markWords(read.union);
  // A segment's worth of pending postings is frozen, a step at a time (the build's memory is bounded), at the end
  // of a batch (its keys all marked).
  if (idx.spillDue) {
    for (const _ of idx.spilling()) {
      if (performance.now() - p.slice > sliceMs) {
        await host.turn();
        p.slice = performance.now();
      }
      if (host.gone(idx)) return false;
    }
  }
  return true;
}

/**
 * Why the build under way stops short, or null: a tree whose index is already clearly over the ratio to its
 * text (each file counted as at least a page: many small files are worth indexing, since a query would open
 * each), which is not built to the end. (The byte budget does not stop it: the index then keeps the files it
 * holds and adds no more; ADR 0038.)
 * @param idx the index being built
 * @param budgetRatio the most the index may take of its text
 * @returns the reason, or null to go on
 */
function overWhileBuilding(idx: TrigramIndex, budgetRatio: number): string | null {
  const paged = idx.pagedTextSize;
  if (
    (idx.size & 1023) === 0 &&
    idx.textSize >= EARLY_RATIO_TEXT &&
    idx.frozenAtLeast > paged * budgetRatio * EARLY_RATIO_MARGIN
  ) {
    return `the index would take over ${(idx.frozenAtLeast / paged).toFixed(2)}x the text (budget ${budgetRatio}x; a file counts at least 4 KiB; judged on the first ${Math.round(idx.textSize / 1048576)} MiB)`;
  }
  return null;
}
