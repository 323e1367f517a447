/*! Engine: the walk. An iterative, pre-order, sorted (by code point) traversal of the plan's roots that prunes
 * VCS directories, hidden (when asked), excluded, ignored and too-deep directories (each counted once in the
 * skip ledger), follows symlinks only when asked (with loop detection
 * and strict-base containment: a link leading outside the base is given as a link, not followed), and turns every per-entry problem into an ErrorInfo. Pull-based: a sync
 * generator, so a consumer that stops pulling stops the walk. It never matches contents or writes output. */
import * as path from "node:path";
import { fsErrorInfo, RglobError } from "../contract/errors.ts";
import { TEXT_FACTS, type TextFacts } from "../contract/result.ts";
import { dirFds } from "../platform/dir-fd.ts";
import type { DirListing, EntryType } from "../platform/listing.ts";
import { basenamePath, VCS_DIRS } from "../platform/names.ts";
import { insideDir, platform, typeIn, typeOfStats } from "../platform/platform.ts";
import {
  dirChain,
  type IgnoreFile,
  type IgnoreFileLoader,
  ignoredEntry,
  loadTreeIgnoreFile,
  matchChain,
} from "./ignore.ts";
import type { RunContext } from "./run.ts";
import { Entry, type Root, type WalkPlan } from "./walk-types.ts";
import { witness } from "./witness.ts";

export { Entry, type EntryStats, type PlanSource, type Root, type WalkPlan } from "./walk-types.ts";

/**
 * Says whether the walk gives an entry it reached: a root that is a file when the plan selects it; an entry
 * below a root when it is at min_depth or deeper, is not a directory unless directories can be selected, and the
 * plan selects it (walkTree tests the first two before it makes the entry). A walk recorded with nothing
 * selected out is filtered by it when it is replayed for a plan (index/recorded-walk.ts).
 * @param plan the plan
 * @param e an entry its walk reached
 * @returns whether the walk of the plan yields it
 */
export function gives(plan: WalkPlan, e: Entry): boolean {
  if (e.depth === 0) return plan.select(e) && admits(plan, e);
  return (
    e.depth >= plan.minDepth && (plan.selectDirs || e.target !== "dir") && plan.select(e) && admits(plan, e)
  );
}

/**
 * Says whether an entry the plan selects is given to the operation: false for a file of no known type that
 * select let through only for the --lang shebang note, which admit keeps (filter/type-rejects.ts).
 * @param plan the plan
 * @param e an entry it selects
 * @returns whether it is given
 */
export function admits(plan: WalkPlan, e: Entry): boolean {
  return plan.admit === null || plan.admit(e);
}

/**
 * Says, once a walk of the plan has gone over every entry from the first, that the files of no known type its
 * types left out are all kept, under the result's TEXT_FACTS (the --lang shebang note reads them).
 * @param plan the plan
 * @param ctx the run context
 */
export function rejectsComplete(plan: WalkPlan, ctx: RunContext): void {
  const kept = plan.typeRejects;
  if (kept === null || ctx.shouldStop()) return;
  kept.complete = true;
  ctx.summary(TEXT_FACTS, { type_rejects: kept } satisfies TextFacts);
}

/**
 * Returns the plan that walks as `plan` does (roots, ignore rules, excludes, depth, links) but selects every
 * entry it reaches: the walk several plans that differ only in what they select share.
 * @param plan the plan
 * @returns the plan with nothing selected out
 */
export function selectingAll(plan: WalkPlan): WalkPlan {
  return {
    ...plan,
    select: () => true,
    selectDirs: true,
    minDepth: 0,
    readsStats: false,
    admit: null,
    typeRejects: null,
  };
}

/**
 * Compares two names by Unicode code point (UTF-16 order differs only around surrogates).
 * @param a a name
 * @param b a name
 * @returns negative, zero or positive
 */
