/*! grep: the query layer (ripgrep's LowArgs → HiArgs). Validated, normalized input becomes a compiled query once
 * per request: the operands classified (once, by the registry entry's normalize; here only for input that was
 * not), the mode decided, the matcher compiled (shared by the search and the human printer, which hears the
 * query through Sink.begin), the walk compiled. No walking and no reading of contents. */

import type { ErrorInfo } from "../../contract/errors.ts";
import { RglobError } from "../../contract/errors.ts";
import { REGION_NAMES, REGION_TAG_BIT, type RegionName } from "../../contract/regions.ts";
import { parseSize } from "../../engine/filter/size.ts";
import type { GitPlaces } from "../../engine/ignore.ts";
import { compileWalk } from "../../engine/plan.ts";
import { compileMatcher } from "../../engine/search/matcher.ts";
import type { FileConditions, SearchSpec } from "../../engine/search/search-file.ts";
import type { WalkPlan } from "../../engine/walk.ts";
import { classifyOperands } from "./operands.ts";
import type { GrepInput } from "./schema.ts";

/** What grep gives: matching lines, or one record per file (listed with or without a match, or counted). */
type GrepMode = "lines" | "files_with_matches" | "files_without_match" | "count";

/** A grep request, compiled: what the run and the printers read instead of the raw input. */
export interface GrepQuery {
  /** The validated input (its options that shape records: by, include_zero, count_matches…). */
  readonly input: GrepInput;
  /** Every pattern, in order. */
  readonly patterns: readonly string[];
  /** The roots: operands that are paths, and `paths`. */
  readonly paths: readonly string[];
  /** The glob filters: operands that are not paths, and `patterns`. */
  readonly globs: readonly string[];
  readonly mode: GrepMode;
  /** The search: the compiled matcher, result shaping, binary and size rules, confined to the walk's base. */
  readonly spec: SearchSpec;
  /** The compiled walk. */
  readonly plan: WalkPlan;
  /** Roots that cannot be walked (reported as the run starts). */
  readonly rootErrors: readonly ErrorInfo[];
}

/**
 * Compiles a grep request.
 * @param input validated grep input (normalized: operands already classified)
 * @param cwd the directory relative paths are taken from
 * @param git where git's config files are looked for (the Config's; default: the engine's)
 * @returns the compiled query
 * @throws RglobError REGEX for a bad pattern, BAD_PREDICATE for options that exclude each other or a bad value
 */
export function compileGrepQuery(input: GrepInput, cwd: string = process.cwd(), git?: GitPlaces): GrepQuery {
  const { patterns, paths, globs } =
    input.operands.length > 0
      ? classifyOperands(input, cwd)
      : {
          patterns: [...(input.pattern === undefined ? [] : [input.pattern]), ...input.regexps],
          paths: [...input.paths],
          globs: [...input.patterns],
        };
  const { spec, mode } = searchSpecOf(input, patterns);
  const { plan, rootErrors } = compileGrepWalk(input, paths, globs, cwd, git);
  return { input, patterns, paths, globs, mode, spec: { ...spec, confine: plan.confine }, plan, rootErrors };
}

function modeOf(input: GrepInput): GrepMode {
  const modes = [
    input.files_with_matches,
    input.files_without_match,
    input.count || input.count_matches,
  ].filter(Boolean).length;
  if (modes > 1) {
    throw new RglobError(
      "BAD_PREDICATE",
      "files_with_matches, files_without_match and count exclude each other",
    );
  }
  if (input.files_with_matches) return "files_with_matches";
  if (input.files_without_match) return "files_without_match";
  if (input.count || input.count_matches) return "count";
  return "lines";
}

/**
 * Returns the largest size of a file grep reads: rglob's sizes ('10k' = 10240), or fd's signed form for at most
 * ('-10k' = 10000, fd's units). fd's '+10k' means at least 10000 bytes, which no maximum is: refused, where it
 * used to lift every limit.
 */
function maxFileSizeOf(value: GrepInput["max_file_size"]): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  const b = parseSize(value, "max_file_size");
  if (b.sign === "+")
    throw new RglobError(
      "BAD_PREDICATE",
      `max_file_size: '${value}' is fd's "at least ${b.bytes} bytes", and a maximum cannot be a minimum; give the largest size to search: 10k (10240 bytes), 10kb (10000), or fd's -10k (at most 10000)`,
    );
  return b.bytes;
}

/**
 * Builds the search spec of a request (compiling the matcher: a bad regex throws here).
 * @param input validated grep input
 * @param patterns every pattern
 * @returns the spec (not yet confined to a walk) and the mode
 */
