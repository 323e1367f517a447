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

/** A walk order key: "root:relative/path" (a trailing "/" marks a directory in tree's keys). */
const WALK_KEY = /^(?:0|[1-9][0-9]{0,8}):[^\u0000]*$/;
/** A count of records given before a cursor, or a line or column number. */
const COUNT = /^(?:0|[1-9][0-9]{0,15})$/;

function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** Parses a JSON array key of the given element types ("n" a count, "s" a string), or null. */
function jsonTuple(key: string, shape: string): unknown[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== shape.length) return null;
  for (const [i, t] of [...shape].entries()) {
    const v = parsed[i];
    if (t === "n" ? !isCount(v) : typeof v !== "string") return null;
  }
  return parsed;
}

/**
 * Tells whether an order key has the shape the operation's records give their keys, field by field, so that a
 * mangled cursor is refused before any code reads it.
 * @param op the operation id
 * @param input the normalized input (modes change the key's shape)
 * @param key the order key
 * @returns true when the key is well formed for this query
 */
export function validOrderKey(op: string, input: Readonly<Record<string, unknown>>, key: string): boolean {
  switch (op) {
    case "find":
      return input.sort === "path" && !input.reverse ? WALK_KEY.test(key) : jsonTuple(key, "nsns") !== null;
    case "grep": {
      const parts = key.split("\u0000");
      if (!WALK_KEY.test(parts[0] as string) || !parts.slice(1).every((p) => COUNT.test(p))) return false;
      const lines = !input.files_with_matches && !input.files_without_match && !input.count;
      return lines ? parts.length === 3 || parts.length === 4 : parts.length <= 2;
    }
    case "count":
    case "lcount":
    case "tsize":
    case "tree":
      return WALK_KEY.test(key);
    case "top":
      return jsonTuple(key, "nns") !== null;
    case "stats":
      return jsonTuple(key, "nns") !== null;
    case "dupes":
      return /^[a-z0-9-]{1,20}:[0-9a-f]{8,128}$/.test(key);
    case "explain":
    case "index":
      return key === "0";
    default:
      return true;
  }
}

/**
 * Decodes a cursor token and checks that it belongs to this query and that its order key is well formed.
 * @param token the token
 * @param fp the fingerprint of the current query
 * @param valid checks the order key's shape (see validOrderKey)
 * @returns the order key to resume after
 * @throws RglobError BAD_PREDICATE for a mangled token or one from another query
 */
export function decodeCursor(
  token: string,
  fp: string,
  valid: (key: string) => boolean = () => true,
): string {
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
  if (!valid(c.k))
    throw new RglobError("BAD_PREDICATE", "cursor is not a valid rglob cursor (its order key is mangled)");
  return c.k;
}
