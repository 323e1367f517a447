// What the index differentials (warm-index, persisted-index) search: files of random words, and grep inputs
// that the trigram index narrows (literals, -i, -w, regexes with literals, -l, -c) and some it cannot.

/** The words the files are made of. */
export const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "needle",
  "Needle",
  "haystack",
  "TODO",
  "fixme",
  "kelvin",
  "fooBar",
];

/**
 * Creates a file's text: 1 to 8 lines of 1 to 6 random words.
 * @param rand the test's seeded random numbers
 * @returns the text, ending with a newline
 */
export function wordText(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const lines: string[] = [];
  for (let i = 0, n = 1 + Math.floor(rand() * 8); i < n; i++) {
    const w: string[] = [];
    for (let j = 0, m = 1 + Math.floor(rand() * 6); j < m; j++) w.push(pick(WORDS));
    lines.push(w.join(" "));
  }
  return `${lines.join("\n")}\n`;
}

/** Grep inputs the index narrows and some it cannot. */
export const INDEX_QUERIES: ReadonlyArray<Record<string, unknown>> = [
  { pattern: "needle" },
  { pattern: "needle", ignore_case: true },
  { pattern: "NEEDLE", ignore_case: true, word_regexp: true },
  { pattern: "kelvin", ignore_case: true },
  { pattern: "haystack", files_with_matches: true },
  { pattern: "TODO", count: true },
  { pattern: "fixme", files_without_match: true },
  { pattern: "ga[m]+a" },
  { pattern: "foo(Bar|_bar)" },
  { pattern: "alpha beta" },
  { pattern: "zeta42" },
  { pattern: "caf\u00e9" },
  { pattern: "needle", patterns: ["*.txt"] },
  { pattern: "beta", exclude: ["sub*"] },
  { pattern: "gamma", max_file_size: "60" },
  { pattern: "ok", invert_match: true, files_with_matches: true },
  { pattern: "x" },
  { pattern: "needle", max_count: 3 },
  { pattern: "alpha", respect_gitignore: false },
];