export function compareNames(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const sx = x >= 0xd800 && x <= 0xdfff;
      const sy = y >= 0xd800 && y <= 0xdfff;
      if (sx !== sy) return sx ? 1 : -1; // a surrogate (astral code point) sorts after any BMP unit
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Sorts names in place by code point: the engine's native string sort (UTF-16 order) unless one holds a
 * surrogate (an astral character), where UTF-16 order differs; a comparator is about twice as slow. One test
 * over the joined names, not one per name (a regular expression call per entry showed in profiles). */
function sortNames(names: string[]): void {
  if (names.length < 2) return;
  names.sort(SURROGATE.test(names.join("")) ? compareNames : undefined);
}

const SURROGATE = /[\ud800-\udfff]/;

interface Frame {
  readonly abs: string;
  /** abs with a trailing separator, computed once per directory. */
  readonly absPrefix: string;
  readonly rel: string;
  readonly depth: number;
  /** The directory's listing, its names sorted by code point. */
  readonly listing: DirListing;
  idx: number;
  readonly chain: readonly IgnoreFile[];
  /** Key prefix of this directory in the chain's key space ("" or ending in '/'). */
  readonly keyPrefix: string;
  /** True when keyPrefix + name equals joinRel(rel, name) (the walk started at the repository root). */
  readonly sameKey: boolean;
  /** Remaining cursor components when this directory is on the cursor's path, else null. */
  readonly resume: readonly string[] | null;
  /** Whether the cursor's own entry is given again (when the walk still gives it), not only what follows it. */
  readonly including?: boolean;
  /** Device/inode pairs of the directories from the root to here (only when following symlinks). */
  readonly ancestors: readonly string[] | null;
  /** The directory's open descriptor while it is walked (its subdirectories are opened from it), or -1. */
  fd: number;
}

/**
 * Directory descriptors a walk keeps open at once (one per level, from the top): a deeper directory is closed
 * once listed, and its subdirectories are opened by path and checked (platform.listDir), so a deep tree never
 * runs out of descriptors.
 */
const MAX_HELD_DIRS = 64;

/**
 * Returns the type of a symlink's target, as find -L judges it: a link that leads nowhere is a symlink itself, as
 * it is without following: its target, or a directory on the way to it, does not exist, or the links loop (ELOOP:
 * a loop, or a chain past the kernel's 40 links). GNU find -L reports a loop as an error and fd -L leaves it out
 * silently; here it is a broken link (#37), as `--link broken` and link_target_exists say, listed by `-t l`.
 * A target the user may not reach (EACCES) or a link that vanished since it was listed still throws.
 * @param abs the symlink's absolute path
 * @returns the target's type, or "symlink" for a link that leads nowhere
 * @throws the error of stat (or of lstat when the link itself is gone)
 */
export function followedType(abs: string): EntryType {
  try {
    return typeOfStats(platform.stat(abs));
  } catch (err) {
    const code = (err as { code?: string } | null)?.code;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "ELOOP") throw err;
    let own: EntryType;
    try {
      own = typeOfStats(platform.lstat(abs));
    } catch {
      throw err; // the link itself is gone
    }
    if (own !== "symlink") throw err;
    return "symlink";
  }
}

// The names of version-control metadata directories (platform/names.ts, where the tree watch reads them too).
export { VCS_DIRS };

/**
 * Tells whether the rule that decides an entry is a whitelist ('!pattern'), the nearest ignore file first.
 * @param chain the ignore files that apply, lowest priority first
 * @param key the entry's path in the chain's key space
 * @param name its name
 * @param isDir whether it is a directory
 * @returns true when the last rule that matches it is a negation
 */
export function whitelisted(
  chain: readonly IgnoreFile[],
  key: string,
  name: string,
  isDir: boolean,
): boolean {
  return matchChain(chain, key, name, isDir)?.rule.negate === true;
}

