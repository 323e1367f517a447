/*! explain --rules (#37): the per-rule view of the ignore files. Every pattern line of every ignore file the walk
 * reads (the global excludes file, .git/info/exclude, the files above the roots, each .gitignore and .ignore of
 * the tree that is not inside an ignored directory, the extra ignore files), with how many paths it decides, so
 * that "which rules decide nothing" is one call. The rule that decides a path is the last rule that matches it,
 * by the precedence the walk and explain use (git check-ignore -v names the same one): a `!` rule that decides
 * re-includes; a path inside an ignored directory is decided by the rule that ignored the directory, and the
 * ignore files in there are never read (as git never reads them). The walk lists every entry below each root
 * (VCS directories left out, symlinks not followed), whatever the other walk options select. */

import type { ErrorInfo } from "../../contract/errors.ts";
import { fsErrorInfo } from "../../contract/errors.ts";
import { explainMemo } from "../../engine/explain.ts";
import { dirChain, type IgnoreFile, matchChain } from "../../engine/ignore.ts";
import type { IgnoreRule } from "../../engine/ignore-rules.ts";
import { toPosix } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { compareNames, VCS_DIRS, type WalkPlan } from "../../engine/walk.ts";
import { joinPath, relativePath } from "../../platform/names.ts";
import { platform, typeIn, typeOfStats } from "../../platform/platform.ts";
import type { Emitted } from "../operation.ts";
import type { IgnoreRuleRecord } from "./schema.ts";

/** What one rule decided: how many paths, and which (relative to the base, a directory with a trailing '/'). */
interface Tally {
  readonly file: IgnoreFile;
  readonly rule: IgnoreRule;
  decides: number;
  readonly paths: string[];
}

/** The ignore files read, in the order they were read, and the tally of each of their rules. */
interface RulesView {
  readonly files: IgnoreFile[];
  readonly tallies: Map<IgnoreRule, Tally>;
  /** Paths looked at. */
  examined: number;
}

/**
 * Adds a file to the view (once, however many roots read it), its rules each with a tally of none.
 * @param view the view
 * @param f the ignore file
 */
function addFile(view: RulesView, f: IgnoreFile): void {
  if (view.files.includes(f) || view.files.some((g) => g.file === f.file && g.prefix === f.prefix)) return;
  view.files.push(f);
  for (const rule of f.rules.rules) view.tallies.set(rule, { file: f, rule, decides: 0, paths: [] });
}

/**
 * Walks a directory for the view: each entry is decided by the last rule of the chain that matches it; an ignored
 * directory is decided with everything inside it, unread; any other directory is entered with its ignore files.
 * @param keep whether to keep the paths each rule decides (expand)
 * @param below whether the directory is below a root (a root's repository is placed by the plan)
 */
function visit(
  plan: WalkPlan,
  view: RulesView,
  memo: ReturnType<typeof explainMemo>,
  dirAbs: string,
  keyPrefix: string,
  inherited: readonly IgnoreFile[],
  keep: boolean,
  report: (info: ErrorInfo) => void,
  below = true,
): void {
  let listing: ReturnType<typeof platform.listDir>;
  try {
    listing = memo.list(dirAbs);
  } catch (err) {
    report(fsErrorInfo(err, dirAbs));
    return;
  }
  // A nested repository's root below a root: its info/exclude read, the outer repository's files end (ADR 0059).
  const chain = dirChain(plan, listing.names, dirAbs, below, inherited, keyPrefix, memo.ignoreFile, report);
  for (const f of chain) if (!inherited.includes(f)) addFile(view, f);
  for (const name of [...listing.names].sort(compareNames)) {
    if (VCS_DIRS.has(name)) continue;
    const abs = joinPath(dirAbs, name);
    const type = listedType(listing, name, abs);
    const isDir = type === "dir";
    const m = chain.length === 0 ? null : matchChain(chain, keyPrefix + name, name, isDir);
    const tally = m === null ? undefined : view.tallies.get(m.rule);
    view.examined++;
    if (tally !== undefined) {
      tally.decides++;
      if (keep) tally.paths.push(shownPath(plan, abs, isDir));
    }
    if (!isDir) continue;
    if (m !== null && !m.rule.negate) {
      // Ignored: what it holds is decided by the same rule, and its ignore files are never read.
      if (tally !== undefined) inside(plan, abs, tally, keep, view);
      continue;
    }
    visit(plan, view, memo, abs, `${keyPrefix}${name}/`, chain, keep, report);
  }
}

