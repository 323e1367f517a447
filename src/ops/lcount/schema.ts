/*! lcount: input model of the line-count alias (the output is count's CountResult). Validation only. */
import * as v from "valibot";
import { budgetEntries, walkEntries } from "../../contract/walk-options.ts";
import { lineEntries } from "../count/schema.ts";

/** The required pattern operand of the compatibility aliases (lcount, tsize); the empty default fails validation
 * with a clear message. */
export const requiredPatterns = v.optional(
  v.pipe(
    v.array(v.string()),
    v.minLength(1, "give at least one PATTERN, e.g. '*.py'"),
    v.description(
      "Glob patterns, OR'd (at least one), selecting regular files: a matched directory or symlink is left out without an error (with follow_symlinks a link to a file is counted as that file).",
    ),
  ),
  [],
);

/** Creates the lcount input model. */
export const LcountInputSchema = v.pipe(
  v.strictObject({
    ...walkEntries,
    patterns: requiredPatterns,
    ...budgetEntries,
    ...lineEntries,
  }),
  v.title("LcountInput"),
  v.description("Total lines of the files matching PATTERN (an alias of count)."),
);
export type LcountInput = v.InferOutput<typeof LcountInputSchema>;
