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
const ErrorCodeSchema = v.pipe(
  v.picklist(ERROR_CODES),
  v.title("ErrorCode"),
  v.description(
    "Stable machine-readable error code: PERM (permission denied or outside the allowed base), UNREADABLE (read failed, vanished, loop), BINARY (skipped binary file), TIMEOUT, REGEX (bad pattern), BAD_PREDICATE (bad option, value or cursor), UNSUPPORTED_PLATFORM, NOT_FOUND (a root or reference file does not exist), TOO_LARGE (skipped by max_file_size, or a record that does not fit max_output_bytes).",
  ),
);
export type ErrorCode = v.InferOutput<typeof ErrorCodeSchema>;

/** The ErrorInfo record: one problem with one path (or with the request when `path` is null). */
export const ErrorInfoSchema = v.pipe(
  v.strictObject({
    code: ErrorCodeSchema,
    message: v.pipe(v.string(), v.description("Human-readable explanation.")),
    path: v.pipe(v.nullable(v.string()), v.description("Absolute path concerned, or null.")),
    path_bytes: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "Base64 of the path's raw bytes; present only when the path is not valid UTF-8 (`path` then has U+FFFD for the bad bytes).",
        ),
      ),
    ),
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

/** The longest quoted value an error message repeats whole (characters); a longer one keeps QUOTE_KEEP. */
const QUOTE_MAX = 200;
const QUOTE_KEEP = 80;
/** The longest error message (characters); a longer one keeps its head and tail. */
const MESSAGE_MAX = 1000;
/** The longest `path` an error record carries (PATH_MAX is 4096 on Linux). */
const PATH_MAX = 4096;

/**
 * Returns a text cut to its first `max` characters, with how many were left out.
 * @param text the text
 * @param max the most characters kept
 * @returns the text, or its prefix and "… (N more characters)"
 */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * Returns an error message that quotes at most a short prefix of each quoted value ('…' or "…") and is at most
 * MESSAGE_MAX characters long: a huge bad argument is never echoed whole.
 * @param message the message
 * @returns the bounded message
 */
export function boundMessage(message: string): string {
  if (message.length <= QUOTE_MAX) return message;
  const quoted = message.replace(
    new RegExp(`'([^']{${QUOTE_MAX + 1},})'|"([^"]{${QUOTE_MAX + 1},})"`, "g"),
    (_m, a: string | undefined, b: string | undefined) =>
      a !== undefined ? `'${clipText(a, QUOTE_KEEP)}'` : `"${clipText(b ?? "", QUOTE_KEEP)}"`,
  );
  if (quoted.length <= MESSAGE_MAX) return quoted;
  return `${quoted.slice(0, MESSAGE_MAX - 200)}… (${quoted.length - MESSAGE_MAX + 200} characters left out) …${quoted.slice(-150)}`;
}

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
    super(boundMessage(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    const p = options.path ?? null;
    this.path = p !== null && p.length > PATH_MAX ? clipText(p, PATH_MAX) : p;
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
