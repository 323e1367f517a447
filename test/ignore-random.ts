// Seeded random ignore rules and names for the matcher's equivalence tests (test/unit/engine/ignore-guards and
// test/diff/ignore-guards): small alphabets, so that rules and names meet often.

/** Characters of names: plain ones often, and ones that are special in a pattern now and then. */
const PLAIN = ["a", "b", "c", ".", "-", "1"];
const SPECIAL = ["*", "?", "[", "]", "\\", " ", "#", "!"];

/**
 * Makes a random file or directory name (never "." or "..", never a VCS directory).
 * @param r a seeded generator
 * @returns the name
 */
export function randomName(r: () => number): string {
  for (;;) {
    const n = 1 + Math.floor(r() * 4);
    let s = "";
    for (let i = 0; i < n; i++) {
      const pool = r() < 0.1 ? SPECIAL : PLAIN;
      s += pool[Math.floor(r() * pool.length)] as string;
    }
    if (s !== "." && s !== ".." && !s.endsWith(" ")) return s;
  }
}

/** One token of a pattern's component. */
function token(r: () => number): string {
  const x = r();
  if (x < 0.45) {
    const c = (r() < 0.1 ? SPECIAL : PLAIN)[Math.floor(r() * 6)] as string;
    return /[*?[\]\\ #!]/.test(c) ? `\\${c}` : c;
  }
  if (x < 0.6) return "?";
  if (x < 0.8) return "*";
  const classes = ["[ab]", "[!a]", "[^b.]", "[a-c]", "[c-a]", "[[:alpha:]]", "[[:digit:]]", "[]a]", "[\\]]"];
  return classes[Math.floor(r() * classes.length)] as string;
}

/** One component: a few tokens, or `**` alone. */
function component(r: () => number): string {
  if (r() < 0.12) return "**";
  const n = 1 + Math.floor(r() * 3);
  let s = "";
  for (let i = 0; i < n; i++) s += token(r);
  return s;
}

/**
 * Makes random ignore-file lines: negation, a leading '/', `**` components, classes, escapes, a trailing '/',
 * trailing spaces and comments.
 * @param r a seeded generator
 * @param count how many lines
 * @returns the lines
 */
export function randomRules(r: () => number, count: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    if (r() < 0.05) {
      lines.push("# comment");
      continue;
    }
    const parts = Array.from({ length: 1 + Math.floor(r() * (r() < 0.5 ? 1 : 3)) }, () => component(r));
    let p = parts.join("/");
    if (r() < 0.25) p = `/${p}`;
    if (r() < 0.2) p = `${p}/`;
    if (r() < 0.05) p = `${p}  `;
    if (r() < 0.3) p = `!${p}`;
    lines.push(p);
  }
  return lines;
}