/**
 * An entry's type as its directory listing says it, else by lstat (a file system that gives no types).
 * @returns the type; "unknown" when the lstat fails too
 */
function listedType(
  listing: ReturnType<typeof platform.listDir>,
  name: string,
  abs: string,
): ReturnType<typeof typeIn> {
  const type = typeIn(listing, name);
  if (type !== "unknown") return type;
  try {
    return typeOfStats(platform.lstat(abs));
  } catch {
    return type;
  }
}

/** A path as the view lists it: POSIX, relative to the base, a directory with a trailing '/'. */
function shownPath(plan: WalkPlan, abs: string, isDir: boolean): string {
  return `${toPosix(relativePath(plan.base, abs))}${isDir ? "/" : ""}`;
}

/** Counts (and with keep, lists) every entry below an ignored directory for the rule that ignored it. */
function inside(plan: WalkPlan, dir: string, tally: Tally, keep: boolean, view: RulesView): void {
  let listing: ReturnType<typeof platform.listDir>;
  try {
    listing = platform.listDir(dir, plan.confine);
  } catch {
    return; // a directory that cannot be listed holds nothing the view can count (git lists nothing either)
  }
  for (const name of [...listing.names].sort(compareNames)) {
    if (VCS_DIRS.has(name)) continue;
    const abs = joinPath(dir, name);
    const type = listedType(listing, name, abs);
    view.examined++;
    tally.decides++;
    if (keep) tally.paths.push(shownPath(plan, abs, type === "dir"));
    if (type === "dir") inside(plan, abs, tally, keep, view);
  }
}

/**
 * Runs the rules view: walks every root, then yields one "rule" record per rule of every ignore file read, files
 * in the order they were read (those from outside the tree first, lowest priority first), rules by line.
 * @param plan the compiled walk (its roots, their outer ignore files, the names read in each directory)
 * @param only "unused" keeps the rules that decide nothing
 * @param expand whether each record lists the paths its rule decides
 * @param ctx the run context
 * @yields "rule" records
 */
export async function* runRules(
  plan: WalkPlan,
  only: string | undefined,
  expand: boolean,
  ctx: RunContext,
): AsyncGenerator<Emitted> {
  const view: RulesView = { files: [], tallies: new Map(), examined: 0 };
  const memo = explainMemo(plan);
  const report = (info: ErrorInfo) => ctx.error(info);
  for (const root of plan.roots) {
    for (const f of root.outer) addFile(view, f);
    if (root.type !== "dir") continue;
    visit(plan, view, memo, root.abs, root.repoPrefix, root.outer, expand, report, false);
  }
  ctx.summary("explained", view.examined);
  ctx.summary("included", true);
  const start = ctx.resumeAfter === null ? 0 : Number(ctx.resumeAfter) + 1;
  const due = yielder(64);
  let i = -1;
  for (const f of view.files) {
    const rel = relativePath(plan.base, f.file);
    for (const rule of f.rules.rules) {
      i++;
      if (ctx.shouldStop()) return;
      if (i < start) continue;
      const t = view.tallies.get(rule) as Tally;
      if (only === "unused" && t.decides > 0) continue;
      const record: IgnoreRuleRecord = {
        path: f.file,
        relative_path: toPosix(rel),
        line: rule.line,
        pattern: rule.pattern,
        decides: t.decides,
        ...(expand ? { decided: t.paths } : {}),
      };
      yield { kind: "rule", record, key: String(i) };
      if (due()) await tick();
    }
  }
}
