/*! After a find or grep that found nothing while ignore rules left entries out: what the same query finds among
 * them (the first three), each with the rule that ignores it (explain's reason). "Why is icons.ts not there?" is
 * then answered by the empty result itself: trial agents spent a call or two on `-u` and `explain` for it (CLI
 * stderr and MCP text; the structured result is unchanged). The second look is bounded by work, never by time, so
 * that a cold run, a served one and the MCP tool say the same at any load (#36). */
import * as path from "node:path";
import { collect, inputKeys } from "../agent/call.ts";
import type { Config } from "../config.ts";
import type { RunContext, WarmLookRecorder, WarmProvider } from "../engine/run.ts";
import type { SearchSpec } from "../engine/search/search-file.ts";
import type { WalkPlan } from "../engine/walk-types.ts";
import type { Operation } from "../ops/operation.ts";
import { findOperation } from "../ops/registry.ts";

/** What the query finds among the ignored entries, at most this many. */
const MOST = 3;
/**
 * The most entries the second look's walk examines (names listed, with the ignore rules off), by operation: find
 * tests names, grep opens and reads each file (about ten times the work an entry). Multiples of the 256 at which
 * the walk checks whether to stop, so it stops at exactly this many. It walks what the ignore rules pruned (a
 * node_modules, a build) and the rest of the tree again: a deadline cut it at a point that depended on the
 * machine's load, and a cold and a served run of one query said different things (#36).
 */
const LOOK_ENTRIES: Readonly<Record<"find" | "grep", number>> = { find: 50_176, grep: 10_240 };
/** The most content bytes the second look of a grep reads (its max_bytes, or the query's own when smaller). */
const LOOK_BYTES = 16 << 20;

/** A hit among the ignored entries. */
interface IgnoredHit {
  /** Its path relative to the base, with `:line` for a grep line. */
  readonly shown: string;
  /** The reason that leaves it out (explain's, e.g. "ignored by .gitignore:2: build/"), or null. */
  readonly why: string | null;
}

/** What the second look found, and whether it stopped before the end: at the limit (more), or at its budget. */
interface IgnoredLook {
  readonly hits: IgnoredHit[];
  /** There were more hits than those (the limit cut the look). */
  readonly more: boolean;
  /** The look stopped at its budget before the end of the walk: how far it went ("the first 50,176 entries
   * walked"), or null. */
  readonly spent: string | null;
}

/**
 * Wraps an operation so that its walk stops once it has examined `most` entries: the walk counts them and asks
 * whether to stop every 256 (engine/walk.ts), at the same entry on any machine. The count is kept in `seen`.
 * @param op the operation
 * @param most the entries the walk may examine
 * @param seen where the count goes
 * @returns the bounded operation
 */
function byWork(op: Operation, most: number, seen: { examined: number }): Operation {
  return {
    ...op,
    run(query: object, ctx: RunContext) {
      return op.run(query, {
        ...ctx,
        progress(scanned: number) {
          seen.examined = scanned;
          ctx.progress(scanned);
        },
        shouldStop: () => seen.examined >= most || ctx.shouldStop(),
      });
    },
  };
}

/**
 * The grep inputs a look may be remembered for (#36): those whose walk and reads depend only on the tree's names
 * and the files' contents, which the watch follows. Not: the predicates on stats or on the time (a file that grows
 * or ages changes the selection with no event on a file the look read), links followed, ignore files named.
 */
const REMEMBERED_KEYS = new Set([
  "pattern",
  "regexps",
  "operands",
  "base",
  "paths",
  "patterns",
  "exclude",
  "types",
  "extensions",
  "file_types",
  "file_types_not",
  "type_add",
  "max_depth",
  "min_depth",
  "hidden",
  "respect_gitignore",
  "ignore_vcs",
  "strict_base",
  "case_sensitive",
  "limit",
  "fixed_strings",
  "ignore_case",
  "smart_case",
  "word_regexp",
  "line_regexp",
  "multiline",
  "only_matching",
  "before_context",
  "after_context",
  "context",
  "files_with_matches",
  "count",
  "count_matches",
  "max_count",
  "max_per_file",
  "max_bytes",
  "max_file_size",
  "max_columns",
  "list_binary",
  "binary_sniff_bytes",
  "threads",
  "in",
  "docstrings",
]);

