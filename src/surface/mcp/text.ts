/*! MCP text content: the answer of a tool call as plain text, for hosts that show a model only the text. The
 * summary fields (totals, breakdowns, verdicts), per-path errors grouped by kind, then one line (or one whole
 * group) per record, cut at a record boundary to a byte budget. Pure text; it never runs an operation. */
import { posix } from "node:path";
import { linkStateWords } from "../../engine/links.ts";
import { encodingKey } from "../../engine/search/encoding.ts";
import { countedBy } from "../../ops/count/schema.ts";
import { regionTag } from "../../ops/grep/region-tag.ts";
import type { Submatch } from "../../ops/grep/schema.ts";
import type { Operation } from "../../ops/operation.ts";
import { BASE_NOT_COUNTED } from "../../ops/stats/schema.ts";
import { consultedOnce, insideWords } from "../hints.ts";

type Rec = Readonly<Record<string, unknown>>;

/** Result fields that the header or the records already say, or that a text reader does not need. */
const META = new Set([
  "results",
  "truncated",
  "truncated_reason",
  "next_cursor",
  "errors",
  "schema_version",
  "total_files_searched",
  "bytes_read",
  // Where the answer came from (index, warm list, cold walk): for debugging, in the structured result.
  "source",
  // Said in a note (the instants a duration was resolved to).
  "time_window",
  // grep's older per-reason counts: the skip ledger says the same.
  "files_skipped",
]);

/** grep's totals, which count what this call searched: the whole search, or this page only (#37). */
const GREP_TOTALS = new Set(["total_matches", "matched_lines", "files_with_matches", "breakdown"]);

/** What a text says beyond the result: what grep's totals cover, the budget a whole text needs. */
export interface TextOptions {
  /** What grep's totals count, said after each of them when the answer is paged: "in all", "this page"… */
  readonly totals?: string;
  /** The max_output_bytes with which the text would list every record of the structured result. */
  readonly wholeTextBytes?: number;
  /** The records are grep's files_without_match: said as such, each a bare path (not `path:0`). */
  readonly withoutMatch?: boolean;
  /** grep was given an encoding label (not auto): every file decoded as asked, so no file's encoding is said. */
  readonly encodingNamed?: boolean;
}

/** grep's totals of matches, which files_without_match stops counting at each file's first: not said then. */
const MATCH_TOTALS = new Set(["total_matches", "matched_lines"]);

/** Error examples listed per code before the rest of that code is counted. */
const EXAMPLES_PER_CODE = 3;

/** A value for a text line: objects and arrays as compact JSON without absolute paths. */
function brief(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === "path" || key === "paths" ? undefined : v));
}

/** A count with its noun: "1 file", "2 files" (#37: the texts printed "1 files"). */
function plural(n: unknown, one: string, many = `${one}s`): string {
  return `${str(n)} ${n === 1 ? one : many}`;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : String(v);
}

function nameOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at < 0 ? rel : rel.slice(at + 1);
}

/**
 * A grep record's file encoding when it is not plain UTF-8, in the words of the summary's `encodings`
 * (`windows-1252`, `utf-16le+bom`…), or null: said once per file, as its records carry it (#36: both trial agents
 * made a second call to learn which file had which encoding).
 */
function decodedFrom(r: Rec): string | null {
  if (typeof r.encoding !== "string" || r.binary_offset !== undefined) return null;
  const key = encodingKey(r.encoding, r.bom === true);
  return key === "utf-8" ? null : key;
}

/** A symlink's ` -> target`, the text exactly as written, and its note (`directory` when its chain ends at one). */
function linkArrow(r: Rec): string {
  return ` -> ${str(r.link_target)}${linkNote(r)}`;
}

/** Whether a working link's chain ends elsewhere than its target text names (resolved against the link's
 * directory): it passes through another link. An absolute target is compared as written. */
