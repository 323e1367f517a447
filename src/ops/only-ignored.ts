/*! only_ignored (#37): find and grep over what the ignore rules leave out, each record with the rule that ignores
 * it (`ignored_by`, FILE:LINE:PATTERN as git check-ignore -v prints it). The query runs with the ignore rules off
 * (and no extra ignore file), and each record whose path explain's verdict, under the query's own options, finds
 * ignored is kept, with that rule; the others are dropped. One call answers "what do the ignored files hold, and
 * which rule hides each", which took a find -u, a grep -u and an explain per file. The summary's totals (grep's
 * matches, matching lines and files) count the records kept. */
import * as path from "node:path";
import type { WalkOptions } from "../contract/walk-options.ts";
import { explainMemo, explainPath } from "../engine/explain.ts";
import { compileWalk, toPosix } from "../engine/plan.ts";
import type { RunContext } from "../engine/run.ts";
import type { Entry } from "../engine/walk.ts";
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

/** grep's summary totals, counted again over the records kept. */
const TOTALS = ["total_matches", "matched_lines", "files_with_matches"] as const;

/**
 * Wraps an operation's run: with `only_ignored`, it runs over the ignored entries alone, each record with its rule.
 * @param run the operation's run
 * @returns the run that honours only_ignored
 */
export function withOnlyIgnored<Q extends object>(
  run: Runner<Q>,
  of: QueryOf<Q> = INPUT_IS_QUERY as QueryOf<Q>,
): Runner<Q> {
  return async function* (q, ctx) {
    const o = of.input(q) as { only_ignored?: boolean };
    if (o.only_ignored !== true) {
      yield* run(q, ctx);
      return;
    }
    // The verdicts: the query's own walk options, ignore rules on.
    const { plan } = compileWalk(o as unknown as WalkOptions);
    const memo = explainMemo(plan);
    const rules = new Map<string, string | null>();
    const ruleOf = (abs: string): string | null => {
      let rule = rules.get(abs);
      if (rule === undefined) {
        const verdict = explainPath(plan, o as unknown as WalkOptions, abs, () => {}, memo);
        const why = verdict.included ? undefined : verdict.reasons.find((r) => r.stage === "ignore");
        rule = null;
        if (why?.file !== undefined && why.line !== undefined && why.pattern !== undefined) {
          const rel = toPosix(path.relative(plan.base, why.file));
          const file = rel.startsWith("../") || path.isAbsolute(rel) ? why.file : rel;
          rule = `${file}:${why.line}:${why.pattern}`;
        }
        rules.set(abs, rule);
      }
      return rule;
    };
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
      summary(key: string, value: unknown) {
        if ((TOTALS as readonly string[]).includes(key)) counting = true;
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
          kept.push({ ...e, record: { ...e.record, ignored_by: rule } });
          const r = e.record as { submatches?: unknown[]; count?: unknown };
          if (e.kind === "match") {
            totals.matched_lines++;
            totals.total_matches += Array.isArray(r.submatches) ? Math.max(1, r.submatches.length) : 1;
          } else if (e.kind === "file" && typeof r.count === "number") {
            totals.matched_lines += r.count;
            totals.total_matches += r.count;
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
