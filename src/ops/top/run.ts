/*! top: plan → records. Collects the selected files (a ranking needs them all), sorts by size, largest first,
 * ties by root then path, and yields from the cursor on, keeping only one page of files in memory. The order key
 * holds the sort fields themselves, so a page resumes at the right place even when the file it ended on is gone. */
import * as path from "node:path";
import { RglobError } from "../../contract/errors.ts";
import { comparePaths } from "../../engine/order.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import type { Entry, Root } from "../../engine/walk.ts";
import { walkBatches } from "../../engine/walk-pool.ts";
import type { Emitted } from "../operation.ts";
import { fileMatchOf } from "../walk-records.ts";
import type { TopDirectory, TopInput } from "./schema.ts";

/** The sort fields of a ranked entry. */
interface Ranked {
  readonly size: number;
  readonly root: number;
  readonly rel: string;
}

function compareRanked(a: Ranked, b: Ranked): number {
  return b.size - a.size || a.root - b.root || comparePaths(a.rel, b.rel);
}

/**
 * Returns the order key of a ranked entry (JSON of its sort fields).
 * @param r the entry
 * @returns the key
 */
function rankKey(r: Ranked): string {
  return JSON.stringify([r.size, r.root, r.rel]);
}

function parseRankKey(key: string): Ranked {
  try {
    const [size, root, rel] = JSON.parse(key) as unknown[];
    if (typeof size === "number" && typeof root === "number" && typeof rel === "string") {
      return { size, root, rel };
    }
  } catch {}
  throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor");
}

/** Returns the index of the first entry strictly after the key (the list is sorted by compareRanked). */
function startAfter(list: readonly Ranked[], key: Ranked): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareRanked(list[mid] as Ranked, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Runs top.
 * @param input validated top input
 * @param ctx the run context
 * @yields "file" records (or "directory" records with dirs)
 */
export async function* runTop(input: TopInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const resume = ctx.resumeAfter === null ? null : parseRankKey(ctx.resumeAfter);
  // With dirs, depth bounds which directories are listed; every file below still counts.
  const { max_depth: _maxDepth, min_depth: _minDepth, ...unbounded } = input;
  const walkInput = input.dirs ? unbounded : input;
  const { plan, rootErrors } = compileWalk(walkInput, { filesOnly: true, ...gitOf(ctx) });
  for (const e of rootErrors) ctx.error(e);
  ctx.summary("total_files", 0);
  ctx.summary("total_size", 0);
  ctx.summary("total_ranked", 0);
  const due = yielder();
  let totalFiles = 0;
  let totalSize = 0;

  if (!input.dirs) {
    // Only the page can be returned (limit records, plus one for the look-ahead), so only that many of the
    // files after the cursor are kept: memory is O(limit), not O(files). Files before the cursor are counted
    // to give the ranks.
    const keep = input.limit + 1;
    let best: Array<Ranked & { entry: Entry }> = [];
    let before = 0;
    const trim = () => {
      best.sort(compareRanked);
      if (best.length > keep) best = best.slice(0, keep);
    };
    for await (const batch of walkBatches(plan, ctx, null, { needStats: true }))
      for (const e of batch) {
        const size = e.stats()?.size ?? 0;
        totalFiles++;
        totalSize += size;
        const r = { size, root: e.root, rel: e.rel, entry: e };
        if (resume && compareRanked(r, resume) <= 0) before++;
        else {
          best.push(r);
          if (best.length >= 2 * keep) trim();
        }
        if (due()) await tick();
      }
    ctx.summary("total_files", totalFiles);
    ctx.summary("total_size", totalSize);
    ctx.summary("total_ranked", totalFiles);
    // A ranking of part of the files would be wrong: a stopped walk returns its counts and no records.
    if (ctx.shouldStop()) return;
    trim();
    for (let i = 0; i < best.length; i++) {
      const f = best[i] as (typeof best)[number];
      yield { kind: "file", record: { ...fileMatchOf(f.entry), rank: before + i + 1 }, key: rankKey(f) };
    }
    return;
  }

  // Sizes per immediate parent directory first, then rolled up once per directory (not once per file).
  const byParent = new Map<string, { root: number; parts: string[]; size: number; files: number }>();
  for await (const batch of walkBatches(plan, ctx, null, { needStats: true }))
    for (const e of batch) {
      const root = plan.roots[e.root] as Root;
      const sub = root.rel === "" ? e.rel : e.rel.slice(root.rel.length + 1);
      const slash = sub.lastIndexOf("/");
      const size = e.stats()?.size ?? 0;
      totalFiles++;
      totalSize += size;
      if (slash >= 0) {
        const parent = sub.slice(0, slash);
        const id = `${e.root}:${parent}`;
        const acc = byParent.get(id);
        if (acc) {
          acc.size += size;
          acc.files++;
        } else byParent.set(id, { root: e.root, parts: parent.split("/"), size, files: 1 });
      }
      if (due()) await tick();
    }
  ctx.summary("total_files", totalFiles);
  ctx.summary("total_size", totalSize);
  if (ctx.shouldStop()) return;
  const totals = new Map<string, { root: number; parts: string[]; size: number; files: number }>();
  for (const acc of byParent.values()) {
    for (let i = 1; i <= acc.parts.length; i++) {
      const parts = acc.parts.slice(0, i);
      const id = `${acc.root}:${parts.join("/")}`;
      const t = totals.get(id);
      if (t) {
        t.size += acc.size;
        t.files += acc.files;
      } else totals.set(id, { root: acc.root, parts, size: acc.size, files: acc.files });
    }
  }
  const minDepth = Math.max(1, input.min_depth ?? 1);
  const maxDepth = input.max_depth ?? Number.POSITIVE_INFINITY;
  const dirs: Array<Ranked & { rec: Omit<TopDirectory, "rank"> }> = [];
  for (const t of totals.values()) {
    if (t.parts.length < minDepth || t.parts.length > maxDepth) continue;
    const root = plan.roots[t.root] as Root;
    const sub = t.parts.join("/");
    const rel = root.rel === "" ? sub : `${root.rel}/${sub}`;
    dirs.push({
      size: t.size,
      root: t.root,
      rel,
      rec: {
        path: path.join(root.abs, ...t.parts),
        relative_path: rel,
        depth: t.parts.length,
        size: t.size,
        files: t.files,
      },
    });
  }
  dirs.sort(compareRanked);
  ctx.summary("total_files", totalFiles);
  ctx.summary("total_size", totalSize);
  ctx.summary("total_ranked", dirs.length);
  for (let i = resume ? startAfter(dirs, resume) : 0; i < dirs.length; i++) {
    const d = dirs[i] as (typeof dirs)[number];
    yield { kind: "directory", record: { ...d.rec, rank: i + 1 }, key: rankKey(d) };
  }
}