function viaLinks(r: Rec): boolean {
  const target = str(r.link_target);
  const rel = str(r.relative_path);
  const path = str(r.path);
  // An absolute target is compared as an absolute path: the base is the record's path without its relative one.
  const base = path.endsWith(`/${rel}`) ? path.slice(0, path.length - rel.length - 1) : null;
  if (target.startsWith("/") && base === null) return false;
  const from = target.startsWith("/") ? target : posix.join(posix.dirname(rel), target);
  const joined = posix.normalize(from);
  const named = joined.length > 1 && joined.endsWith("/") ? joined.slice(0, -1) : joined;
  const resolved = str(r.link_resolved);
  if (!target.startsWith("/")) return named !== resolved;
  return named !== (resolved.startsWith("/") ? resolved : posix.join(base ?? "", resolved));
}

/** What a symlink's text line adds: whether its chain ends at a directory, its state in find's {link} words (broken, escaping, absolute; a working link's ok is left out), and where a link that is not ok ends. */
function linkNote(r: Rec): string {
  // The words of find's {link} (#37): one source, so both surfaces say "broken, escaping, absolute" alike; a
  // working link says no "ok", as the CLI's listing does not.
  const notes = linkStateWords(r as Parameters<typeof linkStateWords>[0]).filter((w) => w !== "ok");
  const ok = r.link_target_exists === true && r.link_escapes !== true;
  // Where the chain ends, when the target text does not say it: a link that is not ok, and a working one whose
  // chain passes through another link (#37: a trial agent followed a three-link chain one call a hop).
  if (typeof r.link_resolved === "string" && r.link_resolved !== r.link_target && (!ok || viaLinks(r)))
    notes.push(`ends at ${r.link_resolved}`);
  // The text is shown exactly; a directory end is a word, not ls -lF's `/` (read as part of the text, #37).
  if (r.link_target_type === "d") notes.unshift("directory");
  return notes.length === 0 ? "" : ` (${notes.join(", ")})`;
}

/** The text lines of one record, and the raw bytes of a path that is not valid UTF-8 (the lossy path above
 * cannot name it). */
function recordLines(op: Operation, r: Rec, bare: boolean): string[] {
  const lines = bare ? [str(r.relative_path ?? "")] : linesOf(op, r);
  // only_ignored (#37): the rule that ignores the path, after its line (a grep line's text stays as it is).
  if (typeof r.ignored_by === "string") lines.push(`  ignored by ${r.ignored_by}`);
  // count's classify (#37): the lines worth a check, one a line, as grep -n prints them.
  if (typeof r.line_classes === "string")
    lines.push(`  line classes (c code, # comment, . blank): ${r.line_classes}`);
  if (Array.isArray(r.line_notes))
    for (const n of r.line_notes as Rec[])
      lines.push(
        `  ${str(n.line)}: ${str(n.class)} (${str(n.why)})${n.text === "" ? "" : `: ${str(n.text)}`}`,
      );
  const words = insideWords(r);
  if (words !== null && op.id !== "explain" && op.id !== "tree")
    lines.push(`  a directory: ${words}, not listed (expand lists them)`);
  if (typeof r.path_bytes === "string")
    lines.push(`  (not valid UTF-8; path_bytes, base64 of the path: ${r.path_bytes})`);
  if (Array.isArray(r.paths_bytes))
    for (const x of r.paths_bytes)
      if (typeof x === "string") lines.push(`  (not valid UTF-8; path_bytes, base64 of the path: ${x})`);
  return lines;
}

