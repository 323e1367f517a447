/*! MCP confinement: the roots a server serves, and the check that every path a tool call names stays inside
 * them after resolving symlinks. It never walks or reads files; a refused path is an RglobError PERM. */
import * as path from "node:path";
import { RglobError } from "../../contract/errors.ts";
import { leavesDir } from "../../engine/plan.ts";
import { platform } from "../../platform/platform.ts";

/**
 * Input keys that name a path on disk, checked against the roots. An operation that adds a path-valued key
 * must list it here.
 */
const PATH_KEYS: readonly string[] = ["base", "paths", "path", "newer_than_file", "ignore_files", "operands"];

function inside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const rel = path.relative(parent, child);
  return rel !== "" && !leavesDir(rel);
}

/**
 * Resolves a path as far as it exists: the real path of its longest existing prefix plus the rest, so that a
 * missing file under a symlinked directory is still judged by where the link points.
 * @param abs an absolute path
 * @returns the resolved absolute path
 */
function realish(abs: string): string {
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(platform.realpath(head), ...tail.reverse());
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return abs;
      tail.push(path.basename(head));
      head = parent;
    }
  }
}

/**
 * Creates the real paths of root directories, refusing ones that do not exist or are not directories.
 * @param dirs directories (absolute or relative to the cwd)
 * @returns their real paths, without duplicates
 * @throws RglobError NOT_FOUND or BAD_PREDICATE for a bad root
 */
export function resolveRoots(dirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    const abs = path.resolve(dir);
    let real: string;
    try {
      real = platform.realpath(abs);
    } catch {
      throw new RglobError("NOT_FOUND", `root does not exist: ${abs}`, { path: abs });
    }
    if (!platform.stat(real).isDirectory()) {
      throw new RglobError("BAD_PREDICATE", `root is not a directory: ${abs}`, { path: abs });
    }
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

/**
 * Confines a tool call's input to the roots: `base` defaults to the first root (a relative base is taken
 * from it), and `base` plus every path-valued key must resolve inside one of the roots.
 * @param input the validated-shape input with defaults applied (not modified)
 * @param roots the roots' real paths (at least one)
 * @param hasBase whether the operation has a `base` key (then it is set to an absolute path)
 * @returns a new input with an absolute `base` when the operation has one
 * @throws RglobError PERM naming the first path outside the roots
 */
export function confine(
  input: Readonly<Record<string, unknown>>,
  roots: readonly string[],
  hasBase: boolean,
): Record<string, unknown> {
  const first = roots[0] as string;
  const out: Record<string, unknown> = { ...input };
  const base = typeof input.base === "string" ? path.resolve(first, input.base) : first;
  if (hasBase) out.base = base;
  const check = (p: string) => {
    const abs = path.resolve(base, p);
    const real = realish(abs);
    if (!roots.some((r) => inside(real, r))) {
      throw new RglobError(
        "PERM",
        `outside the roots this server serves (${roots.join(", ")}); refused: ${abs}`,
        { path: abs },
      );
    }
  };
  check(base);
  for (const key of PATH_KEYS) {
    if (key === "base") continue;
    const value = input[key];
    if (typeof value === "string") check(value);
    else if (Array.isArray(value)) for (const p of value) if (typeof p === "string") check(p);
  }
  return out;
}
