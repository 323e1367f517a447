/*! Engine: glob compilation. Globs become RegExps once, at plan time; the walk only calls test().
 * Syntax: `*` (not across '/'), `?`, `**` (any number of path components), `[abc]`, `[!a-z]`/`[^a-z]`,
 * POSIX classes in brackets (`[[:digit:]_]`, ASCII as in the C locale; the bracket parser is wildmatch's, shared
 * with ignore-rules.ts), `{a,b}` (nestable), `\x` escapes. A trailing '/' selects directories only and is then
 * dropped, as in gitignore. A glob without '/' matches the basename; with '/' or '**' it matches the relative
 * path (a leading '/' or './' anchors at the base and is dropped). */
import { RglobError } from "../contract/errors.ts";
import { parseBracket } from "./ignore-rules.ts";

/** A compiled glob. */
interface Glob {
  readonly source: string;
  /** True when the glob matches the relative path, false when it matches the basename. */
  readonly matchesPath: boolean;
  /** True when the glob ended in '/': it matches directories only (a followed symlink by its target). */
  readonly dirOnly: boolean;
  readonly regex: RegExp;
}

/** Tests an entry against globs: its POSIX path relative to the base, its name, whether it is a directory. */
export type GlobTest = (rel: string, name: string, isDir: boolean) => boolean;

const SPECIAL = /[.+^${}()|[\]\\/]/;

/**
 * Tells whether a string uses glob syntax (`*`, `?`, `[…]`, `{…}`), i.e. is more than a literal path.
 * @param s the string
 * @returns true when it holds a glob metacharacter
 */
export function hasGlobSyntax(s: string): boolean {
  return /[*?[\]{}]/.test(s);
}

/**
 * Tells whether a glob is a negation ('!*.md', as rg's -g takes it); '\\!x' is a glob for a literal '!x'.
 * @param glob the glob text
 * @returns true when it begins with '!'
 */
export function isNegated(glob: string): boolean {
  return glob.startsWith("!");
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
      const cls = parseBracket(src, i, true);
      if ("error" in cls) throw bad(glob, cls.error);
      out += cls.source;
      i = cls.next;
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

/** Whether the character at i is escaped by an odd run of backslashes before it. */
function escapedAt(s: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && s[k] === "\\") k--;
  return (i - 1 - k) % 2 === 1;
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
  // A leading '/' or './' (or several) anchors at the base: the glob then matches the relative path.
  const lead = /^(?:\.?\/)+/.exec(glob)?.[0] ?? "";
  let src = glob.slice(lead.length);
  // A trailing '/' (not escaped) selects directories only; the rest is classified as if it were absent.
  let dirOnly = false;
  while (src.endsWith("/") && !escapedAt(src, src.length - 1)) {
    src = src.slice(0, -1);
    dirOnly = true;
  }
  const matchesPath = lead !== "" || src.includes("/") || src.includes("**");
  // Outside the try: translate's own errors already name the glob. With nothing left ('/', './') the regex
  // matches only "", which no entry is: the base itself is never listed.
  const body = translate(glob, src);
  let regex: RegExp;
  try {
    regex = new RegExp(`^${body}$`, caseSensitive ? "su" : "siu");
  } catch (err) {
    throw bad(glob, err instanceof Error ? err.message : String(err));
  }
  return { source: glob, matchesPath, dirOnly, regex };
}

/**
 * Creates a predicate that is true when any glob matches an entry.
 * @param globs compiled globs
 * @returns (relativePath, name, isDir) => boolean
 */
export function anyGlob(globs: readonly Glob[]): GlobTest {
  const pick = (path: boolean, dir: boolean) =>
    globs.filter((g) => g.matchesPath === path && g.dirOnly === dir).map((g) => g.regex);
  const byName = pick(false, false);
  const byPath = pick(true, false);
  const dirByName = pick(false, true);
  const dirByPath = pick(true, true);
  if (dirByName.length === 0 && dirByPath.length === 0) {
    if (byPath.length === 0 && byName.length === 1) {
      const only = byName[0] as RegExp;
      return (_rel, name) => only.test(name);
    }
    return (rel, name) => byName.some((r) => r.test(name)) || byPath.some((r) => r.test(rel));
  }
  return (rel, name, isDir) =>
    byName.some((r) => r.test(name)) ||
    byPath.some((r) => r.test(rel)) ||
    (isDir && (dirByName.some((r) => r.test(name)) || dirByPath.some((r) => r.test(rel))));
}

/** Returns the default case sensitivity of this platform (false on macOS and Windows). */
export function defaultCaseSensitive(): boolean {
  return process.platform !== "darwin" && process.platform !== "win32";
}