/** The text lines of one record: per operation, with a generic fallback. */
function linesOf(op: Operation, r: Rec): string[] {
  const rel = str(r.relative_path ?? "");
  switch (op.id) {
    case "grep":
      if (typeof r.line_number === "number" && typeof r.content === "string") {
        const lines: string[] = [];
        for (const c of (r.before as Rec[] | undefined) ?? [])
          lines.push(`${rel}-${c.line_number}-${c.content}`);
        lines.push(`${rel}:${r.line_number}:${regionTag(r as { submatches: Submatch[] })}${r.content}`);
        for (const c of (r.after as Rec[] | undefined) ?? [])
          lines.push(`${rel}-${c.line_number}-${c.content}`);
        return lines;
      }
      return [typeof r.count === "number" ? `${rel}:${r.count}` : rel];
    case "find": {
      // The path, then the size (files) and the modification time, so a text-only host can answer "how large"
      // and "changed when" without a second call.
      // saved_as (#37): the encoding and line ends each file was selected by, first after its path.
      const enc = `${typeof r.encoding === "string" ? `  saved as ${r.encoding}` : ""}${typeof r.eol === "string" ? `  line ends ${r.eol}` : ""}`;
      if (typeof r.link_target === "string") return [`${rel}${linkArrow(r)}${enc}`];
      if ((r.kinds as string[] | undefined)?.includes("d")) return [`${rel}/`];
      const size = typeof r.size === "number" ? `  ${r.size} bytes` : "";
      const mtime = typeof r.mtime === "string" ? `  ${r.mtime}` : "";
      return [`${rel}${enc}${size}${mtime}`];
    }
    case "tree": {
      const depth = typeof r.depth === "number" ? r.depth : 1;
      const dir = (r.kinds as string[] | undefined)?.includes("d");
      const size = typeof r.size === "number" ? ` (${r.size} bytes)` : "";
      const link = typeof r.link_target === "string" ? linkArrow(r) : "";
      const n = r.entries_inside;
      const below =
        typeof n === "number" ? `  [${n} ${n === 1 ? "entry" : "entries"}, ${r.size} bytes below]` : "";
      return [`${"  ".repeat(Math.max(0, depth - 1))}${nameOf(rel)}${dir ? `/${below}` : link || size}`];
    }
    case "top":
      return [
        `${r.rank}. ${rel}${(r.kinds as string[] | undefined)?.includes("d") ? "/" : ""} ${r.size} bytes`,
      ];
    case "dupes": {
      const paths = (r.relative_paths as string[] | undefined) ?? [];
      const links = (r.hard_links as string[][] | undefined) ?? [];
      // The CLI's words (#37): "3 files", or "3 paths, 2 files" when hard links make fewer files than paths.
      const what =
        r.files === r.count
          ? plural(r.count, "file")
          : `${plural(r.count, "path")}, ${plural(r.files, "file")}`;
      return [
        `${what} of ${r.size} bytes (${r.wasted_bytes} bytes wasted, ${str(r.digest)}):`,
        ...paths.map((p) => `  ${p}`),
        ...links.map((set) => `  hard links: ${set.join(" = ")}`),
      ];
    }
    case "explain": {
      // A rule of `rules` (#37): FILE:LINE: PATTERN and what it decides, as the CLI says it.
      if (typeof r.decides === "number") {
        const n = r.decides;
        const what = n === 0 ? "decides nothing" : `decides ${plural(n, "path")}`;
        const decided = Array.isArray(r.decided) ? (r.decided as unknown[]).map((q) => `  ${str(q)}`) : [];
        return [`${rel}:${str(r.line)}: ${str(r.pattern)}  (${what})`, ...decided];
      }
      // The CLI's words (#37): included or not included; "ignored" is the reason an ignore rule gives.
      const words = insideWords(r);
      const inside = words === null ? "" : `/: not included, with ${words} (expand lists them)`;
      const verdict = r.included
        ? "included"
        : `not included${r.exists === false ? ", it does not exist" : ""}`;
      const lines = [inside ? `${rel}${inside}` : `${rel}: ${verdict}`];
      for (const why of (r.reasons as Rec[] | undefined) ?? []) {
        // An ignore rule's detail says its file (relative to the base), line and pattern already (#37: the
        // absolute file and the pattern again were a third of an `only: ignored` answer's text).
        const said = why.stage === "ignore" && typeof why.detail === "string" && why.detail.includes(":");
        const where =
          typeof why.file === "string" && !said
            ? ` (${why.file}${why.line != null ? `:${why.line}` : ""}`
            : "";
        const pattern =
          typeof why.pattern === "string" && !said ? `${where ? ", " : " ("}pattern '${why.pattern}'` : "";
        lines.push(`  ${str(why.stage)}: ${str(why.detail)}${where}${pattern}${where || pattern ? ")" : ""}`);
      }
      return lines;
    }
    default: {
      if (typeof r.relative_path === "string") {
        const rest = Object.entries(r).filter(
          ([k]) =>
            k !== "path" &&
            k !== "relative_path" &&
            k !== "path_bytes" &&
            k !== "line_notes" &&
            k !== "line_classes",
        );
        return [
          `${rel}: ${rest.map(([k, v]) => `${k} ${typeof v === "object" ? brief(v) : str(v)}`).join(", ")}`,
        ];
      }
      return [brief(r)];
    }
  }
}

