/*! Contract: the metadata every result carries, and the builder of concrete result models.
 * Models only; the dispatcher fills them (ops/dispatch.ts). */
import * as v from "valibot";
import { ErrorInfoSchema } from "./errors.ts";
import { SCHEMA_VERSION } from "./versions.ts";

/** Why a result stopped early. */
export const TRUNCATED_REASONS = [
  "limit",
  "max_count",
  "max_bytes",
  "max_output_bytes",
  "timeout",
  "cancelled",
] as const;

/** Creates the TruncatedReason model. */
export const TruncatedReasonSchema = v.pipe(
  v.nullable(v.picklist(TRUNCATED_REASONS)),
  v.description(
    "Why the result stopped before the end: limit, max_count, max_bytes, max_output_bytes, timeout, cancelled; null when complete.",
  ),
);
export type TruncatedReason = NonNullable<v.InferOutput<typeof TruncatedReasonSchema>>;

/** The metadata entries shared by every result (wire names as in the contract). */
export const resultMetaEntries = {
  truncated: v.pipe(v.boolean(), v.description("True only when more results existed than were returned.")),
  truncated_reason: TruncatedReasonSchema,
  total_files_searched: v.pipe(
    v.number(),
    v.integer(),
    v.description("Entries examined by the walk (files and directories tested against the query)."),
  ),
  bytes_read: v.pipe(v.number(), v.integer(), v.description("Content bytes actually read.")),
  errors: v.pipe(
    v.array(ErrorInfoSchema),
    v.description("Per-path problems; they never stop the other results."),
  ),
  schema_version: v.pipe(v.literal(SCHEMA_VERSION), v.description("Version of this result's schema.")),
  next_cursor: v.pipe(
    v.nullable(v.string()),
    v.description(
      "Opaque token: pass it back as `cursor` (CLI --cursor) with the same query for the next page.",
    ),
  ),
};

/** The plain metadata object, as the dispatcher builds it. */
export interface ResultMeta {
  truncated: boolean;
  truncated_reason: TruncatedReason | null;
  total_files_searched: number;
  bytes_read: number;
  errors: Array<v.InferOutput<typeof ErrorInfoSchema>>;
  next_cursor: string | null;
  schema_version: typeof SCHEMA_VERSION;
}
