/*! Engine, warm index: the seam between a warm state (a long-lived server's, or the CLI's persisted index) and
 * one grep run. A run asks the provider for a walk (a replay of a remembered walk, or the walk itself) and for
 * the files the index rules out; everything else is the cold path. The types, and what both providers share:
 * the literal query of a search and a walk without the files ruled out. */
import type { RunContext } from "../run.ts";
import type { SearchSpec } from "../search/search-file.ts";
import type { Entry, WalkPlan } from "../walk.ts";
import type { LiteralQuery } from "./trigrams.ts";

/** Where an answer's file list and candidates came from (reported in the summary as `source`). */
export type AnswerSource = "index" | "warm_list" | "cold";

/** What the warm state offers one grep run. */
export interface WarmGrep {
  /** Where this run's answer comes from (null: no warm state applies, and the result does not say). */
  readonly source: AnswerSource | null;
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
  /**
   * Returns a file's size as the index holds it (it may have changed since), or null when the index does not
   * hold it: the run gives a large file a batch of its own, so that two large files go to two workers.
   * @param entry a file of the walk
   */
  sizeOf(entry: Entry): number | null;
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
  /**
   * Returns a walk of the plan from its start for the other walking operations (find, count, tree, top, stats,
   * dupes): a replay of a remembered walk, with the same entries, errors and counters in the same order as the
   * walk itself; or null when the walk cannot be remembered (then the operation walks cold).
   * @param plan the run's compiled walk
   * @returns a function that walks it with a run context, or null
   */
  walker(plan: WalkPlan): ((ctx: RunContext) => Iterator<Entry>) | null;
}

/**
 * Returns the literals an index can narrow a search by, or null when it cannot: no required literal, an
 * inverted match, or an encoding other than UTF-8 (the index holds the bytes as they are).
 * @param spec the search spec
 * @returns the query
 */
export function literalQueryOf(spec: SearchSpec): LiteralQuery | null {
  const m = spec.matcher;
  if (m.literals === null || m.invert || spec.encoding !== null) return null;
  // Unicode case folding matches K (U+212A) with k and ſ (U+017F) with s: the searcher does not prefilter
  // files holding them, and neither does the index.
  const traps = m.literalsIgnoreCase && m.flags.includes("u") && m.literals.some((l) => /[ks]/i.test(l));
  return { literals: m.literals, traps, ignoreCase: m.literalsIgnoreCase };
}

/**
 * The entries of a walk but those left out (files ruled out by an index).
 * @param entries the walk
 * @param leftOut tells an entry left out
 * @yields the other entries
 */
export function* without(entries: Iterator<Entry>, leftOut: (e: Entry) => boolean): Generator<Entry> {
  for (let r = entries.next(); !r.done; r = entries.next()) if (!leftOut(r.value)) yield r.value;
}
