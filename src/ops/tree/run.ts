/*! tree: plan → records. Streams the selected entries in walk order and, before each, the directories above
 * it that were not shown yet (so a glob-filtered tree still shows where its matches are). Never buffers the
 * walk: the human formatter draws the branches. */
import * as path from "node:path";
import { kindsOf } from "../../engine/filter/type.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { Entry, type Root } from "../../engine/walk.ts";
import { walkBatches } from "../../engine/walk-pool.ts";
import { platform, typeOfStats } from "../../platform/platform.ts";
import type { Emitted } from "../operation.ts";
import { addLinkFields, entryTypeOf } from "../walk-records.ts";
import type { TreeEntry, TreeInput } from "./schema.ts";

/**
 * Returns the order key of a tree entry. A directory's key ends in '/': resuming after it continues with its
 * first child (the walker descends along a cursor whose last component is empty).
 * @param root the root index
 * @param rel the relative path
 * @param isDir whether the entry is (or leads to) a directory
 * @returns the key
 */
function treeKey(root: number, rel: string, isDir: boolean): string {
  return `${root}:${rel}${isDir ? "/" : ""}`;
}

function recordOf(e: Entry, matched: boolean): TreeEntry {
  const isDir = e.target === "dir";
  const st = isDir ? null : e.stats();
  const rec: TreeEntry = {
    path: e.abs,
    relative_path: e.rel,
    depth: e.depth,
    kinds: kindsOf(e),
    size: isDir ? null : st ? st.size : 0,
    matched,
    entry_type: entryTypeOf(e),
  };
  addLinkFields(rec as Record<string, unknown>, e);
  return rec;
}

/** Whether directory `dir` (a relative path) is a proper ancestor of `rel`. */
function isAncestor(dir: string, rel: string): boolean {
  return rel.length > dir.length && rel.charCodeAt(dir.length) === 47 && rel.startsWith(dir);
}

function belowRoot(root: Root, rel: string): string[] {
  const sub = root.rel === "" ? rel : rel.slice(root.rel.length + 1);
  return sub === "" ? [] : sub.split("/");
}

function ancestorEntry(root: Root, r: number, parts: readonly string[], follow: boolean): Entry {
  const rel = root.rel === "" ? parts.join("/") : `${root.rel}/${parts.join("/")}`;
  const abs = path.join(root.abs, ...parts);
  let type: ReturnType<typeof typeOfStats> = "dir";
  try {
    type = typeOfStats(platform.lstat(abs));
  } catch {}
  // The walk only descends into directories, so the target of an ancestor is one.
  return new Entry(abs, rel, parts[parts.length - 1] as string, parts.length, type, "dir", r, follow);
}

/**
 * Runs tree.
 * @param input validated tree input
 * @param ctx the run context
 * @yields "entry" records
 */
