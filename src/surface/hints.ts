/*! Surfaces: hints about a request that was probably meant otherwise, for the people and agents reading the
 * answer (CLI stderr, the MCP text). A hint never changes a result. Reads only what kind of entry a name is. */
import * as path from "node:path";
import { inputKeys } from "../agent/call.ts";
import {
  SKIP_REASONS,
  type SkippedWithRegions,
  type SkipReason,
  TEXT_FACTS,
  type TextFacts,
} from "../contract/result.ts";
import { hasGlobSyntax } from "../engine/glob.ts";
import { classifyOperands } from "../ops/grep/operands.ts";
import type { Operation } from "../ops/operation.ts";
import { statPath } from "../platform/files.ts";
import { fsPath, resolvePath } from "../platform/names.ts";
import { escapeControls } from "./cli/human/paths.ts";

type Request = Readonly<Record<string, unknown>>;

/** The absolute base of a request. */
function baseOf(input: Request, cwd: string): string {
  return path.resolve(cwd, typeof input.base === "string" ? input.base : ".");
}

/** What an absolute path is: a directory, a file, something else, or nothing. */
function kindAt(abs: string): "dir" | "file" | "other" | null {
  try {
    const st = statPath(fsPath(abs));
    return st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
  } catch {
    return null;
  }
}

/**
 * Returns the entries of a request's `patterns` (globs matched against names) that are plain names of existing
 * directories under its base: `patterns: ["src"]` selects entries named src, which is rarely what was meant
 * (the entries inside src are selected with `paths` or `base`).
 * @param input the request (its `patterns` and `base`)
 * @param cwd what a relative base is relative to
 * @returns those globs, as given
 */
export function directoryGlobs(input: Request, cwd: string): string[] {
  const globs = Array.isArray(input.patterns) ? input.patterns : [];
  const base = baseOf(input, cwd);
  const out: string[] = [];
  for (const g of globs) {
    if (typeof g !== "string" || hasGlobSyntax(g)) continue;
    const abs = resolvePath(base, g);
    if (abs !== base && kindAt(abs) === "dir") out.push(g);
  }
  return out;
}

/**
 * grep's operands as its run sorts them, by the same function (`PATTERN [PATH_OR_GLOB...]`: those that exist,
 * or hold a '/' without glob syntax, are roots; the others globs), or null for another operand form.
 */
function pathOrGlobOperands(
  op: Operation,
  operands: readonly string[],
  input: Request,
  cwd: string,
): ReturnType<typeof classifyOperands> | null {
  if (op.cli.operands[0] !== "operands...") return null;
  const regexps = Array.isArray(input.regexps) ? input.regexps.filter((r) => typeof r === "string") : [];
  const pattern = typeof input.pattern === "string" ? input.pattern : undefined;
  const base = typeof input.base === "string" ? input.base : ".";
  return classifyOperands({ pattern, regexps, operands, paths: [], patterns: [], base }, cwd);
}

/** An operator escaped as GNU grep's basic syntax escapes it (`\|`, `\?`, `\+`, `\(`, `\)`, `\{`, `\}`). */
const BRE_OPERATOR = /\\[|?+(){}]/;

/**
 * Returns notes on grep patterns written in GNU grep's basic syntax, for a search that found nothing: there
 * `\|` is alternation and `\?` an optional item, here (as in rg and JavaScript) they match `|` and `?`
 * themselves. `rglob grep 'api[_-]\?key'` found nothing and its note on ignored files sent an agent the wrong way.
 * @param op the operation (grep only)
 * @param operands the CLI operands (none over MCP)
 * @param input the request (its pattern, regexps and fixed_strings)
 * @param cwd what a relative base is relative to
 * @returns the notes, one per such pattern
 */
export function patternNotes(
  op: Operation,
  operands: readonly string[],
  input: Request,
  cwd: string,
): string[] {
  if (op.id !== "grep" || input.fixed_strings === true) return [];
  const patterns = pathOrGlobOperands(op, operands, input, cwd)?.patterns ?? [];
  return patterns
    .filter((p) => BRE_OPERATOR.test(p))
    .map(
      (p) =>
        `'${escapeControls(p)}' escapes operators as GNU grep's basic syntax does; here patterns are rg's regular expressions, where \\| \\? \\+ \\( \\) \\{ match those characters themselves: for alternation, optional or repeated items and groups, use '${escapeControls(p.replace(/\\([|?+(){}])/g, "$1"))}'`,
    );
}

