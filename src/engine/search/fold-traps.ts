/*! Search: the Unicode case folding traps, defined once. Under Unicode case folding (the `u` flag with `i`), k
 * matches K (U+212A KELVIN SIGN) and s matches ſ (U+017F LONG S), neither of which ASCII case folding sees: the
 * searcher does not prefilter bytes holding either with its ASCII caseless finders, and the trigram index marks
 * the files holding either so that it never rules them out for such a query. */

/** The UTF-8 bytes of U+212A KELVIN SIGN and U+017F LONG S. */
const TRAPS: readonly Buffer[] = [Buffer.from("\u212a", "utf8"), Buffer.from("\u017f", "utf8")];

/**
 * Whether some bytes hold a trap character (they must be decoded and matched by the regex itself).
 * @param bytes the bytes
 * @returns true when K (U+212A) or ſ (U+017F) is among them
 */
export function holdsFoldTrap(bytes: Buffer): boolean {
  for (const t of TRAPS) if (bytes.indexOf(t) >= 0) return true;
  return false;
}

/**
 * Whether a caseless search for these literals can match a trap character: Unicode case folding (the `u`
 * flag) and a literal holding k or s, in either case.
 * @param flags the matcher's regex flags
 * @param literals the caseless literals the search requires
 * @returns true when bytes holding a trap must not be ruled out by an ASCII caseless test
 */
export function foldsToTrap(flags: string, literals: readonly string[]): boolean {
  return flags.includes("u") && literals.some((l) => /[ks]/i.test(l));
}
