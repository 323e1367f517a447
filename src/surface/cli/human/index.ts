/*! Human formatters by operation id. An operation without one prints its records as JSON Lines. */

import { JsonlSink } from "../../../sink/jsonl.ts";
import type { Sink } from "../../../sink/sink.ts";
import { CountHumanSink, LcountHumanSink, TsizeHumanSink } from "./count.ts";
import { DupesHumanSink } from "./dupes.ts";
import { ExplainHumanSink } from "./explain.ts";
import { FindHumanSink } from "./find.ts";
import type { Style } from "./paths.ts";
import { StatsHumanSink } from "./stats.ts";
import { TopHumanSink } from "./top.ts";
import { TreeHumanSink } from "./tree.ts";

/** Creates the human sink of an operation. */
export type HumanFactory = (
  write: (text: string) => void,
  style: Style,
  presentation: Readonly<Record<string, string | boolean>>,
  input: Readonly<Record<string, unknown>>,
) => Sink;

/** Human formatters, keyed by operation id. */
export const HUMAN: Readonly<Record<string, HumanFactory>> = {
  find: (write, style, p) =>
    new FindHumanSink(write, style, {
      print0: p.print0 === true,
      format: typeof p.format === "string" ? p.format : undefined,
    }),
  tree: (write, style, _p, input) =>
    new TreeHumanSink(write, style, typeof input.base === "string" ? input.base : "."),
  top: (write, style) => new TopHumanSink(write, style),
  stats: (write, style) => new StatsHumanSink(write, style),
  explain: (write, style) => new ExplainHumanSink(write, style),
  count: (write, style) => new CountHumanSink(write, style),
  dupes: (write, style) => new DupesHumanSink(write, style),
  lcount: (write) => new LcountHumanSink(write),
  tsize: (write) => new TsizeHumanSink(write),
};

/**
 * Returns the human sink of an operation.
 * @param id the operation id
 * @returns the factory (JSON Lines when the operation has no human formatter)
 */
export function humanSinkFor(id: string): HumanFactory {
  return HUMAN[id] ?? ((write) => new JsonlSink(write));
}
