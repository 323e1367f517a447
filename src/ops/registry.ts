/*! The registry: the one ordered list of operations. The CLI subcommands, `describe`, `schema`, the MCP tools,
 * the library and docs/ops all iterate it; order is documentation order. */
import { RglobError } from "../contract/errors.ts";
import { count } from "./count/index.ts";
import { dupes } from "./dupes/index.ts";
import { explain } from "./explain/index.ts";
import { find } from "./find/index.ts";
import { grep } from "./grep/index.ts";
import { index } from "./index/index.ts";
import { lcount } from "./lcount/index.ts";
import type { Operation } from "./operation.ts";
import { serve } from "./serve/index.ts";
import { stats } from "./stats/index.ts";
import { top } from "./top/index.ts";
import { tree } from "./tree/index.ts";
import { tsize } from "./tsize/index.ts";

/** Every operation, in documentation order. */
export const OPERATIONS: readonly Operation[] = [
  find,
  grep,
  count,
  dupes,
  tree,
  top,
  stats,
  explain,
  lcount,
  tsize,
  index,
  serve,
];

/**
 * Finds an operation by id.
 * @param id the operation id
 * @returns the operation
 * @throws RglobError BAD_PREDICATE for an unknown id
 */
export function findOperation(id: string): Operation {
  const op = OPERATIONS.find((o) => o.id === id);
  if (!op) {
    throw new RglobError(
      "BAD_PREDICATE",
      `unknown operation '${id}'; known: ${OPERATIONS.map((o) => o.id).join(", ")}`,
    );
  }
  return op;
}
