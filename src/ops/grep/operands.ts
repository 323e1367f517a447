/*! grep: operand classification. The CLI hands its operands over as `operands`; here, at plan time and
 * relative to the base, the first becomes the pattern (unless patterns came by flag) and each other one is a
 * root when it exists on disk, or when it is plainly a path (it holds a `/` and no glob metacharacter), so a
 * mistyped path is a NOT_FOUND record instead of a glob that silently matches nothing; else a glob filter.
 * No walking, no reading. */
import { hasGlobSyntax } from "../../engine/glob.ts";
import { resolvePath } from "../../platform/names.ts";
import { platform } from "../../platform/platform.ts";

/** The patterns, roots and globs of a grep request. */
interface Classified {
  readonly patterns: string[];
  readonly paths: string[];
  readonly globs: string[];
}

/**
 * Classifies grep operands.
 * @param input pattern, regexps, operands, paths, patterns and base as given
 * @param cwd the directory the base is relative to
 * @returns every pattern, root and glob
 */
export function classifyOperands(
  input: {
    readonly pattern?: string | undefined;
    readonly regexps: readonly string[];
    readonly operands: readonly string[];
    readonly paths: readonly string[];
    readonly patterns: readonly string[];
    readonly base: string;
  },
  cwd: string,
): Classified {
  const patterns = input.pattern === undefined ? [] : [input.pattern];
  patterns.push(...input.regexps);
  const rest = [...input.operands];
  if (patterns.length === 0 && rest.length > 0) patterns.push(rest.shift() as string);
  const base = resolvePath(cwd, input.base);
  const paths = [...input.paths];
  const globs = [...input.patterns];
  for (const op of rest) {
    let exists = true;
    try {
      platform.lstat(resolvePath(base, op));
    } catch {
      exists = false;
    }
    if (exists || (op.includes("/") && !hasGlobSyntax(op) && !op.startsWith("!"))) paths.push(op);
    else globs.push(op);
  }
  return { patterns, paths, globs };
}
