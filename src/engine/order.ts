/*! Engine: orders of relative paths used by the operations that sort (top, stats): path order is the walk's
 * (component by component, names by code point), so sorted output breaks ties the way the walk lists. Pure. */
import { compareNames } from "./walk.ts";

/**
 * Compares two POSIX relative paths in walk order (a directory before what is below it).
 * @param a a relative path
 * @param b a relative path
 * @returns negative, zero or positive
 */
export function comparePaths(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const c = compareNames(pa[i] as string, pb[i] as string);
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}

/**
 * Returns the extension of a file name as Python's os.path.splitext does: the last '.' and what follows,
 * ignoring leading dots (".gitignore" has none, "a.tar.gz" has ".gz").
 * @param name a base name
 * @returns the extension with its dot, or "" when there is none
 */
export function extensionOf(name: string): string {
  let start = 0;
  while (start < name.length && name.charCodeAt(start) === 46) start++;
  const dot = name.lastIndexOf(".");
  return dot > start ? name.slice(dot) : "";
}
