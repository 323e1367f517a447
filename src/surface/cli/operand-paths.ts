/*! CLI surface: path operands are relative to the current directory, as in every shell command, whatever
 * --base says (docs/decisions/0015-one-relativity-rule.md). The input keys behind them (`paths`, explain's
 * `path` and `targets`) are relative to the base, so a relative operand that names an existing entry from here is handed on
 * as an absolute path. Globs and operands that name nothing here are left as they are. Reads only whether a
 * path exists. */
import * as path from "node:path";
import type { Operation } from "../../ops/operation.ts";
import { lstatPath } from "../../platform/files.ts";
import { fsPath, resolvePath } from "../../platform/names.ts";

/**
 * Returns the operands with every relative path operand that exists from the current directory made absolute,
 * when the request has a base other than the current directory (otherwise they are returned as they are).
 * @param op the operation (grep's PATTERN [PATH_OR_GLOB...] and explain's PATH have path operands)
 * @param operands the operands as given
 * @param input the flags parsed so far (its base, and whether grep's pattern came by flag)
 * @param cwd the current directory
 * @returns the operands to use
 */
export function cwdOperandPaths(
  op: Operation,
  operands: readonly string[],
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): readonly string[] {
  if (typeof input.base !== "string" || path.resolve(cwd, input.base) === cwd) return operands;
  let first: number;
  if (op.cli.operands[0] === "operands...") {
    const byFlag =
      typeof input.pattern === "string" || (Array.isArray(input.regexps) && input.regexps.length > 0);
    first = byFlag ? 0 : 1;
  } else if (op.cli.operands[0] === "path" || op.cli.operands[0] === "targets...") first = 0;
  else return operands;
  return operands.map((o, i) => {
    if (i < first || path.isAbsolute(o)) return o;
    const abs = resolvePath(cwd, o);
    try {
      lstatPath(fsPath(abs));
      return abs;
    } catch {
      return o;
    }
  });
}

/**
 * Takes explain's `--under DIR` from the current directory, as its PATH operands are (ADR 0015): a relative DIR
 * that exists from here is handed on as an absolute path. `--all` (under the base itself) is left as it is.
 * @param input the flags parsed (changed in place)
 * @param byFlag the value `--under` was given on the command line, or undefined
 * @param cwd the current directory
 */
export function cwdUnder(input: Record<string, unknown>, byFlag: string | undefined, cwd: string): void {
  const under = input.under;
  if (typeof under !== "string" || under !== byFlag || path.isAbsolute(under)) return;
  if (typeof input.base !== "string" || path.resolve(cwd, input.base) === cwd) return;
  const abs = resolvePath(cwd, under);
  try {
    lstatPath(fsPath(abs));
    input.under = abs;
  } catch {}
}
