/*! The shape of a human formatter's factory: what the app gives it (stdout, style, presentation flags, the
 * input) and the sink it returns. A type only, so the formatters and their table share it without a cycle. */
import type { Sink } from "../../../sink/sink.ts";
import type { Out } from "../output.ts";
import type { Style } from "./paths.ts";

/** Creates the human sink of an operation. */
export type HumanFactory = (
  out: Out,
  style: Style,
  presentation: Readonly<Record<string, string | boolean>>,
  input: Readonly<Record<string, unknown>>,
) => Sink;
