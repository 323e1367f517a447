/*! explain: input → "explanation" records. Resolves the paths against the base (the one `path`, the `targets`,
 * every entry below `under`), compiles the same walk plan as find, and asks engine/explain.ts for each verdict,
 * with the directories and ignore files they share read once. A path that does not exist is explained too (not
 * there, and whether an ignore rule would leave it out, as git check-ignore --no-index says); a directory given
 * as `under` that does not exist is a NOT_FOUND error record. */
import * as path from "node:path";
import { fsErrorInfo, RglobError } from "../../contract/errors.ts";
import { explainMemo, explainPath, type PathVerdict } from "../../engine/explain.ts";
import { compileWalk, gitOf, toPosix } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { compareNames, VCS_DIRS } from "../../engine/walk.ts";
import { joinPath, resolvePath } from "../../platform/names.ts";
import { platform } from "../../platform/platform.ts";
import { entriesBelow, type Inside } from "../only-ignored.ts";
import type { Emitted } from "../operation.ts";
import { runRules } from "./rules.ts";
import type { ExplainInput, Explanation } from "./schema.ts";

/**
 * Lists every entry below a directory in walk order (pre-order, names by code point), not following symlinks and
 * leaving VCS directories out: what `under` explains. After a directory is yielded, `enter` says whether to list
 * what it holds (not for an ignored directory, which is explained as one unless `expand`).
 * @param dir the directory's absolute path
 * @param report receives a directory that cannot be listed
 * @param enter whether to descend into the directory just yielded
 * @yields absolute paths
 */
function* below(
  dir: string,
  report: (err: unknown, abs: string) => void,
  enter: (abs: string) => boolean,
): Generator<string> {
  let names: string[];
  try {
    names = [...platform.listDir(dir).names].sort(compareNames);
  } catch (err) {
    report(err, dir);
    return;
  }
  for (const name of names) {
    if (VCS_DIRS.has(name)) continue;
    const abs = joinPath(dir, name);
    yield abs;
    let isDir = false;
    try {
      isDir = platform.lstat(abs).isDirectory();
    } catch {}
    if (isDir && enter(abs)) yield* below(abs, report, enter);
  }
}

/** Whether an ignore rule keeps the path out (a blocking reason of stage ignore, not a re-inclusion note). */
function ignoredBy(v: PathVerdict): boolean {
  return !v.included && v.reasons.some((r) => r.stage === "ignore");
}

/**
 * Runs explain.
 * @param input validated explain input
 * @param ctx the run context
 * @yields "explanation" records
 */
