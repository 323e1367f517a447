/*! "Did you mean": the closest of the known names to a mistyped one, by edit distance. One suggester for the
 * CLI's commands and flags and the MCP server's arguments; it only proposes, never changes what runs. */

/**
 * Returns the edit distance of two short strings: insertions, deletions, substitutions and transpositions of two
 * neighbours (`gerp` is one edit from `grep`), each counting one (optimal string alignment).
 * @param a one string
 * @param b the other
 * @returns the fewest such edits that turn a into b
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      cur[j] = d;
    }
    rows.push(cur);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * Returns the known name closest to a mistyped one: within one edit for a word of up to 4 characters, two for
 * a longer one; the first of the closest when several are as close.
 * @param word what was typed
 * @param known the names it may have meant, in order of preference
 * @returns the name, or null when none is close
 */
export function closest(word: string, known: readonly string[]): string | null {
  if (word.length > 64) return null; // no name is that long
  let best: string | null = null;
  let bestD = word.length <= 4 ? 1 : 2;
  for (const k of known) {
    const d = editDistance(word, k);
    if (d <= bestD && (best === null || d < bestD)) {
      best = k;
      bestD = d;
    }
  }
  return best;
}
