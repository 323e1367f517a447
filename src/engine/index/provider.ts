/*! Engine, warm index: the seam between a warm state (a long-lived server's, or the CLI's persisted index) and
 * one grep run. A run asks the provider for a walk (a replay of a remembered walk, or the walk itself) and for
 * the files the index rules out; everything else is the cold path. The types (declared with the run context in
 * run.ts, since each names the other), and what both providers share: the literal query of a search and a walk
 * without the files ruled out. */
import { foldsToTrap } from "../search/fold-traps.ts";
import type { SearchSpec } from "../search/search-file.ts";
import type { Entry } from "../walk-types.ts";
import type { LiteralQuery } from "./trigrams.ts";

export type { AnswerSource, WarmGrep, WarmLook, WarmProvider } from "../run.ts";

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
  const traps = m.literalsIgnoreCase && foldsToTrap(m.flags, m.literals);
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
