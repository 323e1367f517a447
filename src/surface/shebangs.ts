/*! After a query with a file type (`--lang py`, `file_types`): which files it left out for their names are scripts
 * of an asked language by their `#!` line. The files of no known type (no extension, or one the type table does
 * not know) that pass the query's other tests are those its own walk kept (engine/filter/type-rejects.ts, under the
 * result's TEXT_FACTS); a query whose walk did not go over every entry (a limit, a cursor, a server's replay) walks
 * again without the types. The first line of each is read (a bounded read of a bounded number of files, never a
 * deadline), so the answer says "these 2 start with a python #!" or "none does" and no agent searches every other
 * file to make sure (#37). CLI stderr and MCP text; the structured result is unchanged. */
import { type CallControl, collect, inputKeys } from "../agent/call.ts";
import type { Config } from "../config.ts";
import { TEXT_FACTS, type TextFacts } from "../contract/result.ts";
import { TypeRejects } from "../engine/filter/type-rejects.ts";
import { fileTypeNamed, fileTypes, SHEBANG_MAX, shebangLanguages, shebangLine } from "../engine/languages.ts";
import { validateInput } from "../ops/dispatch.ts";
import type { Operation } from "../ops/operation.ts";
import { findOperation } from "../ops/registry.ts";
import { platform } from "../platform/platform.ts";
import { escapeControls } from "./cli/human/paths.ts";

/** The most files of no known type whose first line is read (as many as the query's walk keeps). */
const MOST_READ = TypeRejects.MOST;
/** The bytes read of each: a `#!` line as count and grep read it (after a byte order mark, SHEBANG_MAX bytes). */
const HEAD = SHEBANG_MAX + 3;
/** The scripts named; past this, how many more. */
const NAMED = 10;

/** The query's options that the second walk does not take: the types themselves, paging and output bounds. */
const DROP = new Set([
  "file_types",
  "file_types_not",
  "limit",
  "cursor",
  "max_output_bytes",
  "timeout_seconds",
  "only_ignored",
  "expand",
  "sort",
  "reverse",
  "links",
]);

/** What the second look found. */
interface ShebangLook {
  /** The type names asked for (py, go). */
  readonly asked: readonly string[];
  /** The files of no known type whose first line was read. */
  readonly read: number;
  /** There were more such files than were read (MOST_READ). */
  readonly cut: "limit" | null;
  /** The scripts of an asked language: the path relative to the base and the interpreter named. */
  readonly scripts: ReadonlyArray<{ readonly rel: string; readonly interpreter: string }>;
}

/**
 * Reads the first line of a file (at most HEAD bytes).
 * @param abs its absolute path
 * @param follow whether a final symlink is followed
 * @returns the line, or "" when it cannot be read
 */
function firstLine(abs: string, follow: boolean): string {
  let fd = -1;
  try {
    fd = platform.open(abs, null, !follow);
    const buf = new Uint8Array(HEAD);
    const n = platform.read(fd, buf, HEAD, 0);
    return shebangLine(buf.subarray(0, n));
  } catch {
    return "";
  } finally {
    if (fd >= 0) platform.close(fd);
  }
}

/**
 * Walks the query again without its file types, keeping the files of no known type, and reads their first lines.
 * @param op the operation that ran
 * @param input its input
 * @param summary its result summary (`type_globs` says a type was named)
 * @param config the call's switches (a served call's are its client's, as the query's own walk took them)
 * @param control the warm state of a server, when there is one
 * @returns what it found, or null when no type was asked for (file_types_not alone) or the walk failed
 */
export async function shebangLook(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  summary: Readonly<Record<string, unknown>>,
  config: Config,
  control: CallControl = {},
): Promise<ShebangLook | null> {
  if (summary.type_globs === undefined || summary.type_globs === null) return null;
  const asked = (Array.isArray(input.file_types) ? (input.file_types as unknown[]) : [])
    .flatMap((n) => (typeof n === "string" ? n.split(",") : []))
    .map((n) => n.trim())
    .filter((n) => n !== "");
  const languages = new Set(asked.flatMap((n) => fileTypeNamed(n)?.language ?? []));
  if (languages.size === 0) return null;
  let given: Record<string, unknown>;
  try {
    // As the run took it: validated, and grep's operands made its roots and globs.
    const validated = await validateInput(op, input);
    given = op.normalize ? op.normalize(validated) : validated;
  } catch {
    return null;
  }
  const follow = given.follow_symlinks === true;
  const kept = keptRejects(given, summary);
  const found = kept ?? (await walkAgain(given, config, control));
  if (found === null) return null;
  const scripts: Array<{ rel: string; interpreter: string }> = [];
  for (const f of found.files) {
    const said = shebangLanguages(firstLine(f.abs, follow));
    if (said?.languages.some((l) => languages.has(l)))
      scripts.push({ rel: f.rel, interpreter: said.interpreter });
  }
  return { asked, read: found.files.length, cut: found.more ? "limit" : null, scripts };
}

