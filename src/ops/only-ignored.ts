/*! only_ignored (#37): find and grep over what the ignore rules leave out, each record with the rule that ignores
 * it (`ignored_by`, FILE:LINE:PATTERN as git check-ignore -v prints it). The query runs with the ignore rules off
 * (and no extra ignore file), and each record whose path explain's verdict, under the query's own options, finds
 * ignored is kept, with that rule; the others are dropped. One call answers "what do the ignored files hold, and
 * which rule hides each", which took a find -u, a grep -u and an explain per file. The summary's totals (grep's
 * matches, matching lines and files) count the records kept. */
import * as path from "node:path";
import * as v from "valibot";
import { RglobError } from "../contract/errors.ts";
import type { TEXT_FACTS } from "../contract/result.ts";
import type { WalkOptions } from "../contract/walk-options.ts";
import { explainMemo, explainPath, type PathVerdict } from "../engine/explain.ts";
import { type GitPlaces, ignoredAncestor } from "../engine/ignore.ts";
import { compileWalk, gitOf, toPosix } from "../engine/plan.ts";
import type { RunContext } from "../engine/run.ts";
import { type Entry, VCS_DIRS } from "../engine/walk.ts";
import { joinPath } from "../platform/names.ts";
import { insideDir, platform } from "../platform/platform.ts";
import type { Emitted, Yielded } from "./operation.ts";
import { fileMatchOf } from "./walk-records.ts";

/** What runs an operation, on its compiled query (or its input, for an operation with no query layer). */
type Runner<Q> = (query: Q, ctx: RunContext) => AsyncIterable<Yielded>;

/** How the wrapper reads a query's input and makes the query of another input. */
interface QueryOf<Q> {
  /** The request's input behind the query. */
  input(q: Q): object;
  /** The query of the same request with another input (ignore rules off). */
  with(q: Q, input: object): Q | Promise<Q>;
}

/** An operation with no query layer: its query is its input. */
const INPUT_IS_QUERY: QueryOf<object> = { input: (q) => q, with: (_q, input) => input };

/** What an ignored directory listed as one holds, at every depth: the record fields of a folded directory. */
export interface Inside {
  /** Every entry (files, directories, symlinks and the other kinds). */
  readonly entries_inside: number;
  /** Regular files, as find -type f counts them (a symlink is not one). */
  readonly files_inside: number;
  /** Directories. */
  readonly dirs_inside: number;
}

/**
 * Counts the entries below a directory (every depth, symlinks not followed, VCS directories left out), and
 * among them the regular files and the directories, so that "how many files does each ignored folder hold" is
 * answered by the folded record itself (#37).
 * @param dir the directory's absolute path
 * @returns the counts (a directory that cannot be listed counts as empty)
 */
export function entriesBelow(dir: string): Inside {
  let entries = 0;
  let files = 0;
  let dirs = 0;
  const todo = [dir];
  for (let d = todo.pop(); d !== undefined; d = todo.pop()) {
    let listing: ReturnType<typeof platform.listDir>;
    try {
      listing = platform.listDir(d);
    } catch {
      continue;
    }
    for (const name of listing.names) {
      if (VCS_DIRS.has(name)) continue;
      entries++;
      let type = listing.others?.get(name) ?? "file";
      if (type === "unknown") {
        try {
          const st = platform.lstat(joinPath(d, name));
          type = st.isDirectory() ? "dir" : st.isFile() ? "file" : "unknown";
        } catch {}
      }
      if (type === "file") files++;
      else if (type === "dir") {
        dirs++;
        todo.push(joinPath(d, name));
      }
    }
  }
  return { entries_inside: entries, files_inside: files, dirs_inside: dirs };
}

/**
 * Says the rule that ignores a path as git check-ignore -v does: FILE:LINE:PATTERN, the file relative to the base
 * (absolute outside it).
 * @param base the request's base
 * @param verdict explain's verdict on the path
 * @returns the rule, or null when no ignore rule keeps it out
 */
function ruleText(base: string, verdict: PathVerdict): string | null {
  const why = verdict.included ? undefined : verdict.reasons.find((r) => r.stage === "ignore");
  if (why?.file === undefined || why.line === undefined || why.pattern === undefined) return null;
  return ruleWords(base, why as { file: string; line: number; pattern: string });
}

/** FILE:LINE:PATTERN, the file relative to the base (absolute outside it). */
function ruleWords(base: string, why: { file: string; line: number; pattern: string }): string {
  const rel = toPosix(path.relative(base, why.file));
  const file = rel.startsWith("../") || path.isAbsolute(rel) ? why.file : rel;
  return `${file}:${why.line}:${why.pattern}`;
}

