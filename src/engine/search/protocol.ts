/*! Search: the messages between the search pool and its workers (plain data, structured clone). */
import type { SearchSpec } from "./search-file.ts";

/** From the pool to a worker. */
export type ToWorker =
  | { readonly type: "init"; readonly spec: SearchSpec }
  | { readonly type: "job"; readonly id: number; readonly paths: readonly string[] };

/** From a worker to the pool. */
export type FromWorker =
  | {
      readonly type: "files";
      readonly id: number;
      /** Index in the batch of the first outcome. */
      readonly start: number;
      /** The outcomes as JSON text: one string crosses threads much faster than many small objects. */
      readonly outcomes: string;
    }
  | { readonly type: "fatal"; readonly message: string };
