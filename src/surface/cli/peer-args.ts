/*! CLI: rg's and fd's habits that shape the input from the command line (grep's -f PATTERNFILE, --passthru
 * against -A/-B/-C; find's --max-results) and the exit code of grep --count --include-zero, as rg 13 and fd 8.6
 * have them (docs/decisions/0027-rg-and-fd-habits.md). It only fills the input and reads the summary: no search
 * logic. */
import { readText } from "../../platform/files.ts";
import type { ParsedCommand } from "./flags.ts";
import { UsageError } from "./flags.ts";

/**
 * A regular expression that matches nothing (in JavaScript's dialect and RE2's): the pattern list of an empty
 * pattern file, so that no line matches, `-v` selects every line and `-c --include-zero` counts 0, as grep does.
 */
const NO_MATCH = "[^\\s\\S]";

/** Context as long as any file: --passthru prints every line, the non-matching ones as context. */
const EVERY_LINE = 2 ** 31 - 1;

const CONTEXT_KEYS = ["context", "before_context", "after_context"] as const;

/**
 * Adds the patterns of rg's and grep's `-f FILE` (one a line; `-` reads them from standard input) to the input.
 * An empty file adds none: with no other pattern nothing matches (and `-v` selects every line), as in grep.
 * @param source the file named by -f
 * @param input the input (regexps extended in place)
 * @throws UsageError when the file cannot be read
 */
export function addPatternFile(source: string, input: Record<string, unknown>): void {
  let text: string;
  try {
    text = readText(source === "-" ? 0 : source);
  } catch (err) {
    throw new UsageError(`-f ${source}: ${(err as Error).message}`);
  }
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  const regexps = [...((input.regexps as string[] | undefined) ?? []), ...lines];
  if (regexps.length === 0 && typeof input.pattern !== "string") {
    // No pattern at all: one that matches nothing, as a regex (a literal could occur).
    regexps.push(NO_MATCH);
    input.fixed_strings = false;
  }
  input.regexps = regexps;
}

/**
 * Applies rg's --passthru: every line is printed, the non-matching ones as context. It and -A/-B/-C override
 * each other, as in rg: the later one on the command line wins (`--passthru -A1` is -A1; `-A1 --passthru`
 * prints every line).
 * @param parsed the parsed command line (where each flag was given)
 * @param input the input (context keys set or removed in place)
 */
export function applyPassthru(parsed: ParsedCommand, input: Record<string, unknown>): void {
  if (parsed.presentation.passthru !== true) return;
  const at = parsed.setAt.get("passthru") ?? -1;
  let overridden = false;
  for (const key of CONTEXT_KEYS) {
    const given = parsed.setAt.get(key);
    if (given === undefined) continue;
    if (given > at) overridden = true;
    else delete input[key];
  }
  if (!overridden) input.context = EVERY_LINE;
}

/**
 * Whether a grep run found something, for its exit code: as rg, `--count --include-zero` that lists only counts
 * of 0 found nothing (exit 1), whatever it printed.
 * @param input the grep input
 * @param summary the result summary
 * @param found what the records say (some were given)
 * @returns whether the run found something
 */
export function grepFound(
  input: Readonly<Record<string, unknown>>,
  summary: Readonly<Record<string, unknown>> | null,
  found: boolean,
): boolean {
  const counting = input.count === true || input.count_matches === true;
  if (!found || !counting || input.include_zero !== true || summary === null) return found;
  return typeof summary.matched_lines !== "number" || summary.matched_lines > 0;
}

/**
 * Applies fd's --max-results N: --limit N, except that 0 means no limit, as in fd (`--limit 0` stays rglob's
 * summary alone). The later of --max-results and --limit wins.
 * @param parsed the parsed command line
 * @param input the input (limit set or removed in place)
 * @throws UsageError when N is not a whole number
 */
export function applyMaxResults(parsed: ParsedCommand, input: Record<string, unknown>): void {
  const text = parsed.presentation.max_results;
  if (typeof text !== "string") return;
  if ((parsed.setAt.get("limit") ?? -1) > (parsed.setAt.get("max_results") ?? -1)) return;
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`--max-results: '${text}' is not a whole number`);
  const n = Number(text);
  if (n === 0) delete input.limit;
  else input.limit = n;
}