/**
 * Returns the rule that ignores each path of a query, for find's `--format {ignored_by}` when the records do not
 * carry it (#37: `find -u --format '{rel} {ignored_by}'` printed it empty): the query's own options with the ignore
 * rules on, whatever -u/--no-ignore turned off. Made only when the format asks; each verdict costs an explain.
 * Below a root that lies in an ignored directory (`--base build/sub` under `build/`), every path has that
 * directory's rule, as git check-ignore -v names it (#36: it was empty there, the walk never testing the
 * directories above its root).
 * @param input find's input (validated here)
 * @param git where git's config and global excludes file are
 * @returns the rule of a path (FILE:LINE:PATTERN), or "" when no ignore rule leaves it out
 */
export async function ignoredByLookup(input: object, git: GitPlaces): Promise<(abs: string) => string> {
  const { FindInputSchema } = await import("./find/schema.ts");
  const o = { ...(v.parse(FindInputSchema, input) as WalkOptions), respect_gitignore: true };
  let compiled: {
    plan: ReturnType<typeof compileWalk>["plan"];
    memo: ReturnType<typeof explainMemo>;
    /** Each directory root with the rule that ignores it or a directory above it (null: none does). */
    above: Array<{ abs: string; rule: string | null }>;
  } | null = null;
  return (abs) => {
    if (compiled === null) {
      const { plan } = compileWalk(o, { git });
      const above = plan.roots
        .filter((r) => r.type === "dir")
        .map((r) => {
          const m = ignoredAncestor(r.outer, r.repoPrefix);
          const rule = m === null ? null : ruleWords(plan.base, { file: m.file.file, ...m.rule });
          return { abs: r.abs, rule };
        });
      compiled = { plan, memo: explainMemo(plan), above };
    }
    const { plan, memo, above } = compiled;
    const root = above.find((r) => abs !== r.abs && insideDir(abs, r.abs));
    if (root?.rule != null) return root.rule;
    return (
      ruleText(
        plan.base,
        explainPath(plan, o, abs, () => {}, memo),
      ) ?? ""
    );
  };
}

/** grep's summary totals, counted again over the records kept. */
const TOTALS = ["total_matches", "matched_lines", "files_with_matches"] as const;

/**
 * With every ignore rule off (-u, --no-ignore: respect_gitignore false and no ignore_files), nothing can be
 * ignored: only_ignored would answer nothing, which reads as "no ignored file matches". A usage error instead.
 * @param o the query's walk options
 * @param find whether the operation is find (grep's error also names -a/--text, what -uuu adds)
 * @throws RglobError BAD_PREDICATE when the options leave no ignore rule to apply
 */
function noRulesLeft(o: WalkOptions, find: boolean): void {
  const extra = o.ignore_files !== undefined && o.ignore_files.length > 0;
  const off = o.respect_gitignore === false || (o.ignore_vcs === false && o.ignore_dot === false);
  if (!off || extra) return;
  const [why, fix] =
    o.respect_gitignore === false
      ? ["-u/--no-ignore (respect_gitignore false) turns them off", "drop -u/--no-ignore"]
      : [
          "--no-ignore-vcs with --no-ignore-dot (ignore_vcs and ignore_dot false) turn them off",
          "drop one of them",
        ];
  // Hidden entries are searched by default; binary files are what -uuu adds to grep.
  const then = find ? "" : " (and use -a/--text to search binary files too)";
  throw new RglobError(
    "BAD_PREDICATE",
    `--only-ignored (only_ignored) lists what the ignore rules leave out, but ${why}, so nothing is ignored: ${fix}${then}`,
  );
}

/**
 * Wraps an operation's run: with `only_ignored`, it runs over the ignored entries alone, each record with its rule.
 * @param run the operation's run
 * @returns the run that honours only_ignored
 */
