/*! grep's human formatter factory: the query's extras (selected lines, named files, --replace), loaded with grep. */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { compileMatcher } from "../../../engine/search/matcher.ts";
import { classifyOperands } from "../../../ops/grep/operands.ts";
import type { GrepInput } from "../../../ops/grep/schema.ts";
import { fsPath, resolvePath } from "../../../platform/names.ts";
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
      nul: p.null === true,
      column: p.column === true,
      vimgrep: p.vimgrep === true,
      heading: p.heading === true,
      by: typeof input.by === "string" ? input.by : undefined,
      ...grepExtras(input, typeof p.replace === "string" ? p.replace : undefined),
    },
    n("context") + n("before_context") + n("after_context") > 0,
    isSingleFile(input),
  );
};

/** What grep's human output needs from the query: which lines are selected (for the after-context of a -m
 * stop) and which files were named (a binary one is reported as rg reports it). */
function grepExtras(
  input: Readonly<Record<string, unknown>>,
  replacement: string | undefined,
): {
  selects: ((line: string) => boolean) | undefined;
  named: ReadonlySet<string>;
  sniffBytes: number;
  replace: ((line: string) => string) | undefined;
} {
  const g = input as unknown as GrepInput;
  const cwd = process.cwd();
  const c = classifyOperands(
    {
      pattern: g.pattern,
      regexps: g.regexps ?? [],
      operands: g.operands ?? [],
      paths: g.paths ?? [],
      patterns: g.patterns ?? [],
      base: g.base ?? ".",
    },
    cwd,
  );
  const base = resolve(cwd, g.base ?? ".");
  const named = new Set<string>();
  if (g.text !== true)
    for (const p of c.paths) {
      const abs = resolvePath(base, p);
      try {
        if (statSync(fsPath(abs)).isFile()) named.add(abs);
      } catch {}
    }
  const after = (g.after_context ?? g.context ?? 0) > 0 && g.only_matching !== true;
  let selects: ((line: string) => boolean) | undefined;
  let replace: ((line: string) => string) | undefined;
  const needSelects = after && (g.max_per_file !== undefined || g.max_count !== undefined);
  if ((needSelects || replacement !== undefined) && c.patterns.length > 0) {
    try {
      const spec = compileMatcher({
        patterns: c.patterns,
        fixedStrings: g.fixed_strings === true,
        ignoreCase: g.ignore_case === true,
        smartCase: g.smart_case === true,
        wordRegexp: g.word_regexp === true,
        lineRegexp: g.line_regexp === true,
        invert: g.invert_match === true,
        multiline: false,
        onlyMatching: false,
      });
      const re = new RegExp(spec.source, spec.flags);
      if (needSelects) selects = (line) => re.test(line) !== spec.invert;
      if (replacement !== undefined && !spec.invert) {
        const all = new RegExp(spec.source, `${spec.flags}g`);
        replace = (line) => line.replace(all, (...args: unknown[]) => expandReplacement(replacement, args));
      }
    } catch {
      selects = undefined; // a bad pattern fails the run itself
    }
  }
  return { selects, named, sniffBytes: g.binary_sniff_bytes ?? 8192, replace };
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
    return statSync(fsPath(resolve(base, candidates[0] as string))).isFile();
  } catch {
    return false;
  }
}