function joinRel(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

/** A directory whose walk is deferred: the unit of work of the parallel walk (walk-pool.ts). */
export interface Subtree {
  readonly root: number;
  readonly abs: string;
  readonly rel: string;
  readonly depth: number;
  /** The ignore files that apply from above this directory (its own are read when it is opened). */
  readonly chain: readonly IgnoreFile[];
  /** Key prefix of this directory in the chain's key space ("" or ending in '/'). */
  readonly keyPrefix: string;
  /** Remaining cursor components when this directory is on the cursor's path, else null. */
  readonly resume: readonly string[] | null;
  /** Whether the cursor's own entry is given again (when the walk still gives it), not only what follows it. */
  readonly including?: boolean;
  /** Device/inode pairs of the directories above it (only when following symlinks). */
  readonly ancestors: readonly string[] | null;
}

/**
 * Parses a cursor key "root:rel" (rel relative to the base, as entries' `rel`) into the root index and the
 * components of the path below that root, checking it against the plan's roots before anything is walked or
 * opened: the root is one of the plan's, and the path is the root's own or below it, one name per component
 * (none empty, `.` or `..`; a final `/` marks a directory, as tree's keys do). A key forged to lead elsewhere
 * is refused.
 * @param plan the compiled walk
 * @param key the cursor's walk key, or null
 * @returns the root index and the components below it (-1 and null when there is no key)
 * @throws RglobError BAD_PREDICATE for a key outside the plan's roots
 */
export function parseWalkKey(plan: WalkPlan, key: string | null): { root: number; parts: string[] | null } {
  if (key === null) return { root: -1, parts: null };
  const colon = key.indexOf(":");
  const r = colon > 0 ? Number(key.slice(0, colon)) : -1;
  const root = Number.isSafeInteger(r) && r >= 0 ? plan.roots[r] : undefined;
  const parts = root === undefined ? null : partsBelow(root, key.slice(colon + 1));
  if (parts === null)
    throw new RglobError(
      "BAD_PREDICATE",
      "cursor is not a valid rglob cursor (its order key is not below the query's roots): repeat the query that returned it",
    );
  return { root: r, parts };
}

/** The components of a key's path below a root, or null when it is not the root's own path or below it. */
function partsBelow(root: Root, rel: string): string[] | null {
  let rest: string;
  if (root.rel === "") rest = rel;
  else if (rel === root.rel) return [];
  else if (root.type === "dir" && rel.startsWith(`${root.rel}/`)) rest = rel.slice(root.rel.length + 1);
  else return null;
  if (rest === "") return [];
  const parts = rest.split("/");
  const names = parts.at(-1) === "" ? parts.slice(0, -1) : parts;
  if (root.type !== "dir" || !names.every((n) => n !== "" && n !== "." && n !== ".." && !n.includes("\0")))
    return null;
  return parts;
}

/**
 * Returns the subtree of a directory root, or null for a root that is a single file.
 * @param plan the compiled walk
 * @param r the root's index
 * @param resume the cursor components inside this root, or null
 * @returns the subtree to walk
 */
export function rootSubtree(plan: WalkPlan, r: number, resume: readonly string[] | null): Subtree | null {
  const root = plan.roots[r] as Root;
  if (root.type !== "dir") return null;
  return {
    root: r,
    abs: root.abs,
    rel: root.rel,
    depth: 0,
    chain: root.outer,
    keyPrefix: root.repoPrefix,
    resume,
    ancestors: plan.follow ? [] : null,
  };
}

/**
 * Returns the entry of a root that is a single file.
 * @param plan the compiled walk
 * @param r the root's index
 * @returns the entry (not yet tested against the plan's predicates)
 */
export function fileRootEntry(plan: WalkPlan, r: number): Entry {
  const root = plan.roots[r] as Root;
  return new Entry(root.abs, root.rel, basenamePath(root.abs), 0, root.type, root.type, r, plan.follow);
}

/**
 * Walks the plan's roots in order, yielding selected entries.
 * @param plan the compiled walk
 * @param ctx the run context (errors, counters, deadline)
 * @param startAfter a cursor key "root:rel": entries up to and including it are skipped, pruning what can be
 * @param including the cursor's own entry is not skipped: it is given again when the walk gives it (grep resumes
 * inside that file), so a file is opened only when the walk itself gives it, whatever the cursor names
 * @yields the selected entries, pre-order, siblings by code point
 */
export function* walk(
  plan: WalkPlan,
  ctx: RunContext,
  startAfter: string | null = null,
  including = false,
): Generator<Entry> {
  // A request cancelled (or past its deadline) before it starts examines nothing.
  if (ctx.shouldStop()) return;
  const resume = parseWalkKey(plan, startAfter);
  const tally = { examined: 0 };
  for (let r = 0; r < plan.roots.length; r++) {
    if (r < resume.root) continue;
    const sub = rootSubtree(plan, r, r === resume.root ? resume.parts : null);
    if (sub !== null && r === resume.root && including) {
      yield* walkTree(plan, ctx, { ...sub, including }, Number.POSITIVE_INFINITY, tally) as Generator<Entry>;
      if (ctx.shouldStop()) return;
      continue;
    }
    if (sub === null) {
      if (r === resume.root && !including) continue; // the single file was already returned
      const e = fileRootEntry(plan, r);
      ctx.searched();
      if (plan.select(e) && admits(plan, e)) yield e;
      continue;
    }
    yield* walkTree(plan, ctx, sub, Number.POSITIVE_INFINITY, tally) as Generator<Entry>;
    if (ctx.shouldStop()) return;
  }
  if (startAfter === null) rejectsComplete(plan, ctx);
}

/**
 * Walks one directory's subtree in order. After `budget` entries it opens no more directories: each one it
 * would enter is yielded as a Subtree at its place in the order instead (a hole for another thread to walk),
 * so the output, holes filled in, is exactly the walk of the whole subtree.
 * @param plan the compiled walk
 * @param ctx the run context (errors, counters, deadline)
 * @param start the directory to walk
 * @param budget entries to examine before directories become holes (Infinity: never)
 * @param tally the running count of examined entries (for progress and the deadline check)
 * @yields the selected entries and, past the budget, the subtrees left to walk
 */
export function* walkTree(
  plan: WalkPlan,
  ctx: RunContext,
  start: Subtree,
  budget: number,
  tally: { examined: number },
): Generator<Entry | Subtree> {
  const r = start.root;
  const including = start.including === true;
  // A directory at max_depth is not listed: its entries would be one level too deep (max_depth 0 keeps a
  // directory root's entries out; a root that is a single file is at depth 0 and never comes here).
  if (start.depth >= plan.maxDepth) {
    ctx.skipped.too_deep++;
    return;
  }
  const stack: Frame[] = [];
  const rootFrame = openDir(
    plan,
    ctx,
    start.abs,
    start.rel,
    start.depth,
    start.chain,
    start.keyPrefix,
    start.resume,
    start.ancestors,
    -1,
    true,
  );
  if (rootFrame) stack.push(rootFrame);
  let left = budget;
  try {
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      const names = frame.listing.names;
      if (frame.idx >= names.length) {
        stack.pop();
        closeFrame(frame);
        continue;
      }
      const name = names[frame.idx++] as string;
      left--;
      if ((++tally.examined & 255) === 0) {
        ctx.progress(tally.examined);
        if (ctx.shouldStop()) return;
      }
      // Resume: skip everything up to the cursor, descending only along its path.
      let descendOnly = false;
      if (frame.resume !== null && frame.resume.length > 0) {
        const c = compareNames(name, frame.resume[0] as string);
        if (c < 0) continue;
        // The entry on the cursor's path (or the cursor's own entry, already emitted): not emitted again, but
        // entered, since a directory's children come after it in pre-order. Its own entry is given when asked
        // (`including`).
        if (c === 0) descendOnly = !(including && frame.resume.length === 1);
      }
      if (name.charCodeAt(0) === 46 && VCS_DIRS.has(name)) {
        ctx.skipped.vcs++;
        continue;
      }
      // A dot name is skipped unless hidden entries are asked for, or an ignore file whitelists it ('!.github/'),
      // as rg lets the whitelist win; that is decided below, once its type is known.
      const dotName = !plan.hidden && name.charCodeAt(0) === 46;
      if (dotName && !(plan.respectIgnore && frame.chain.length > 0)) {
        ctx.skipped.hidden++;
        continue;
      }
      const rel = joinRel(frame.rel, name);
      const abs = frame.absPrefix + name;
      // A dot name that is only looked at for a whitelist reports no problem of its own: it would be skipped.
      let type = typeIn(frame.listing, name);
      let target = type;
      if (type === "unknown" || (type === "symlink" && plan.follow)) {
        const types = statTypes(plan, ctx, abs, type, dotName);
        if (types === null) continue;
        [type, target] = types;
      }
      const isDir = target === "dir";
      if (plan.exclude?.(rel, name, isDir)) {
        ctx.skipped.excluded++;
        continue;
      }
      if (frame.chain.length > 0) {
        // Walking from the repository root the key is the rel path: one string, not two, per entry.
        const key = frame.sameKey ? rel : frame.keyPrefix + name;
        if (dotName) {
          if (!whitelisted(frame.chain, key, name, isDir)) {
            ctx.skipped.hidden++;
            continue;
          }
        } else if (ignoredEntry(frame.chain, key, name, isDir)) {
          ctx.skipped.ignored++;
          continue;
        }
      }
      const depth = frame.depth + 1;
      // Files examined, not directories; under -L a link that leads nowhere (broken, or links that loop) is
      // neither, as find -L's -type f leaves it out (#37: total_files_searched counted it).
      if (!isDir && !(plan.follow && target === "symlink")) ctx.searched();
      if (!descendOnly && depth >= plan.minDepth && (plan.selectDirs || !isDir)) {
        const e = new Entry(abs, rel, name, depth, type, target, r, plan.follow);
        if (frame.fd >= 0) e.listedDir = frame;
        if (plan.select(e)) {
          if (admits(plan, e)) yield e;
        } else if (e.statError !== undefined) ctx.error(fsErrorInfo(e.statError, abs)); // vanished since listed
      }
      if (isDir && depth >= plan.maxDepth) ctx.skipped.too_deep++;
      else if (isDir) {
        const sub = subtreeOf(plan, ctx, frame, r, name, descendOnly, dotName);
        if (sub === null) continue;
        if (left <= 0) {
          yield sub;
          continue;
        }
        const child = openDir(
          plan,
          ctx,
          sub.abs,
          sub.rel,
          sub.depth,
          sub.chain,
          sub.keyPrefix,
          sub.resume,
          sub.ancestors,
          frame.fd,
          stack.length < MAX_HELD_DIRS,
        );
        if (child) stack.push(child);
      }
    }
  } finally {
    // A consumer that stops pulling (a limit, a deadline) leaves no descriptor open.
    for (const frame of stack) closeFrame(frame);
  }
}

