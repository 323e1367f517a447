/*! Search: counting characters as code points in UTF-16 strings (a surrogate pair is one character, never
 * split). Used where --max-columns clips a line and where the clipped length is told; no other dependency, so
 * the human output can use it without loading the searcher. */

const SURROGATE = /[\ud800-\udfff]/;
const SURROGATE_PAIRS = /[\ud800-\udbff][\udc00-\udfff]/g;

/**
 * Whether a surrogate pair (one astral character) starts at index i of a text.
 * @param text the text
 * @param i an index
 * @returns true at the high half of a pair
 */
export function pairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  const d = text.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
}

/**
 * The UTF-16 index `n` characters (code points) after index `i` of a text, or its length: a surrogate pair is one
 * character and is never split.
 * @param text the text
 * @param i the index to start from
 * @param n how many characters
 * @returns the index
 */
export function codePointsAhead(text: string, i: number, n: number): number {
  for (; n > 0 && i < text.length; n--) i += pairAt(text, i) ? 2 : 1;
  return i;
}

/**
 * Counts the characters (code points) of a text, a surrogate pair as one.
 * @param text the text
 * @returns the count
 */
export function codePointCount(text: string): number {
  return text.length - (SURROGATE.test(text) ? (text.match(SURROGATE_PAIRS)?.length ?? 0) : 0);
}
