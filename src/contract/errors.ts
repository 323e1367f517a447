/*! Contract: error codes, per-path error records and the failure envelope.
 * RglobError is the one exception type; surfaces map it to exit codes or protocol errors at the edge. */
import * as v from "valibot";

/** The closed set of error codes (adding one is a minor bump of the agent API, renaming one a major bump). */
export const ERROR_CODES = [
  "PERM",
  "UNREADABLE",
  "BINARY",
  "TIMEOUT",
  "REGEX",
  "BAD_PREDICATE",
  "UNSUPPORTED_PLATFORM",
  "NOT_FOUND",
  "TOO_LARGE",
] as const;

/** Creates the ErrorCode model. */
export const ErrorCodeSchema = v.pipe(
  v.picklist(ERROR_CODES),
  v.title("ErrorCode"),
  v.description(
    "Stable machine-readable error code: PERM (permission denied or outside the allowed base), UNREADABLE (read failed, vanished, not UTF-8 name, loop), BINARY (skipped binary file), TIMEOUT, REGEX (bad pattern), BAD_PREDICATE (bad option, value or cursor), UNSUPPORTED_PLATFORM, NOT_FOUND (a root or reference file does not exist), TOO_LARGE (skipped by max_file_size, or a record that does not fit max_output_bytes).",
  ),
);
export type ErrorCode = v.InferOutput<typeof ErrorCodeSchema>;

/** The ErrorInfo record: one problem with one path (or with the request when `path` is null). */
export const ErrorInfoSchema = v.pipe(
  v.strictObject({
    code: ErrorCodeSchema,
    message: v.pipe(v.string(), v.description("Human-readable explanation.")),
    path: v.pipe(v.nullable(v.string()), v.description("Absolute path concerned, or null.")),
  }),
  v.title("ErrorInfo"),
  v.description("A problem met during a request. Per-path problems never stop the other results."),
);
export type ErrorInfo = v.InferOutput<typeof ErrorInfoSchema>;

/** The failure envelope written on stdout in JSON modes (exit 2) and returned as an MCP tool error. */
export const FailureSchema = v.pipe(
  v.strictObject({
    ok: v.literal(false),
    error: ErrorInfoSchema,
  }),
  v.title("Failure"),
  v.description("A request that failed as a whole (bad input, bad regex, unknown operation)."),
);
export type Failure = v.InferOutput<typeof FailureSchema>;

/** The one exception type of rglob: a request-level failure with a contract error code. */
export class RglobError extends Error {
  override readonly name = "RglobError";
  readonly code: ErrorCode;
  readonly path: string | null;

  /**
   * Creates an RglobError.
   * @param code the contract error code
   * @param message a message for people
   * @param options the path concerned and the original error
   */
  constructor(code: ErrorCode, message: string, options: { path?: string | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path ?? null;
  }

  /** Returns the ErrorInfo record of this error. */
  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message, path: this.path };
  }
}

/**
 * Creates the failure envelope for an error.
 * @param error an RglobError
 * @returns the envelope object
 */
export function failureOf(error: RglobError): Failure {
  return { ok: false, error: error.toInfo() };
}

/**
 * Maps a Node-style file system error to an ErrorInfo record.
 * @param err the caught error
 * @param path the path concerned
 * @returns an ErrorInfo with PERM, NOT_FOUND or UNREADABLE
 */
export function fsErrorInfo(err: unknown, path: string): ErrorInfo {
  const e = err as { code?: string; syscall?: string } | null;
  const code = e?.code;
  // The path is in `path`; the message names the failure without repeating it.
  const what = code
    ? `${code}${e?.syscall ? ` (${e.syscall})` : ""}`
    : err instanceof Error
      ? err.message
      : String(err);
  if (code === "ECONFINE") return { code: "PERM", message: (err as Error).message, path };
  if (code === "EACCES" || code === "EPERM")
    return { code: "PERM", message: `permission denied: ${what}`, path };
  if (code === "ENOENT") return { code: "NOT_FOUND", message: `vanished or does not exist: ${what}`, path };
  if (code === "ELOOP") return { code: "UNREADABLE", message: `too many levels of symlinks: ${what}`, path };
  if (code === "ENAMETOOLONG")
    return { code: "UNREADABLE", message: `path too long for the system: ${what}`, path };
  return { code: "UNREADABLE", message: `cannot read: ${what}`, path };
}
