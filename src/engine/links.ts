/*! Engine: what a symlink the walk met says and where it leads: its target text, whether the target exists,
 * whether the path it leads to leaves the base, and that path (the end of the chain). It reads links and stats only; it never opens or follows a link
 * into a walk (walk.ts decides that). */
import * as path from "node:path";
import type { EntryType } from "../platform/listing.ts";
import { insideDir, platform, typeOfStats } from "../platform/platform.ts";

/** What a chain of links ends at, in `--type`'s letters: f file, d directory, p fifo, s socket, b/c devices. */
export type LinkEndType = "f" | "d" | "p" | "s" | "b" | "c";

/** The letter of each type a followed link can end at (a symlink cannot: stat follows every link). */
const END_LETTERS: Partial<Record<EntryType, LinkEndType>> = {
  file: "f",
  dir: "d",
  fifo: "p",
  socket: "s",
  block: "b",
  char: "c",
};

/** A symlink's facts, as its records carry them (link_target, link_target_exists, link_target_type, link_escapes). */
export interface LinkInfo {
  /** The target text, as readlink(2) gives it (not resolved). */
  readonly target: string;
  /** Whether the target exists once every link on the way is followed (test -e; false for a loop). */
  readonly exists: boolean;
  /**
   * What the chain ends at (stat(2) of the link, every link followed), in --type's letters; null when it leads
   * nowhere (broken, a loop) or its end cannot be stat'ed.
   */
  readonly endType: LinkEndType | null;
  /** Whether the path the link leads to (resolved as GNU realpath -m does) is outside the base's real path. */
  readonly escapes: boolean;
  /**
   * Where the chain of links ends (resolved as GNU realpath -m does): POSIX and relative to the base's real path
   * when inside it ("." for the base itself), absolute when outside.
   */
  readonly resolved: string;
}

/** Symlinks followed in one resolution at most, as Linux's MAXSYMLINKS: past it the kernel says ELOOP. */
const MAX_LINKS = 40;

/**
 * Resolves a path as GNU `realpath -m` does: every symlink on the way is followed, components past the first missing
 * one are taken as written (`..` then removes the previous component), and a symlink met a second time with the
 * same rest of the path to resolve (a loop, as gnulib's canonicalize detects it) is kept as a name. One link may be
 * passed several times (`self -> .` in `self/self/f`); past MAX_LINKS links (a chain that grows, `a -> a/x`, where
 * GNU realpath never ends) the rest is taken as written.
 * @param p an absolute path
 * @returns the resolved path
 */
function resolveMissing(p: string): string {
  const queue = p.split(path.sep).filter((c) => c !== "");
  let cur: string = path.sep;
  let missing = false;
  let followed = 0;
  const seen = new Set<string>();
  while (queue.length > 0) {
    const c = queue.shift() as string;
    if (c === ".") continue;
    if (c === "..") {
      cur = path.dirname(cur);
      continue;
    }
    const next = cur === path.sep ? cur + c : cur + path.sep + c;
    if (missing) {
      cur = next;
      continue;
    }
    let isLink = false;
    try {
      isLink = platform.lstat(next).isSymbolicLink();
    } catch {
      missing = true;
      cur = next;
      continue;
    }
    const key = `${next}\0${queue.join(path.sep)}`;
    if (!isLink || seen.has(key) || followed >= MAX_LINKS) {
      cur = next;
      continue;
    }
    seen.add(key);
    followed++;
    let text: string;
    try {
      text = platform.readlink(next);
    } catch {
      missing = true;
      cur = next;
      continue;
    }
    if (isAbsoluteLinkText(text)) cur = path.sep;
    queue.unshift(...text.split(path.sep).filter((x) => x !== ""));
  }
  return cur;
}

/**
 * Returns the base directory a walk entry's relative path is relative to: its absolute path without the relative
 * path, or null when the relative path climbs out of the base (a root given outside it).
 * @param abs the entry's absolute path
 * @param rel its POSIX path relative to the base
 * @returns the base's absolute path, or null
 */
function baseOf(abs: string, rel: string): string | null {
  if (rel === "") return abs;
  if (rel === ".." || rel.startsWith("../")) return null;
  const tail = path.sep === "/" ? rel : rel.split("/").join(path.sep);
  if (!abs.endsWith(path.sep + tail)) return null;
  const base = abs.slice(0, abs.length - tail.length - 1);
  return base === "" ? path.sep : base;
}

