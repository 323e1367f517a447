/*! grep: the JSONL form of its records. The JSON result keeps context inside each LineMatch (`before`,
 * `after`); a JSONL stream gives it as separate {"kind":"context"} lines, each line once and in file order as
 * grep prints it (overlapping groups merge), and the match line then has empty `before`/`after`. */
import type { JsonlExpander } from "../operation.ts";
import type { ContextLine, LineMatch } from "./schema.ts";

/**
 * Creates the JSONL expander of one grep stream.
 * @returns the expander (it remembers the last line given per file)
 */
export function grepJsonlExpander(): JsonlExpander {
  let lastPath = "";
  let lastLine = 0;
  return (kind, record) => {
    if (kind !== "match") return null;
    const m = record as LineMatch;
    if (m.path !== lastPath) {
      lastPath = m.path;
      lastLine = 0;
    }
    const before = m.before ?? [];
    const after = m.after ?? [];
    if (before.length === 0 && after.length === 0) {
      lastLine = Math.max(lastLine, m.line_number);
      return null;
    }
    const out: Array<readonly [string, object]> = [];
    const context = (c: ContextLine) => {
      if (c.line_number <= lastLine) return;
      lastLine = c.line_number;
      out.push([
        "context",
        m.path_bytes === undefined
          ? { path: m.path, relative_path: m.relative_path, ...c }
          : { path: m.path, path_bytes: m.path_bytes, relative_path: m.relative_path, ...c },
      ]);
    };
    for (const c of before) context(c);
    out.push([kind, { ...m, before: [], after: [] }]);
    lastLine = Math.max(lastLine, m.line_number + m.content.split("\n").length - 1);
    for (const c of after) context(c);
    return out;
  };
}