function searchSpecOf(input: GrepInput, patterns: readonly string[]): { spec: SearchSpec; mode: GrepMode } {
  const mode = modeOf(input);
  const matcher = compileMatcher({
    patterns,
    fixedStrings: input.fixed_strings,
    ignoreCase: input.ignore_case,
    smartCase: input.smart_case,
    wordRegexp: input.word_regexp,
    lineRegexp: input.line_regexp,
    invert: input.invert_match,
    multiline: input.multiline,
    onlyMatching: input.only_matching,
  });
  const auto = input.encoding?.trim().toLowerCase() === "auto";
  if (input.encoding !== undefined && !auto) {
    try {
      new TextDecoder(input.encoding as ConstructorParameters<typeof TextDecoder>[0]);
    } catch {
      throw new RglobError(
        "BAD_PREDICATE",
        `encoding: '${input.encoding}' is not a known TextDecoder label (or auto)`,
      );
    }
  }
  const ctxN = input.context ?? 0;
  const spec: SearchSpec = {
    matcher,
    text: {
      before: input.before_context ?? ctxN,
      after: input.after_context ?? ctxN,
      maxPerFile: input.max_per_file ?? Number.POSITIVE_INFINITY,
      maxColumns: input.max_columns ?? Number.POSITIVE_INFINITY,
      firstOnly: mode === "files_with_matches" || mode === "files_without_match",
      countOnly: mode === "count",
    },
    binaryAsText: input.text,
    binaryMode: input.binary,
    sniffBytes: input.binary_sniff_bytes,
    encoding: auto ? "auto" : (input.encoding ?? null),
    maxFileSize: maxFileSizeOf(input.max_file_size),
    confine: null,
    regions: regionBits(input.in, input.docstrings),
    ...(input.also !== undefined && input.also.length > 0 ? { conditions: conditionsOf(input, mode) } : {}),
  };
  return { spec, mode };
}

/**
 * Compiles grep's `also`: each condition's pattern with the query's fixed_strings, case, word, line and
 * multiline options (smart_case by its own letters), its regions or the query's `in`.
 * @param input validated grep input, with `also`
 * @param mode the query's mode
 * @returns the conditions
 * @throws RglobError REGEX for a pattern that does not compile
 */
function conditionsOf(input: GrepInput, mode: GrepMode): FileConditions {
  const list = (input.also ?? []).map((c) => ({
    matcher: compileMatcher({
      patterns: [c.pattern],
      fixedStrings: input.fixed_strings,
      ignoreCase: input.ignore_case,
      smartCase: input.smart_case,
      wordRegexp: input.word_regexp,
      lineRegexp: input.line_regexp,
      invert: false,
      multiline: input.multiline,
      onlyMatching: false,
    }),
    regions: regionBits(c.in ?? input.in, input.docstrings) & ~REGION_TAG_BIT,
    not: c.not,
  }));
  // Files without a match are listed (files_without_match, count with include_zero): each is tested too.
  const everyFile = mode === "files_without_match" || (mode === "count" && input.include_zero);
  return { list, everyFile };
}

/**
 * grep's `in` as the searcher's bits (bit r keeps region r; 0 keeps every match). A docstring joins the class
 * `docstrings` names (comment unless docstrings=code), `docstring` alone names docstrings only, and `string` never
 * holds them (docs/decisions/0042-docstrings.md).
 */
function regionBits(names: GrepInput["in"], docstrings: GrepInput["docstrings"]): number {
  // all: every region, each match tagged with its own (#37).
  if (names?.includes("all") === true) return ((1 << REGION_NAMES.length) - 1) | REGION_TAG_BIT;
  let bits = 0;
  for (const n of names ?? []) bits |= 1 << REGION_NAMES.indexOf(n as RegionName);
  const joins = 1 << REGION_NAMES.indexOf(docstrings === "code" ? "code" : "comment");
  if ((bits & joins) !== 0) bits |= 1 << REGION_NAMES.indexOf("docstring");
  if (new Set(names ?? []).size > 1) bits |= REGION_TAG_BIT;
  return bits;
}

/**
 * Compiles grep's walk: files only, named files past the globs, entries that open from their directory.
 * @param input validated grep input
 * @param paths the roots (classified operands and `paths`)
 * @param globs the glob filters
 * @param cwd the directory relative paths are taken from
 * @param git where git's config files are looked for (default: the engine's)
 * @returns the compiled walk
 */
export function compileGrepWalk(
  input: GrepInput,
  paths: readonly string[],
  globs: readonly string[],
  cwd: string,
  git?: GitPlaces,
): ReturnType<typeof compileWalk> {
  return compileWalk(
    { ...input, paths: [...paths], patterns: [...globs] },
    { filesOnly: true, namedFilesPastGlobs: true, cwd, ...(git ? { git } : {}), typeRejects: "keep" },
  );
}

/**
 * Returns the line test of a query's pattern (whether a line is selected: a match, or a non-match with -v): the
 * search's own matcher, or one compiled for single lines when the search is multiline; null when the patterns
 * do not compile for single lines.
 * @param q the query
 * @returns the test, or null
 */
export function lineSelector(q: GrepQuery): ((line: string) => boolean) | null {
  let spec = q.spec.matcher;
  if (spec.multiline) {
    const i = q.input;
    try {
      spec = compileMatcher({
        patterns: q.patterns,
        fixedStrings: i.fixed_strings,
        ignoreCase: i.ignore_case,
        smartCase: i.smart_case,
        wordRegexp: i.word_regexp,
        lineRegexp: i.line_regexp,
        invert: i.invert_match,
        multiline: false,
        onlyMatching: false,
      });
    } catch {
      return null;
    }
  }
  const re = new RegExp(spec.source, spec.flags);
  const invert = spec.invert;
  return (line) => re.test(line) !== invert;
}