export async function* runTree(input: TreeInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const { plan, rootErrors } = compileWalk(input, gitOf(ctx));
  for (const e of rootErrors) ctx.error(e);
  let dirs = 0;
  let files = 0;
  let links = 0;
  ctx.summary("directories", 0);
  ctx.summary("files", 0);
  ctx.summary("symlinks", 0);
  // Counting after the yield returns counts exactly the records the dispatcher kept (the look-ahead record
  // that is cut never resumes its generator). A symlink is neither a file nor a directory (#37: the footer
  // counted every link as a file), as find's -type l; under -L a link that is followed counts as what it leads
  // to, as find -L's -type f and -type d.
  const count = (kind: "dir" | "file" | "symlink") => {
    if (kind === "dir") ctx.summary("directories", ++dirs);
    else if (kind === "symlink") ctx.summary("symlinks", ++links);
    else ctx.summary("files", ++files);
  };
  const kindOf = (e: Entry): "dir" | "file" | "symlink" =>
    e.target === "dir"
      ? "dir"
      : e.type === "symlink" && (!plan.follow || e.target === "symlink" || e.target === "unknown")
        ? "symlink"
        : "file";

  // The directories shown on the path to the current entry (relative paths below the base).
  let shown: string[] = [];
  let shownRoot = -1;
  const resume = ctx.resumeAfter;
  if (resume !== null) {
    const colon = resume.indexOf(":");
    shownRoot = Number(resume.slice(0, colon));
    const root = plan.roots[shownRoot];
    const rel = resume.slice(colon + 1);
    if (root) {
      const isDir = rel.endsWith("/");
      const parts = belowRoot(root, isDir ? rel.slice(0, -1) : rel);
      const upTo = isDir ? parts.length : parts.length - 1;
      for (let i = 1; i <= upTo; i++) {
        const p = parts.slice(0, i).join("/");
        shown.push(root.rel === "" ? p : `${root.rel}/${p}`);
      }
    }
  }

  // fold_depth (#37): a directory at that depth is held back while the walk is below it, counting what it
  // selects there, then given with entries_inside and size (its key that of the last entry counted, so a cursor
  // resumes after its subtree).
  const fold = input.fold_depth ?? 0;
  let held: Folded | null = null;
  const release = (): Emitted => {
    const f = held as Folded;
    held = null;
    count("dir");
    return {
      kind: "entry",
      record: { ...f.rec, size: f.bytes, entries_inside: f.entries },
      key: f.entries === 0 ? f.key : treeKey(f.root, f.last, false),
    };
  };

  const due = yielder();
  for await (const batch of walkBatches(plan, ctx, resume, { needStats: true }))
    for (const e of batch) {
      const root = plan.roots[e.root] as Root;
      const h = held as Folded | null;
      if (h !== null && !(h.root === e.root && isAncestor(h.rec.relative_path, e.rel))) yield release();
      if (e.root !== shownRoot) {
        shown = [];
        shownRoot = e.root;
      }
      const parts = belowRoot(root, e.rel);
      // Keep the shown directories that are still ancestors; show the missing ones. `shown` is a chain (each
      // the parent of the next, the first at depth 1), so the deepest one that is an ancestor decides, and
      // usually the last is (the parent): one comparison per entry, not one path rebuilt per level (which
      // made a deep chain cubic).
      let keep = shown.length;
      while (keep > 0 && !isAncestor(shown[keep - 1] as string, e.rel)) keep--;
      shown.length = keep;
      if (fold > 0 && parts.length > fold) {
        // Below the fold: counted in its directory at the fold, shown (held) first when it is not yet.
        for (let i = keep + 1; i < fold; i++) {
          const anc = ancestorEntry(root, e.root, parts.slice(0, i), plan.follow);
          shown.push(anc.rel);
          yield { kind: "entry", record: recordOf(anc, false), key: treeKey(e.root, anc.rel, true) };
          count("dir");
        }
        if (held === null) {
          const anc = ancestorEntry(root, e.root, parts.slice(0, fold), plan.follow);
          shown.push(anc.rel);
          held = folded(recordOf(anc, false), e.root, treeKey(e.root, anc.rel, true));
        }
        const f = held as Folded;
        f.entries++;
        f.last = e.rel;
        if (e.target !== "dir") f.bytes += e.stats()?.size ?? 0;
        if (due()) await tick();
        continue;
      }
      for (let i = keep + 1; i < parts.length; i++) {
        const anc = ancestorEntry(root, e.root, parts.slice(0, i), plan.follow);
        shown.push(anc.rel);
        yield { kind: "entry", record: recordOf(anc, false), key: treeKey(e.root, anc.rel, true) };
        count("dir");
      }
      const isDir = e.target === "dir";
      if (isDir) shown.push(e.rel);
      if (isDir && fold > 0 && parts.length === fold)
        held = folded(recordOf(e, true), e.root, treeKey(e.root, e.rel, true));
      else {
        yield { kind: "entry", record: recordOf(e, true), key: treeKey(e.root, e.rel, isDir) };
        count(kindOf(e));
      }
      if (due()) await tick();
    }
  if (held !== null) yield release();
}

/** A directory at the fold while the walk is below it: its record, and what it selects below. */
interface Folded {
  readonly rec: TreeEntry;
  readonly root: number;
  /** Its own order key (given when nothing below it is selected). */
  readonly key: string;
  entries: number;
  bytes: number;
  /** The relative path of the last entry counted below it. */
  last: string;
}

/** Creates the held state of a directory at the fold. */
function folded(rec: TreeEntry, root: number, key: string): Folded {
  return { rec, root, key, entries: 0, bytes: 0, last: rec.relative_path };
}