/**
 * Resolves an entry's type where the listing did not give it (lstat) and, following links, its target's type;
 * under a strict base a followed link that leads outside the base stays a link.
 * @param listed the type the listing gave ("unknown" or "symlink")
 * @param quiet a dot name looked at only for a whitelist: it reports no problem of its own
 * @returns the type and the target's type, or null when the entry cannot be read (reported unless quiet)
 */
function statTypes(
  plan: WalkPlan,
  ctx: RunContext,
  abs: string,
  listed: EntryType,
  quiet: boolean,
): readonly [EntryType, EntryType] | null {
  let type = listed;
  let target = listed;
  if (type === "unknown") {
    try {
      type = target = typeOfStats(platform.lstat(abs));
    } catch (err) {
      if (!quiet) ctx.error(fsErrorInfo(err, abs));
      return null;
    }
  }
  if (type === "symlink" && plan.follow) {
    try {
      target = followedType(abs);
    } catch (err) {
      if (!quiet) ctx.error(fsErrorInfo(err, abs));
      return null;
    }
    // A dangling link (target "symlink") leads nowhere: nothing is read through it, so it cannot leave the base.
    if (plan.strictBase && target !== "symlink") {
      let real: string;
      try {
        real = platform.realpath(abs);
      } catch (err) {
        if (!quiet) ctx.error(fsErrorInfo(err, abs));
        return null;
      }
      // A link that leads outside the base is not followed: it is an entry as a link (its record says
      // link_escapes), never an error.
      if (!insideDir(real, plan.baseReal)) target = "symlink";
    }
  }
  return [type, target];
}