/** A character that is surely not a word character where a regex starts or ends: an escaped punctuation mark
 * (`\(`, `\.`) or one that is no regex operator (`:`, `=`, `<`). */
const EDGE_START = /^(?:\\([^\p{L}\p{N}_\s])|([^\p{L}\p{N}_\s.^$*+?()[\]{}|\\]))/u;
const EDGE_END = /(?:(?<!\\)(?:\\\\)*\\([^\p{L}\p{N}_\s])|([^\p{L}\p{N}_\s.^$*+?()[\]{}|\\]))$/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * Returns notes on grep patterns that `-w` cannot match as meant, whatever the run found: -w asks for a non-word
 * character (or the line's edge) just outside the match, so a pattern that starts or ends with a non-word
 * character (`parseConfig\s*\(`) matches only where another one is next to it: `parseConfig(raw)` is not a match.
 * An agent trial's `grep -w 'parseConfig\s*\('` missed four of eleven calls and nothing said so.
 * @param op the operation (grep only)
 * @param operands the CLI operands (none over MCP)
 * @param input the request
 * @param cwd what a relative base is relative to
 * @returns the notes, one per such pattern
 */
export function wordEdgeNotes(
  op: Operation,
  operands: readonly string[],
  input: Request,
  cwd: string,
): string[] {
  if (op.id !== "grep" || input.word_regexp !== true || input.line_regexp === true) return [];
  const fixed = input.fixed_strings === true;
  const patterns = pathOrGlobOperands(op, operands, input, cwd)?.patterns ?? [];
  const notes: string[] = [];
  for (const p of patterns) {
    const first = fixed
      ? p.slice(0, 1)
      : (EDGE_START.exec(p)
          ?.slice(1)
          .find((x) => x !== undefined) ?? "");
    const last = fixed
      ? p.slice(-1)
      : (EDGE_END.exec(p)
          ?.slice(1)
          .find((x) => x !== undefined) ?? "");
    const starts = first !== "" && !WORD_CHAR.test(first);
    const ends = last !== "" && !WORD_CHAR.test(last);
    if (!starts && !ends) continue;
    const edge = ends ? `ends with '${last}'` : `starts with '${first}'`;
    const shown = escapeControls(p);
    notes.push(
      `-w wants a non-word character (or the line's edge) just outside each match, and '${shown}' ${edge}, not a word character: it matches only where another non-word character is next to it; for a word ${ends ? "followed" : "preceded"} by it, drop -w and put \\b on the word's side${fixed ? " (without -F)" : ""}`,
    );
  }
  return notes;
}

/** A character class that leaves CR out (`[^\r\n]`): it means what it says on lines whose CR LF was read as LF. */
const NEGATED_CLASS = /\[\^(?:\\.|[^\]\\])*\]/g;
/** A CR in a regex source: the character itself, or an escape naming it (rg's and JavaScript's), not escaped. */
const CR_IN_REGEX = /\r|(?<!\\)(?:\\\\)*\\(?:r|x0[dD]|x\{0*[dD]\}|u000[dD]|u\{0*[dD]\}|cM)/;

/**
 * Returns a note for grep patterns that name a CR (`\r$`, `-F $'\r'`, `-U '\r\n'`), whatever the run found: grep
 * reads a CR LF line end as LF (the CR is no part of the line, as rg --crlf reads it), so such a pattern matches
 * only a CR that ends no line, and an empty answer said nothing of why (#37; rg, which searches raw bytes, lists
 * the files). The note names the selection that answers "which files have CR LF line ends" (ADR 0048).
 * @param op the operation (grep only)
 * @param operands the CLI operands (none over MCP)
 * @param input the request
 * @param cwd what a relative base is relative to
 * @param surface the CLI (flag spellings) or MCP (argument names)
 * @returns the note, or none
 */
export function crNotes(
  op: Operation,
  operands: readonly string[],
  input: Request,
  cwd: string,
  surface: "cli" | "mcp",
): string[] {
  if (op.id !== "grep") return [];
  const fixed = input.fixed_strings === true;
  const patterns = pathOrGlobOperands(op, operands, input, cwd)?.patterns ?? [];
  const named = patterns.find((p) =>
    fixed ? p.includes("\r") : CR_IN_REGEX.test(p.replace(NEGATED_CLASS, "")),
  );
  if (named === undefined) return [];
  const how =
    surface === "cli" ? "rglob find --saved-as crlf,mixed" : 'op find with saved_as: ["crlf", "mixed"]';
  return [
    `'${escapeControls(named)}' names a CR: a CR LF line end is read as LF (the CR is not part of the line, so $ matches before it), and a CR matches only where no LF follows it; the files with CR LF line ends: ${how} (crlf: every line, mixed: some)`,
  ];
}

/**
 * Returns the absolute paths of the CLI operands that name files (grep's PATH_OR_GLOB operands).
 * @param op the operation
 * @param operands the operands as given
 * @param input the request (its base)
 * @param cwd what a relative base is relative to
 * @returns the set (empty for an operation without such operands)
 */
export function namedFiles(
  op: Operation,
  operands: readonly string[],
  input: Request,
  cwd: string,
): Set<string> {
  const named = new Set<string>();
  const base = baseOf(input, cwd);
  for (const operand of pathOrGlobOperands(op, operands, input, cwd)?.paths ?? []) {
    const abs = resolvePath(base, operand);
    if (kindAt(abs) === "file") named.add(abs);
  }
  return named;
}

/** Notes for globs that can match only hidden names while hidden entries are skipped. */
function hiddenGlobNotes(globs: readonly string[], input: Request): string[] {
  if (input.hidden !== false) return [];
  return globs
    .filter((g) => {
      const name = g.slice(g.lastIndexOf("/") + 1);
      return name.startsWith(".") && name !== "." && name !== "..";
    })
    .map(
      (g) => `'${escapeControls(g)}' matches only hidden names (beginning with '.'), which --no-hidden skips`,
    );
}

/**
 * Returns notes on CLI operands probably meant as a directory or a file. After a run that found nothing:
 * `rglob count src` filters names by the glob "src" (as find does), which people and agents often mean as
 * "count inside src"; `rglob grep TODO notes.txt` with no notes.txt here filters names by that glob. Whatever
 * was found: `rglob find '*.ts' src`, fd's PATTERN PATH habit, ORs the two globs, and `rglob tree src` shows one
 * directory. After a run that found nothing, a glob whose name part begins with '.' (`'.*'`, `'.env'`)
 * matches only hidden names, which --no-hidden skips (docs/decisions/0012-cli-notes-for-probable-mistakes.md).
 * @param op the operation
 * @param operands the operands as given
 * @param input the request (its base, and for grep whether the pattern came by flag)
 * @param found whether the run gave any record
 * @param cwd what a relative base is relative to
 * @param skippedSome whether the run left entries out (ignored, hidden, excluded, too deep…): a name it did not
 *   find may then be among them, and a note says only that no name searched is it
 * @returns the notes, in operand order
 */
export function operandNotes(
  op: Operation,
  operands: readonly string[],
  input: Request,
  found: boolean,
  cwd: string,
  skippedSome = false,
): string[] {
  const mixed = pathOrGlobOperands(op, operands, input, cwd);
  if (mixed !== null) {
    // A grep glob operand without glob syntax names nothing here (one that exists would have been a root).
    if (found) return [];
    return [
      ...mixed.globs
        .filter((g) => !hasGlobSyntax(g))
        .map(
          (g) =>
            `no file or directory '${escapeControls(g)}' here; it was used as a glob matched against names`,
        ),
      ...hiddenGlobNotes(mixed.globs, input),
    ];
  }
  if (op.cli.operands[0] !== "patterns...") return [];
  if (!found) {
    const hidden = hiddenGlobNotes(operands, input);
    if (hidden.length > 0) return hidden;
  }
  const fdHabit = operands.length > 1 && operands.some(hasGlobSyntax);
  if (found && !fdHabit && op.id !== "tree") return [];
  const base = baseOf(input, cwd);
  const notes: string[] = [];
  for (const operand of operands) {
    const shown = escapeControls(operand);
    if (!found && looksLikeRegex(operand)) {
      // fd's PATTERN is a regular expression searched for in the name ('\.ts$'); here it is a glob.
      const glob = globForRegex(operand);
      notes.push(
        `'${shown}' is a glob here, matched against whole names, not a regular expression as fd's PATTERN${glob === null ? "" : `: for the same names, use '${escapeControls(glob)}'`}`,
      );
      continue;
    }
    if (hasGlobSyntax(operand)) continue;
    const abs = resolvePath(base, operand);
    const kind = kindAt(abs);
    if (!found && kind === null && !operand.includes("/")) {
      // fd's PATTERN matches anywhere in a name (`fd main`); a glob without wildcards is a whole name.
      notes.push(
        skippedSome
          ? `no name searched is '${shown}', but it may be among the entries not searched (next line); a glob is matched against whole names (fd's PATTERN matches anywhere in the name): for names that contain it, use '*${shown}*'`
          : `no name is '${shown}': a glob is matched against whole names (fd's PATTERN matches anywhere in the name); for names that contain it, use '*${shown}*'`,
      );
      continue;
    }
    if (kind !== "dir") continue;
    notes.push(
      abs === base
        ? `'${shown}' is a glob matched against names, and no name is '${shown}'; without glob operands every entry under --base (default: the current directory) is taken`
        : `'${shown}' is a glob matched against names (operands are OR'd), not a directory to walk; for the entries inside it, use --base ${shown}`,
    );
  }
  return notes;
}

/**
 * Whether an operand uses regular-expression syntax that a glob reads literally: `^` first, `$` last, `\.`,
 * `\d`, `.+`, `|` (not `.*`, which `main.*` means as a glob too).
 */
function looksLikeRegex(operand: string): boolean {
  return /^\^|[^\\]\$$|\\[.dwsb]|\.\+|\|/.test(operand);
}

/**
 * Returns the glob that selects the names a simple regular expression finds in a name (`\.ts$` → `*.ts`,
 * `^test_.*\.py$` → `test_*.py`), or null when the expression has no glob equivalent.
 */
function globForRegex(re: string): string | null {
  let s = re;
  const start = s.startsWith("^");
  if (start) s = s.slice(1);
  const end = s.endsWith("$") && !s.endsWith("\\$");
  if (end) s = s.slice(0, -1);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    const next = s[i + 1];
    if (ch === "\\") {
      if (next === undefined || !/[.+()|^$\\/-]/.test(next)) return null;
      out += next;
      i++;
    } else if (ch === ".") {
      if (next === "*") {
        out += "*";
        i++;
      } else if (next === "+") {
        out += "?*";
        i++;
      } else out += "?";
    } else if (/[()|+?{}[\]*^$]/.test(ch)) return null;
    else out += ch;
  }
  out = `${start ? "" : "*"}${out}${end ? "" : "*"}`.replace(/\*{2,}/g, "*");
  return out === "*" ? null : out;
}

