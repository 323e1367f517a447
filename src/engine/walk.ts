/*! Engine: the walk. An iterative, pre-order, sorted (by code point) traversal of the plan's roots that prunes
 * hidden, excluded, ignored and too-deep directories, follows symlinks only when asked (with loop detection
 * and strict-base containment), and turns every per-entry problem into an ErrorInfo. Pull-based: a sync
 * generator, so a consumer that stops pulling stops the walk. It never matches contents or writes output. */
import type * as fs from "node:fs";
import * as path from "node:path";
import { fsErrorInfo } from "../contract/errors.ts";
import type { RunContext } from "../ops/operation.ts";
import { type DirEntry, type EntryType, platform, typeOfStats } from "../platform/platform.ts";
import { IGNORE_FILE_NAMES, type IgnoreFile, ignoredEntry, loadIgnoreFile } from "./ignore.ts";

/** A root of a walk: a directory to walk or a file to yield. */
export interface Root {
  readonly abs: string;
  /** POSIX path relative to the base ("" for the base itself). */
  readonly rel: string;
  readonly type: EntryType;
  /** Ignore files that apply from above this root, lowest priority first. */
  readonly outer: readonly IgnoreFile[];
  /** Repository-relative prefix of this root ("" or ending in '/'), the key space of `outer`. */
  readonly repoPrefix: string;
}

/** The compiled walk: everything the per-entry loop needs, decided once. */
export interface WalkPlan {
  readonly base: string;
  /** Real path of the base, for strict-base containment. */
  readonly baseReal: string;
  readonly roots: readonly Root[];
  readonly hidden: boolean;
  readonly respectIgnore: boolean;
  readonly follow: boolean;
  readonly strictBase: boolean;
  readonly maxDepth: number;
  readonly minDepth: number;
  /** True when an entry should be skipped and, for a directory, not entered. */
  readonly exclude: ((rel: string, name: string) => boolean) | null;
  /** True when an entry is selected (patterns and predicates). */
  readonly select: (e: Entry) => boolean;
  /** Whether directories themselves can ever be selected (false lets the walk skip testing them). */
  readonly selectDirs: boolean;
}

/** One entry met by the walk. Stats are read lazily, once. */
export class Entry {
  private st: fs.Stats | null | undefined;
  /** Why stats() returned null (e.g. the entry vanished after it was listed), for the walk to report. */
  statError: unknown = undefined;

  constructor(
    readonly abs: string,
    readonly rel: string,
    readonly name: string,
    readonly depth: number,
    /** The listed type (a symlink stays "symlink" even when followed). */
    readonly type: EntryType,
    /** The type after following a symlink (equals type when not a followed link). */
    readonly target: EntryType,
    readonly root: number,
    private readonly followLinks: boolean,
  ) {}

  /** Returns the entry's stats (of the target for a followed symlink), or null when they cannot be read. */
  stats(): fs.Stats | null {
    if (this.st === undefined) {
      try {
        this.st =
          this.followLinks && this.type === "symlink" ? platform.stat(this.abs) : platform.lstat(this.abs);
      } catch (err) {
        this.st = null;
        this.statError = err;
      }
    }
    return this.st;
  }