/** The files of no known type that a query's types left out: the first MOST_READ, and whether there were more. */
type Candidates = NonNullable<TextFacts["type_rejects"]>;

/**
 * The files the query's own walk kept, when it went over every entry with the options the look would walk with.
 * @param given the query's validated input
 * @param summary its result summary
 * @returns them, or null when the look walks again
 */
function keptRejects(
  given: Readonly<Record<string, unknown>>,
  summary: Readonly<Record<string | symbol, unknown>>,
): Candidates | null {
  const kept = (summary[TEXT_FACTS] as TextFacts | undefined)?.type_rejects;
  if (kept === undefined) return null;
  // The look walks without these; a query that has them walked otherwise (only_ignored without the ignore rules,
  // links selecting symlinks alone).
  if (given.only_ignored === true) return null;
  if (Array.isArray(given.links) && given.links.length > 0) return null;
  return kept;
}

/**
 * Walks the query again without its file types, keeping the files of no known type.
 * @param given the query's validated input
 * @param config the call's switches
 * @param control the warm state of a server, when there is one
 * @returns the files, or null when the walk failed
 */
async function walkAgain(
  given: Readonly<Record<string, unknown>>,
  config: Config,
  control: CallControl,
): Promise<Candidates | null> {
  const find = findOperation("find");
  const keys = inputKeys(find);
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(given)) if (keys.has(k) && !DROP.has(k)) query[k] = v;
  query.file_types_not = fileTypeNames();
  if (!Array.isArray(query.types) || query.types.length === 0) query.types = ["f"];
  // Bounded by the files it keeps (MOST_READ), never by time: a deadline would cut it where the machine's load
  // says, and a cold run and a served one would say different things (#36). A served call replays the walk.
  const again = await collect(find, { ...query, limit: MOST_READ }, { ...control, pathsOnly: true }, config);
  if (!again.ok) return null;
  const files: Array<{ abs: string; rel: string }> = [];
  for (const r of (again.result.results ?? []) as Array<Record<string, unknown>>) {
    if (r.entry_type !== "file" || typeof r.path !== "string" || typeof r.relative_path !== "string")
      continue;
    files.push({ abs: r.path, rel: r.relative_path });
  }
  const more = again.result.truncated === true && again.result.truncated_reason === "limit";
  return { files, more };
}

/**
 * The note that says it.
 * @param look what the second look found, or null when it did not run (file_types_not alone, a type of
 *   type_add's globs only): the rule is said instead
 * @param surface "cli" names flags, "mcp" input keys
 * @returns the note's text (without a prefix)
 */
export function shebangNote(look: ShebangLook | null, surface: "cli" | "mcp"): string {
  if (look === null)
    return "a file type selects by name only, never by a #! line (which count's language reads)";
  const langs =
    look.asked.length === 1 ? look.asked[0] : `${look.asked.slice(0, -1).join(", ")} or ${look.asked.at(-1)}`;
  const key = surface === "cli" ? "--lang" : "file_types";
  const past =
    look.cut === "limit"
      ? `; only the first ${look.read} files of no known type were read, not the others`
      : "";
  const n = look.scripts.length;
  if (n === 0) {
    const which =
      look.read === 0
        ? "the query holds no file of no known type"
        : `the first line of ${look.read === 1 ? "the 1 file" : `the ${look.read} files`} of no known type read`;
    return `no file left out by ${key} starts with a #! of ${langs} (${which})${past}`;
  }
  const named = look.scripts
    .slice(0, NAMED)
    .map((s) => `${s.rel} (${s.interpreter})`)
    .join(", ");
  const more = n > NAMED ? `, and ${n - NAMED} more` : "";
  const them = n === 1 ? "it" : "them";
  const how =
    surface === "cli"
      ? `without ${key}, name ${them} (a glob or a path) to take ${them} in`
      : `without ${key}, name ${them} in patterns or paths to take ${them} in`;
  return escapeControls(
    `${n === 1 ? "1 file" : `${n} files`} left out by ${key} ${n === 1 ? "starts" : "start"} with a #! of ${langs}: ${named}${more}; ${how}${past}`,
  );
}

/**
 * Returns the name of every built-in file type: as file_types_not, the files of no known type are left.
 * @returns the names
 */
export function fileTypeNames(): string[] {
  return fileTypes().map((t) => t.name);
}