/** How each skip reason is undone, by surface: the CLI flag, the MCP/library input key; null when none is. */
const SKIP_UNDO: Readonly<
  Record<
    Exclude<SkipReason, "vcs"> | "unknown_language",
    { what: (n: number) => string; cli: string | null; key: string | null; needs?: string }
  >
> = {
  ignored: {
    what: (n) => `${n} ${n === 1 ? "entry" : "entries"} ignored by .gitignore/.ignore rules`,
    cli: "--no-ignore includes them",
    key: "respect_gitignore: false includes them",
  },
  hidden: {
    what: (n) => `${n} hidden`,
    cli: "included without --no-hidden",
    key: "hidden: true includes them",
  },
  excluded: {
    what: (n) => `${n} excluded`,
    cli: "included without --exclude",
    key: "included without exclude",
  },
  too_deep: {
    what: (n) => `${n} ${n === 1 ? "directory" : "directories"} at max depth not entered`,
    cli: "a larger --max-depth enters them",
    key: "a larger max_depth enters them",
  },
  binary: {
    what: (n) => `${n} binary ${n === 1 ? "file" : "files"}`,
    cli: "-a/--text searches them",
    key: "text: true searches them",
    needs: "text",
  },
  too_large: {
    what: (n) => `${n} ${n === 1 ? "file" : "files"} over max_file_size`,
    cli: "a larger --max-file-size reads them",
    key: "a larger max_file_size reads them",
    needs: "max_file_size",
  },
  unreadable: { what: (n) => `${n} unreadable (see the errors)`, cli: null, key: null },
  unknown_language: {
    what: (n) => `${n} ${n === 1 ? "file" : "files"} of no language with code regions`,
    cli: "searched whole, without --in",
    key: "searched whole, without in",
  },
};

