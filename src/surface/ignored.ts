/*! After a find or grep that found nothing while ignore rules left entries out: what the same query finds among
 * them (the first three, within a quarter of a second), each with the rule that ignores it (explain's reason). "Why is
 * icons.ts not there?" is then answered by the empty result itself: trial agents spent a call or two on `-u` and
 * `explain` for it (CLI stderr and MCP text; the structured result is unchanged). */
import * as path from "node:path";
import { collect, inputKeys } from "../agent/call.ts";
import type { Operation } from "../ops/operation.ts";
import { findOperation } from "../ops/registry.ts";

/** What the query finds among the ignored entries, at most this many. */
const MOST = 3;
/** How long the second look may take (it walks what the ignore rules pruned: a node_modules, a build). */
const SECONDS = 0.25;

/** A hit among the ignored entries. */
interface IgnoredHit {
  /** Its path relative to the base, with `:line` for a grep line. */
  readonly shown: string;
  /** The reason that leaves it out (explain's, e.g. "ignored by .gitignore:2: build/"), or null. */
  readonly why: string | null;
}

/**
 * Runs the query again with the ignore rules off, when it found nothing and they left entries out.
 * @param op the operation (find and grep only)
 * @param input the query's input
 * @param summary the query's result summary
 * @returns the hits among the ignored entries (none when it does not apply or they hold none), and whether
 *   there were more than those
 */
export async function ignoredHits(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  summary: Readonly<Record<string, unknown>>,
): Promise<{ hits: IgnoredHit[]; more: boolean }> {
  const none = { hits: [], more: false };
  if ((op.id !== "find" && op.id !== "grep") || input.respect_gitignore === false) return none;
  const ignored = (summary.skipped as { ignored?: unknown } | undefined)?.ignored;
  if (typeof ignored !== "number" || ignored === 0) return none;
  const { cursor: _cursor, max_output_bytes: _bytes, ...query } = input;
  // In this thread (grep's workers would cost more to start than the look may take).
  const again = await collect(op, {
    ...query,
    ...(op.id === "grep" ? { threads: 0 } : {}),
    respect_gitignore: false,
    limit: MOST,
    timeout_seconds: SECONDS,
  });
  if (!again.ok) return none;
  const found = (again.result.results ?? []) as Array<{
    path?: unknown;
    relative_path?: unknown;
    line_number?: unknown;
  }>;
  // Why each is left out: explain with the query's walk options.
  const explain = findOperation("explain");
  const keys = inputKeys(explain);
  const walkOptions: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) if (keys.has(k) && k !== "limit") walkOptions[k] = v;
  const why = new Map<string, string | null>();
  const hits: IgnoredHit[] = [];
  for (const r of found) {
    if (typeof r.path !== "string" || typeof r.relative_path !== "string") continue;
    if (!why.has(r.path)) {
      const e = await collect(explain, { ...walkOptions, path: r.path, timeout_seconds: SECONDS });
      const reasons = e.ok
        ? ((e.result.results as Array<{ reasons?: Array<{ stage: string; detail: string }> }>)[0]?.reasons ??
          [])
        : [];
      why.set(r.path, reasons.find((x) => x.stage === "ignore")?.detail ?? null);
    }
    const line = typeof r.line_number === "number" ? `:${r.line_number}` : "";
    hits.push({ shown: `${r.relative_path}${line}`, why: why.get(r.path) ?? null });
  }
  return { hits, more: again.result.truncated === true && again.result.truncated_reason === "limit" };
}

/**
 * The note that names them.
 * @param found the hits and whether there were more
 * @returns the note's text (without a prefix), or null for no hits
 */
export function ignoredHitsNote(found: { hits: readonly IgnoredHit[]; more: boolean }): string | null {
  if (found.hits.length === 0) return null;
  const list = found.hits.map((h) => (h.why === null ? h.shown : `${h.shown} (${h.why})`)).join("; ");
  return `among the ignored entries, the same query finds${found.more ? ", first" : ""}: ${list}`;
}

/**
 * The notes that give, after a human listing of --only-ignored, the rule that ignores each path listed: one line
 * per rule (FILE:LINE:PATTERN, as git check-ignore -v), with the paths it ignores (the first ten, and how many
 * more), relative to the current directory as the listing is.
 * @param seen each record's rule, absolute path and what follows the path (find's ignored directory listed as
 *   one: how many entries it holds), in output order (a grep file once per line)
 * @param cwd the current directory
 * @param format find's --format, when given: the listing is the user's, so the notes do not list its paths again
 *   (#37: every path came twice, on stdout and on stderr): none when it shows {ignored_by}, else a count per rule
 * @returns the notes' texts (without a prefix)
 */
export function ignoredRulesNotes(
  seen: ReadonlyArray<readonly [string, string, string?]>,
  cwd: string,
  format?: string,
): string[] {
  if (format?.includes("{ignored_by}")) return [];
  if (format !== undefined) {
    const counts = new Map<string, number>();
    for (const [rule] of seen) counts.set(rule, (counts.get(rule) ?? 0) + 1);
    const lines = [...counts].map(([rule, n]) => `ignored by ${rule}: ${n} ${n === 1 ? "entry" : "entries"}`);
    return [...lines, "{ignored_by} in --format shows each entry's rule"];
  }
  const byRule = new Map<string, string[]>();
  for (const [rule, abs, suffix] of seen) {
    const list = byRule.get(rule) ?? [];
    const rel = path.relative(cwd, abs);
    const shown = (rel === "" ? "." : rel.startsWith("..") ? abs : rel) + (suffix ?? "");
    if (list[list.length - 1] !== shown) list.push(shown);
    byRule.set(rule, list);
  }
  return [...byRule].map(([rule, paths]) => {
    const more = paths.length > 10 ? `, and ${paths.length - 10} more` : "";
    return `ignored by ${rule}: ${paths.slice(0, 10).join(", ")}${more}`;
  });
}
