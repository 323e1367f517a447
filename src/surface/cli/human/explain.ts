/*! Human output of explain: "PATH: included" or "PATH: not included", then one indented line per reason,
 * with ignore files shown relative to the current directory (e.g. "ignored by .gitignore:1: *.log"). */
import * as path from "node:path";
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { ExplainReason, Explanation, IgnoreRuleRecord } from "../../../ops/explain/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { consultedOnce, insideWords } from "../../hints.ts";
import { displayPath, paint, type Style } from "./paths.ts";

/**
 * Returns the note of an explain that gave no explanation because `--only` kept none (exit 1): how many paths it
 * explained and that none has the verdict asked for, so that exit 1 does not read as "no such path".
 * @param input the validated input (its `only`)
 * @param summary the result summary (its `explained`)
 * @returns the note, or null
 */
export function onlyKeptNoneNote(
  input: Readonly<Record<string, unknown>>,
  summary: Readonly<Record<string, unknown>>,
): string | null {
  const n = summary.explained;
  if (typeof n !== "number" || n === 0 || typeof input.only !== "string") return null;
  if (input.only === "unused")
    return `every ignore rule read decides at least one of the ${n === 1 ? "1 path" : `${n} paths`} below the base (--rules --only unused)`;
  // What the paths explained are, then, for one path and for several.
  const one =
    input.only === "included"
      ? "it is not included"
      : input.only === "ignored"
        ? "it is not ignored"
        : "it is included";
  const many =
    input.only === "included"
      ? "none is included"
      : input.only === "ignored"
        ? "none is ignored"
        : "every one is included";
  return `${n === 1 ? "1 path" : `${n} paths`} explained: ${n === 1 ? one : many} (--only ${input.only.replaceAll("_", "-")})`;
}

/** Human sink for explain records. */
export class ExplainHumanSink implements Sink {
  /** The ignore files consulted, as the last "no ignore rule matches it" said them in full. */
  private readonly said: { consulted: string | null } = { consulted: null };

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    /** The request's base: the paths a rule decides are relative to it, shown relative to the current directory. */
    private readonly base = ".",
  ) {}

  private detail(r: ExplainReason): string {
    if (r.stage !== "ignore" || r.file === undefined) return r.detail;
    const where = `${displayPath(r.file, this.style)}:${r.line ?? 0}: ${r.pattern ?? ""}`;
    const colon = r.detail.indexOf(" by ");
    return colon < 0 ? r.detail : `${r.detail.slice(0, colon)} by ${where}`;
  }

  record(kind: string, record: object): void {
    if (kind === "rule") {
      this.rule(record as IgnoreRuleRecord);
      return;
    }
    const r = record as Explanation;
    const p = paint(this.style);
    // A path that is not there (#37) says so beside its verdict; its reasons say what the rules make of it.
    const verdict = r.included
      ? p.line("included")
      : `${p.match("not included")}${r.exists === false ? ", it does not exist" : ""}`;
    // An ignored directory explained as one (#37): `dir/`, and how many entries it holds, as git shows it.
    const words = insideWords(r);
    const inside = words === null ? "" : `, with ${words} (--expand lists them)`;
    const slash = r.entries_inside === undefined ? "" : "/";
    const lines = [`${displayPath(r.path, this.style)}${slash}: ${verdict}${inside}`];
    // The ignore files consulted are said once for the entries that share them: an included entry whose only
    // reason is that is then one line.
    for (const reason of consultedOnce(r.reasons, this.said)) lines.push(`  ${this.detail(reason)}`);
    this.write(`${lines.join("\n")}\n`);
  }

  /** A rule of --rules: `FILE:LINE: PATTERN`, how many paths it decides, then (--expand) those paths. */
  private rule(r: IgnoreRuleRecord): void {
    const p = paint(this.style);
    const n = r.decides;
    const what = n === 0 ? p.match("decides nothing") : `decides ${n} ${n === 1 ? "path" : "paths"}`;
    const lines = [`${displayPath(r.path, this.style)}:${r.line}: ${r.pattern}  (${what})`];
    const base = path.resolve(this.style.cwd, this.base);
    for (const q of r.decided ?? []) {
      const slash = q.endsWith("/") ? "/" : "";
      lines.push(`  ${displayPath(path.join(base, slash ? q.slice(0, -1) : q), this.style)}${slash}`);
    }
    this.write(`${lines.join("\n")}\n`);
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