/**
 * The reasons a run left entries out for, with their counts (VCS directories aside: they are never searched, so
 * naming them would be noise).
 * @param summary the result summary (its `skipped` ledger)
 * @returns the reasons with a count, in ledger order
 */
function leftOut(
  summary: Readonly<Record<string, unknown>>,
): Array<[Exclude<SkipReason, "vcs"> | "unknown_language", number]> {
  const skipped = summary.skipped as Partial<SkippedWithRegions> | null | undefined;
  const out: Array<[Exclude<SkipReason, "vcs"> | "unknown_language", number]> = [];
  for (const reason of SKIP_REASONS) {
    const n = skipped?.[reason] ?? 0;
    if (reason !== "vcs" && n > 0) out.push([reason, n]);
  }
  // grep's `in`: files no lexer knows.
  const unknown = skipped?.unknown_language ?? 0;
  if (unknown > 0) out.push(["unknown_language", unknown]);
  return out;
}

/**
 * Says whether a run left entries out that what it did not find may be among (ignored, hidden, excluded…).
 * @param summary the result summary
 * @returns true when its ledger counts any
 */
export function skippedSome(summary: Readonly<Record<string, unknown>>): boolean {
  return leftOut(summary).length > 0;
}

/**
 * Says whether a run found nothing, the condition of the notes for an empty answer: no record, no file counted
 * (count --limit 0 gives totals alone) and no record held back by the limit (limit 0 gives the summary alone).
 * @param summary the result summary
 * @param records the records given
 * @returns true when nothing was found
 */
