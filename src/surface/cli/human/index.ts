/*! Human formatters by operation id. An operation without one prints its records as JSON Lines. */

import type { ByKey } from "../../../contract/breakdown.ts";
import { JsonlSink } from "../../../sink/jsonl.ts";
import { ServeHumanSink } from "../../serve/human.ts";
import { CountHumanSink, LcountHumanSink, TsizeHumanSink } from "./count.ts";
import { DupesHumanSink } from "./dupes.ts";
import { ExplainHumanSink } from "./explain.ts";
import type { HumanFactory } from "./factory.ts";
import { FindHumanSink } from "./find.ts";
import { IndexHumanSink } from "./index-info.ts";
import { StatsHumanSink } from "./stats.ts";
import { TopHumanSink } from "./top.ts";
import { TreeHumanSink } from "./tree.ts";

/** Human formatters, keyed by operation id. */
const HUMAN: Readonly<Record<string, HumanFactory>> = {
  find: (out, style, p, input) =>
    new FindHumanSink(out, style, {
      print0: p.print0 === true,
      format: typeof p.format === "string" ? p.format : undefined,
      absolute: p.absolute_path === true,
      follow: input.follow_symlinks === true,
    }),
  tree: (out, style, _p, input) =>
    new TreeHumanSink(out.write, style, typeof input.base === "string" ? input.base : "."),
  top: (out, style) => new TopHumanSink(out.write, style),
  stats: (out, style) => new StatsHumanSink(out.write, style),
  explain: (out, style, _p, input) =>
    new ExplainHumanSink(out.write, style, typeof input.base === "string" ? input.base : "."),
  count: (out, style, p, input) =>
    new CountHumanSink(
      out.write,
      style,
      [...(input.no_empty === true ? ["blank"] : []), ...(input.no_comments === true ? ["comment"] : [])],
      // With a breakdown the answer is the breakdown: the per-file table only when asked for.
      input.by === undefined || p.files === true,
      input.by as ByKey | undefined,
      input.docstrings === "code",
    ),
  dupes: (out, style) => new DupesHumanSink(out.write, style),
  lcount: (out) => new LcountHumanSink(out.write),
  tsize: (out) => new TsizeHumanSink(out.write),
  index: (out, style) => new IndexHumanSink(out.write, style),
  serve: (out, style) => new ServeHumanSink(out.write, style),
};

/**
 * Returns the human sink of an operation.
 * @param id the operation id
 * @returns the factory (JSON Lines when the operation has no human formatter)
 */
export async function humanSinkFor(id: string): Promise<HumanFactory> {
  // grep's formatter needs the matcher (and its regex engine): loaded only when grep runs.
  if (id === "grep") return (await import("./grep-factory.ts")).grepHuman;
  return HUMAN[id] ?? ((out) => new JsonlSink(out.write));
}
