/*! explain: input → one "explanation" record. Resolves the path against the base, compiles the same walk
 * plan as find, and asks engine/explain.ts for the verdict. A path that does not exist is a request failure
 * (NOT_FOUND), thrown before anything is yielded. */
import * as path from "node:path";
import { fsErrorInfo, RglobError } from "../../contract/errors.ts";
import { explainPath } from "../../engine/explain.ts";
import { compileWalk, toPosix } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { resolvePath } from "../../platform/names.ts";
import { platform } from "../../platform/platform.ts";
import type { Emitted } from "../operation.ts";
import type { ExplainInput, Explanation } from "./schema.ts";

/**
 * Runs explain.
 * @param input validated explain input
 * @param ctx the run context
 * @yields one "explanation" record
 */
export async function* runExplain(input: ExplainInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const { path: target, ...walkOptions } = input;
  const { plan, rootErrors } = compileWalk(walkOptions);
  const abs = resolvePath(plan.base, target);
  try {
    platform.lstat(abs);
  } catch (err) {
    // Only a path that does not exist is a failure; one that cannot be reached (a directory on its way cannot
    // be searched) is explained by the replay, which names that directory.
    const info = fsErrorInfo(err, abs);
    if (info.code === "NOT_FOUND")
      throw new RglobError("NOT_FOUND", `does not exist: ${target}`, { path: abs });
  }
  for (const e of rootErrors) ctx.error(e);
  const verdict = explainPath(plan, walkOptions, abs, (e) => ctx.error(e));
  ctx.summary("included", verdict.included);
  ctx.searched();
  const record: Explanation = {
    path: abs,
    relative_path: toPosix(path.relative(plan.base, abs)),
    included: verdict.included,
    reasons: verdict.reasons,
  };
  yield { kind: "explanation", record, key: "0" };
}
