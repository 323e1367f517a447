/*! dupes: plan → records. Collects the selected regular files (size, inode) from the walk, lets the engine
 * group them, and yields one Duplicate record per group (every path, hard links marked), most wasted bytes first. Collecting comes first
 * (a group is known only at the end), so records appear after the walk. */
import { TEXT_FACTS, type TextFacts } from "../../contract/result.ts";
import { type Candidate, findDuplicates, wastedOf } from "../../engine/dupes.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { walkBatches } from "../../engine/walk-pool.ts";
import type { Emitted } from "../operation.ts";
import type { DupesInput, Duplicate } from "./schema.ts";

/**
 * Runs dupes.
 * @param input validated dupes input
 * @param ctx the run context
 * @yields "duplicate" records
 */
export async function* runDupes(input: DupesInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const { plan, rootErrors } = compileWalk(input, { filesOnly: true, ...gitOf(ctx) });
  for (const e of rootErrors) ctx.error(e);
  const minSize = input.min_size === undefined && !input.include_empty ? 1 : 0;
  const due = yielder();
  // anywhere: the query's files (their paths and sizes) against every file under the base of one of their sizes.
  let selected: { paths: Set<string>; sizes: Set<number> } | null = null;
  let walked = plan;
  if (input.anywhere) {
    selected = { paths: new Set(), sizes: new Set() };
    for await (const batch of walkBatches(plan, ctx, null, { needStats: true }))
      for (const e of batch) {
        const st = e.stats();
        if (st === null || st.size < minSize) continue;
        selected.paths.add(e.abs);
        selected.sizes.add(st.size);
        if (due()) await tick();
      }
    walked = compileWalk(everywhere(input), { filesOnly: true, ...gitOf(ctx) }).plan;
  }
  const candidates: Candidate[] = [];
  let order = 0;
  for await (const batch of walkBatches(walked, ctx, null, { needStats: true }))
    for (const e of batch) {
      const st = e.stats(); // never null here: walkBatches reports and leaves out such an entry
      if (st === null || st.size < minSize) continue;
      if (selected !== null && !selected.sizes.has(st.size)) continue;
      candidates.push({
        abs: e.abs,
        rel: e.rel,
        size: st.size,
        mtimeMs: st.mtimeMs,
        inode: `${st.dev}:${st.ino}`,
        order: order++,
      });
      if (due()) await tick();
    }
  const found = ctx.shouldStop()
    ? { groups: [], hardLinkOnly: 0, hardLinkOnlySets: [] }
    : await findDuplicates(candidates, ctx, plan.confine, input.include_hard_links);
  let copies = 0;
  let wasted = 0;
  const chosen = selected?.paths;
  const groups =
    chosen === undefined
      ? found.groups
      : found.groups.filter((g) => g.files.flat().some((m) => chosen.has(m.abs)));
  const records: Duplicate[] = groups.map((g) => {
    const w = wastedOf(g);
    copies += g.files.length - 1;
    wasted += w;
    const members = g.files.flat().sort((a, b) => a.order - b.order);
    return {
      size: g.size,
      digest: g.digest,
      paths: members.map((m) => m.abs),
      relative_paths: members.map((m) => m.rel),
      count: members.length,
      files: g.files.length,
      hard_links: g.files.filter((f) => f.length > 1).map((f) => f.map((m) => m.rel)),
      ...(chosen === undefined
        ? {}
        : { selected: members.filter((m) => chosen.has(m.abs)).map((m) => m.rel) }),
      wasted_bytes: w,
    };
  });
  ctx.summary("groups", records.length);
  ctx.summary("duplicate_files", copies);
  ctx.summary("wasted_bytes", wasted);
  ctx.summary("hard_link_only_files", found.hardLinkOnly);
  // Named in the texts when not listed (#37), never on the wire.
  if (found.hardLinkOnly > 0 && input.include_hard_links !== true)
    ctx.summary(TEXT_FACTS, { hard_link_only_sets: found.hardLinkOnlySets } satisfies TextFacts);
  let start = 0;
  if (ctx.resumeAfter !== null) start = records.findIndex((r) => r.digest === ctx.resumeAfter) + 1;
  for (let i = start; i < records.length; i++) {
    const r = records[i] as Duplicate;
    yield { kind: "duplicate", record: r, key: r.digest };
  }
}

/**
 * The walk of `anywhere`: every file under the base, ignored and hidden ones included, whatever the query's globs
 * and predicates (the way links are followed and the base confined stay the query's).
 * @param input the dupes input
 * @returns the walk options
 */
function everywhere(input: DupesInput): DupesInput {
  return {
    ...input,
    paths: [],
    patterns: [],
    exclude: [],
    types: [],
    extensions: [],
    file_types: [],
    file_types_not: [],
    size: [],
    min_size: undefined,
    max_size: undefined,
    newer_than: undefined,
    older_than: undefined,
    newer_than_file: undefined,
    perm: undefined,
    nlink: undefined,
    uid: undefined,
    gid: undefined,
    max_depth: undefined,
    min_depth: undefined,
    hidden: true,
    respect_gitignore: false,
  };
}
