/*! Engine: the compiled ignore matcher of the walk's hot path. Parses ignore-file lines exactly as git's dir.c
 * does (comments, `\` escapes, trailing spaces, `!`, a trailing `/`, anchoring) and translates each pattern
 * with git's wildmatch rules to one RegExp, with hash lookups for literal and `*.ext` patterns, rules bucketed by
 * the literal name their last component requires, and a guard per remaining rule (the literal parts an entry
 * must have) so that a RegExp runs only where it could match. It tests only
 * the entry itself: the walk prunes ignored directories, so parents are never re-tested. No I/O here. */

/** One parsed ignore rule. */
export interface IgnoreRule {
  /** 1-based line number in its file. */
  readonly line: number;
  /** The line as written (trailing spaces trimmed as git trims them). */
  readonly pattern: string;
  readonly negate: boolean;
  readonly dirOnly: boolean;
  /** True when the pattern holds a '/' (besides a trailing one): it matches the path relative to the file's dir. */
  readonly anchored: boolean;
  /** The compiled pattern, or null when git's wildmatch can never match it (unclosed class, bad escape). */
  readonly regex: RegExp | null;
}

/** The rules of one ignore file, indexed for the hot path. */
export interface CompiledRules {
  readonly rules: readonly IgnoreRule[];
  /** Literal basename patterns → indices (ascending) of the rules that are exactly that name. */
  readonly literal: Map<string, number[]>;
  /** `*<suffix>` basename patterns with a literal suffix → rule indices (ascending). */
  readonly suffix: Map<string, number[]>;
  /** The suffix lengths present in `suffix` (tested per name). */
  readonly suffixLengths: readonly number[];
  /** The keys of `suffix` and their rule lists, as arrays: a few suffixes are tested with endsWith, no slicing. */
  readonly suffixKeys: readonly string[];
  readonly suffixLists: readonly (readonly number[])[];
  /** Anchored rules whose last component is a literal name (`/build`, `a/b/LICENSE`, `node_modules` after a
   * leading `**`): that name → their indices, descending. Only the rules of the entry's own name are tested. */
  readonly byName: Map<string, number[]>;
  /** Indices of every other rule, descending. */
  readonly general: readonly number[];
  /** By rule index: the guard of a rule in `byName` or `general` (undefined for the others). */
  readonly guards: readonly (RuleGuard | undefined)[];
}

/** What a rule's literal parts require of an entry; a guard that fails means the rule's RegExp cannot match,
 * so the RegExp runs only when every part holds. Derived from the pattern by `guardOf`. */
interface RuleGuard {
  /** The name must start with this ("" for no condition). */
  readonly namePrefix: string;
  /** The name must end with this. */
  readonly nameSuffix: string;
  /** The name must contain this (the longest literal run of the last component, when longer than both). */
  readonly nameInner: string;
  /** The fewest UTF-16 units the name can have, and the most (-1: no bound, the component has a `*`). */
  readonly nameMin: number;
  readonly nameMax: number;
  /** Anchored rules: the path relative to the file's directory must start with this. */
  readonly relPrefix: string;
  /** Anchored rules without any wildcard: the whole relative path (then only a comparison decides). */
  readonly relExact: string | null;
}

/**
 * Trims trailing spaces the way git does: unescaped trailing spaces go, `\ ` keeps its space.
 * @param s a line
 * @returns the trimmed line
 */
export function trimTrailingSpaces(s: string): string {
  let lastSpace = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === " ") {
      if (lastSpace < 0) lastSpace = i;
    } else if (c === "\\") {
      i++;
      if (i >= s.length) return s; // a trailing backslash: git leaves the line alone
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace >= 0 ? s.slice(0, lastSpace) : s;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  blank: " \\t",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "\\x21-\\x7e",
  lower: "a-z",
  print: "\\x20-\\x7e",
  punct: "!-\\/:-@\\[-`{-~",
  space: " \\t\\n\\r\\f\\v",
  upper: "A-Z",
  xdigit: "0-9a-fA-F",
};

function escapeClassChar(c: string): string {
  return /[\\\]^[-]/.test(c) ? `\\${c}` : c;
}

