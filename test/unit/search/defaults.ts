// The default matcher and text options of the search unit tests (every flag off, nothing bounded).
import type { MatcherOptions } from "../../../src/engine/search/matcher.ts";
import type { TextOptions } from "../../../src/engine/search/search-text.ts";

/** Matcher options with every flag off (add `patterns`). */
export const MATCHER_OFF: Omit<MatcherOptions, "patterns"> = {
  fixedStrings: false,
  ignoreCase: false,
  smartCase: false,
  wordRegexp: false,
  lineRegexp: false,
  invert: false,
  multiline: false,
  onlyMatching: false,
};

/** Text options without context or bounds. */
export const TEXT_UNBOUNDED: TextOptions = {
  before: 0,
  after: 0,
  maxPerFile: Number.POSITIVE_INFINITY,
  maxColumns: Number.POSITIVE_INFINITY,
  firstOnly: false,
  countOnly: false,
};