/** Shows a path relative to the request's base when it is below it. */
function shownPath(base: string | null): (p: unknown) => string {
  return (p) => {
    const text = str(p ?? "");
    return base !== null && text.startsWith(`${base}/`) ? text.slice(base.length + 1) : text;
  };
}

/** Error codes of files that were skipped, not failed: the skip ledger's reason that counts each. */
const SKIP_REASONS: Readonly<Record<string, string>> = { BINARY: "binary", TOO_LARGE: "too_large" };

/**
 * Returns the skip ledger's line: each reason that counted something, and for binary and too large files the
 * way to include them and their paths, as many as fit a tenth of the budget, then how many more (their error
 * records say the same, so they are not repeated as errors), or null when nothing was skipped.
 */
function skippedLine(
  skipped: Rec,
  folded: ReadonlyMap<string, readonly Rec[]>,
  base: string | null,
  budget: number,
): string | null {
  const shown = shownPath(base);
  // The bytes of paths a reason may name: a tenth of the text's budget, 200 to 1,500.
  const room = Math.min(1500, Math.max(200, Math.floor(budget / 10)));
  const counted = Object.entries(skipped).filter(([, n]) => typeof n === "number" && n > 0);
  if (counted.length === 0) return null;
  const parts = counted.map(([reason, n]) => {
    const list = folded.get(reason);
    if (list === undefined || list.length === 0)
      return reason === "binary"
        ? `binary ${str(n)} (text: true searches them, list_binary: true lists them)`
        : `${reason} ${str(n)}`;
    // Every path that fits the line's share of the budget, then how many more and what lists them (#36: a
    // trial agent made a call to see the files a "…" stood for).
    const names: string[] = [];
    let bytes = 0;
    for (const e of list) {
      const name = shown(e.path);
      bytes += Buffer.byteLength(name) + 2;
      if (bytes > room && names.length > 0) break;
      names.push(name);
    }
    const rest = list.length - names.length;
    const more =
      rest === 0
        ? ""
        : ` and ${rest} more${reason === "binary" ? '; find with saved_as: ["binary"] lists binary files' : ""}`;
    return `${reason} ${str(n)} (${str(list[0]?.message)}: ${names.join(", ")}${more})`;
  });
  return `skipped: ${parts.join(", ")}`;
}

/**
 * Returns the per-path errors as text: one line per error when few, else per code a count and a few examples.
 * @param errors the result's errors
 * @returns the lines
 */
function errorLines(errors: readonly Rec[], base: string | null = null): string[] {
  const shown = shownPath(base);
  const byCode = new Map<string, Rec[]>();
  for (const e of errors) {
    const code = str(e.code);
    const list = byCode.get(code) ?? [];
    list.push(e);
    byCode.set(code, list);
  }
  const lines: string[] = [];
  for (const [code, list] of byCode) {
    if (list.length <= EXAMPLES_PER_CODE) {
      for (const e of list)
        lines.push(`error ${code}: ${e.path == null ? "" : `${shown(e.path)} `}${str(e.message)}`);
      continue;
    }
    const examples = list
      .slice(0, EXAMPLES_PER_CODE)
      .map((e) => (e.path == null ? str(e.message) : shown(e.path)));
    lines.push(`${list.length} ${code} errors (${str(list[0]?.message)}), e.g. ${examples.join(", ")}`);
  }
  return lines;
}

