/*! Human formatters by operation id. An operation without one prints its records as JSON Lines. */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { JsonlSink } from "../../../sink/jsonl.ts";
import type { Sink } from "../../../sink/sink.ts";
import type { Out } from "../output.ts";
import { CountHumanSink, LcountHumanSink, TsizeHumanSink } from "./count.ts";
import { DupesHumanSink } from "./dupes.ts";
import { ExplainHumanSink } from "./explain.ts";
import { FindHumanSink } from "./find.ts";
import { GrepHumanSink } from "./grep.ts";
import type { Style } from "./paths.ts";
import { StatsHumanSink } from "./stats.ts";
import { TopHumanSink } from "./top.ts";
import { TreeHumanSink } from "./tree.ts";

/** Creates the human sink of an operation. */
export type HumanFactory = (
  out: Out,
  style: Style,
  presentation: Readonly<Record<string, string | boolean>>,
  input: Readonly<Record<string, unknown>>,
) => Sink;

/** Human formatters, keyed by operation id. */
export const HUMAN: Readonly<Record<string, HumanFactory>> = {
  find: (out, style, p) =>
    new FindHumanSink(out, style, {
      print0: p.print0 === true,
      format: typeof p.format === "string" ? p.format : undefined,
    }),
  tree: (out, style, _p, input) =>
    new TreeHumanSink(out.write, style, typeof input.base === "string" ? input.base : "."),
  top: (out, style) => new TopHumanSink(out.write, style),
  stats: (out, style) => new StatsHumanSink(out.write, style),
  explain: (out, style) => new ExplainHumanSink(out.write, style),
  count: (out, style, p, input) =>
    new CountHumanSink(
      out.write,
      style,
      [...(input.no_empty === true ? ["blank"] : []), ...(input.no_comments === true ? ["comment"] : [])],
      // With a breakdown the answer is the breakdown: the per-file table only when asked for.
      input.by === undefined || p.files === true,
    ),
  dupes: (out, style) => new DupesHumanSink(out.write, style),
  lcount: (out) => new LcountHumanSink(out.write),
  tsize: (out) => new TsizeHumanSink(out.write),
  grep: (out, style, p, input) => {
    const n = (k: string) => (typeof input[k] === "number" ? (input[k] as number) : 0);
    return new GrepHumanSink(
      out,
      style,
      {
        lineNumber: p.line_number !== false,
        withFilename: typeof p.with_filename === "boolean" ? p.with_filename : null,
        stats: p.stats === true,
      },
      n("context") + n("before_context") + n("after_context") > 0,
      isSingleFile(input),
    );
  },
};

function isSingleFile(input: Readonly<Record<string, unknown>>): boolean {
  // grep's rule: no file name when exactly one operand is given and it is a file.
  const ops = (Array.isArray(input.operands) ? input.operands : []) as string[];
  const viaFlags =
    typeof input.pattern === "string" || (Array.isArray(input.regexps) && input.regexps.length > 0);
  const candidates = [
    ...((Array.isArray(input.paths) ? input.paths : []) as string[]),
    ...(viaFlags ? ops : ops.slice(1)),
  ];
  if (candidates.length !== 1) return false;
  const base = typeof input.base === "string" ? input.base : ".";
  try {
    return statSync(resolve(base, candidates[0] as string)).isFile();
  } catch {
    return false;
  }
}

/**
 * Returns the human sink of an operation.
 * @param id the operation id
 * @returns the factory (JSON Lines when the operation has no human formatter)
 */
export function humanSinkFor(id: string): HumanFactory {
  return HUMAN[id] ?? ((out) => new JsonlSink(out.write));
}