/**
 * The key a warm server remembers a grep's look by: its input but the pattern and the base (given as the directory
 * it resolves to, with the roots), the directory relative paths are taken from, and where git's files are; null
 * when the look is not remembered (REMEMBERED_KEYS).
 * @param look the look's input
 * @param config the call's switches
 * @returns the key, or null
 */
function lookKey(look: Readonly<Record<string, unknown>>, config: Config): string | null {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(look)) {
    if (!REMEMBERED_KEYS.has(k)) return null;
    // The base is in the key as the directory it resolves to (remembered, below).
    if (k !== "pattern" && k !== "regexps" && k !== "base") rest[k] = v;
  }
  // The CLI's operands: the first is the pattern when none is given otherwise (ops/grep/operands.ts).
  const given = look.pattern !== undefined || (Array.isArray(look.regexps) && look.regexps.length > 0);
  if (!given && Array.isArray(look.operands)) rest.operands = look.operands.slice(1);
  return JSON.stringify([rest, process.cwd(), config.git]);
}

/**
 * Wraps a grep so that a warm server answers its look when it remembers one of the same key that no file can
 * match (WarmLook.answer), and records the look otherwise (WarmLook.recorder); the run is the cold one's either way.
 * @param op the operation (grep)
 * @param key the look's key
 * @param warm the server's warm state
 * @param got where the remembered answer, or the recorder, goes
 * @returns the wrapped operation
 */
function remembered(
  op: Operation,
  key: string,
  warm: WarmProvider,
  got: { answer: IgnoredLook | null; recorder: WarmLookRecorder | null },
): Operation {
  return {
    ...op,
    run(query: object, ctx: RunContext) {
      const q = query as { readonly plan?: WalkPlan; readonly spec?: SearchSpec };
      const looks = q.plan === undefined || q.spec === undefined ? null : (warm.look?.(q.plan) ?? null);
      if (looks === null || q.spec === undefined || q.plan === undefined) return op.run(query, ctx);
      // The base's real path, and the roots the operands became (an operand is a root when it exists, else a glob).
      const full = `${key}${JSON.stringify([q.plan.baseReal, q.plan.roots.map((r) => [r.real, r.type])])}`;
      const known = looks.answer(full, q.spec) as IgnoredLook | null;
      if (known !== null) {
        got.answer = known;
        return (async function* () {})();
      }
      got.recorder = looks.recorder(full);
      return op.run(query, { ...ctx, warm: got.recorder.provider });
    },
  };
}

/**
 * Runs the query again with the ignore rules off, when it found nothing and they left entries out, bounded by work
 * (LOOK_ENTRIES walked, LOOK_BYTES read), in this thread and with no walk workers, so that where it stops
 * depends on the tree alone.
 * @param op the operation (find and grep only)
 * @param input the query's input
 * @param summary the query's result summary
 * @param config the call's switches (a served call's are its client's)
 * @param warm a server's warm state: it answers a grep's look it remembers (the same answer), or records this one
 * @returns the hits among the ignored entries (none when it does not apply or they hold none), whether there
 *   were more than those, and whether the look stopped at its budget
 */