export function nothingFound(summary: Readonly<Record<string, unknown>>, records: number): boolean {
  const files = (summary.totals as { files?: unknown } | undefined)?.files;
  return records === 0 && !(typeof files === "number" && files > 0) && summary.truncated_reason !== "limit";
}

/**
 * Returns the one line that says a run which found nothing left entries out, by reason, each with what
 * includes them: `nothing found; not searched: 1 entry ignored by .gitignore/.ignore rules (--no-ignore)`.
 * VCS directories are left out of it (they are never searched, so naming them would be noise).
 * @param op the operation (which of its inputs can undo a skip)
 * @param summary the result summary (its `skipped` ledger)
 * @param surface "cli" names flags, "mcp" names input keys
 * @returns the line, or null when nothing that could hold a result was skipped
 */
export function skipNote(
  op: Operation,
  summary: Readonly<Record<string, unknown>>,
  surface: "cli" | "mcp",
): string | null {
  const keys = inputKeys(op);
  const parts: string[] = [];
  // Files no lexer knows were searched, whole: said apart, not among what was not searched (a trial agent read
  // "not searched: 58 files … (searched without --in)" as a contradiction).
  let whole = "";
  for (const [reason, n] of leftOut(summary)) {
    const undo = SKIP_UNDO[reason];
    const how = surface === "cli" ? undo.cli : undo.key;
    if (reason === "unknown_language") {
      whole = `${undo.what(n)} ${n === 1 ? "was" : "were"} ${how}`;
      continue;
    }
    const applies = undo.needs === undefined || keys.has(undo.needs);
    parts.push(how !== null && applies ? `${undo.what(n)} (${how})` : undo.what(n));
  }
  if (parts.length === 0 && whole === "") return null;
  const skipped = parts.length > 0 ? `; not searched: ${parts.join(", ")}` : "";
  return `nothing found${skipped}${whole === "" ? "" : `; ${whole}`}`;
}

/**
 * Returns the notes that say what a filter left out or covered, whatever the run found, so that no second call
 * is needed to check it (#37): the matches grep's `in` left out (they start in another region), the files grep
 * read as UTF-8 that are not valid UTF-8, and the names each file type selects by (a type is chosen by name
 * only, never by a shebang).
 * @param summary the result summary (its `left_out_by_in`, `time_window` and `type_globs`)
 * @param surface "cli" names flags, "mcp" input keys
 * @returns the notes
 */