/**
 * Returns how records of walk entries split into files, directories, symlinks and others (" (3 files, 1 directory)"),
 * or "" for records without entry_type.
 * @param results the records
 * @returns the text
 */
function entryTypes(results: readonly Rec[]): string {
  const n = { file: 0, dir: 0, symlink: 0, other: 0 };
  let any = false;
  for (const r of results) {
    const t = r.entry_type;
    if (typeof t !== "string") continue;
    any = true;
    if (t === "file" || t === "dir" || t === "symlink") n[t]++;
    else n.other++;
  }
  if (!any) return "";
  const parts = [
    `${n.file} ${n.file === 1 ? "file" : "files"}`,
    `${n.dir} ${n.dir === 1 ? "directory" : "directories"}`,
  ];
  if (n.symlink > 0) parts.push(`${n.symlink} ${n.symlink === 1 ? "symlink" : "symlinks"}`);
  if (n.other > 0) parts.push(`${n.other} other`);
  return ` (${parts.join(", ")})`;
}

/**
 * The verdict line of an explain result: `included: yes` for one path, else how many of the paths explained are
 * included and how many not (the `included` field alone is true only when every one is).
 */
function explainVerdicts(result: Rec): string {
  const n = typeof result.explained === "number" ? result.explained : 0;
  const out =
    typeof result.not_included === "number" ? result.not_included : result.included === true ? 0 : n;
  if (n === 1) return `included: ${out === 0 ? "yes" : "no"}`;
  return `included: ${n - out} of ${n} (${out} not included)`;
}

/**
 * Creates the text of a result: a header line (records, files searched, truncation and how to page), the
 * summary fields, the errors grouped by code, then the records, cut at a record boundary when the text would
 * pass `budget` bytes (a last line says how many records the text leaves out).
 * @param op the operation
 * @param tool the tool name
 * @param result the result object
 * @param budget the most bytes the text may take
 * @param allErrors every per-path error of the run (the structured result may list fewer)
 * @param base the request's base (error paths below it are shown relative to it), or null
 * @param options what grep's totals cover, and the budget the whole text needs
 * @returns the text
 */