  /** The order key of this entry, for cursors. */
  get key(): string {
    return `${this.root}:${this.rel}`;
  }
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

function sortEntries(list: DirEntry[]): void {
  let astral = false;
  for (const e of list) {
    if (/[\ud800-\udfff]/.test(e.name)) {
      astral = true;
      break;
    }
  }
  if (astral) {
    list.sort((a, b) => compareNames(a.name, b.name));
    return;
  }
  // Without astral characters UTF-16 order is code point order, and the engine's native string sort is about
  // twice as fast as a comparator; names are unique within a directory, so a Map restores the entries.
  const n = list.length;
  const names = new Array<string>(n);
  const byName = new Map<string, DirEntry>();
  for (let i = 0; i < n; i++) {
    const e = list[i] as DirEntry;
    names[i] = e.name;
    byName.set(e.name, e);
  }
  names.sort();
  for (let i = 0; i < n; i++) list[i] = byName.get(names[i] as string) as DirEntry;
}

interface Frame {
  readonly abs: string;
  /** abs with a trailing separator, computed once per directory. */
  readonly absPrefix: string;
  readonly rel: string;
  readonly depth: number;
  readonly entries: DirEntry[];
  idx: number;
  readonly chain: readonly IgnoreFile[];
  /** Key prefix of this directory in the chain's key space ("" or ending in '/'). */
  readonly keyPrefix: string;
  /** True when keyPrefix + name equals joinRel(rel, name) (the walk started at the repository root). */
  readonly sameKey: boolean;
  /** Remaining cursor components when this directory is on the cursor's path, else null. */
  readonly resume: readonly string[] | null;
  /** Device/inode pairs of the directories from the root to here (only when following symlinks). */
  readonly ancestors: readonly string[] | null;
}

function joinRel(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

function isInside(real: string, base: string): boolean {
  return real === base || real.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
}

/**
 * Walks the plan's roots in order, yielding selected entries.
 * @param plan the compiled walk
 * @param ctx the run context (errors, counters, deadline)
 * @param startAfter a cursor key "root:rel": entries up to and including it are skipped, pruning what can be
 * @yields the selected entries, pre-order, siblings by code point
 */
export function* walk(plan: WalkPlan, ctx: RunContext, startAfter: string | null = null): Generator<Entry> {
  let resumeRoot = -1;
  let resumeParts: string[] | null = null;
  if (startAfter !== null) {
    const colon = startAfter.indexOf(":");
    resumeRoot = Number(startAfter.slice(0, colon));
    const rel = startAfter.slice(colon + 1);
    resumeParts = rel === "" ? [] : rel.split("/");
  }
  let examined = 0;
  for (let r = 0; r < plan.roots.length; r++) {
    if (r < resumeRoot) continue;
    const root = plan.roots[r] as Root;
    if (root.type !== "dir") {
      if (r === resumeRoot) continue; // the single file was already returned
      const e = new Entry(
        root.abs,
        root.rel,
        path.basename(root.abs),
        0,
        root.type,
        root.type,
        r,
        plan.follow,
      );
      ctx.searched();
      if (plan.select(e)) yield e;
      continue;
    }
    const stack: Frame[] = [];
    const rootFrame = openDir(
      plan,
      ctx,
      root.abs,
      root.rel,
      0,
      root.outer,
      root.repoPrefix,
      r === resumeRoot ? resumeParts : null,
      plan.follow ? [] : null,
    );
    if (rootFrame) stack.push(rootFrame);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      if (frame.idx >= frame.entries.length) {
        stack.pop();
        continue;
      }
      const d = frame.entries[frame.idx++] as DirEntry;
      if ((++examined & 255) === 0) {
        ctx.progress(examined);
        if (ctx.shouldStop()) return;
      }
      const name = d.name;
      // Resume: skip everything up to the cursor, descending only along its path.
      let descendOnly = false;
      if (frame.resume !== null && frame.resume.length > 0) {
        const c = compareNames(name, frame.resume[0] as string);
        if (c < 0) continue;
        // The entry on the cursor's path (or the cursor's own entry, already emitted): not emitted again, but
        // entered, since a directory's children come after it in pre-order.
        if (c === 0) descendOnly = true;
      }
      if (name === ".git" || (!plan.hidden && name.charCodeAt(0) === 46)) continue;
      const rel = joinRel(frame.rel, name);
      const abs = frame.absPrefix + name;
      if (name.includes("\ufffd")) {
        ctx.error({ code: "UNREADABLE", message: "name is not valid UTF-8; skipped", path: abs });
        continue;
      }
      let type = d.type;
      let target = type;
      if (type === "unknown") {
        try {
          type = target = typeOfStats(platform.lstat(abs));
        } catch (err) {
          ctx.error(fsErrorInfo(err, abs));
          continue;
        }
      }
      if (type === "symlink" && plan.follow) {
        try {
          target = typeOfStats(platform.stat(abs));
        } catch (err) {
          ctx.error(fsErrorInfo(err, abs));
          continue;
        }
        if (plan.strictBase) {
          let real: string;
          try {
            real = platform.realpath(abs);
          } catch (err) {
            ctx.error(fsErrorInfo(err, abs));
            continue;
          }
          if (!isInside(real, plan.baseReal)) {
            ctx.error({
              code: "PERM",
              message: `symlink leads outside the base (${real}); not followed`,
              path: abs,
            });
            continue;
          }
        }
      }
      const isDir = target === "dir";
      if (plan.exclude?.(rel, name)) continue;
      if (plan.respectIgnore && frame.chain.length > 0) {
        // Walking from the repository root the key is the rel path: one string, not two, per entry.
        const key = frame.sameKey ? rel : frame.keyPrefix + name;
        if (ignoredEntry(frame.chain, key, name, isDir)) continue;
      }
      const depth = frame.depth + 1;
      ctx.searched();
      if (!descendOnly && depth >= plan.minDepth && (plan.selectDirs || !isDir)) {
        const e = new Entry(abs, rel, name, depth, type, target, r, plan.follow);
        if (plan.select(e)) yield e;
        else if (e.statError !== undefined) ctx.error(fsErrorInfo(e.statError, abs)); // vanished since listed
      }
      if (isDir && depth < plan.maxDepth) {
        let ancestors: string[] | null = null;
        if (frame.ancestors !== null) {
          let id: string;
          try {
            const st = platform.stat(abs);
            id = `${st.dev}:${st.ino}`;
          } catch (err) {
            ctx.error(fsErrorInfo(err, abs));
            continue;
          }
          if (frame.ancestors.includes(id)) {
            ctx.error({
              code: "UNREADABLE",
              message: "filesystem loop: directory already on the path",
              path: abs,
            });
            continue;
          }
          ancestors = [...frame.ancestors, id];
        }
        const child = openDir(
          plan,
          ctx,
          abs,
          rel,
          depth,
          frame.chain,
          frame.keyPrefix + name + "/",
          descendOnly && frame.resume ? frame.resume.slice(1) : null,
          ancestors,
        );
        if (child) stack.push(child);
      }
    }
  }
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
  ancestors: string[] | null,
): Frame | null {
  let entries: DirEntry[];
  try {
    entries = platform.listDir(abs);
  } catch (err) {
    ctx.error(fsErrorInfo(err, abs));
    return null;
  }
  sortEntries(entries);
  let nextChain = chain;
  if (plan.respectIgnore) {
    for (const fileName of IGNORE_FILE_NAMES) {
      if (entries.some((e) => e.name === fileName)) {
        const f = loadIgnoreFile(path.join(abs, fileName), keyPrefix);
        if (f) nextChain = nextChain === chain ? [...chain, f] : [...nextChain, f];
      }
    }
  }
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
    entries,
    idx: 0,
    chain: nextChain,
    keyPrefix,
    sameKey,
    resume,
    ancestors,
  };
}