/**
 * Decides whether the walk enters a directory entry, and with what: a directory on another device is listed,
 * not entered, under --one-file-system; following links, a directory already on the path is a loop (reported).
 * @param descendOnly the entry is on a cursor's path: its subtree resumes along the rest of that path
 * @param quiet a dot name looked at only for a whitelist: it reports no problem of its own
 * @returns the subtree to walk, or null when it is not entered
 */
function subtreeOf(
  plan: WalkPlan,
  ctx: RunContext,
  frame: Frame,
  r: number,
  name: string,
  descendOnly: boolean,
  quiet: boolean,
): Subtree | null {
  const abs = frame.absPrefix + name;
  const rootDev = plan.rootDevices?.[r];
  if (rootDev !== undefined && rootDev !== null) {
    let dev: number;
    try {
      dev = platform.stat(abs).dev;
    } catch (err) {
      if (!quiet) ctx.error(fsErrorInfo(err, abs));
      return null;
    }
    if (dev !== rootDev) return null;
  }
  let ancestors: string[] | null = null;
  if (frame.ancestors !== null) {
    let id: string;
    try {
      const st = platform.stat(abs);
      id = `${st.dev}:${st.ino}`;
    } catch (err) {
      ctx.error(fsErrorInfo(err, abs));
      return null;
    }
    if (frame.ancestors.includes(id)) {
      ctx.error({
        code: "UNREADABLE",
        message: "filesystem loop: directory already on the path",
        path: abs,
      });
      return null;
    }
    ancestors = [...frame.ancestors, id];
  }
  return {
    root: r,
    abs,
    rel: joinRel(frame.rel, name),
    depth: frame.depth + 1,
    chain: frame.chain,
    keyPrefix: frame.keyPrefix + name + "/",
    resume: descendOnly && frame.resume ? frame.resume.slice(1) : null,
    ancestors,
  };
}