export function resultText(
  op: Operation,
  tool: string,
  result: Rec,
  budget: number,
  allErrors: readonly Rec[] = [],
  base: string | null = null,
  options: TextOptions = {},
): string {
  const results = Array.isArray(result.results) ? (result.results as Rec[]) : [];
  // explain examines entries of every kind (#37: "134 files searched" counted directories too): it says them.
  const examined =
    op.id === "explain" && typeof result.explained === "number"
      ? `${plural(result.explained, "entry", "entries")} explained`
      : `${plural(result.total_files_searched, "file")} searched`;
  const bare = options.withoutMatch === true;
  // files_without_match (a trial agent read `path:0` under "files_with_matches: 75" as the list of matches): the
  // header says what the list is.
  const head = [
    bare
      ? `${tool}: ${plural(results.length, "file")} without a match (of ${str(result.total_files_searched)} searched)`
      : `${tool}: ${plural(results.length, "record")}${entryTypes(results)}, ${examined}`,
  ];
  if (result.truncated) {
    head.push(`truncated (${result.truncated_reason})`);
    if (typeof result.next_cursor === "string") head.push(`next page: cursor=${result.next_cursor}`);
  }
  const lines = [head.join("; ")];
  // Binary and too large files the ledger counts are said in its line, not as errors.
  const skipped = (
    typeof result.skipped === "object" && result.skipped !== null ? result.skipped : {}
  ) as Rec;
  const folded = new Map<string, Rec[]>();
  const errors: Rec[] = [];
  for (const e of allErrors) {
    const reason = SKIP_REASONS[str(e.code)];
    const counts =
      reason !== undefined && typeof skipped[reason] === "number" && (skipped[reason] as number) > 0;
    if (reason !== undefined && counts && e.path != null) {
      const list = folded.get(reason) ?? [];
      list.push(e);
      folded.set(reason, list);
    } else errors.push(e);
  }
  for (const [k, v] of Object.entries(result)) {
    if (META.has(k) || v === null || v === undefined || (bare && MATCH_TOTALS.has(k))) continue;
    if (k === "skipped" && typeof v === "object") {
      const line = skippedLine(v as Rec, folded, base, budget);
      if (line !== null) lines.push(line);
      continue;
    }
    // explain's verdict over several paths (#37): how many are included, never a bare `included: false`.
    if (op.id === "explain" && (k === "not_included" || k === "explained")) continue;
    if (op.id === "explain" && k === "included") {
      lines.push(explainVerdicts(result));
      continue;
    }
    const scope =
      op.id === "grep" && options.totals !== undefined && GREP_TOTALS.has(k) ? ` (${options.totals})` : "";
    // stats' directories (#37): a trial agent listed every directory to learn whether the base was counted.
    const said = op.id === "stats" && k === "directories" ? ` ${BASE_NOT_COUNTED}` : "";
    const line = `${k}${scope}: ${typeof v === "object" ? brief(v) : str(v)}${said}`;
    lines.push(line.length > 2000 ? `${line.slice(0, 2000)}… (the structured result has it all)` : line);
  }
  lines.push(...errorLines(errors, base));
  // count's rules, short (#37): the counts need no re-check by reading the files.
  if (op.id === "count" && ((result.totals as Rec | undefined)?.files ?? 0) !== 0)
    lines.push(countedBy("classify: true", 'docstrings: "code"'));
  const foldedDirs =
    op.id === "tree" ? results.filter((r) => typeof r.entries_inside === "number").length : 0;
  if (foldedDirs > 0)
    lines.push(
      `${foldedDirs} directories folded at fold_depth: each says what is below it, not listed; to go deeper, base=that directory, or a larger fold_depth (0 folds nothing)`,
    );
  let used = Buffer.byteLength(lines.join("\n"));
  // A trial agent asked for a breakdown took 50 per-file records (19.8 KB) it did not need: how to leave them out
  // (said only where the text has room for it: max_output_bytes bounds the whole response).
  if (op.id === "count" && typeof result.by === "string" && results.length > 0) {
    const hint = `per-file records below: ${results.length} of ${plural((result.totals as Rec | undefined)?.files, "file")}; limit: 0 leaves them out`;
    const size = Buffer.byteLength(hint) + 1;
    if (used + size <= budget - 80) {
      lines.push(hint);
      used += size;
    }
  }
  const said = { consulted: null as string | null };
  const decoded = new Set<string>();
  for (const [i, r] of results.entries()) {
    let block = recordLines(
      op,
      op.id === "explain"
        ? { ...r, reasons: consultedOnce((r.reasons as Rec[] | undefined) ?? [], said) }
        : r,
      bare,
    ).join("\n");
    // A file not in plain UTF-8: its encoding after its first record, once (#36).
    const enc = op.id === "grep" && options.encodingNamed !== true ? decodedFrom(r) : null;
    if (enc !== null && !decoded.has(str(r.path))) {
      decoded.add(str(r.path));
      block += `\n  (file saved as ${enc}, searched decoded)`;
    }
    const size = Buffer.byteLength(block) + 1;
    if (used + size > budget - 80) {
      // #37: agents set max_output_bytes too small and asked again, twice; the size that lists them all here.
      const whole =
        options.wholeTextBytes === undefined
          ? ""
          : `; max_output_bytes=${options.wholeTextBytes} lists them all here`;
      lines.push(
        `… ${plural(results.length - i, "more record", "more records")} in the structured result (text cut at max_output_bytes${whole})`,
      );
      break;
    }
    lines.push(block);
    used += size;
  }
  return lines.join("\n");
}
