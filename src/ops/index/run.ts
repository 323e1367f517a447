/*! index: builds, reports or removes a tree's persisted index (engine/index/persist.ts) and yields one record. */
import * as v from "valibot";
import { RglobError } from "../../contract/errors.ts";
import { WalkOptionsSchema } from "../../contract/walk-options.ts";
import {
  buildIndex,
  changedFiles,
  INDEX_WALK,
  indexPathFor,
  loadIndex,
  removeIndex,
  walkKeyOf,
} from "../../engine/index/persist.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { compileGrepWalk } from "../grep/run.ts";
import { GrepInputSchema } from "../grep/schema.ts";
import type { Emitted } from "../operation.ts";
import type { IndexInfo, IndexInput } from "./schema.ts";

const none = {
  reason: null,
  files: null,
  not_indexed: null,
  trigrams: null,
  text_bytes: null,
  index_bytes: null,
  built_at: null,
  build_ms: null,
  changed_files: null,
  walk: null,
  servers: null,
} as const;

/**
 * Runs index.
 * @param input validated index input
 * @param ctx the run context
 * @yields one "index" record
 */
export async function* runIndex(input: IndexInput, ctx: RunContext): AsyncGenerator<Emitted> {
  if (input.status && input.remove)
    throw new RglobError("BAD_PREDICATE", "status and remove exclude each other");
  if (ctx.shouldStop()) return;
  const cwd = process.cwd();
  const { plan } = compileWalk(
    v.parse(WalkOptionsSchema, { base: input.base, ...INDEX_WALK, strict_base: true }),
    { filesOnly: true, cwd, ...gitOf(ctx) },
  );
  const root = plan.baseReal;
  const indexDir = ctx.indexDir;
  if (indexDir === undefined) throw new RglobError("BAD_PREDICATE", "index: no cache directory was given");
  const index_path = indexPathFor(root, indexDir);
  const record = (r: IndexInfo): Emitted => ({ kind: "index", record: r, key: "0" });
  // The walk of `rglob grep PATTERN` run in the tree, recorded with the index so such a run need not walk.
  const grepWalk = () =>
    compileGrepWalk(v.parse(GrepInputSchema, { pattern: "-", base: plan.base }), [], [], plan.base, ctx.git)
      .plan;
  if (input.remove) {
    yield record({ root, index_path, state: removeIndex(root, indexDir) ? "removed" : "absent", ...none });
    return;
  }
  if (input.status) {
    const { index, reason } = loadIndex(root, index_path);
    // The warm servers running, so that none is a process nobody sees (docs/decisions/0033-warm-server.md).
    const servers = await (await import("../../surface/serve/server.ts")).runningServers(ctx.socketDir);
    if (index === null) {
      yield record({
        root,
        index_path,
        state: reason === null ? "absent" : "unusable",
        ...none,
        reason,
        servers,
      });
      return;
    }
    const h = index.header;
    yield record({
      root,
      index_path,
      state: "present",
      reason: null,
      files: h.files,
      not_indexed: h.not_indexed,
      trigrams: h.trigrams,
      text_bytes: h.text_bytes,
      index_bytes: index.bytes,
      built_at: h.built_at,
      build_ms: h.build_ms,
      changed_files: changedFiles(index),
      // Fresh only when a plain grep here would replay it: its paths stat as they did, and the walk it would
      // make has the recorded key (another HOME or XDG_CONFIG_HOME looks for git's files elsewhere).
      walk:
        index.walk === null
          ? "none"
          : index.walk.key === walkKeyOf(grepWalk()) && index.walk.fresh()
            ? "fresh"
            : "stale",
      servers,
    });
    return;
  }
  const built = await buildIndex(plan, ctx, indexDir, grepWalk);
  if (built === null) return;
  const h = built.header;
  yield record({
    root,
    index_path: built.indexPath,
    state: "built",
    reason: null,
    files: h.files,
    not_indexed: h.not_indexed,
    trigrams: h.trigrams,
    text_bytes: h.text_bytes,
    index_bytes: built.indexBytes,
    built_at: h.built_at,
    build_ms: h.build_ms,
    changed_files: null,
    walk: h.walk === null ? "none" : "fresh",
    servers: null,
  });
}
