/*! explain: input, record and output models. Validation only; the reasoning is engine/explain.ts. */
import * as v from "valibot";
import { INSIDE_COUNTS, PATH_BYTES } from "../../contract/records.ts";
import { resultMetaEntries } from "../../contract/result.ts";
import { budgetEntries, linkEntries, walkEntries } from "../../contract/walk-options.ts";

/** The stages of the walk that can keep a path out of the results (or let it in), in the order it meets them. */
const EXPLAIN_STAGES = [
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
  "encoding",
  "missing",
  "selected",
] as const;

/** Creates the explain input model. */
export const ExplainInputSchema = v.pipe(
  v.strictObject({
    path: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description(
          "The path to explain. Relative to base, or absolute. One that does not exist is explained too (exists: false): whether an ignore rule or an ignored directory above would leave it out, as git check-ignore --no-index.",
        ),
      ),
    ),
    targets: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.minLength(1))),
        v.description(
          "More paths to explain in one call. Each is relative to base or absolute; one that does not exist is explained as path is (exists: false).",
        ),
      ),
      [],
    ),
    under: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description(
          "Explain every entry below this directory. Relative to base, '.' for all; ignored ones included, in walk order; an ignored directory is one explanation with entries_inside (expand lists its entries); VCS directories are left out.",
        ),
      ),
    ),
    only: v.optional(
      v.pipe(
        v.picklist(["included", "not_included", "ignored", "excluded", "unused"]),
        v.description(
          "Keep only this verdict. included; not_included (any reason; 'excluded' is its first name, accepted until agent API 2.0); ignored (not included because an ignore rule keeps it out; the reason has the file, line and pattern); with rules, unused: the rules that decide no path.",
        ),
      ),
    ),
    rules: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Every ignore rule, with how many paths it decides. FILE:LINE: PATTERN and the count of paths below the base, as git check-ignore -v names them: the last matching rule decides, a '!' rule that decides re-includes, and a path inside an ignored directory is decided by that directory's rule (the ignore files in there are not read). only=unused keeps the rules that decide nothing; expand lists each rule's paths. Takes no path or under; the other filters do not apply.",
        ),
      ),
      false,
    ),
    expand: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "With under: explain every entry inside an ignored directory too. By default an ignored directory is one explanation with entries_inside, files_inside and dirs_inside (what it holds), as git lists an ignored dir/.",
        ),
      ),
      false,
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
const ExplainReasonSchema = v.pipe(
  v.strictObject({
    stage: v.pipe(
      v.picklist(EXPLAIN_STAGES),
      v.description(
        "The walk stage: root, outside_base, unreadable, git_dir (a VCS directory: .git .hg .svn .bzr .jj .sl), hidden, symlink, exclude, ignore, depth, types, patterns, size, time, perm, owner, links, missing (the path does not exist), selected.",
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
    link: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "A reason about a symlink (on the path's way, or the path itself): the link, POSIX and relative to the base. Where it leads is the explanation's real_path.",
        ),
      ),
    ),
    link_target: v.optional(
      v.pipe(v.string(), v.description("With link: its target as written in the link (readlink).")),
    ),
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
    exists: v.optional(
      v.pipe(
        v.literal(false),
        v.description(
          "Present (false) when the path does not exist: not included, and its reasons say whether an ignore rule or an ignored directory above would leave it out (stage ignore, with file, line and pattern), as git check-ignore --no-index answers for a path that is not there.",
        ),
      ),
    ),
    reasons: v.pipe(
      v.array(ExplainReasonSchema),
      v.description(
        "When excluded: every stage that keeps it out, in walk order (the first is the one the walk meets first). When included: what let it in.",
      ),
    ),
    real_path: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "Present when a symlink is on the path's way or is the path: where it really is, every link followed (realpath -m): relative to the base when inside it, absolute when outside.",
        ),
      ),
    ),
    real_included: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Whether find with the same options lists the path under its real_path; absent when real_path is outside the base (absolute) or does not exist (a broken link).",
        ),
      ),
    ),
    entries_inside: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description(
          "Present on an ignored directory that under explained as one (expand not set): how many entries it holds at every depth (VCS directories left out), each ignored by the same rule and not listed.",
        ),
      ),
    ),
    ...INSIDE_COUNTS,
  }),
  v.title("Explanation"),
  v.description("Why a path is or is not in the results of a query."),
);
export type Explanation = v.InferOutput<typeof ExplanationSchema>;

/** Creates the IgnoreRuleRecord model (JSONL kind "rule"): one rule of an ignore file, with what it decides. */
export const IgnoreRuleRecordSchema = v.pipe(
  v.strictObject({
    path: v.pipe(v.string(), v.description("The ignore file (absolute path).")),
    relative_path: v.pipe(
      v.string(),
      v.description("The ignore file, POSIX and relative to the base (starts with ../ when outside it)."),
    ),
    line: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("1-based line of the rule in the file."),
    ),
    pattern: v.pipe(
      v.string(),
      v.description("The rule as written ('!' included; trailing spaces trimmed, as git trims them)."),
    ),
    decides: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.description(
        "How many paths below the base this rule decides (it is the last rule that matches them, or it ignores a directory above them): 0 when it decides nothing.",
      ),
    ),
    decided: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "With expand: the paths it decides, relative to the base, in walk order, a directory with a trailing '/'.",
        ),
      ),
    ),
  }),
  v.title("IgnoreRuleRecord"),
  v.description("One rule of an ignore file and the paths it decides (explain with rules)."),
);
export type IgnoreRuleRecord = v.InferOutput<typeof IgnoreRuleRecordSchema>;

/** Creates the ExplainResult model (the output of explain). */
export const ExplainResultSchema = v.pipe(
  v.strictObject({
    results: v.array(v.union([ExplanationSchema, IgnoreRuleRecordSchema])),
    ...resultMetaEntries,
    included: v.pipe(
      v.boolean(),
      v.description(
        "True when every path explained is included (the verdict of the one path, given one); false when any is not: not_included says how many.",
      ),
    ),
    not_included: v.pipe(
      v.number(),
      v.integer(),
      v.description(
        "Paths explained that are not included (explained minus not_included are included), before `only`.",
      ),
    ),
    explained: v.pipe(
      v.number(),
      v.integer(),
      v.description("Paths explained, before `only` (the records are those `only` keeps)."),
    ),
  }),
  v.title("ExplainResult"),
  v.description("Explanations: whether each path is in the results of the query, and why."),
);
export type ExplainResult = v.InferOutput<typeof ExplainResultSchema>;