export function coverageNotes(summary: Readonly<Record<string, unknown>>, surface: "cli" | "mcp"): string[] {
  const notes: string[] = [];
  const out = summary.left_out_by_in as { matches?: unknown; files?: unknown } | undefined;
  // Nothing found: "every match found starts in the regions asked for" would speak of matches there are none of.
  const none = summary.total_matches === 0 && out?.matches === 0;
  if (out !== undefined && typeof out.matches === "number" && typeof out.files === "number" && !none) {
    const key = surface === "cli" ? "--in" : "in";
    notes.push(
      out.matches === 0
        ? `${key} left no match out: every match found starts in the regions asked for`
        : `${key} left out ${out.matches} ${out.matches === 1 ? "match" : "matches"} in ${out.files} ${out.files === 1 ? "file" : "files"} that ${out.matches === 1 ? "starts" : "start"} in another region (left_out_by_in); without ${key} they are found too`,
    );
  }
  // grep's `also`: the files a condition left out, so that an answer narrowed by them says so.
  const byAlso = summary.left_out_by_also;
  if (typeof byAlso === "number" && byAlso > 0) {
    const key = surface === "cli" ? "--also/--without" : "also";
    const files = byAlso === 1 ? "1 file" : `${byAlso} files`;
    notes.push(
      `${key} left out ${files} (left_out_by_also); without it ${byAlso === 1 ? "it is" : "they are"} listed too`,
    );
  }
  const utf16 = summary.utf16_files;
  if (Array.isArray(utf16) && utf16.length > 0) {
    const key = surface === "cli" ? "--encoding utf-8" : "encoding: utf-8";
    notes.push(
      `searched as UTF-16 (a BOM, or UTF-16 text without one; utf16_files${utf16.length >= 20 ? ", the first 20" : ""}): ${utf16.join(", ")}; ${key} reads them as UTF-8`,
    );
  }
  // grep: files read as UTF-8 that are not (Latin-1, windows-1252), named with the option that decodes them (#37).
  const bad = summary.not_utf8;
  const badCount = (summary.encodings as Record<string, unknown> | undefined)?.["invalid-utf-8"];
  if (Array.isArray(bad) && typeof badCount === "number") {
    const more = badCount > bad.length ? ", …" : "";
    const auto = surface === "cli" ? "--encoding auto" : 'encoding: "auto"';
    notes.push(
      `${badCount === 1 ? "1 file is" : `${badCount} files are`} not valid UTF-8, searched as UTF-8 where a non-ASCII pattern cannot match its other bytes (${bad.join(", ")}${more}): ${auto} decodes ${badCount === 1 ? "it" : "them"} as windows-1252 (Latin-1)`,
    );
  }
  // The instants a duration was resolved to (#37), on both surfaces: agents made a second call to check the files
  // near a 3-day boundary when the CLI said nothing (as fd says nothing).
  const times = summary.time_window as Record<string, unknown> | undefined;
  if (times !== undefined && times !== null && typeof times.now === "string") {
    const span = [
      typeof times.after === "string" ? `after ${times.after}` : null,
      typeof times.before === "string" ? `before ${times.before}` : null,
    ].filter((x) => x !== null);
    notes.push(
      `${span.length > 0 ? `modified ${span.join(" and ")}` : "times"}, durations counted back from ${times.now} (time_window)`,
    );
  }
  const types = summary.type_globs as Record<string, unknown> | undefined;
  if (types !== undefined && types !== null && typeof types === "object") {
    const key =
      surface === "cli" ? "file types (--lang, --type-not)" : "file types (file_types, file_types_not)";
    const each = Object.entries(types)
      .map(([name, globs]) => `${name} = ${Array.isArray(globs) ? globs.join(" ") : ""}`)
      .join("; ");
    // Whether a script without such a name starts with a #! of the type: the shebang note (surface/shebangs.ts).
    notes.push(`${key} select files by name only (${each})`);
  }
  return notes.map(escapeControls);
}

/**
 * Says what an ignored directory listed as one holds (#37): "the 7 entries inside: 3 files, 4 directories", so
 * that "how many files does each ignored folder hold" needs no second call. Without the split (a record of an
 * older version), only the entries.
 * @param r the record (its entries_inside, files_inside and dirs_inside)
 * @returns the words, or null when the record is not a folded directory
 */
export function insideWords(r: Readonly<Record<string, unknown>>): string | null {
  const n = r.entries_inside;
  if (typeof n !== "number") return null;
  const head = `the ${n} ${n === 1 ? "entry" : "entries"} inside`;
  const files = r.files_inside;
  const dirs = r.dirs_inside;
  if (typeof files !== "number" || typeof dirs !== "number") return head;
  const other = n - files - dirs;
  const parts = [
    `${files} ${files === 1 ? "file" : "files"}`,
    `${dirs} ${dirs === 1 ? "directory" : "directories"}`,
    ...(other > 0 ? [`${other} other (symlinks and the like)`] : []),
  ];
  return `${head}: ${parts.join(", ")}`;
}

/** What an included entry's verdict says before the ignore files consulted. */
const NO_RULE = "; no ignore rule matches it: ";

