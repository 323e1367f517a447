/*! find: plan → records. Streams FileMatch records in walk order, or collects and sorts them when a sort other
 * than path order is asked for. */
import type { FileMatch } from "../../contract/records.ts";
import { compileWalk } from "../../engine/plan.ts";
import { compareNames, walk } from "../../engine/walk.ts";
import type { Emitted, RunContext } from "../operation.ts";
import { fileMatchOf, tick, yielder } from "../walk-records.ts";
import type { FindInput } from "./schema.ts";

function comparePaths(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = compareNames(pa[i] as string, pb[i] as string);
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}

/**
 * Runs find.
 * @param input validated find input
 * @param ctx the run context
 * @yields "file" records
 */
export async function* runFind(input: FindInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const { plan, rootErrors } = compileWalk(input);
  for (const e of rootErrors) ctx.error(e);
  const due = yielder();
  if (input.sort === "path" && !input.reverse) {
    for (const e of walk(plan, ctx, ctx.resumeAfter)) {
      yield { kind: "file", record: fileMatchOf(e), key: e.key };
      if (due()) await tick();
    }
    return;
  }
  const all: Array<{ rec: FileMatch; root: number }> = [];
  for (const e of walk(plan, ctx)) {
    all.push({ rec: fileMatchOf(e), root: e.root });
    if (due()) await tick();
  }
  if (ctx.shouldStop()) return;
  const sign = input.reverse ? -1 : 1;
  const byPath = (a: { rec: FileMatch; root: number }, b: { rec: FileMatch; root: number }) =>
    a.root - b.root || comparePaths(a.rec.relative_path, b.rec.relative_path);
  const cmp = {
    path: byPath,
    size: (a: (typeof all)[0], b: (typeof all)[0]) => a.rec.size - b.rec.size || byPath(a, b),
    mtime: (a: (typeof all)[0], b: (typeof all)[0]) => a.rec.mtime.localeCompare(b.rec.mtime) || byPath(a, b),
    name: (a: (typeof all)[0], b: (typeof all)[0]) =>
      compareNames(a.rec.relative_path.split("/").pop() ?? "", b.rec.relative_path.split("/").pop() ?? "") ||
      byPath(a, b),
  }[input.sort];
  all.sort((a, b) => sign * cmp(a, b));
  let start = 0;
  if (ctx.resumeAfter !== null) {
    const idx = all.findIndex((x) => `${x.root}:${x.rec.relative_path}` === ctx.resumeAfter);
    start = idx + 1;
  }
  for (let i = start; i < all.length; i++) {
    const x = all[i] as (typeof all)[0];
    yield { kind: "file", record: x.rec, key: `${x.root}:${x.rec.relative_path}` };
  }
}
