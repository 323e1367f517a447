/*! Surfaces: hints about a request that was probably meant otherwise, for the people and agents reading the
 * answer (CLI stderr, the MCP text). A hint never changes a result. Reads only whether paths are directories. */
import * as fs from "node:fs";
import * as path from "node:path";
import { hasGlobSyntax } from "../engine/glob.ts";

/**
 * Returns the entries of a request's `patterns` (globs matched against names) that are plain names of existing
 * directories under its base: `patterns: ["src"]` selects entries named src, which is rarely what was meant
 * (the entries inside src are selected with `paths` or `base`).
 * @param input the request (its `patterns` and `base`)
 * @param cwd what a relative base is relative to
 * @returns those globs, as given
 */
export function directoryGlobs(input: Readonly<Record<string, unknown>>, cwd: string): string[] {
  const globs = Array.isArray(input.patterns) ? input.patterns : [];
  const base = path.resolve(cwd, typeof input.base === "string" ? input.base : ".");
  const out: string[] = [];
  for (const g of globs) {
    if (typeof g !== "string" || hasGlobSyntax(g)) continue;
    const abs = path.resolve(base, g);
    try {
      if (abs !== base && fs.statSync(abs).isDirectory()) out.push(g);
    } catch {}
  }
  return out;
}
