/*! Search: the messages between the search pool and its workers (plain data, structured clone). */
import type { FileOutcome, SearchSpec } from "./search-file.ts";

/** From the pool to a worker. */
export type ToWorker =
  | { readonly type: "init"; readonly spec: SearchSpec }
  | { readonly type: "job"; readonly id: number; readonly paths: readonly string[] };

/** From a worker to the pool. */
export type FromWorker =
  | { readonly type: "file"; readonly id: number; readonly index: number; readonly outcome: FileOutcome }
  | { readonly type: "fatal"; readonly message: string };
