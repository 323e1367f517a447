/*! grep's human formatter factory: the query's extras (selected lines, named files, --replace), loaded with grep. */

import { resolve } from "node:path";
import { type GrepQuery, lineSelector } from "../../../ops/grep/query.ts";
import type { LineMatch } from "../../../ops/grep/schema.ts";
import { statPath } from "../../../platform/files.ts";
import { fsPath } from "../../../platform/names.ts";
import type { HumanFactory } from "./factory.ts";
import { GrepHumanSink } from "./grep.ts";

/** grep's human sink. */
export const grepHuman: HumanFactory = (out, style, p, input) => {
  const n = (k: string) => (typeof input[k] === "number" ? (input[k] as number) : 0);
  return new GrepHumanSink(
    out,
    style,
    {
      lineNumber: p.line_number !== false,
      withFilename: typeof p.with_filename === "boolean" ? p.with_filename : null,
      stats: p.stats === true,
      counting: input.count === true || input.count_matches === true,
      listing: input.files_with_matches === true || input.files_without_match === true,
      withoutMatch: input.files_without_match === true,
      nul: p.null === true,
      column: p.column === true,
      vimgrep: p.vimgrep === true,
      noColumn: p.column === false,
      heading: p.heading === true,
      by: typeof input.by === "string" ? input.by : undefined,
      encodingNamed: typeof input.encoding === "string" && input.encoding !== "auto",
    },
    n("context") + n("before_context") + n("after_context") > 0,
    isSingleFile(input),
    (query) => grepExtras(query as GrepQuery, typeof p.replace === "string" ? p.replace : undefined),
  );
};

/** What grep's human output needs from the compiled query: which lines are selected (for the after-context of a
 * -m stop), and --replace, whose regex is the search's own matcher. */
function grepExtras(
  q: GrepQuery,
  replacement: string | undefined,
): {
  selects: ((line: string) => boolean) | undefined;
  replace: ((line: string, r: LineMatch) => string) | undefined;
} {
  const g = q.input;
  const after = (g.after_context ?? g.context ?? 0) > 0 && g.only_matching !== true;
  let selects: ((line: string) => boolean) | undefined;
  // With `in`, whether a line after -m's last match holds a kept match depends on its file's regions, unknown
  // here: such a line is context, never a match line shown with the pattern's text on it.
  if (after && (g.max_per_file !== undefined || g.max_count !== undefined) && (g.in?.length ?? 0) === 0) {
    const test = lineSelector(q);
    // Patterns that hold no single line (a newline with -U) select no line and replace nothing.
    if (test === null) return { selects: undefined, replace: undefined };
    selects = test;
  }
  let replace: ((line: string, r: LineMatch) => string) | undefined;
  if (replacement !== undefined && g.invert_match !== true) {
    // The matcher of the search itself, whose groups fill the template at each match the search found.
    const m = q.spec.matcher;
    const re = new RegExp(m.source, `${m.flags}g${m.multiline ? "m" : ""}`);
    replace = (line, r) => replaceMatches(line, r, re, replacement);
  }
  return { selects, replace };
}

/**
 * Replaces each match of a record's content with the expanded template, as rg's --replace shows it: the matches
 * are the record's submatches (those the search found, so an empty match right after a match is not one, and
 * a multiline match is replaced whole); the regex, run again where each starts, gives its groups.
 * @param content the content shown (a line, a multiline match's lines, or with -o the match)
 * @param r the record
 * @param re the search's regex ('g', and 'm' in multiline mode)
 * @param template the --replace text
 * @returns the content with every match replaced
 */
function replaceMatches(content: string, r: LineMatch, re: RegExp, template: string): string {
  // Submatch columns count code points from the line's start; content starts at content_offset. The columns
  // come in increasing order, so the count goes on from the last one asked for.
  let cp = 0;
  let i = 0;
  const index = (to: number): number => {
    if (to < cp) {
      cp = 0;
      i = 0;
    }
    for (; cp < to && i < content.length; cp++) i += (content.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    return i;
  };
  let out = "";
  let at = 0;
  for (const sub of r.submatches) {
    const a = index(sub.start - r.content_offset);
    const b = index(sub.end - r.content_offset);
    if (sub.start < r.content_offset || a < at || b < a) continue;
    re.lastIndex = a;
    const m = re.exec(content);
    // The match with its groups where the regex finds the same span again, else the span alone.
    const args: unknown[] =
      m !== null && m.index === a && m[0].length === b - a
        ? [...m, m.index, content, ...(m.groups !== undefined ? [m.groups] : [])]
        : [content.slice(a, b), a, content];
    out += content.slice(at, a) + expandReplacement(template, args);
    at = b;
  }
  return out + content.slice(at);
}

/**
 * Expands rg's replacement syntax for one match: $0 or ${0} the match, $N / ${N} a group, $name / ${name} a
 * named group, $$ a '$'; a group that did not take part is empty.
 * @param template the --replace text
 * @param args String.prototype.replace's callback arguments (match, groups…, offset, string, named groups)
 * @returns the text
 */
function expandReplacement(template: string, args: readonly unknown[]): string {
  const last = args[args.length - 1];
  const named = typeof last === "object" && last !== null ? (last as Record<string, string | undefined>) : {};
  const groups = args.slice(0, typeof last === "object" && last !== null ? -3 : -2) as Array<
    string | undefined
  >;
  return template.replace(
    /\$(\$|\{([A-Za-z0-9_]+)\}|([0-9]+|[A-Za-z_][A-Za-z0-9_]*))/g,
    (_m, all, braced, bare) => {
      if (all === "$") return "$";
      const key = (braced ?? bare) as string;
      if (/^[0-9]+$/.test(key)) return groups[Number(key)] ?? "";
      return named[key] ?? "";
    },
  );
}

function isSingleFile(input: Readonly<Record<string, unknown>>): boolean {
  // grep's rule: no file name when exactly one operand is given and it is a file.
  const ops = (Array.isArray(input.operands) ? input.operands : []) as string[];
  const viaFlags =
    typeof input.pattern === "string" || (Array.isArray(input.regexps) && input.regexps.length > 0);
  const candidates = [
    ...((Array.isArray(input.paths) ? input.paths : []) as string[]),
    ...(viaFlags ? ops : ops.slice(1)),
  ];
  if (candidates.length !== 1) return false;
  const base = typeof input.base === "string" ? input.base : ".";
  try {
    return statPath(fsPath(resolve(base, candidates[0] as string))).isFile();
  } catch {
    return false;
  }
}