export async function* runExplain(input: ExplainInput, ctx: RunContext): AsyncGenerator<Emitted> {
  const { path: target, targets, under, only, expand, rules, ...walkOptions } = input;
  if (rules) {
    if (target !== undefined || targets.length > 0 || under !== undefined)
      throw new RglobError(
        "BAD_PREDICATE",
        "rules lists the rules of the ignore files with what each decides below the base: it takes no PATH or --under (drop them, or drop --rules to explain paths)",
      );
    if (only !== undefined && only !== "unused")
      throw new RglobError(
        "BAD_PREDICATE",
        `with rules, only takes 'unused' (the rules that decide nothing), not '${only}'`,
      );
    if (walkOptions.respect_gitignore === false && walkOptions.ignore_files.length === 0)
      throw new RglobError(
        "BAD_PREDICATE",
        "rules lists the rules of the ignore files read, but -u/--no-ignore (respect_gitignore false) turns them off: drop it",
      );
    const { plan, rootErrors } = compileWalk(walkOptions, gitOf(ctx));
    for (const e of rootErrors) ctx.error(e);
    yield* runRules(plan, only, expand === true, ctx);
    return;
  }
  if (only === "unused")
    throw new RglobError(
      "BAD_PREDICATE",
      "only=unused keeps the ignore rules that decide nothing: it goes with rules (--rules --only unused)",
    );
  if (target === undefined && targets.length === 0 && under === undefined)
    throw new RglobError(
      "BAD_PREDICATE",
      "explain needs a path: give one or more PATHs, --under DIR or --all (MCP: path, targets or under), or --rules for the ignore rules (MCP: rules)",
    );
  const { plan, rootErrors } = compileWalk(walkOptions, gitOf(ctx));
  const missing = (abs: string): boolean => {
    try {
      platform.lstat(abs);
      return false;
    } catch (err) {
      // Only a path that does not exist is a failure; one that cannot be reached (a directory on its way cannot
      // be searched) is explained by the replay, which names that directory.
      const info = fsErrorInfo(err, abs);
      if (info.code !== "NOT_FOUND") return false;
      ctx.error({ code: "NOT_FOUND", message: "under: the directory does not exist", path: abs });
      return true;
    }
  };
  const given = [...(target === undefined ? [] : [target]), ...targets];
  const named = given.map((g) => ({ abs: resolvePath(plan.base, g) }));
  for (const e of rootErrors) ctx.error(e);
  let underAbs: string | null = null;
  if (under !== undefined) {
    underAbs = resolvePath(plan.base, under);
    if (!missing(underAbs)) {
      try {
        if (!platform.stat(underAbs).isDirectory())
          throw new RglobError("BAD_PREDICATE", `under: '${under}' is not a directory`, { path: underAbs });
      } catch (err) {
        if (err instanceof RglobError) throw err;
        ctx.error(fsErrorInfo(err, underAbs));
        underAbs = null;
      }
    } else underAbs = null;
  }
  const memo = explainMemo(plan);
  const start = ctx.resumeAfter === null ? 0 : Number(ctx.resumeAfter) + 1;
  let notIncluded = 0;
  let explained = 0;
  ctx.summary("included", true);
  ctx.summary("not_included", 0);
  ctx.summary("explained", 0);
  const due = yielder(64);
  function* paths(): Generator<string> {
    for (const n of named) yield n.abs;
    fromUnder = true;
    if (underAbs !== null)
      yield* below(
        underAbs,
        (err, abs) => ctx.error(fsErrorInfo(err, abs)),
        (abs) => abs !== collapsed,
      );
  }
  // The directory just explained as one (ignored, `expand` not set): `below` does not enter it.
  let collapsed: string | null = null;
  let fromUnder = false;
  let i = -1;
  for (const abs of paths()) {
    i++;
    if (ctx.shouldStop()) return;
    const verdict = explainPath(plan, walkOptions, abs, (e) => ctx.error(e), memo);
    // An ignored directory met by `under` is one verdict with the count of what it holds, as git status
    // --ignored shows `dir/`: its entries share its rule, and listing them cost agents a call per subfolder.
    collapsed = null;
    let inside: Inside | undefined;
    if (fromUnder && expand !== true && ignoredBy(verdict)) {
      let isDir = false;
      try {
        isDir = platform.lstat(abs).isDirectory();
      } catch {}
      if (isDir) {
        collapsed = abs;
        inside = entriesBelow(abs);
      }
    }
    explained++;
    ctx.searched();
    if (!verdict.included) notIncluded++;
    ctx.summary("included", notIncluded === 0);
    ctx.summary("not_included", notIncluded);
    ctx.summary("explained", explained);
    if (i < start) continue;
    if (only === "included" && !verdict.included) continue;
    if ((only === "not_included" || only === "excluded") && verdict.included) continue;
    if (only === "ignored" && !ignoredBy(verdict)) continue;
    const record: Explanation = {
      path: abs,
      relative_path: toPosix(path.relative(plan.base, abs)),
      included: verdict.included,
      reasons: verdict.reasons,
      ...(verdict.exists === false ? { exists: false } : {}),
      ...(verdict.real === undefined ? {} : { real_path: verdict.real.path }),
      ...(verdict.real?.included === undefined ? {} : { real_included: verdict.real.included }),
      ...inside,
    };
    yield { kind: "explanation", record, key: String(i) };
    if (due()) await tick();
  }
}
