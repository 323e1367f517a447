/*! The wire form of paths that are not valid UTF-8. The engine holds such a path losslessly (one lone surrogate
 * per bad byte, platform/names.ts); a record gives `path` and `relative_path` in the lossy form (U+FFFD, as
 * Buffer#toString) and adds `path_bytes`, the base64 of the absolute path's raw bytes (a duplicate group:
 * `paths_bytes`, one entry per path, null for a valid one). Records whose paths are valid are passed through
 * as they are. */
import type { ErrorInfo } from "../contract/errors.ts";
import { encodeName, hasRawBytes } from "../platform/names.ts";
import { recordJson } from "../sink/sink.ts";

type Rec = Record<string, unknown>;

const lossy = (s: string): string => encodeName(s).toString("utf8");
const b64 = (s: string): string => encodeName(s).toString("base64");

/**
 * Returns the wire form of a record: itself when every path it holds is valid UTF-8, else a plain copy with
 * lossy paths and the raw bytes in base64.
 * @param record a record (FileMatch, LineMatch, a count, a duplicate group, a tree or top entry, …)
 * @returns the record to hand to the sink
 */
export function wireRecord(record: object): object {
  const r = record as Rec;
  const p = r.path;
  const ps = r.paths;
  const rawPath = typeof p === "string" && hasRawBytes(p);
  const rawPaths = Array.isArray(ps) && ps.some((x) => typeof x === "string" && hasRawBytes(x));
  if (!rawPath && !rawPaths) return record;
  // Through the record's own serialiser: some records keep fields as prototype getters.
  const plain = JSON.parse(recordJson(record)) as Rec;
  const out: Rec = {};
  for (const [k, val] of Object.entries(plain)) {
    if (k === "path" && rawPath) {
      out.path = lossy(val as string);
      out.path_bytes = b64(val as string);
    } else if (k === "relative_path" && typeof val === "string") {
      out.relative_path = lossy(val);
    } else if (k === "paths" && rawPaths) {
      const list = val as string[];
      out.paths = list.map(lossy);
      out.paths_bytes = list.map((x) => (hasRawBytes(x) ? b64(x) : null));
    } else if ((k === "relative_paths" || k === "hard_links") && Array.isArray(val)) {
      out[k] =
        k === "relative_paths"
          ? (val as string[]).map(lossy)
          : (val as string[][]).map((set) => set.map(lossy));
    } else out[k] = val;
  }
  return out;
}

/**
 * Returns the wire form of an error record (its path lossy, plus `path_bytes`).
 * @param info the error
 * @returns itself, or a copy
 */
export function wireError(info: ErrorInfo): ErrorInfo {
  if (info.path === null || !hasRawBytes(info.path)) return info;
  return {
    code: info.code,
    message: lossy(info.message),
    path: lossy(info.path),
    path_bytes: b64(info.path),
  };
}