/**
 * Reads a symlink's facts.
 * @param abs the link's absolute path
 * @param rel its POSIX path relative to the request's base (the base is found from the two)
 * @returns the facts, or null when it is not a symlink (any more) or cannot be read
 */
function linkInfo(abs: string, rel: string): LinkInfo | null {
  let target: string;
  try {
    target = platform.readlink(abs);
  } catch {
    return null;
  }
  let exists = true;
  let endType: LinkEndType | null = null;
  try {
    endType = END_LETTERS[typeOfStats(platform.stat(abs))] ?? null;
  } catch {
    exists = false;
  }
  return { target, exists, endType, ...whereItLeads(abs, baseOf(abs, rel)) };
}

/**
 * Says where a path really is, every symlink on its way followed (as GNU `realpath -m`), and whether that is
 * outside the base: what a link's record says of the link, and what explain says of a path reached through one.
 * @param abs an absolute path
 * @param base the base's absolute path, or null when the path is outside it anyway (a root given outside it)
 * @returns `resolved` (POSIX and relative to the base's real path inside it, "." for the base; absolute outside)
 * and `escapes`
 */
export function whereItLeads(
  abs: string,
  base: string | null,
): { readonly resolved: string; readonly escapes: boolean } {
  const led = resolveMissing(abs);
  // A link that is itself outside the base (a root given outside it): whatever it leads to is outside too.
  const baseReal = base === null ? null : resolveMissing(base);
  const escapes = baseReal === null || !insideDir(led, baseReal);
  let resolved = led;
  if (!escapes) {
    const inner = path.relative(baseReal as string, led);
    resolved = inner === "" ? "." : path.sep === "/" ? inner : inner.split(path.sep).join("/");
  }
  return { resolved, escapes };
}

/** The facts of each symlink entry, read once (the predicate and the record both ask). */
const cache = new WeakMap<object, LinkInfo | null>();

/**
 * Returns the facts of an entry that is a symlink, read once per entry.
 * @param e the walk entry (its listed type, absolute and relative paths)
 * @returns the facts, or null for an entry that is not a symlink
 */
export function linkOf(e: {
  readonly abs: string;
  readonly rel: string;
  readonly type: EntryType;
}): LinkInfo | null {
  if (e.type !== "symlink") return null;
  let info = cache.get(e);
  if (info === undefined) {
    info = linkInfo(e.abs, e.rel);
    cache.set(e, info);
  }
  return info;
}

/**
 * Tells whether a symlink's text is an absolute path, by the platform's rule (`path.isAbsolute`): `/…` on POSIX;
 * `C:\…`, `C:/…`, `\\server\…` and `/…` on Windows. On Linux `C:/x` and `\\server\x` are relative names, resolved
 * from the link's directory like any other (#37). Such a link names a place outside the tree's own layout, so it
 * breaks when the tree is moved, unpacked or cloned elsewhere, even when it leads inside the base today
 * (`--link absolute`, #37). Where a link leads (resolveMissing) asks the same function.
 * @param target the link's text
 * @returns true for an absolute text
 */
export function isAbsoluteLinkText(target: string): boolean {
  return path.isAbsolute(target);
}

/**
 * Says a symlink's state in `--link`'s words, the one source of find's `{link}` and the MCP text's note: broken,
 * escaping, absolute (its text is an absolute path), or ok for a working link inside the base, which may be
 * absolute too (#37: the MCP text said "broken, escaping the base" where `{link}` said "broken, escaping, absolute").
 * @param r a record's link fields
 * @returns the words, in that order; none for an entry that is not a symlink
 */
export function linkStateWords(r: {
  readonly link_target?: string | undefined;
  readonly link_target_exists?: boolean | undefined;
  readonly link_escapes?: boolean | undefined;
}): string[] {
  if (typeof r.link_target !== "string") return [];
  const words: string[] = [];
  if (r.link_target_exists !== true) words.push("broken");
  if (r.link_escapes === true) words.push("escaping");
  if (r.link_target_exists === true && r.link_escapes !== true) words.push("ok");
  if (isAbsoluteLinkText(r.link_target)) words.push("absolute");
  return words;
}
