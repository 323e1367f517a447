/*! explain: input, record and output models. Validation only; the reasoning is engine/explain.ts. */
import * as v from "valibot";
import { PATH_BYTES } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, linkEntries, walkEntries } from "../../contract/walk-options.ts";

/** The stages of the walk that can keep a path out of the results (or let it in), in the order it meets them. */
export const EXPLAIN_STAGES = [
  "root",
  "outside_base",
  "unreadable",
  "git_dir",
  "hidden",
  "symlink",
  "exclude",
  "ignore",
  "depth",
  "types",
  "patterns",
  "size",
  "time",
  "perm",
  "owner",
  "links",
  "selected",
] as const;

/** Creates the explain input model. */
export const ExplainInputSchema = v.pipe(
  v.strictObject({
    path: v.pipe(
      v.string(),
      v.minLength(1),
      v.description("The path to explain: relative to base, or absolute. It must exist."),
    ),
    ...walkEntries,
    ...linkEntries,
    ...budgetEntries,
  }),
  v.title("ExplainInput"),
  v.description("Explain why a path is or is not in the results of the query given by the walk options."),
);
export type ExplainInput = v.InferOutput<typeof ExplainInputSchema>;

/** Creates the ExplainReason model. */
export const ExplainReasonSchema = v.pipe(
  v.strictObject({
    stage: v.pipe(
      v.picklist(EXPLAIN_STAGES),
      v.description(
        "The walk stage: root, outside_base, unreadable, git_dir (a VCS directory: .git .hg .svn .bzr .jj .sl), hidden, symlink, exclude, ignore, depth, types, patterns, size, time, perm, owner, links, selected.",
      ),
    ),
    detail: v.pipe(v.string(), v.description("What happened, in one sentence.")),
    file: v.optional(
      v.pipe(v.string(), v.description("The ignore file whose rule decided (absolute path).")),
    ),
    line: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.description("1-based line of that rule in the file.")),
    ),
    pattern: v.optional(v.pipe(v.string(), v.description("The rule or glob that decided."))),
  }),
  v.title("ExplainReason"),
  v.description("One reason: a stage of the walk that kept the path out, or let it in."),
);
export type ExplainReason = v.InferOutput<typeof ExplainReasonSchema>;

/** Creates the Explanation record model (JSONL kind "explanation"). */
export const ExplanationSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("Absolute path.")),
    ...PATH_BYTES,
    relative_path: v.pipe(
      v.string(),
      v.description("POSIX path relative to the request's base (starts with ../ when outside it)."),
    ),
    included: v.pipe(v.boolean(), v.description("True when find with the same options lists this path.")),
    reasons: v.pipe(
      v.array(ExplainReasonSchema),
      v.description(
        "When excluded: every stage that keeps it out, in walk order (the first is the one the walk meets first). When included: what let it in.",
      ),
    ),
  }),
  v.title("Explanation"),
  v.description("Why a path is or is not in the results of a query."),
);
export type Explanation = v.InferOutput<typeof ExplanationSchema>;

/** Creates the ExplainResult model (the output of explain). */
export const ExplainResultSchema = v.pipe(
  v.strictObject({
    results: v.array(ExplanationSchema),
    ...resultMetaEntries,
    included: v.pipe(v.boolean(), v.description("The verdict of the one explanation.")),
  }),
  v.title("ExplainResult"),
  v.description("One explanation: whether the path is in the results of the query, and why."),
);
export type ExplainResult = v.InferOutput<typeof ExplainResultSchema>;