export function withOnlyIgnored<Q extends object>(
  run: Runner<Q>,
  of: QueryOf<Q> = INPUT_IS_QUERY as QueryOf<Q>,
  collapse = false,
): Runner<Q> {
  return async function* (q, ctx) {
    const o = of.input(q) as { only_ignored?: boolean; expand?: boolean };
    if (o.only_ignored !== true) {
      yield* run(q, ctx);
      return;
    }
    noRulesLeft(o as unknown as WalkOptions, collapse);
    // The verdicts: the query's own walk options, ignore rules on.
    const { plan } = compileWalk(o as unknown as WalkOptions, gitOf(ctx));
    const memo = explainMemo(plan);
    const verdicts = new Map<string, PathVerdict>();
    const verdictOf = (abs: string): PathVerdict => {
      let verdict = verdicts.get(abs);
      if (verdict === undefined) {
        verdict = explainPath(plan, o as unknown as WalkOptions, abs, () => {}, memo);
        verdicts.set(abs, verdict);
      }
      return verdict;
    };
    const rules = new Map<string, string | null>();
    const ruleOf = (abs: string): string | null => {
      let rule = rules.get(abs);
      if (rule === undefined) {
        rule = ruleText(plan.base, verdictOf(abs));
        rules.set(abs, rule);
      }
      return rule;
    };
    // find (collapse), unless expand: an ignored directory is one record with entries_inside, as git ls-files -o
    // -i --directory lists `dir/`, and what it holds is left out. Only a directory that the query itself lists
    // (nothing but the ignore rule keeps it out) and that lies below a root: otherwise its entries stay listed.
    const roots = plan.roots.map((r) => r.abs);
    const folds = (dir: string): boolean => {
      if (!roots.some((r) => dir.startsWith(r.endsWith(path.sep) ? r : r + path.sep))) return false;
      const v = verdictOf(dir);
      return !v.included && v.reasons.every((r) => r.stage === "ignore");
    };
    const foldedInto = (abs: string): string | null => {
      for (let dir = path.dirname(abs); dir !== path.dirname(dir); dir = path.dirname(dir)) {
        if (ruleOf(dir) === null) break; // the first directory that is not ignored: nothing above folds it
        if (ruleOf(path.dirname(dir)) === null) return folds(dir) ? dir : null; // the topmost ignored one
      }
      return null;
    };
    const folding = collapse && o.expand !== true;
    // The run itself: ignore rules off; its walk entries (find's) and lines are taken here, never written past
    // this filter: entries become records once their rule is known, lines come as records (no line events).
    const pending: Entry[] = [];
    const drain = (): Emitted[] =>
      pending.splice(0).map((e) => ({ kind: "file", record: fileMatchOf(e), key: e.key }) as Emitted);
    const totals = { total_matches: 0, matched_lines: 0, files_with_matches: 0 };
    const files = new Set<string>();
    // grep's totals (it sets them) are those of the records kept, not of the whole search.
    let counting = false;
    const inner: RunContext = {
      ...ctx,
      events: {
        entry: (e) => {
          pending.push(e as Entry);
          return true;
        },
        lines: null,
      },
      summary(key: string | typeof TEXT_FACTS, value: unknown) {
        if (typeof key === "string" && (TOTALS as readonly string[]).includes(key)) counting = true;
        else ctx.summary(key, value);
      },
    };
    try {
      const query = await of.with(q, {
        ...o,
        only_ignored: false,
        respect_gitignore: false,
        ignore_files: [],
      });
      const items = async function* (): AsyncGenerator<readonly Emitted[]> {
        for await (const y of run(query, inner)) {
          const got = drain();
          yield got.concat(Array.isArray(y) ? (y as readonly Emitted[]) : [y as Emitted]);
        }
        yield drain();
      };
      for await (const batch of items()) {
        const kept: Emitted[] = [];
        for (const e of batch) {
          const at = (e.record as { path?: unknown }).path;
          if (typeof at !== "string") {
            kept.push(e);
            continue;
          }
          const rule = ruleOf(at);
          if (rule === null) continue;
          if (folding && foldedInto(at) !== null) continue;
          const isDir = (e.record as { entry_type?: unknown }).entry_type === "dir";
          const inside = folding && isDir && folds(at) ? entriesBelow(at) : {};
          kept.push({ ...e, record: { ...e.record, ignored_by: rule, ...inside } });
          const r = e.record as { submatches?: unknown[]; count?: unknown };
          if (e.kind === "match") {
            totals.matched_lines++;
            totals.total_matches += Array.isArray(r.submatches) ? Math.max(1, r.submatches.length) : 1;
          } else if (e.kind === "file" && typeof r.count === "number") {
            totals.matched_lines += r.count;
            totals.total_matches += r.count;
          } else if (e.kind === "file" && r.count === null) {
            // files_with_matches: the file's search stopped at its first matching line, whose submatches the
            // record does not carry: one line and at least one match (it said 0 matches in 2 files).
            totals.matched_lines++;
            totals.total_matches++;
          }
          if (r.count !== 0) files.add(at);
        }
        if (kept.length > 0) yield kept;
      }
    } finally {
      if (counting) {
        totals.files_with_matches = files.size;
        for (const k of TOTALS) ctx.summary(k, totals[k]);
      }
    }
  };
}
