/*! Engine, warm index: which paths a recorded walk read that the watch does not vouch for (stat'ed again before
 * each replay of the walk). Pure: never stats, reads or watches. */

import { STAT_OK } from "../../../platform/stat-words.ts";
import { IGNORE_FILE_NAMES } from "../../ignore.ts";
import { VCS_DIRS } from "../../walk.ts";
import type { Witnessed } from "../../witness.ts";

/**
 * The paths a recorded walk read that the watch does not vouch for: those outside the tree (ignore files above
 * it, files named by ignore_files or by git's configuration), those in a VCS directory or named as one (a `.git`
 * file, `.git`'s config, commondir, info/exclude; what a walk whose base is inside one lists: none is watched),
 * and the ignore files that are there (an edit through a hard link elsewhere, or a write through a shared
 * mapping, sends no event). A directory listed or a file looked for and not found inside
 * the tree is the watch's: a listing changes only through an entry's event.
 * @param root the root's real path
 * @param seen what the recording witnessed
 * @returns the paths to stat again before each replay
 */
export function uncovered(root: string, seen: Iterable<Witnessed>): Witnessed[] {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const out: Witnessed[] = [];
  for (const w of seen) if (isUncovered(root, prefix, w)) out.push(w);
  return out;
}

/**
 * Whether the watch does not vouch for a witnessed path (uncovered).
 * @param root the root's real path
 * @param prefix the root's path with a final `/`
 * @param w the path witnessed
 * @returns true when it is stat'ed again before each replay
 */
export function isUncovered(root: string, prefix: string, w: Witnessed): boolean {
  if (!w.path.startsWith(prefix)) return w.path !== root;
  if (w.kindOnly) return false;
  const parts = w.path.slice(prefix.length).split("/");
  // Nothing in a VCS directory is watched, nor the directory itself (tree-watch.ts): what a walk listed or read
  // there (a `.git` file; a base inside one, which is walked when named) is stat'ed.
  return (
    parts.some((part) => VCS_DIRS.has(part)) ||
    (w.outcome === STAT_OK &&
      (IGNORE_FILE_NAMES as readonly string[]).includes(parts[parts.length - 1] as string))
  );
}
