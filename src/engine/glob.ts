/*! Engine: glob compilation. Globs become RegExps once, at plan time; the walk only calls test().
 * Syntax: `*` (not across '/'), `?`, `**` (any number of path components), `[abc]`, `[!a-z]`/`[^a-z]`,
 * `{a,b}` (nestable), `\x` escapes. A glob without '/' matches the basename; with '/' or '**' it matches the
 * relative path (a leading '/' anchors at the base and is dropped). */
import { RglobError } from "../contract/errors.ts";

/** A compiled glob. */
export interface Glob {
  readonly source: string;
  /** True when the glob matches the relative path, false when it matches the basename. */
  readonly matchesPath: boolean;
  readonly regex: RegExp;
}

const SPECIAL = /[.+^${}()|[\]\\/]/;

/**
 * Tells whether a string uses glob syntax (`*`, `?`, `[…]`, `{…}`), i.e. is more than a literal path.
 * @param s the string
 * @returns true when it holds a glob metacharacter
 */
export function hasGlobSyntax(s: string): boolean {
  return /[*?[\]{}]/.test(s);
}

function bad(glob: string, why: string): RglobError {
  return new RglobError("BAD_PREDICATE", `bad glob '${glob}': ${why}`);
}

function translate(glob: string, src: string): string {
  let out = "";
  let i = 0;
  const n = src.length;
  let braceDepth = 0;
  while (i < n) {
    const c = src[i] as string;
    if (c === "\\") {
      if (i + 1 >= n) throw bad(glob, "trailing backslash");
      const next = src[i + 1] as string;
      out += SPECIAL.test(next) || next === "*" || next === "?" ? `\\${next}` : next;
      i += 2;
    } else if (c === "*") {
      if (src[i + 1] === "*") {
        const atStart = i === 0 || src[i - 1] === "/";
        const atEnd = i + 2 === n || src[i + 2] === "/";
        if (atStart && atEnd) {
          if (i + 2 === n) {
            out += ".*"; // trailing '**': everything below
            i += 2;
          } else {
            out += "(?:[^/]*/)*"; // '**/': zero or more components
            i += 3;
          }
          continue;
        }
        out += "[^/]*";
        i += 2;
        continue;
      }
      out += "[^/]*";
      i++;
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      let j = i + 1;
      let cls = "";
      if (src[j] === "!" || src[j] === "^") {
        cls += "^";
        j++;
      }
      if (src[j] === "]") {
        cls += "\\]";
        j++;
      }
      while (j < n && src[j] !== "]") {
        const ch = src[j] as string;
        if (ch === "\\" && j + 1 < n) {
          cls += `\\${src[j + 1]}`;
          j += 2;
          continue;
        }
        cls += ch === "\\" || ch === "[" ? `\\${ch}` : ch;
        j++;
      }
      if (j >= n) throw bad(glob, "unclosed '['");
      out += cls.startsWith("^") ? `(?!/)[${cls}]` : `[${cls}]`;
      i = j + 1;
    } else if (c === "{") {
      braceDepth++;
      out += "(?:";
      i++;
    } else if (c === "," && braceDepth > 0) {
      out += "|";
      i++;
    } else if (c === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
      i++;
    } else {
      out += SPECIAL.test(c) ? `\\${c}` : c;
      i++;
    }
  }
  if (braceDepth > 0) throw bad(glob, "unclosed '{'");
  return out;
}

/**
 * Compiles a glob.
 * @param glob the glob text
 * @param caseSensitive whether letters must match in case
 * @returns the compiled glob
 * @throws RglobError BAD_PREDICATE for an empty or malformed glob
 */
export function compileGlob(glob: string, caseSensitive: boolean): Glob {
  if (glob.length === 0) throw bad(glob, "empty pattern");
  if (glob.includes("\0")) throw bad(glob, "NUL byte in pattern");
  let src = glob;
  let matchesPath = src.includes("/") || src.includes("**");
  if (src.startsWith("./")) src = src.slice(2);
  if (src.startsWith("/")) src = src.slice(1);
  if (src.endsWith("/") && src.length > 1) src = src.slice(0, -1);
  if (!src.includes("/") && !src.includes("**")) matchesPath = matchesPath && glob.startsWith("/");
  let regex: RegExp;
  try {
    regex = new RegExp(`^${translate(glob, src)}$`, caseSensitive ? "su" : "siu");
  } catch (err) {
    throw bad(glob, err instanceof Error ? err.message : String(err));
  }
  return { source: glob, matchesPath, regex };
}

/**
 * Creates a predicate that is true when any glob matches an entry.
 * @param globs compiled globs
 * @returns (relativePath, name) => boolean
 */
export function anyGlob(globs: readonly Glob[]): (rel: string, name: string) => boolean {
  const byName = globs.filter((g) => !g.matchesPath).map((g) => g.regex);
  const byPath = globs.filter((g) => g.matchesPath).map((g) => g.regex);
  if (byPath.length === 0 && byName.length === 1) {
    const only = byName[0] as RegExp;
    return (_rel, name) => only.test(name);
  }
  return (rel, name) => byName.some((r) => r.test(name)) || byPath.some((r) => r.test(rel));
}

/** Returns the default case sensitivity of this platform (false on macOS and Windows). */
export function defaultCaseSensitive(): boolean {
  return process.platform !== "darwin" && process.platform !== "win32";
}
