/*! Engine, warm index: the seam between a long-lived server's warm state and one grep run. A run asks the
 * provider for a walk (a replay of a remembered walk, or the walk itself) and for the files the index rules
 * out; everything else is the cold path. Types only. */
import type { RunContext } from "../../ops/operation.ts";
import type { SearchSpec } from "../search/search-file.ts";
import type { Entry, WalkPlan } from "../walk.ts";

/** Where an answer's file list and candidates came from (reported in the summary as `source`). */
export type AnswerSource = "index" | "warm_list" | "cold";

/** What the warm state offers one grep run. */
export interface WarmGrep {
  /** Where this run's answer comes from. */
  readonly source: AnswerSource;
  /**
   * Walks the plan: the same entries, errors and counters as the walk itself, in the same order, but for the
   * files the index rules out when the run does not list files without a match (they would give nothing).
   * @param plan the compiled walk
   * @param ctx the run context
   * @param startAfter the cursor's walk key, or null
   * @returns the entries
   */
  walk(plan: WalkPlan, ctx: RunContext, startAfter: string | null): Iterator<Entry>;
  /**
   * Tells whether a file cannot match (the index holds it unchanged and without the pattern's trigrams): it is
   * then counted as searched with nothing found, without being read.
   * @param entry a file of the walk
   * @returns true when the file is ruled out
   */
  ruledOut(entry: Entry): boolean;
}

/** The warm state a server passes into its runs. */
export interface WarmProvider {
  /**
   * Returns what the warm state offers a grep run.
   * @param plan the run's compiled walk
   * @param spec the run's search spec
   * @param bounded whether the run is bounded by bytes read (max_bytes): it then reads every file
   * @param listsNonMatching whether the run lists the files without a match (ruled-out files are records)
   * @returns the run's warm seam
   */
  grep(plan: WalkPlan, spec: SearchSpec, bounded: boolean, listsNonMatching: boolean): WarmGrep;
}