/**
 * Says the ignore files consulted once for the explanations that share them (#37: `explain --all` repeated "no
 * ignore rule matches it: none of the 24 rules of …" for every entry), on the CLI and in the MCP text alike; the
 * structured records keep them whole. A reason that repeats the files said last is left out, or, beside other
 * reasons, said without them.
 * @param reasons an explanation's reasons
 * @param said the ignore files said last (updated)
 * @returns the reasons to print
 */
export function consultedOnce<R extends { readonly stage?: unknown; readonly detail?: unknown }>(
  reasons: readonly R[],
  said: { consulted: string | null },
): R[] {
  const out: R[] = [];
  for (const why of reasons) {
    const d = typeof why.detail === "string" ? why.detail : "";
    const at = why.stage === "selected" ? d.indexOf(NO_RULE) : -1;
    if (at >= 0 && d.slice(at + NO_RULE.length) === said.consulted) {
      if (reasons.length > 1) out.push({ ...why, detail: `${d.slice(0, at)}; no ignore rule matches it` });
      continue;
    }
    if (at >= 0) said.consulted = d.slice(at + NO_RULE.length);
    out.push(why);
  }
  return out;
}

/** The files of no known language named under count's `(unknown)` row; past this, how many and how to list them. */
export const UNKNOWN_NAMED = 5;

/**
 * Says which files make count's `(unknown)` row of a breakdown by language (#37: an agent ran `by: file` and a
 * find to learn them): when they are few, their paths; else how many and the call that lists them.
 * @param summary count's summary (its `by`, `breakdown` and `totals`)
 * @param names the paths of the files of no known language, when all of them are known here; else null
 * @param surface "cli" names flags, "mcp" input keys
 * @returns the words, or null when the breakdown has no such row
 */
export function unknownRowNote(
  summary: Readonly<Record<string, unknown>>,
  names: readonly string[] | null,
  surface: "cli" | "mcp",
): string | null {
  if (summary.by !== "language" || !Array.isArray(summary.breakdown)) return null;
  const row = (summary.breakdown as Array<{ key?: unknown; files?: unknown }>).find(
    (g) => g.key === "(unknown)",
  );
  const n = row?.files;
  if (typeof n !== "number" || n === 0) return null;
  const what = `(unknown): ${n === 1 ? "1 file" : `${n} files`} of no known language`;
  if (names !== null && names.length === n && n <= UNKNOWN_NAMED)
    return escapeControls(`${what}: ${names.join(", ")}`);
  const all = (summary.totals as { files?: unknown } | undefined)?.files;
  return surface === "cli"
    ? `${what}; --files lists each file with its language`
    : `${what}; their file records have language null${typeof all === "number" ? ` (limit ${all} lists every file)` : ""}`;
}

/**
 * Says the files dupes counts in `hard_link_only_files` and did not list (#37: the footer said "1 more file has
 * only hard links of itself" and the agent called again for its name): each file as its paths, `a = b` as the
 * hard-link line of a group says it, when they are few; else how many and the option that lists them.
 * @param summary dupes' summary (its hard_link_only_files, and the names under TEXT_FACTS)
 * @param shown how a path is shown (relative to the current directory on the CLI, to the base in the MCP text)
 * @param surface "cli" names flags, "mcp" input keys
 * @returns the words, or null when there are none
 */
export function hardLinkOnlyWords(
  summary: Readonly<Record<string | symbol, unknown>>,
  shown: (rel: string, abs: string) => string,
  surface: "cli" | "mcp",
): string | null {
  const only = summary.hard_link_only_files;
  if (typeof only !== "number" || only === 0) return null;
  const how = surface === "cli" ? "--include-hard-links" : "include_hard_links: true";
  const head =
    only === 1
      ? "1 more file has only hard links of itself"
      : `${only} more files have only hard links of themselves`;
  const sets = (summary[TEXT_FACTS] as TextFacts | undefined)?.hard_link_only_sets;
  // The engine keeps the first HARD_LINK_ONLY_NAMED + 1 (engine/dupes.ts): all of them when they are that few.
  if (sets === undefined || sets.length !== only || only > 5)
    return `${head} (${how} lists ${only === 1 ? "it" : "them"})`;
  const named = sets.map((s) => s.rel.map((rel, i) => shown(rel, s.abs[i] ?? rel)).join(" = ")).join("; ");
  return `${head}: ${named} (${how} lists ${only === 1 ? "it as a group" : "them as groups"})`;
}
