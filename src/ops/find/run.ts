/*! find: plan → records. Streams FileMatch records in walk order, or collects and sorts them when a sort other
 * than path order is asked for. */
import { type ErrorInfo, fsErrorInfo, RglobError } from "../../contract/errors.ts";
import type { FileMatch } from "../../contract/records.ts";
import { NO_EVENTS } from "../../engine/events.ts";
import { compileSavedAs, fileEncoding, fileEol } from "../../engine/filter/encoding.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import { type RunContext, tick, yielder } from "../../engine/run.ts";
import { compareNames, type Entry, type WalkPlan } from "../../engine/walk.ts";
import { walkBatches } from "../../engine/walk-pool.ts";
import type { Emitted, Yielded } from "../operation.ts";
import { fileMatchOf } from "../walk-records.ts";
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
 * Pushes the walk's entries to the events (ctx.events.entry: the dispatcher bounds them and makes their records
 * only for a sink that needs them), pausing after each batch of up to ctx.batch (one await in the dispatcher per
 * batch; a consumer that paces the walk, as the library's streaming iterator, holds it there). The walk gathers
 * no more than the dispatcher can take (the limit plus its one look-ahead entry; one at a time when an
 * output-size bound may cut anywhere), so it does no work past the cut. Errors met while the walk gathers are
 * held back until the entries before them are out, so the stream keeps walk order.
 * @param plan the compiled walk
 * @param input the find input (limit and max_output_bytes bound the batch size)
 * @param ctx the run context
 * @param due the cooperative-yield counter
 * @yields an empty batch at each pause
 */
async function* streamInPathOrder(
  plan: WalkPlan,
  input: FindInput,
  ctx: RunContext,
  due: () => boolean,
): AsyncGenerator<Yielded> {
  const events = ctx.events ?? NO_EVENTS;
  let room = typeof input.limit === "number" ? input.limit + 1 : Number.POSITIVE_INFINITY;
  const cap = typeof input.max_output_bytes === "number" ? 1 : ctx.batch;
  const held: ErrorInfo[] = [];
  const walkCtx: RunContext = { ...ctx, error: (info) => held.push(info) };
  /** Entries pushed since the last pause. */
  let given = 0;
  let size = Math.min(cap, room);
  // The walk gathers no more than this batch can still take before the cut.
  const opts = { batch: () => Math.max(1, size - given), needStats: ctx.pathsOnly !== true };
  for await (const entries of walkBatches(plan, walkCtx, ctx.resumeAfter, opts))
    for (const e of entries) {
      if (held.length > 0) for (const info of held.splice(0)) ctx.error(info);
      if (!events.entry(e)) return;
      given++;
      const late = due();
      if (given >= size || late) {
        room -= given;
        given = 0;
        size = Math.min(cap, room);
        yield NO_RECORDS;
        if (late) await tick();
      }
    }
  for (const info of held) ctx.error(info);
}

/**
 * Yields the walk's entries as records in walk order (saved_as: each record carries the file's encoding, which
 * an entry pushed to the events has no field for).
 * @param plan the compiled walk
 * @param ctx the run context
 * @param recordOf an entry's record, or null when its file can no longer be read (reported)
 * @param limit the request's limit: the walk gathers no more than it and its look-ahead record (each read a head)
 * @param due the cooperative-yield counter
 * @yields the records
 */
async function* recordsInPathOrder(
  plan: WalkPlan,
  ctx: RunContext,
  recordOf: (e: Entry) => FileMatch | null,
  limit: number | undefined,
  due: () => boolean,
): AsyncGenerator<Yielded> {
  const batch = Math.max(1, Math.min(ctx.batch, limit === undefined || limit === 0 ? ctx.batch : limit + 1));
  for await (const entries of walkBatches(plan, ctx, ctx.resumeAfter, {
    batch,
    needStats: ctx.pathsOnly !== true,
  })) {
    const records: Emitted[] = [];
    for (const e of entries) {
      const record = recordOf(e);
      if (record !== null) records.push({ kind: "file", record, key: e.key });
    }
    yield records;
    if (due()) await tick();
  }
}

/** The pause between batches of pushed entries. */
const NO_RECORDS: Yielded = [];

/**
 * Runs find.
 * @param input validated find input
 * @param ctx the run context
 * @yields "file" records
 */
export async function* runFind(input: FindInput, ctx: RunContext): AsyncGenerator<Yielded> {
  const { plan, rootErrors } = compileWalk(input, { ...gitOf(ctx), typeRejects: "keep" });
  for (const e of rootErrors) ctx.error(e);
  const due = yielder();
  // saved_as (#37): each record says the encoding and the line ends it was selected by, those its values name
  // (the walk read them, or a walk worker did and they are read again here).
  const savedAs = compileSavedAs(input.saved_as ?? []);
  const encoded = savedAs !== null;
  const recordOf = (e: Entry): FileMatch | null => {
    if (savedAs === null) return fileMatchOf(e);
    try {
      return fileMatchOf(e, {
        encoding: savedAs.encoding === null ? undefined : (fileEncoding(e, plan.confine) ?? undefined),
        eol: savedAs.eol === null ? undefined : (fileEol(e, plan.confine) ?? undefined),
      });
    } catch (err) {
      ctx.error(fsErrorInfo(err, e.abs));
      return null;
    }
  };
  if (input.sort === "path" && !input.reverse) {
    if (encoded) yield* recordsInPathOrder(plan, ctx, recordOf, input.limit, due);
    else yield* streamInPathOrder(plan, input, ctx, due);
    return;
  }
  type Item = { rec: FileMatch; root: number };
  const all: Item[] = [];
  for await (const entries of walkBatches(plan, ctx, null, { needStats: true })) {
    for (const e of entries) {
      const rec = recordOf(e);
      if (rec !== null) all.push({ rec, root: e.root });
    }
    if (due()) await tick();
  }
  if (ctx.shouldStop()) return;
  const sign = input.reverse ? -1 : 1;
  const byPath = (a: Item, b: Item) =>
    a.root - b.root || comparePaths(a.rec.relative_path, b.rec.relative_path);
  const baseName = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  const key = {
    path: byPath,
    size: (a: Item, b: Item) => a.rec.size - b.rec.size,
    mtime: (a: Item, b: Item) => (a.rec.mtime < b.rec.mtime ? -1 : a.rec.mtime > b.rec.mtime ? 1 : 0),
    name: (a: Item, b: Item) => compareNames(baseName(a.rec.relative_path), baseName(b.rec.relative_path)),
  }[input.sort];
  // --reverse turns the key around, not the ties: equal sizes, times or names stay in path order, as `ls -S`
  // and top list them (a "largest first" answer needs no reordering by hand).
  const cmp = (a: Item, b: Item) => sign * key(a, b) || byPath(a, b);
  all.sort(cmp);
  // The order key holds the sort values, so a page resumes at the right place even when the last record's
  // file changed or vanished in between (the order is total: ties are broken by path).
  const keyOf = (x: Item) => JSON.stringify([x.root, x.rec.relative_path, x.rec.size, x.rec.mtime]);
  let start = 0;
  if (ctx.resumeAfter !== null) {
    let after: Item;
    try {
      const [root, rel, size, mtime] = JSON.parse(ctx.resumeAfter) as [number, string, number, string];
      after = { root, rec: { path: "", relative_path: rel, size, mtime, kinds: [], entry_type: "file" } };
    } catch {
      throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor");
    }
    while (start < all.length && cmp(all[start] as Item, after) <= 0) start++;
  }
  for (let i = start; i < all.length; i++) {
    const x = all[i] as Item;
    yield { kind: "file", record: x.rec, key: keyOf(x) };
  }
}
