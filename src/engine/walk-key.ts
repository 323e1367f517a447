/*! Engine: what identifies a walk, in one place, for the two kinds of replayed walk (src/engine/index/): the warm
 * server's remembered walks (warm/remembered.ts) and the walk kept with a persisted index (persist.ts). Two plans with the
 * same key reach the same entries with the same calls on the run context, so a recording of one stands for the
 * other. The key holds the walk options (the base resolved or with the cwd it is relative to), the plan's kind
 * (filesOnly) and what says which ignore rules apply from outside the tree. Where the two differ, each follows from
 * how its walk is replayed and checked (docs/decisions/0034-warm-query-structure.md):
 * - A remembered walk is recorded selecting every entry and each run's plan selects as it is replayed
 *   (replayPicked), so the options that only select are left out of its key and queries that differ only in
 *   their globs or types share one walk; the persisted walk is replayed as recorded, so its key holds them all.
 *   A remembered walk never follows a symlink (RememberedWalks.keyOf), and then `strict_base` changes nothing
 *   the walk does (its roots, checked against the base when the plan is made, are in the key): left out too; and
 *   its base is the resolved one. So a CLI call in the root (base `.`, strict_base off) and the MCP tools' (the
 *   root's path, on) share the server's default walk.
 * - The warm server's watch does not see the ignore files above the tree nor git's excludes file: a remembered
 *   walk's key holds them as the plan read them (a walk recorded under other rules has another key). The
 *   persisted walk stats every file it read or looked for instead (witness.ts), and its key holds what says where
 *   git's config files are looked for (HOME, XDG_CONFIG_HOME, GIT_CONFIG_NOSYSTEM), since the same stats under
 *   another home would say nothing. */
import { walkEntries } from "../contract/walk-options.ts";
import { isNegated } from "./glob.ts";
import type { WalkPlan } from "./walk-types.ts";

const WALK_KEYS = Object.keys(walkEntries);

/**
 * Walk options that only select among the entries a walk reaches (plan.ts puts them in `select`, `selectDirs`
 * and `minDepth`): left out of a remembered walk's key. A negated glob excludes (a directory is not entered):
 * those stay in the key; the other globs only select.
 */
const SELECT_ONLY: ReadonlySet<string> = new Set([
  "types",
  "extensions",
  "file_types",
  "file_types_not",
  "type_add",
  "min_depth",
]);

/** Walk options that change nothing a walk that follows no symlink does: left out of a remembered walk's key. */
const UNFOLLOWED_NEUTRAL: ReadonlySet<string> = new Set(["strict_base"]);

/** How a keyed walk is replayed: remembered (selection applied at replay), or persisted (replayed as recorded). */
type WalkKeyKind = "remembered" | "persisted";

/**
 * Returns the key of a plan's walk. The caller decides first whether its walk can be recorded at all (no stat
 * predicate, no followed symlink; the persisted walk also one directory root, the base).
 * @param plan the compiled walk
 * @param kind how the keyed walk is replayed
 * @param filesOnly the plan's kind to key (default: its own); a remembered walk of directories alone is the same
 *   walk for either, which only decides which roots are walked
 * @returns the key
 */
export function walkKey(
  plan: WalkPlan,
  kind: WalkKeyKind,
  filesOnly: boolean = plan.source.plan.filesOnly ?? false,
): string {
  const o = plan.source.options as unknown as Record<string, unknown>;
  const p = plan.source.plan;
  const options: Record<string, unknown> = {};
  if (kind === "remembered") {
    for (const k of WALK_KEYS) {
      if (SELECT_ONLY.has(k) || UNFOLLOWED_NEUTRAL.has(k)) continue;
      options[k] = k === "patterns" ? (o.patterns as readonly string[]).filter(isNegated) : o[k];
    }
    // The base resolved: `.` in the root and the root's path walk the same roots (an entry holds its root's path).
    options.base = plan.base;
    // The ignore files that apply from above the roots, files given in ignore_files and git's excludes file, as
    // this call's plan read them.
    const outer = plan.roots.map((r) => [
      r.abs,
      r.type,
      r.repoPrefix,
      r.outer.map((f) => [f.file, f.prefix, f.lines]),
    ]);
    // filesOnly decides which roots are walked (a named FIFO is not); namedFilesPastGlobs only selects.
    return JSON.stringify([options, p.cwd, filesOnly, outer]);
  }
  for (const k of WALK_KEYS) options[k] = o[k];
  options.base = plan.base;
  const globs = (o.patterns as readonly string[]).length > 0 || (o.exclude as readonly string[]).length > 0;
  // Where git's config and global excludes file are looked for (ignore.ts): the plan's, from the environment.
  return JSON.stringify([
    options,
    globs ? p.cwd : null,
    filesOnly,
    p.namedFilesPastGlobs ?? false,
    [p.git.home, p.git.xdgConfigHome, p.git.noSystem],
  ]);
}