function escapeChar(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** A bracket expression parsed: its RegExp source (for the flags "s" or "su") and the index after it, or why
 * it is malformed. */
type BracketParse = { readonly source: string; readonly next: number } | { readonly error: string };

/**
 * Parses a bracket expression as git's wildmatch does: `!` or `^` negates, a leading `]` is literal, `\x`
 * escapes, `a-z` ranges, and the POSIX classes `[:alpha:]` … `[:xdigit:]` in ASCII (as the C locale). No class
 * matches '/'. Shared by ignore rules and rglob's globs (`glob.ts`).
 * @param p the pattern
 * @param start the index of its '['
 * @param strict false for wildmatch (a reversed range adds nothing); true for globs (a reversed range is an error)
 * @returns the source and next index, or the error (an ignore rule with one never matches)
 */
export function parseBracket(p: string, start: number, strict: boolean): BracketParse {
  let i = start + 1;
  let negate = false;
  if (p[i] === "!" || p[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  let prev: string | null = null; // the previous single char, for ranges
  while (i < p.length) {
    let c = p[i] as string;
    if (c === "]" && !first) {
      if (body === "") return { source: negate ? "[^/]" : "(?!)", next: i + 1 };
      // Under WM_PATHNAME no class matches '/', not even a positive one that lists it.
      return { source: negate ? `[^/${body}]` : `(?!/)[${body}]`, next: i + 1 };
    }
    first = false;
    if (c === "\\") {
      i++;
      if (i >= p.length) break;
      c = p[i] as string;
      body += escapeClassChar(c);
      prev = c;
      i++;
      continue;
    }
    if (c === "-" && prev !== null && i + 1 < p.length && p[i + 1] !== "]") {
      let hi = p[i + 1] as string;
      let step = 2;
      if (hi === "\\") {
        if (i + 2 >= p.length) break;
        hi = p[i + 2] as string;
        step = 3;
      }
      // The previous char is already in the body; a valid range replaces nothing, it adds lo..hi.
      if ((hi.codePointAt(0) as number) >= (prev.codePointAt(0) as number)) {
        body += `${escapeClassChar(prev)}-${escapeClassChar(hi)}`;
      } else if (strict) {
        return { error: `range '${prev}-${hi}' is out of order` };
      }
      prev = null;
      i += step;
      continue;
    }
    if (c === "[" && p[i + 1] === ":") {
      // As wildmatch: the class name runs to the next ']', which must follow a ':'.
      const close = p.indexOf("]", i + 2);
      if (close < 0) break;
      if (p[close - 1] !== ":" || close - 1 < i + 2) {
        body += "\\[";
        prev = "[";
        i++;
        continue;
      }
      const name = p.slice(i + 2, close - 1);
      const cls = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
      // git: an unknown class aborts the match
      if (cls === undefined)
        return {
          error: `unknown character class '[:${name}:]' (known: ${Object.keys(POSIX_CLASSES).join(" ")})`,
        };
      body += cls;
      prev = null;
      i = close + 1;
      continue;
    }
    body += escapeClassChar(c);
    prev = c;
    i++;
  }
  return { error: "unclosed '['" }; // wildmatch never matches
}

/**
 * Translates a git wildmatch pattern (WM_PATHNAME) to a RegExp source.
 * @param p the pattern (no leading '/', no trailing '/')
 * @returns the source anchored at both ends, or null when the pattern can never match
 */
function wildmatchSource(p: string): string | null {
  let out = "";
  let i = 0;
  while (i < p.length) {
    const c = p[i] as string;
    if (c === "\\") {
      if (i + 1 >= p.length) return null; // trailing backslash never matches
      out += escapeChar(p[i + 1] as string);
      i += 2;
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "*") {
      let j = i;
      while (p[j] === "*") j++;
      const run = j - i;
      const atStart = i === 0 || p[i - 1] === "/";
      const atEnd = j === p.length || p[j] === "/" || (p[j] === "\\" && p[j + 1] === "/");
      if (run >= 2 && atStart && atEnd) {
        if (j === p.length) {
          out += ".*";
          i = j;
        } else if (p[j] === "/") {
          out += "(?:.*/)?"; // '**/': zero or more directories
          i = j + 1;
        } else {
          out += ".*/"; // '**\/': wildmatch has no zero-directory shortcut here
          i = j + 2;
        }
      } else {
        out += "[^/]*";
        i = j;
      }
    } else if (c === "[") {
      const cls = parseBracket(p, i, false);
      if ("error" in cls) return null;
      out += cls.source;
      i = cls.next;
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return `^${out}$`;
}

/**
 * Parses one ignore-file line as git does.
 * @param raw the line without its newline (a trailing '\r' is dropped, as git does)
 * @param line its 1-based line number
 * @returns the rule, or null for a blank line or a comment
 */
export function parseRule(raw: string, line: number): IgnoreRule | null {
  let text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (text === "" || text.startsWith("#")) return null;
  text = trimTrailingSpaces(text);
  const pattern = text;
  let negate = false;
  if (text.startsWith("!")) {
    negate = true;
    text = text.slice(1);
  }
  let dirOnly = false;
  if (text.endsWith("/")) {
    dirOnly = true;
    text = text.slice(0, -1);
  }
  if (text === "") return { line, pattern, negate, dirOnly, anchored: false, regex: null };
  const anchored = text.includes("/");
  if (text.startsWith("/")) text = text.slice(1);
  const src = wildmatchSource(text);
  return { line, pattern, negate, dirOnly, anchored, regex: src === null ? null : new RegExp(src, "s") };
}

function isLiteral(s: string): boolean {
  return !/[*?[\\]/.test(s);
}

/** No condition: the guard of a rule whose parts could not be read (its RegExp alone decides). */
const OPEN_GUARD: RuleGuard = {
  namePrefix: "",
  nameSuffix: "",
  nameInner: "",
  nameMin: 0,
  nameMax: -1,
  relPrefix: "",
  relExact: null,
};

/**
 * Derives a rule's guard from its wildmatch text, reading it as `wildmatchSource` does: `\x` is the literal x,
 * `?` and a bracket expression take one unit, a run of `*` any number. The last component (after the last
 * '/') is what matches the entry's name, whatever comes before it: `*`, `?` and classes never match '/', and a
 * `**` component before it ends with '/' (so a `**` last component gives no condition). A pattern with an
 * escaped '/' gets no guard.
 * @param text the pattern without '!', a trailing '/' or a leading '/'
 * @param anchored whether the rule matches the relative path (else the name)
 * @returns the guard
 */
export function guardOf(text: string, anchored: boolean): RuleGuard {
  // Tokens: a string is one literal char; 1 = one unit (`?`, a class); 2 = `*` run; "/" separates components.
  const tokens: Array<string | 1 | 2> = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined || next === "/") return OPEN_GUARD;
      tokens.push(next);
      i += 2;
    } else if (c === "?") {
      tokens.push(1);
      i++;
    } else if (c === "*") {
      while (text[i] === "*") i++;
      tokens.push(2);
    } else if (c === "[") {
      const cls = parseBracket(text, i, false);
      if ("error" in cls) return OPEN_GUARD;
      tokens.push(1);
      i = cls.next;
    } else {
      tokens.push(c);
      i++;
    }
  }
  let relPrefix = "";
  let relExact: string | null = null;
  if (anchored) {
    let k = 0;
    while (k < tokens.length && typeof tokens[k] === "string") relPrefix += tokens[k++] as string;
    if (k === tokens.length) relExact = relPrefix;
  }
  const last = tokens.lastIndexOf("/") + 1;
  const comp = tokens.slice(last);
  let namePrefix = "";
  let k = 0;
  while (k < comp.length && typeof comp[k] === "string") namePrefix += comp[k++] as string;
  let nameSuffix = "";
  if (k < comp.length) {
    let e = comp.length;
    while (e > k && typeof comp[e - 1] === "string") e--;
    nameSuffix = (comp.slice(e) as string[]).join("");
  }
  let nameInner = "";
  let run = "";
  let nameMin = 0;
  let star = false;
  for (const t of comp) {
    if (typeof t === "string") run += t;
    else {
      if (run.length > nameInner.length) nameInner = run;
      run = "";
    }
    if (t === 2) star = true;
    else nameMin++;
  }
  if (run.length > nameInner.length) nameInner = run;
  if (nameInner.length <= namePrefix.length || nameInner.length <= nameSuffix.length) nameInner = "";
  return { namePrefix, nameSuffix, nameInner, nameMin, nameMax: star ? -1 : nameMin, relPrefix, relExact };
}

/**
 * Compiles the text of an ignore file.
 * @param text the file's content
 * @returns the indexed rules
 */
export function compileRules(text: string): CompiledRules {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // git skips a UTF-8 BOM
  const lines = src.split("\n");
  const rules: IgnoreRule[] = [];
  const literal = new Map<string, number[]>();
  const suffix = new Map<string, number[]>();
  const byName = new Map<string, number[]>();
  const general: number[] = [];
  const guards: (RuleGuard | undefined)[] = [];
  const add = (map: Map<string, number[]>, key: string, idx: number) => {
    const list = map.get(key);
    if (list) list.push(idx);
    else map.set(key, [idx]);
  };
  for (let n = 0; n < lines.length; n++) {
    const r = parseRule(lines[n] as string, n + 1);
    if (r === null) continue;
    const idx = rules.length;
    rules.push(r);
    guards.push(undefined);
    if (r.regex === null) continue; // never matches: keep it for explain only
    let body = r.negate ? r.pattern.slice(1) : r.pattern;
    if (r.dirOnly) body = body.slice(0, -1);
    if (!r.anchored && isLiteral(body)) add(literal, body, idx);
    else if (!r.anchored && body.startsWith("*") && body.length > 1 && isLiteral(body.slice(1)))
      add(suffix, body.slice(1), idx);
    else {
      const guard = guardOf(body.startsWith("/") ? body.slice(1) : body, r.anchored);
      guards[idx] = guard;
      if (r.anchored && guard !== OPEN_GUARD && guard.nameMax === guard.namePrefix.length)
        add(byName, guard.namePrefix, idx);
      else general.push(idx);
    }
  }
  general.reverse();
  for (const list of byName.values()) list.reverse();
  const suffixLengths = [...new Set([...suffix.keys()].map((k) => k.length))].sort((a, b) => a - b);
  return {
    rules,
    literal,
    suffix,
    suffixLengths,
    suffixKeys: [...suffix.keys()],
    suffixLists: [...suffix.values()],
    byName,
    general,
    guards,
  };
}

/**
 * Finds the last rule of a file that matches an entry (git: the last matching pattern decides).
 * @param c the compiled file
 * @param rel the entry's path relative to the file's directory (no trailing '/')
 * @param name the entry's basename
 * @param isDir whether the entry is a directory
 * @returns the index of the deciding rule, or -1
 */
export function lastMatch(c: CompiledRules, rel: string, name: string, isDir: boolean): number {
  return lastMatchAt(c, rel, 0, name, isDir);
}

/** The most suffixes tested one by one with endsWith; more go through the map by length. */
const FEW_SUFFIXES = 6;

/**
 * Like lastMatch, with the entry's path given as `key.slice(from)`: the walk passes the repository key and the
 * file's prefix length, and the slice is made only when an anchored pattern has to see it.
 * @param c the compiled file
 * @param key a path whose part from `from` on is the entry's path relative to the file's directory
 * @param from where that relative path starts in key
 * @param name the entry's basename
 * @param isDir whether the entry is a directory
 * @returns the index of the deciding rule, or -1
 */
export function lastMatchAt(
  c: CompiledRules,
  key: string,
  from: number,
  name: string,
  isDir: boolean,
): number {
  let best = -1;
  const rules = c.rules;
  if (c.literal.size > 0) {
    const list = c.literal.get(name);
    if (list !== undefined) {
      for (let k = list.length - 1; k >= 0; k--) {
        const idx = list[k] as number;
        if (isDir || !(rules[idx] as IgnoreRule).dirOnly) {
          best = idx;
          break;
        }
      }
    }
  }
  const keys = c.suffixKeys;
  if (keys.length <= FEW_SUFFIXES) {
    for (let s = 0; s < keys.length; s++) {
      if (!name.endsWith(keys[s] as string)) continue;
      const list = c.suffixLists[s] as readonly number[];
      for (let k = list.length - 1; k >= 0; k--) {
        const idx = list[k] as number;
        if (idx <= best) break;
        if (isDir || !(rules[idx] as IgnoreRule).dirOnly) {
          best = idx;
          break;
        }
      }
    }
  } else {
    const lens = c.suffixLengths;
    for (let s = 0; s < lens.length; s++) {
      const len = lens[s] as number;
      if (len > name.length) break;
      const list = c.suffix.get(name.slice(name.length - len));
      if (list === undefined) continue;
      for (let k = list.length - 1; k >= 0; k--) {
        const idx = list[k] as number;
        if (idx <= best) break;
        if (isDir || !(rules[idx] as IgnoreRule).dirOnly) {
          best = idx;
          break;
        }
      }
    }
  }
  let rel: string | null = null;
  if (c.byName.size > 0) {
    const list = c.byName.get(name);
    if (list !== undefined) {
      for (let k = 0; k < list.length; k++) {
        const idx = list[k] as number;
        if (idx <= best) break;
        const r = rules[idx] as IgnoreRule;
        if (r.dirOnly && !isDir) continue;
        const g = c.guards[idx] as RuleGuard;
        if (!key.startsWith(g.relPrefix, from)) continue;
        if (g.relExact !== null) {
          if (key.length - from !== g.relExact.length) continue;
        } else {
          rel ??= from === 0 ? key : key.slice(from);
          if (!(r.regex as RegExp).test(rel)) continue;
        }
        best = idx;
        break;
      }
    }
  }
  const general = c.general;
  for (let k = 0; k < general.length; k++) {
    const idx = general[k] as number;
    if (idx <= best) break;
    const r = rules[idx] as IgnoreRule;
    if (r.dirOnly && !isDir) continue;
    // The guard: literal parts the entry must have before the RegExp can match.
    const g = c.guards[idx] as RuleGuard;
    const len = name.length;
    if (len < g.nameMin || (g.nameMax >= 0 && len > g.nameMax)) continue;
    if (g.namePrefix !== "" && !name.startsWith(g.namePrefix)) continue;
    if (g.nameSuffix !== "" && !name.endsWith(g.nameSuffix)) continue;
    if (g.nameInner !== "" && !name.includes(g.nameInner)) continue;
    let subject = name;
    if (r.anchored) {
      if (g.relPrefix !== "" && !key.startsWith(g.relPrefix, from)) continue;
      rel ??= from === 0 ? key : key.slice(from);
      subject = rel;
    }
    if ((r.regex as RegExp).test(subject)) {
      best = idx;
      break;
    }
  }
  return best;
}