function closeFrame(frame: Frame): void {
  if (frame.fd >= 0) {
    dirFds()?.close(frame.fd);
    frame.fd = -1;
  }
}

/**
 * Lists a directory through descriptors (dir-fd.ts): opened from its parent's descriptor when there is one, else
 * by path and checked as platform.listDir checks it. Only when symlinks are not followed: then no directory of
 * the walk is reached through a symlink, which is what openat with O_NOFOLLOW guarantees.
 * @returns the listing and the descriptor (-1 when not kept), or null: platform.listDir must answer (and report)
 */
function listByFd(
  plan: WalkPlan,
  abs: string,
  parentFd: number,
  keep: boolean,
): { listing: DirListing; fd: number } | null {
  const fds = plan.follow ? null : dirFds();
  if (fds === null) return null;
  let fd: number;
  if (parentFd >= 0) fd = fds.openAt(parentFd, abs.slice(abs.lastIndexOf(path.sep) + 1));
  else {
    try {
      fd = platform.openDir(abs, plan.confine);
    } catch {
      return null;
    }
  }
  if (fd < 0) return null;
  const listing = fds.list(fd);
  if (listing === null || !keep) {
    fds.close(fd);
    return listing === null ? null : { listing, fd: -1 };
  }
  return { listing, fd };
}

/** The walk's reader of a directory's ignore files: confined as the plan's listing is. */
function treeLoader(plan: WalkPlan): IgnoreFileLoader {
  const confine = plan.confine;
  return confine === null
    ? loadTreeIgnoreFile
    : (file, prefix, report) => loadTreeIgnoreFile(file, prefix, report, confine);
}

function openDir(
  plan: WalkPlan,
  ctx: RunContext,
  abs: string,
  rel: string,
  depth: number,
  chain: readonly IgnoreFile[],
  keyPrefix: string,
  resume: readonly string[] | null,
  ancestors: readonly string[] | null,
  parentFd: number,
  keep: boolean,
): Frame | null {
  witness(abs, true);
  let listing: DirListing;
  const byFd = listByFd(plan, abs, parentFd, keep);
  let fd = -1;
  if (byFd !== null) {
    listing = byFd.listing;
    fd = byFd.fd;
  } else {
    try {
      listing = platform.listDir(abs, plan.confine);
    } catch (err) {
      ctx.error(fsErrorInfo(err, abs));
      return null;
    }
  }
  sortNames(listing.names);
  // Ignore files are read only if regular files, opened without following a symlink (refusals are records).
  const nextChain = dirChain(plan, listing.names, abs, depth > 0, chain, keyPrefix, treeLoader(plan), (e) =>
    ctx.error(e),
  );
  if (ancestors !== null && ancestors.length === 0) {
    try {
      const st = platform.stat(abs);
      ancestors = [`${st.dev}:${st.ino}`];
    } catch {}
  }
  const absPrefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
  const sameKey = keyPrefix === (rel === "" ? "" : `${rel}/`);
  return {
    abs,
    absPrefix,
    rel,
    depth,
    listing,
    idx: 0,
    chain: nextChain,
    keyPrefix,
    sameKey,
    resume,
    ancestors,
    fd,
  };
}
