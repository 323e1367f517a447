/*! Engine, witness: while a walk is recorded to be replayed later (the persisted index), the stats of everything
 * its answer depends on, taken before each is read: every directory it lists, every ignore, config and `.git`
 * file it reads or looks for (above the roots too). A listing changes a directory's mtime and ctime, an edit a
 * file's, and a file that appears where one was looked for exists; so while every witnessed path stats the
 * same, the walk would list the same names and read the same rules, and its recording can stand for it. Off
 * (one null test per directory) unless a recording is under way. docs/decisions/0028-warm-index.md. */
import * as fs from "node:fs";
import { fsPath } from "../platform/names.ts";

/** What a path's stat gave: size, mtime (ns), ctime (ns), inode; or the error's kind. */
export type Seen =
  | {
      readonly ok: true;
      readonly size: bigint;
      readonly mtimeNs: bigint;
      readonly ctimeNs: bigint;
      readonly ino: bigint;
    }
  | { readonly ok: false; readonly absent: boolean };

/** One path the walk depended on, and how it was stat'ed (a symlink followed or not). */
export interface Witnessed {
  readonly path: string;
  readonly follow: boolean;
  readonly seen: Seen;
}

let active: Map<string, Witnessed> | null = null;

/**
 * Stats a path as the witness does.
 * @param abs the path
 * @param follow whether a final symlink is followed
 * @returns what it gave
 */
export function seenOf(abs: string, follow: boolean): Seen {
  try {
    const p = fsPath(abs);
    const st = follow ? fs.statSync(p, { bigint: true }) : fs.lstatSync(p, { bigint: true });
    return { ok: true, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, ino: st.ino };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, absent: code === "ENOENT" || code === "ENOTDIR" };
  }
}

/**
 * Tells whether two stats of a path are the same.
 * @param a one
 * @param b the other
 * @returns whether they are
 */
export function sameSeen(a: Seen, b: Seen): boolean {
  if (a.ok && b.ok)
    return a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.ino === b.ino;
  return !a.ok && !b.ok && a.absent === b.absent;
}

/**
 * Notes a path the walk is about to list, read or look for (nothing when no recording is under way).
 * @param abs the path
 * @param follow whether a final symlink is followed
 */
export function witness(abs: string, follow: boolean): void {
  if (active === null) return;
  const key = (follow ? "1" : "0") + abs;
  if (!active.has(key)) active.set(key, { path: abs, follow, seen: seenOf(abs, follow) });
}

/**
 * Runs a function with the witness on.
 * @param fn what to run (compiling a walk and walking it)
 * @returns its value, and the paths witnessed, in the order first met
 */
export function witnessing<T>(fn: () => T): { value: T; witnessed: Witnessed[] } {
  const outer = active;
  const mine = new Map<string, Witnessed>();
  active = mine;
  try {
    const value = fn();
    return { value, witnessed: [...mine.values()] };
  } finally {
    active = outer;
  }
}
