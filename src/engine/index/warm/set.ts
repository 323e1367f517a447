/*! Engine, warm index: the warm states of a server's roots (one WarmRoot per root, a query taken by the deepest
 * root holding its base) and the settings the environment's switches give them. Never watches or reads itself. */
import { insideDir } from "../../../platform/platform.ts";
import type { GrepNeeds, RunContext } from "../../run.ts";
import type { SearchSpec } from "../../search/search-file.ts";
import { type Entry, type WalkPlan, walk } from "../../walk.ts";
import { INDEX_MAX_FILE_SIZE } from "../persist.ts";
import type { WarmGrep, WarmLook, WarmProvider } from "../provider.ts";
import { type WarmOptions, WarmRoot, type WarmStatus } from "../warm.ts";

/** The warm states of a server's roots. */
export class WarmSet implements WarmProvider {
  private readonly roots = new Map<string, WarmRoot>();

  constructor(private readonly options: WarmOptions) {}

  /**
   * Serves these roots: starts the warm state of each root not yet warm, and lets go of those of roots no longer
   * served (their watch, index and remembered walks).
   * @param roots real paths of the roots
   */
  ensure(roots: readonly string[]): void {
    // Roots no longer served are let go: their watch (an inotify descriptor), index and remembered walks.
    for (const [r, w] of this.roots) {
      if (roots.includes(r)) continue;
      w.close();
      this.roots.delete(r);
    }
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
   * @param needs what the run asks besides its candidates
   * @returns the seam
   */
  grep(plan: WalkPlan, spec: SearchSpec, needs: GrepNeeds): WarmGrep {
    let best: WarmRoot | null = null;
    for (const w of this.roots.values()) {
      if (insideDir(plan.baseReal, w.root) && (best === null || w.root.length > best.root.length)) best = w;
    }
    if (best !== null) return best.grep(plan, spec, needs);
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
    return this.rootOf(plan)?.walker(plan) ?? null;
  }

  /**
   * Returns the remembered ignored-entries looks of the root that holds the look's base (the innermost), or null.
   * @param plan the look's compiled walk
   */
  look(plan: WalkPlan): WarmLook | null {
    const best = this.rootOf(plan);
    // Every root of the look in the tree the root's watch follows.
    if (best === null || plan.roots.some((r) => !insideDir(r.real, best.root))) return null;
    return best.look();
  }

  /** The root that holds a plan's base (the innermost), or null. */
  private rootOf(plan: WalkPlan): WarmRoot | null {
    let best: WarmRoot | null = null;
    for (const w of this.roots.values()) {
      if (insideDir(plan.baseReal, w.root) && (best === null || w.root.length > best.root.length)) best = w;
    }
    return best;
  }
}

/**
 * The Config's fields the warm state takes (src/config.ts reads them from the environment): those WarmOptions names
 * alike, documented there, and the two it holds otherwise (RGLOB_INDEX_BUDGET_MB in MiB, RGLOB_INDEX=0).
 */
type WarmSwitches = Pick<
  WarmOptions,
  | "watch"
  | "statEveryFile"
  | "persistMinFiles"
  | "watchGate"
  | "statsInWorker"
  | "buildGate"
  | "recheckGate"
  | "watchLimit"
  | "git"
> &
  Required<Pick<WarmOptions, "indexDir">> & {
    /** RGLOB_INDEX_BUDGET_MB: the index's cap in MiB (budgetBytes). */
    readonly indexBudgetMb: number;
    /** RGLOB_INDEX=0: no index loaded from the cache nor written to it (noCache). */
    readonly index: boolean;
  };

/**
 * Returns the warm state's settings: files up to 10 MiB indexed (grep's agent default max_file_size), an index
 * of at most half the text it covers and of at most the switches' budget in bytes; watching unless the switches
 * turn it off (per-query checks only); remembered walks of a root hold at most 2M entries together.
 * @param switches the environment's switches (a Config)
 * @returns the settings
 */
export function warmOptions(switches: WarmSwitches): WarmOptions {
  return {
    maxFileSize: INDEX_MAX_FILE_SIZE,
    budgetRatio: 0.5,
    budgetBytes: switches.indexBudgetMb * 1024 * 1024,
    watch: switches.watch,
    // About 300 bytes an entry (its path strings and columns; measured on babel's 40k): 600 MB at most.
    rememberedEntries: 2_000_000,
    statEveryFile: switches.statEveryFile === true,
    noCache: !switches.index,
    persistMinFiles: switches.persistMinFiles ?? null,
    watchGate: switches.watchGate ?? null,
    statsInWorker: switches.statsInWorker === true,
    buildGate: switches.buildGate ?? null,
    recheckGate: switches.recheckGate ?? null,
    watchLimit: switches.watchLimit ?? null,
    log: (line) => {
      process.stderr.write(`rglob: ${line}\n`);
    },
    indexDir: switches.indexDir,
    ...(switches.git ? { git: switches.git } : {}),
  };
}
