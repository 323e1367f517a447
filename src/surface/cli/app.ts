/*! CLI surface: argv → command → dispatch → sink, and error → exit code. Exit codes: 0 results found,
 * 1 nothing found, 2 error. Machine endpoints (describe, schema, capabilities, agent-version) print pure JSON
 * whatever the TTY. Exit 2 also when a per-path error occurred (rg and grep), except a binary or too large file
 * skipped and a deadline. No search logic here: every operation runs through ops/dispatch.ts. */
import { fstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { type ErrorInfo, failureOf, RglobError } from "../../contract/errors.ts";
import { VERSION_LINE } from "../../contract/versions.ts";
import type { DirectLines } from "../../engine/search/search-text.ts";
import type { Entry } from "../../engine/walk.ts";
import { SCHEMAS } from "../../generated/schemas.ts";
import { dispatch } from "../../ops/dispatch.ts";
import type { Operation } from "../../ops/operation.ts";
import { findOperation, OPERATIONS } from "../../ops/registry.ts";
import { JsonSink } from "../../sink/json.ts";
import { JsonlSink } from "../../sink/jsonl.ts";
import type { Sink } from "../../sink/sink.ts";
import {
  namedFiles,
  nothingFound,
  operandNotes,
  patternNotes,
  skipNote,
  skippedSome,
  wordEdgeNotes,
} from "../hints.ts";
import { assignOperands, flagsOf, parseCommand, UsageError } from "./flags.ts";
import { humanSinkFor } from "./human/index.ts";
import { escapeControls, styleFor } from "./human/paths.ts";
import { cwdOperandPaths } from "./operand-paths.ts";
import { eprint, isTerminal, stdout } from "./output.ts";

function printJson(value: unknown): void {
  stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function failJson(err: RglobError, compact = false): number {
  if (compact) stdout.write(`${JSON.stringify(failureOf(err))}\n`);
  else printJson(failureOf(err));
  return 2;
}

function opOrFail(id: string | undefined): Operation | RglobError {
  if (id === undefined) return new RglobError("BAD_PREDICATE", "missing operation name");
  try {
    return findOperation(id);
  } catch (err) {
    return err as RglobError;
  }
}

/** The introspection module, loaded by the commands that print it (not part of a search's start-up). */
const introspect = () => import("../introspect.ts");
/** The help renderer (citty's command tree and the layout), loaded when help is printed. */
const help = () => import("./help.ts");

async function runMeta(cmd: string, rest: string[]): Promise<number | null> {
  switch (cmd) {
    case "describe": {
      const op = opOrFail(rest[0]);
      if (op instanceof RglobError) return failJson(op);
      printJson((await introspect()).describeOp(op));
      return 0;
    }
    case "schema": {
      if (rest.includes("--all")) {
        printJson(SCHEMAS);
        return 0;
      }
      const op = opOrFail(rest[0]);
      if (op instanceof RglobError) return failJson(op);
      printJson((await introspect()).schemaOf(op));
      return 0;
    }
    case "capabilities":
      printJson((await introspect()).capabilities());
      return 0;
    case "agent-version":
      printJson((await introspect()).agentVersion());
      return 0;
    case "mcp": {
      const { serveMcp } = await import("../mcp/server.ts");
      return serveMcp(rest);
    }
    case "completions":
    case "man": {
      const { completionScript, manPage, metaUsage } = await import("./shell.ts");
      if (rest.includes("--help") || rest.includes("-h")) stdout.write(metaUsage(cmd));
      else stdout.write(cmd === "man" ? manPage() : completionScript(rest[0]));
      return 0;
    }
    default:
      return null;
  }
}

/**
 * Error codes that are skips or bounds, not failures, for the exit code: a binary or too large file is passed
 * over as rg passes it over (exit 0 or 1), and a deadline cuts the result as a limit does (truncated_reason).
 */
const NOT_FAILURES: ReadonlySet<string> = new Set(["BINARY", "TOO_LARGE", "TIMEOUT"]);

class CountingSink implements Sink {
  count = 0;
  /** Per-path errors that make the exit code 2 (rg and grep: an error occurred, even with matches). */
  failures = 0;
  readonly entries?: (entries: readonly Entry[], count: number) => void;
  readonly lines?: DirectLines;
  constructor(private readonly inner: Sink) {
    const write = inner.entries;
    if (write !== undefined)
      this.entries = (entries, count) => {
        this.count += count;
        write(entries, count);
      };
    const lines = inner.lines;
    if (lines !== undefined)
      this.lines = {
        file: (abs) => lines.file(abs),
        line: (n, buf, from, to) => {
          this.count++;
          lines.line(n, buf, from, to);
        },
        text: (n, text) => {
          this.count++;
          lines.text(n, text);
        },
      };
  }
  record(kind: string, record: object): void {
    this.count++;
    this.inner.record(kind, record);
  }
  error(info: ErrorInfo): void {
    if (!NOT_FAILURES.has(info.code)) this.failures++;
    this.inner.error(info);
  }
  binarySkipped(info: ErrorInfo): void {
    this.inner.binarySkipped?.(info);
  }
  end(summary: Record<string, unknown>): void {
    this.inner.end(summary);
  }
}

async function runOperation(op: Operation, argv: string[]): Promise<number> {
  const parsed = parseCommand(op, argv);
  if (parsed.help) {
    stdout.write(`${await (await help()).opHelp(op)}\n`);
    return 0;
  }
  if (parsed.presentation.type_list === true) {
    // rg's --type-list: the file types with their globs, --type-add applied.
    const { typeList, typeListLines } = await import("../../engine/filter/filetype.ts");
    const adds = (parsed.input.type_add as string[] | undefined) ?? [];
    const pres = parsed.presentation;
    if (pres.json === true) stdout.write(`${JSON.stringify({ types: typeList(adds) })}\n`);
    else if (pres.jsonl === true) {
      for (const t of typeList(adds)) stdout.write(`${JSON.stringify({ kind: "type", ...t })}\n`);
      stdout.write(`${JSON.stringify({ kind: "summary" })}\n`);
    } else stdout.write(`${typeListLines(adds).join("\n")}\n`);
    return 0;
  }
  const input = parsed.input;
  if (typeof parsed.presentation.file === "string") {
    // rg's and grep's -f: patterns from a file, one a line; then every operand is a path.
    const source = parsed.presentation.file;
    let text: string;
    try {
      text = readFileSync(source === "-" ? 0 : source, "utf8");
    } catch (err) {
      throw new UsageError(`-f ${source}: ${(err as Error).message}`);
    }
    const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
    if (lines.at(-1) === "") lines.pop();
    if (lines.length === 0) throw new UsageError(`-f ${source}: the pattern file holds no pattern`);
    input.regexps = [...((input.regexps as string[] | undefined) ?? []), ...lines];
  }
  // rg's --passthru: every line, the non-matching ones as context.
  if (parsed.presentation.passthru === true) input.context = 2 ** 31 - 1;
  // Path operands are relative to the current directory whatever --base says (ADR 0015).
  const operands = cwdOperandPaths(op, parsed.operands, input, process.cwd());
  if (op.cli.operandsToInput) Object.assign(input, op.cli.operandsToInput(operands, process.cwd()));
  else assignOperands(op, operands, input);
  const misuse = op.cli.misuse?.(input, process.cwd());
  if (misuse) throw new UsageError(misuse);
  // rg's stdin: `cmd | rglob grep x` (no path given, stdin a pipe or a file) and `-` as an operand.
  const stdinFile = op.id === "grep" ? stdinAsFile(input) : null;
  const pres = parsed.presentation;
  if (pres.json && pres.jsonl) throw new UsageError("--json and --jsonl exclude each other");
  if (pres.color !== undefined && !["auto", "always", "never"].includes(String(pres.color))) {
    throw new UsageError(`--color: '${pres.color}' is not one of auto, always, never`);
  }
  const machine = pres.json === true || pres.jsonl === true;
  const quiet = pres.quiet === true;
  if (quiet && machine) throw new UsageError("--quiet and --json/--jsonl exclude each other");
  // -q (grep's habit): no output, and the run stops at its first record; the exit code tells.
  if (quiet) input.limit = 1;
  // fd's -1: the first result only.
  if (pres.one === true) input.limit = 1;
  let inner: Sink;
  let pathsOnly = false;
  let named: Set<string> | null = null; // grep's operands that are files, found when a binary file is skipped
  // Walk entries (find's batches) are written as their records' text with no record made; stdout takes the
  // pieces.
  if (pres.jsonl) inner = new JsonlSink(stdout.write, op.jsonlExpander?.(), stdout);
  else if (pres.json) inner = new JsonSink(stdout.write, stdout);
  else {
    const human = (await humanSinkFor(op.id))(stdout, styleFor(pres.color), pres, input);
    pathsOnly = human.pathsOnly === true;
    const writeEntries = human.entries;
    inner = {
      // -q writes nothing (its limit of 1 keeps lines from being offered anyway).
      ...(human.lines !== undefined && !quiet ? { lines: human.lines } : {}),
      ...(writeEntries !== undefined
        ? {
            entries: (entries: readonly Entry[], count: number) => {
              if (!quiet) writeEntries(entries, count);
            },
          }
        : {}),
      record: (k, r) => {
        if (!quiet) human.record(k, r);
      },
      binarySkipped: (info) => {
        named ??= namedFiles(op, operands, input, process.cwd());
        if (info.path !== null && named.has(info.path)) {
          eprint(
            `rglob: ${escapeControls(info.path)}: binary file skipped (a NUL byte); -a searches it as text`,
          );
        }
      },
      error: (info) => {
        human.error(info);
        // Skipped binary files are expected, as in grep and ripgrep: counted in the summary, not printed, but for
        // a file named on the command line (as ripgrep does).
        if (info.code === "BINARY") {
          named ??= namedFiles(op, operands, input, process.cwd());
          if (info.path !== null && named.has(info.path)) {
            eprint(
              `rglob: ${escapeControls(info.path)}: binary file skipped (a NUL byte); -a searches it as text`,
            );
          }
          return;
        }
        eprint(`rglob: ${info.code}: ${info.path ? `${escapeControls(info.path)}: ` : ""}${info.message}`);
      },
      end: (s) => {
        if (!quiet || pres.stats === true) human.end(s);
      },
    };
  }
  if (stdinFile !== null) inner = renamed(inner, stdinFile);
  const sink = new CountingSink(inner);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  const progress = !machine && isTerminal(2);
  let shownProgress = false;
  let summary: Record<string, unknown> | null = null;
  try {
    summary = await dispatch(op, input, sink, {
      signal: controller.signal,
      pathsOnly,
      // Human output writes names that are not valid UTF-8 as their raw bytes; JSON gets the wire form.
      rawNames: !machine,
      // grep uses the persisted index of the tree it searches, when `rglob index` made one.
      ...(op.id === "grep"
        ? { warm: new (await import("../../engine/index/persist.ts")).PersistedIndexes() }
        : {}),
      ...(progress
        ? {
            onProgress: (n: number) => {
              shownProgress = true;
              process.stderr.write(`\r\u001b[2Kscanned ${n} entries…`);
            },
          }
        : {}),
    });
  } catch (err) {
    if (!(err instanceof RglobError)) throw err;
    // People read the message with the flag they typed; the JSON envelope stays the library's and MCP's.
    const spelled = withFlagSpelling(op, err);
    // A failure envelope replaces the result, so it is printed only while nothing of the result is out.
    if (machine && !(inner instanceof JsonSink && inner.opened)) {
      eprint(failureLine(spelled));
      return failJson(err, true);
    }
    throw spelled;
  } finally {
    process.off("SIGINT", onSignal);
    if (shownProgress) process.stderr.write("\r\u001b[2K");
    if (stdinFile !== null) rmSync(path.dirname(stdinFile), { recursive: true, force: true });
  }
  // Human output does not show the result's metadata: say when a bound that is not a count of lines (a deadline,
  // bytes read, output size) cut it, since the lines shown then look like all there is, and how to go on.
  const reason = summary?.truncated_reason;
  if (
    !machine &&
    !quiet &&
    (reason === "timeout" || reason === "max_bytes" || reason === "max_output_bytes")
  ) {
    const cursor =
      typeof summary.next_cursor === "string" ? `; the next page: --cursor ${summary.next_cursor}` : "";
    // A deadline is already reported as a TIMEOUT error line; only its cursor is news.
    if (reason !== "timeout" || cursor !== "") eprint(`rglob: truncated (${reason})${cursor}`);
  }
  // A summary that counted files (count --limit 0: totals alone) is an answer too, as is a run whose every
  // record the limit held back (--limit 0: it says there were some).
  const found = summary === null ? sink.count > 0 : !nothingFound(summary, sink.count);
  const skipped = summary !== null && skippedSome(summary);
  for (const note of operandNotes(op, operands, input, found, process.cwd(), skipped)) {
    eprint(`rglob: note: ${note}`);
  }
  if (!found)
    for (const note of patternNotes(op, operands, input, process.cwd())) eprint(`rglob: note: ${note}`);
  if (!quiet)
    for (const note of wordEdgeNotes(op, operands, input, process.cwd())) eprint(`rglob: note: ${note}`);
  // Nothing skipped silently: an empty answer says what was left out and which flag includes it.
  if (!found && !quiet && summary !== null) {
    const note = skipNote(op, summary, "cli");
    if (note !== null) eprint(`rglob: ${note}`);
    // What the query finds among the ignored entries, and the rule that ignores each.
    const { ignoredHits, ignoredHitsNote } = await import("../ignored.ts");
    const among = ignoredHitsNote(await ignoredHits(op, input, summary));
    if (among !== null) eprint(`rglob: ${escapeControls(among)}`);
  }
  // explain: its exit code is the verdict (0 every path included, 1 one is not), as grep's is; 2 when a path it
  // was given does not exist.
  if (typeof summary?.included === "boolean") return sink.failures > 0 ? 2 : summary.included ? 0 : 1;
  // As rg and grep: 2 when an error occurred (an unreadable file, a missing root), even with results; but -q
  // that found a match answers 0 (its question was answered).
  if (sink.failures > 0 && !(quiet && found)) return 2;
  return found ? 0 : 1;
}

/** How rg names standard input in its output. */
const STDIN_NAME = "<stdin>";

/**
 * Copies standard input to a private temporary file when grep is to search it, as rg does: when `-` is an
 * operand (it is replaced by the copy), or when no path is given and stdin is a pipe or a file (not a terminal,
 * not /dev/null). The engine searches files by path, so stdin becomes one; its records are named `<stdin>`.
 * @param input the grep input, operands assigned (changed in place)
 * @returns the copy's path, or null when stdin is not searched
 */
function stdinAsFile(input: Record<string, unknown>): string | null {
  const operands = (input.operands as string[] | undefined) ?? [];
  const viaFlags =
    typeof input.pattern === "string" || ((input.regexps as string[] | undefined) ?? []).length > 0;
  const rest = viaFlags ? operands : operands.slice(1);
  const dash = rest.includes("-");
  if (!dash) {
    if (rest.length > 0 || ((input.paths as string[] | undefined) ?? []).length > 0) return null;
    let st: ReturnType<typeof fstatSync>;
    try {
      st = fstatSync(0);
    } catch {
      return null;
    }
    if (!st.isFIFO() && !st.isFile()) return null;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "rglob-stdin-"));
  const file = path.join(dir, "stdin");
  writeFileSync(file, readFileSync(0));
  if (dash) input.operands = operands.map((o, i) => (o === "-" && (viaFlags || i > 0) ? file : o));
  else input.paths = [file];
  return file;
}

/**
 * Names the copy of stdin `<stdin>` in records and errors, as rg does.
 * @param inner the sink
 * @param file the copy's path
 * @returns a sink that renames it
 */
function renamed(inner: Sink, file: string): Sink {
  const fix = <T extends object>(r: T): T => {
    const rec = r as { path?: unknown };
    return rec.path === file ? { ...r, path: STDIN_NAME, relative_path: STDIN_NAME } : r;
  };
  return {
    record: (kind, r) => inner.record(kind, fix(r)),
    error: (info) => inner.error(info.path === file ? { ...info, path: STDIN_NAME } : info),
    end: (summary) => inner.end(summary),
  };
}

/**
 * Names the flag of an input key in a validation message (`invalid 'limit' for top` → `invalid 'limit' (-n,
 * --limit) for top`): the message names input keys, which a person typed as flags.
 * @param op the operation
 * @param err the request failure
 * @returns the failure, its message naming the flag when it names a key that has one
 */
function withFlagSpelling(op: Operation, err: RglobError): RglobError {
  const m = /^(invalid|missing required option) '([a-z_]+)' for /.exec(err.message);
  const spec = m ? flagsOf(op).find((f) => f.key === m[2] && !f.presentation) : undefined;
  if (!m || !spec) return err;
  const spelled = `${spec.short ? `-${spec.short}, ` : ""}--${spec.long}`;
  const message = err.message.replace(`'${m[2]}' for `, `'${m[2]}' (${spelled}) for `);
  return new RglobError(err.code, message, { path: err.path, cause: err });
}

/**
 * Runs the CLI.
 * @param argv the arguments after the program name
 * @returns the exit code
 */
/**
 * The stderr line of a failure: its code, the path it concerns (as error records print it) unless the message
 * already names it (or its last component), and the message.
 * @param err the failure
 * @returns the line, without its newline
 */
function failureLine(err: RglobError): string {
  const named = err.path !== null && err.message.includes(err.path.slice(err.path.lastIndexOf("/") + 1));
  const where = err.path !== null && !named ? `${escapeControls(err.path)}: ` : "";
  return `rglob: ${err.code}: ${where}${err.message}`;
}

export async function runCli(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (cmd === undefined) {
      eprint(await (await help()).rootHelp(2));
      return 2;
    }
    if (cmd === "--help" || cmd === "-h" || cmd === "help") {
      const op = rest[0] ? opOrFail(rest[0]) : null;
      const { opHelp, rootHelp } = await help();
      stdout.write(`${op && !(op instanceof RglobError) ? await opHelp(op) : await rootHelp()}\n`);
      return 0;
    }
    if (cmd === "--version" || cmd === "-V") {
      stdout.write(`${VERSION_LINE}\n`);
      return 0;
    }
    const meta = await runMeta(cmd, rest);
    if (meta !== null) return meta;
    const op = OPERATIONS.find((o) => o.id === cmd);
    if (!op) throw new UsageError(`unknown command '${cmd}' (run 'rglob --help')`);
    return await runOperation(op, rest);
  } catch (err) {
    if (err instanceof UsageError) {
      eprint(`rglob: usage: ${err.message}`);
      return 2;
    }
    if (err instanceof RglobError) {
      eprint(failureLine(err));
      return 2;
    }
    throw err;
  } finally {
    stdout.flush();
  }
}
