/*! find: plan → records. Streams FileMatch records in walk order, or collects and sorts them when a sort other
 * than path order is asked for. */
import { RglobError } from "../../contract/errors.ts";
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
  type Item = { rec: FileMatch; root: number };
  const all: Item[] = [];
  for (const e of walk(plan, ctx)) {
    all.push({ rec: fileMatchOf(e), root: e.root });
    if (due()) await tick();
  }
  if (ctx.shouldStop()) return;
  const sign = input.reverse ? -1 : 1;
  const byPath = (a: Item, b: Item) =>
    a.root - b.root || comparePaths(a.rec.relative_path, b.rec.relative_path);
  const baseName = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  const cmp = {
    path: byPath,
    size: (a: Item, b: Item) => a.rec.size - b.rec.size || byPath(a, b),
    mtime: (a: Item, b: Item) =>
      a.rec.mtime < b.rec.mtime ? -1 : a.rec.mtime > b.rec.mtime ? 1 : byPath(a, b),
    name: (a: Item, b: Item) =>
      compareNames(baseName(a.rec.relative_path), baseName(b.rec.relative_path)) || byPath(a, b),
  }[input.sort];
  all.sort((a, b) => sign * cmp(a, b));
  // The order key holds the sort values, so a page resumes at the right place even when the last record's
  // file changed or vanished in between (the order is total: ties are broken by path).
  const keyOf = (x: Item) => JSON.stringify([x.root, x.rec.relative_path, x.rec.size, x.rec.mtime]);
  let start = 0;
  if (ctx.resumeAfter !== null) {
    let after: Item;
    try {
      const [root, rel, size, mtime] = JSON.parse(ctx.resumeAfter) as [number, string, number, string];
      after = { root, rec: { path: "", relative_path: rel, size, mtime, kinds: [] } };
    } catch {
      throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor");
    }
    while (start < all.length && sign * cmp(all[start] as Item, after) <= 0) start++;
  }
  for (let i = start; i < all.length; i++) {
    const x = all[i] as Item;
    yield { kind: "file", record: x.rec, key: keyOf(x) };
  }
}
