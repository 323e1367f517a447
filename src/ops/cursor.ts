/*! Pagination: stateless cursors. A cursor is base64url JSON {v, q, k}: the fingerprint of the query (every
 * input key but the page and budget ones) and the order key of the last record returned. It holds no state on
 * the server, so it works across processes and restarts. */

import { RglobError } from "../contract/errors.ts";
import { platform } from "../platform/platform.ts";

/** Input keys that may change between pages of one query (bounds and execution details, not the query). */
const PAGE_KEYS = new Set(["cursor", "limit", "max_output_bytes", "timeout_seconds", "threads"]);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (!PAGE_KEYS.has(key)) out[key] = canonical((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/**
 * Creates the fingerprint of a query.
 * @param op the operation id
 * @param input the validated input
 * @returns a short hex digest
 */
export function fingerprint(op: string, input: object): string {
  const h = platform.createHasher();
  h.update(new TextEncoder().encode(JSON.stringify([op, canonical(input)])));
  return h.digest().slice(0, 16);
}

/**
 * Creates a cursor token.
 * @param fp the query fingerprint
 * @param key the order key of the last record returned
 * @returns the opaque token
 */
export function encodeCursor(fp: string, key: string): string {
  return Buffer.from(JSON.stringify({ v: 1, q: fp, k: key })).toString("base64url");
}

/**
 * Decodes a cursor token and checks that it belongs to this query.
 * @param token the token
 * @param fp the fingerprint of the current query
 * @returns the order key to resume after
 * @throws RglobError BAD_PREDICATE for a mangled token or one from another query
 */
export function decodeCursor(token: string, fp: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor");
  }
  const c = parsed as { v?: unknown; q?: unknown; k?: unknown } | null;
  if (
    c === null ||
    typeof c !== "object" ||
    c.v !== 1 ||
    typeof c.q !== "string" ||
    typeof c.k !== "string"
  ) {
    throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor");
  }
  if (c.q !== fp) {
    throw new RglobError(
      "BAD_PREDICATE",
      "cursor belongs to a different query: repeat the query that returned it",
    );
  }
  return c.k;
}
