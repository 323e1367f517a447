/*! stats: plan → records. Walks the whole selection first (totals must be exact whatever the page), puts the
 * totals in the summary, then yields one record per extension in ranking order from the cursor on. */
import { RglobError } from "../../contract/errors.ts";
import { linkOf } from "../../engine/links.ts";
import { comparePaths, extensionOf } from "../../engine/order.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { compareNames } from "../../engine/walk.ts";
import { walkBatches } from "../../engine/walk-pool.ts";
import type { Emitted } from "../operation.ts";
import type { ExtensionStat, StatsInput } from "./schema.ts";

function compareStats(a: ExtensionStat, b: ExtensionStat): number {
  return b.files - a.files || b.size - a.size || compareNames(a.extension, b.extension);
}

function parseKey(key: string): ExtensionStat {
  try {
    const [files, size, extension] = JSON.parse(key) as unknown[];
    if (typeof files === "number" && typeof size === "number" && typeof extension === "string") {
      return { extension, files, size };
    }
  } catch {}
  throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor");
}

interface Pick {
  path: string;
  rel: string;
  root: number;
  value: number;
}

/** True when candidate c beats the current pick p (greater value when `max`, ties by root then path). */
function better(c: Pick, p: Pick | null, max: boolean): boolean {
  if (p === null) return true;
  if (c.value !== p.value) return max ? c.value > p.value : c.value < p.value;
  return c.root - p.root < 0 || (c.root === p.root && comparePaths(c.rel, p.rel) < 0);
}

/**
 * Runs stats.
 * @param input validated stats input
 * @param ctx the run context
 * @yields "extension" records
 */
export async function* runStats(input: StatsInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const resume = ctx.resumeAfter === null ? null : parseKey(ctx.resumeAfter);
  const { plan, rootErrors } = compileWalk(input, gitOf(ctx));
  for (const e of rootErrors) ctx.error(e);
  let files = 0;
  let directories = 0;
  let others = 0;
  let symlinks = 0;
  let broken = 0;
  let escaping = 0;
  let totalSize = 0;
  let newest: Pick | null = null;
  let oldest: Pick | null = null;
  let largest: Pick | null = null;
  const byExt = new Map<string, ExtensionStat>();
  const due = yielder();
  const publish = () => {
    ctx.summary("files", files);
    ctx.summary("directories", directories);
    ctx.summary("others", others);
    ctx.summary("symlinks", symlinks);
    ctx.summary("broken_symlinks", broken);
    ctx.summary("escaping_symlinks", escaping);
    ctx.summary("total_size", totalSize);
    ctx.summary("extensions", byExt.size);
    const timed = (p: Pick | null) =>
      p && { path: p.path, relative_path: p.rel, mtime: new Date(p.value).toISOString() };
    ctx.summary("newest", timed(newest));
    ctx.summary("oldest", timed(oldest));
    ctx.summary(
      "largest",
      largest && { path: largest.path, relative_path: largest.rel, size: largest.value },
    );
  };
  publish();

  for await (const batch of walkBatches(plan, ctx, null, { needStats: true }))
    for (const e of batch) {
      const link = linkOf(e);
      if (link !== null) {
        symlinks++;
        if (!link.exists) broken++;
        if (link.escapes) escaping++;
      }
      if (e.target === "dir") directories++;
      else if (e.target !== "file") others++;
      else {
        files++;
        const st = e.stats();
        const size = st ? st.size : 0;
        totalSize += size;
        const ext = extensionOf(e.name);
        const acc = byExt.get(ext);
        if (acc) {
          acc.files++;
          acc.size += size;
        } else byExt.set(ext, { extension: ext, files: 1, size });
        if (st) {
          const base = { path: e.abs, rel: e.rel, root: e.root };
          const bySize = { ...base, value: size };
          if (better(bySize, largest, true)) largest = bySize;
          const byTime = { ...base, value: st.mtimeMs };
          if (better(byTime, newest, true)) newest = byTime;
          if (better(byTime, oldest, false)) oldest = byTime;
        }
      }
      if (due()) await tick();
    }
  // A stopped walk (timeout, cancel) reports what it counted, but no listing: a page of a partial ranking
  // could not be continued by a cursor. The dispatcher marks the result truncated.
  publish();
  if (ctx.shouldStop()) return;
  const list = [...byExt.values()].sort(compareStats);
  let i = 0;
  if (resume) while (i < list.length && compareStats(list[i] as ExtensionStat, resume) <= 0) i++;
  for (; i < list.length; i++) {
    const s = list[i] as ExtensionStat;
    yield { kind: "extension", record: s, key: JSON.stringify([s.files, s.size, s.extension]) };
  }
}