export async function ignoredHits(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  summary: Readonly<Record<string, unknown>>,
  config: Config,
  warm?: WarmProvider,
): Promise<IgnoredLook> {
  const none: IgnoredLook = { hits: [], more: false, spent: null };
  if ((op.id !== "find" && op.id !== "grep") || input.respect_gitignore === false) return none;
  const ignored = (summary.skipped as { ignored?: unknown } | undefined)?.ignored;
  if (typeof ignored !== "number" || ignored === 0) return none;
  // No deadline: the query's own (the MCP default's) would cut the look where the load says.
  const { cursor: _cursor, max_output_bytes: _bytes, timeout_seconds: _timeout, ...query } = input;
  const seen = { examined: 0 };
  const most = LOOK_ENTRIES[op.id];
  const settings = { ...config, walkSplit: 0 };
  const bytes =
    typeof query.max_bytes === "number" && query.max_bytes < LOOK_BYTES ? query.max_bytes : LOOK_BYTES;
  const look = {
    ...query,
    ...(op.id === "grep" ? { threads: 0, max_bytes: bytes } : {}),
    respect_gitignore: false,
    limit: MOST,
  };
  // A warm server's grep look: answered from one it remembers, or recorded (#36).
  const key = warm !== undefined && op.id === "grep" ? lookKey(look, config) : null;
  const got: { answer: IgnoredLook | null; recorder: WarmLookRecorder | null } = {
    answer: null,
    recorder: null,
  };
  const bounded = byWork(op, most, seen);
  // In this thread (grep's workers would cost more to start than the look may take) and without walk workers.
  const again = await collect(
    key === null || warm === undefined ? bounded : remembered(bounded, key, warm, got),
    look,
    {},
    settings,
  );
  if (got.answer !== null) return got.answer;
  if (!again.ok) return none;
  const found = (again.result.results ?? []) as Array<{
    path?: unknown;
    relative_path?: unknown;
    line_number?: unknown;
  }>;
  // Why each is left out: explain with the query's walk options (a path's explanation reads the directories and
  // ignore files on its way, a bounded cost).
  const explain = findOperation("explain");
  const keys = inputKeys(explain);
  const walkOptions: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) if (keys.has(k) && k !== "limit") walkOptions[k] = v;
  const why = new Map<string, string | null>();
  const hits: IgnoredHit[] = [];
  for (const r of found) {
    if (typeof r.path !== "string" || typeof r.relative_path !== "string") continue;
    if (!why.has(r.path)) {
      const e = await collect(explain, { ...walkOptions, path: r.path }, {}, settings);
      const reasons = e.ok
        ? ((e.result.results as Array<{ reasons?: Array<{ stage: string; detail: string }> }>)[0]?.reasons ??
          [])
        : [];
      why.set(r.path, reasons.find((x) => x.stage === "ignore")?.detail ?? null);
    }
    const line = typeof r.line_number === "number" ? `:${r.line_number}` : "";
    hits.push({ shown: `${r.relative_path}${line}`, why: why.get(r.path) ?? null });
  }
  const more = again.result.truncated === true && again.result.truncated_reason === "limit";
  const spent = more
    ? null
    : again.result.truncated_reason === "max_bytes"
      ? `the first ${bytes === LOOK_BYTES ? `${LOOK_BYTES >> 20} MiB` : `${bytes.toLocaleString("en-US")} bytes`} read`
      : seen.examined >= most
        ? `the first ${most.toLocaleString("en-US")} entries walked`
        : null;
  // A look that found nothing is remembered: a later one of the same key that no file it read can match says
  // the same.
  if (hits.length === 0 && found.length === 0) got.recorder?.keep({ hits, more, spent });
  return { hits, more, spent };
}

/**
 * The note that names them, or says that the look stopped at its budget before it found any.
 * @param found the hits, whether there were more, and whether the look stopped at its budget
 * @param surface "cli" names the flag that searches every ignored entry, "mcp" the input key
 * @returns the note's text (without a prefix), or null for no hits in a look that went to the end
 */
export function ignoredHitsNote(found: IgnoredLook, surface: "cli" | "mcp"): string | null {
  const all = surface === "cli" ? "--no-ignore" : "respect_gitignore: false";
  const where = `${found.spent} with the ignore rules off`;
  if (found.hits.length === 0)
    return found.spent === null
      ? null
      : `among the ignored entries, the same query finds nothing in ${where}; the look stops there (${all} searches them all)`;
  const list = found.hits.map((h) => (h.why === null ? h.shown : `${h.shown} (${h.why})`)).join("; ");
  const first = found.more ? ", first" : "";
  const stop = found.spent === null ? "" : `; the look stopped after ${where} (${all} searches them all)`;
  return `among the ignored entries, the same query finds${first}: ${list}${stop}`;
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
