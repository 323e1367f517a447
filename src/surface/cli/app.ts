/*! CLI surface: argv → command → dispatch → sink, and error → exit code. Exit codes: 0 results found,
 * 1 nothing found, 2 error. Machine endpoints (describe, schema, capabilities, agent-version) print pure JSON
 * whatever the TTY. Exit 2 also when a per-path error occurred (rg and grep), except a binary or too large file
 * skipped and a deadline. No search logic here: every operation runs through ops/dispatch.ts. */
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { Config, Host } from "../../config.ts";
import { type ErrorInfo, failureOf, RglobError } from "../../contract/errors.ts";
import { VERSION_LINE } from "../../contract/versions.ts";
import { SCHEMAS } from "../../generated/schemas.ts";
import { countedBy } from "../../ops/count/schema.ts";
import { dispatch } from "../../ops/dispatch.ts";
import type { Operation } from "../../ops/operation.ts";
import { findOperation, OPERATIONS } from "../../ops/registry.ts";
import {
  makeTempDir,
  type PathStats,
  readBytes,
  readLink,
  removeTree,
  statDescriptor,
  statPath,
  writeFile,
} from "../../platform/files.ts";
import { JsonSink } from "../../sink/json.ts";
import { JsonlSink } from "../../sink/jsonl.ts";
import type { Sink } from "../../sink/sink.ts";
import {
  coverageNotes,
  crNotes,
  insideWords,
  namedFiles,
  nothingFound,
  operandNotes,
  patternNotes,
  skipNote,
  skippedSome,
  wordEdgeNotes,
} from "../hints.ts";
import { NotServed, type ServedCall, setCliRunner } from "../serve/served.ts";
import { closest } from "../suggest.ts";
import { assignOperands, flagsOf, type ParsedCommand, parseCommand, UsageError } from "./flags.ts";
import { humanSinkFor } from "./human/index.ts";
import { escapeControls, styleFor } from "./human/paths.ts";
import { cwdOperandPaths, cwdUnder } from "./operand-paths.ts";
import { eprint, ewrite, isTerminal, stdout } from "./output.ts";
import { addPatternFile, applyMaxResults, applyPassthru, grepFound } from "./peer-args.ts";

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

async function runMeta(cmd: string, rest: string[], config: Config, host: Host): Promise<number | null> {
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
      return serveMcp(rest, config, host);
    }
    case "completions":
    case "man": {
      const { completionScript, manPage, metaUsage } = await import("./shell.ts");
      if (rest.includes("--help") || rest.includes("-h")) stdout.write(metaUsage(cmd, host));
      else stdout.write(cmd === "man" ? manPage() : completionScript(rest[0]));
      return 0;
    }
    default:
      return null;
  }
}

/**
 * Says whether the working directory was deleted (`mkdir d; cd d; rmdir ../d`), and if so lets the run go on
 * without it: process.cwd() then answers the path it had (which no longer exists, so no path is shown relative
 * to it, and no operand is found in it), and needsNoCwd refuses a request that needed it.
 * @param pwd PWD when absolute (the Host's), or null
 * @returns the path the working directory had, or null when it exists
 */
function deletedCwd(pwd: string | null): string | null {
  try {
    process.cwd();
    return null;
  } catch {}
  let was = pwd ?? "/";
  try {
    was = readLink("/proc/self/cwd").replace(/ \(deleted\)$/, "");
  } catch {}
  process.cwd = () => was;
  return was;
}

/**
 * Refuses a request that needs the working directory when it was deleted: a walk from it (no --base, or a
 * relative one) with no absolute path to search, or a relative path operand, as fd refuses one without a root.
 * A request that names its trees by absolute paths goes on, its base (when not given) the first of them.
 * @param op the operation
 * @param input the request, operands assigned (its base set when it was left to the working directory)
 * @param was the path the working directory had
 * @throws UsageError naming what needs it and how to go on
 */
function needsNoCwd(op: Operation, input: Record<string, unknown>, was: string): void {
  // grep's operands after its pattern that are absolute paths are roots (a relative one names nothing in a
  // deleted directory, so it is a glob, as any operand that names nothing).
  const operands = (input.operands as string[] | undefined) ?? [];
  const byFlag =
    typeof input.pattern === "string" || ((input.regexps as string[] | undefined) ?? []).length > 0;
  const roots = op.cli.operands[0] === "operands..." ? operands.slice(byFlag ? 0 : 1).filter(isAbsolute) : [];
  const paths = [
    ...((input.paths as string[] | undefined) ?? []),
    ...(typeof input.path === "string" ? [input.path] : []),
    // explain's several paths (its --under is relative to the base, which is checked below)
    ...((input.targets as string[] | undefined) ?? []),
  ];
  const base = typeof input.base === "string" ? input.base : undefined;
  const relative = paths.find((p) => !isAbsolute(p));
  let what: string | null = null;
  if (relative !== undefined) what = `'${relative}' is relative to it`;
  else if (base !== undefined && !isAbsolute(base)) what = `--base ${base} is relative to it`;
  else if (base === undefined && paths.length + roots.length === 0 && hasBase(op))
    what = `without ${op.id === "grep" ? "a PATH or " : ""}--base, ${op.id} searches it`;
  if (what === null) {
    // The base defaults to the working directory: the first tree named stands in for it (a file's directory), so
    // relative_path is relative to something that exists, as an MCP call's is to its first root.
    const first = roots[0] ?? paths[0];
    if (base === undefined && first !== undefined && hasBase(op)) {
      let dir = first;
      try {
        if (!statPath(first).isDirectory()) dir = path.dirname(first);
      } catch {}
      input.base = dir;
    }
    return;
  }
  throw new UsageError(
    `the current directory (${was}) was deleted, and ${what}: cd to a directory that exists, or name the tree by its absolute path (${op.id === "grep" ? "rglob grep PATTERN /abs/dir, or " : ""}--base /abs/dir)`,
  );
}

/** Whether a path is absolute. */
const isAbsolute = (p: string): boolean => path.isAbsolute(p);

/** Whether an operation walks from a base (every walking one; the default base is the working directory). */
function hasBase(op: Operation): boolean {
  const props = (SCHEMAS[`${op.id}.input`] as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  return props !== undefined && "base" in props;
}

/** The signals that stop a run. */
const INTERRUPTS = ["SIGINT", "SIGTERM"] as const;
type InterruptSignal = (typeof INTERRUPTS)[number];

/**
 * A run stopped by SIGINT or SIGTERM, its output flushed up to its last whole line: main.ts ends the process by
 * the same signal, so a shell sees 130 (143) and a loop stops, as after rg and fd.
 */
class Interrupted extends Error {
  override readonly name = "Interrupted";

  /** @param signal the signal that stopped the run */
  constructor(readonly signal: InterruptSignal) {
    super(`interrupted by ${signal}`);
  }
}

/**
 * Error codes that are skips or bounds, not failures, for the exit code: a binary or too large file is passed
 * over as rg passes it over (exit 0 or 1), and a deadline cuts the result as a limit does (truncated_reason).
 */
const NOT_FAILURES: ReadonlySet<string> = new Set(["BINARY", "TOO_LARGE", "TIMEOUT"]);

/**
 * Counts a result's per-path errors that make the exit code 2 (rg and grep: an error occurred, even with matches).
 * @param summary the result summary
 * @returns how many of its errors are failures
 */
function failuresOf(summary: Readonly<Record<string, unknown>>): number {
  const errors = (summary.errors ?? []) as readonly ErrorInfo[];
  let n = 0;
  for (const e of errors) if (!NOT_FAILURES.has(e.code)) n++;
  return n;
}

async function runOperation(
  op: Operation,
  argv: string[],
  served: ServedCall | undefined,
  config: Config,
  host: Host,
): Promise<number> {
  const parsed = parseCommand(op, argv);
  if (parsed.help) {
    const h = await help();
    stdout.write(`${parsed.briefHelp ? h.opShortHelp(op, host) : await h.opHelp(op, host)}\n`);
    return 0;
  }
  const gone = deletedCwd(host.pwd);
  if (parsed.presentation.type_list === true) return printTypeList(parsed);
  const { input, operands, stdinFile, pres, machine, quiet } = prepareInput(op, argv, parsed, gone, served);
  let inner: Sink;
  // --only-ignored in human output: the rule of each path listed, said once per rule on stderr after the run.
  const rulesSeen: Array<[string, string, string]> = [];
  let pathsOnly = false;
  // Walk entries (find's batches) are written as their records' text with no record made; stdout takes the
  // pieces.
  if (pres.jsonl) inner = new JsonlSink(stdout.write, op.jsonlExpander?.(), stdout);
  else if (pres.json) inner = new JsonSink(stdout.write, stdout);
  else {
    const human = await humanSink(
      op,
      pres,
      input,
      operands,
      rulesSeen,
      () => controller.signal.aborted,
      host,
      config.git,
    );
    pathsOnly = human.pathsOnly;
    inner = human.sink;
  }
  if (stdinFile !== null) inner = renamed(inner, stdinFile);
  const tally = { emitted: 0 };
  // Ctrl-C and SIGTERM stop the run (docs/decisions/0030-cli-edges.md): the output keeps the whole lines
  // written so far (JSON and JSONL close with their summary, truncated_reason "cancelled"), human output adds
  // nothing, and main.ts ends the process by the signal, as rg and fd end. A second signal kills at once.
  const controller = new AbortController();
  let interrupted: InterruptSignal | null = null;
  const onSignal = (signal: InterruptSignal) => {
    interrupted ??= signal;
    for (const s of INTERRUPTS) process.off(s, onSignal);
    controller.abort();
  };
  if (served !== undefined) {
    if (!served.covers(op, input)) throw new NotServed("a path outside the server's tree");
    served.cancelled(onSignal);
  } else for (const s of INTERRUPTS) process.once(s, onSignal);
  const progress = !machine && isTerminal(2);
  let shownProgress = false;
  let summary: Record<string, unknown> | null = null;
  try {
    summary = await dispatch(op, input, inner, {
      signal: controller.signal,
      pathsOnly,
      tally,
      // Human output writes names that are not valid UTF-8 as their raw bytes; JSON gets the wire form.
      rawNames: !machine,
      walkSplit: config.walkSplit,
      recordSlice: config.recordSlice,
      debug: config.debug,
      indexDir: config.indexDir,
      socketDir: config.socketDir,
      git: config.git,
      // grep uses the persisted index of the tree it searches, when `rglob index` made one; a served call the
      // server's warm state.
      ...(served !== undefined
        ? { warm: served.warm }
        : op.id === "grep"
          ? { warm: new (await import("../../engine/index/persist.ts")).PersistedIndexes(config) }
          : {}),
      ...(progress
        ? {
            onProgress: (n: number) => {
              shownProgress = true;
              ewrite(`\r\u001b[2Kscanned ${n} entries…`);
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
    for (const s of INTERRUPTS) process.off(s, onSignal);
    if (shownProgress) ewrite("\r\u001b[2K");
    if (stdinFile !== null) removeTree(path.dirname(stdinFile));
  }
  if (interrupted !== null) throw new Interrupted(interrupted);
  const format = typeof pres.format === "string" ? pres.format : undefined;
  return exitAfter(op, operands, input, summary, tally.emitted, {
    machine,
    quiet,
    rulesSeen,
    format,
    config,
    warm: served?.warm,
  });
}

/**
 * Prints rg's --type-list: the file types with their globs, --type-add applied.
 * @param parsed the parsed command
 * @returns the exit code
 */
async function printTypeList(parsed: ParsedCommand): Promise<number> {
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

/** A command's input made ready to dispatch, with what the run needs to know of its presentation. */
interface PreparedInput {
  readonly input: Record<string, unknown>;
  /** The operands, relative to the current directory. */
  readonly operands: readonly string[];
  /** grep's copy of standard input, or null. */
  readonly stdinFile: string | null;
  readonly pres: Record<string, string | boolean>;
  /** JSON or JSONL output. */
  readonly machine: boolean;
  /** -q: no output; the exit code tells. */
  readonly quiet: boolean;
}

/**
 * Turns a parsed command into the input to dispatch: pattern files, operands taken from the current directory,
 * standard input as a file, and the presentation flags that bound the run (-q, -1, --max-results); refuses the
 * combinations that make no sense.
 * @param op the operation
 * @param argv the command's arguments
 * @param parsed the parsed command
 * @param gone the working directory, when it was deleted (else null)
 * @param served the served call, when a warm server runs it
 * @returns the prepared input
 * @throws UsageError for a usage mistake; NotServed for a call the server leaves to the client
 */
function prepareInput(
  op: Operation,
  argv: string[],
  parsed: ParsedCommand,
  gone: string | null,
  served: ServedCall | undefined,
): PreparedInput {
  const input = parsed.input;
  // rg's and grep's -f: patterns from a file, one a line; then every operand is a path. rg's --passthru.
  if (served !== undefined && parsed.presentation.file === "-") throw new NotServed(STDIN_READ);
  if (typeof parsed.presentation.file === "string") addPatternFile(parsed.presentation.file, input);
  applyPassthru(parsed, input);
  // Path operands are relative to the current directory whatever --base says (ADR 0015).
  const operands = cwdOperandPaths(op, parsed.operands, input, process.cwd());
  const underAt = parsed.setAt.get("under");
  if (underAt !== undefined) {
    const flag = argv[underAt] as string;
    cwdUnder(
      input,
      flag.includes("=") ? flag.slice(flag.indexOf("=") + 1) : argv[underAt + 1],
      process.cwd(),
    );
  }
  if (op.cli.operandsToInput) Object.assign(input, op.cli.operandsToInput(operands, process.cwd()));
  else assignOperands(op, operands, input);
  const misuse = op.cli.misuse?.(input, process.cwd());
  if (misuse) throw new UsageError(misuse);
  // grep without a pattern is a usage mistake for a person (rg's "required arguments were not provided"); JSON
  // modes keep the failure envelope with its code, which programs test.
  const pattern =
    input.pattern ??
    ((input.regexps as string[] | undefined) ?? [])[0] ??
    (input.operands as string[] | undefined)?.[0];
  const machineOut = parsed.presentation.json === true || parsed.presentation.jsonl === true;
  if (op.cli.synopsis?.startsWith("PATTERN ") && pattern === undefined && !machineOut)
    throw new UsageError(
      `missing PATTERN: rglob ${op.id} ${op.cli.synopsis} (-e PATTERN or -f FILE give it too; see 'rglob ${op.id} --help')`,
    );
  // rg's stdin: `cmd | rglob grep x` (no path given, stdin a pipe or a file) and `-` as an operand.
  // Not when -f - took stdin for the patterns: then the current directory is searched, as rg does.
  const stdinFile = op.id === "grep" ? stdinAsFile(input, parsed.presentation.file === "-", served) : null;
  // Standard input searched is a path given: a deleted working directory is not needed then.
  if (gone !== null) needsNoCwd(op, input, gone);
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
  // fd's --max-results N (0: no limit, as in fd).
  applyMaxResults(parsed, input);
  return { input, operands, stdinFile, pres, machine, quiet };
}

/**
 * Makes the human sink of a run: the operation's printer, with -q's silence, --only-ignored's rules gathered,
 * and notes on stderr for a binary file named on the command line and for per-path errors.
 * @param op the operation
 * @param pres the presentation flags
 * @param input the input
 * @param operands the operands
 * @param rulesSeen where the ignore rule of each record listed is gathered
 * @param aborted says whether the run was interrupted (its end then adds nothing)
 * @param host what the environment says (colour variables, LS_COLORS)
 * @returns the sink, and whether it reads only the paths of records
 */
async function humanSink(
  op: Operation,
  pres: Record<string, string | boolean>,
  input: Record<string, unknown>,
  operands: readonly string[],
  rulesSeen: Array<[string, string, string]>,
  aborted: () => boolean,
  host: Host,
  git: Config["git"],
): Promise<{ sink: Sink; pathsOnly: boolean }> {
  const human = (await humanSinkFor(op.id))(stdout, styleFor(pres.color, host), pres, input);
  // find --format '{ignored_by}' without --only-ignored (-u): each entry's rule, looked up only when asked (#37).
  if ("ignoredBy" in human && typeof pres.format === "string" && pres.format.includes("{ignored_by}"))
    human.ignoredBy = await (await import("../../ops/only-ignored.ts")).ignoredByLookup(input, git);
  let named: Set<string> | null = null; // grep's operands that are files, found when a binary file is skipped
  const listBinary = (input as { list_binary?: unknown }).list_binary === true; // grep --list-binary: each one
  const quiet = pres.quiet === true;
  const sink: Sink = {
    // -q writes nothing: it takes no entries and no lines, and drops records. Getters: grep's printer decides
    // its lines when it hears the query (begin), after this wrapper is made.
    get entry() {
      return quiet ? undefined : human.entry;
    },
    get lines() {
      return quiet ? undefined : human.lines;
    },
    begin: (query) => human.begin?.(query),
    record: (k, r) => {
      if (!quiet) human.record(k, r);
      const rule = (r as { ignored_by?: unknown }).ignored_by;
      const words = insideWords(r as Record<string, unknown>);
      const inside = words === null ? "" : ` (a directory: ${words}, not listed; --expand lists them)`;
      if (typeof rule === "string") rulesSeen.push([rule, (r as { path: string }).path, inside]);
    },
    binarySkipped: (info) => {
      named ??= namedFiles(op, operands, input, process.cwd());
      if (info.path !== null && (listBinary || named.has(info.path))) {
        eprint(
          `rglob: ${escapeControls(info.path)}: binary file skipped (a NUL byte); -a searches it as text`,
        );
      }
    },
    error: (info) => {
      human.error(info);
      // Skipped binary files are expected, as in grep and ripgrep: counted in the summary, not printed, but for
      // a file named on the command line (as ripgrep does), or each one with --list-binary.
      if (info.code === "BINARY") {
        named ??= namedFiles(op, operands, input, process.cwd());
        if (info.path !== null && (listBinary || named.has(info.path))) {
          eprint(
            `rglob: ${escapeControls(info.path)}: binary file skipped (a NUL byte); -a searches it as text`,
          );
        }
        return;
      }
      eprint(`rglob: ${info.code}: ${info.path ? `${escapeControls(info.path)}: ` : ""}${info.message}`);
    },
    end: (s) => {
      // An interrupted run adds nothing to what it printed (tree's drawing, count's table, --stats).
      if (aborted()) return;
      if (!quiet || pres.stats === true) human.end(s);
    },
  };
  return { sink, pathsOnly: human.pathsOnly === true };
}

/**
 * Writes the notes after a run (rules of --only-ignored, a truncation human output would not show, operands and
 * patterns probably meant otherwise, what was skipped when nothing was found) and returns its exit code.
 * @param op the operation
 * @param operands the operands
 * @param input the input
 * @param summary the result's summary
 * @param emitted the records written
 * @param how JSON output, -q, and the ignore rules seen
 * @returns the exit code: 0 found, 1 nothing found, 2 an error occurred
 */
async function exitAfter(
  op: Operation,
  operands: readonly string[],
  input: Record<string, unknown>,
  summary: Record<string, unknown>,
  emitted: number,
  how: {
    readonly machine: boolean;
    readonly quiet: boolean;
    readonly rulesSeen: Array<[string, string, string]>;
    /** find's --format: the listing is the user's, so the rules' note does not list its paths again. */
    readonly format?: string | undefined;
    /** The call's switches (a served call's are its client's): the look among the ignored entries runs with them. */
    readonly config: Config;
    /** A warm server's state, for a served call: it answers the look among the ignored entries it remembers. */
    readonly warm?: ServedCall["warm"] | undefined;
  },
): Promise<number> {
  const { machine, quiet, rulesSeen } = how;
  if (rulesSeen.length > 0) {
    const { ignoredRulesNotes } = await import("../ignored.ts");
    for (const note of ignoredRulesNotes(rulesSeen, process.cwd(), how.format))
      eprint(`rglob: ${escapeControls(note)}`);
    // grep --only-ignored answers "where does this occur, ignored files included" (#37): say what it did not
    // search, so that no second call is needed to rule binary files or UTF-16 out.
    const binary = (summary?.skipped as { binary?: unknown } | undefined)?.binary;
    if (op.id === "grep" && typeof binary === "number" && binary > 0 && !quiet)
      eprint(
        `rglob: not searched: ${binary} binary file${binary === 1 ? "" : "s"} (a NUL byte; -a/--text searches them, --list-binary names them); UTF-16 files with a byte order mark were searched`,
      );
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
  const counted = summary === null ? emitted > 0 : !nothingFound(summary, emitted);
  // grep --count --include-zero that gives only counts of 0 found nothing, as rg answers.
  const found = op.id === "grep" ? grepFound(input, summary, counted) : counted;
  const skipped = summary !== null && skippedSome(summary);
  for (const note of operandNotes(op, operands, input, found, process.cwd(), skipped)) {
    eprint(`rglob: note: ${note}`);
  }
  if (!found)
    for (const note of patternNotes(op, operands, input, process.cwd())) eprint(`rglob: note: ${note}`);
  if (!quiet)
    for (const note of wordEdgeNotes(op, operands, input, process.cwd())) eprint(`rglob: note: ${note}`);
  // A pattern that names a CR, which a CR LF line end never holds here (#37).
  if (!quiet)
    for (const note of crNotes(op, operands, input, process.cwd(), "cli")) eprint(`rglob: note: ${note}`);
  // What `--in` left out and what a --lang covered (#37).
  if (!quiet && summary !== null)
    for (const note of coverageNotes(summary, "cli")) eprint(`rglob: note: ${note}`);
  // Which files a --lang left out start with a #! of its language, or that none does (#37).
  if (!quiet && summary?.type_globs !== undefined) {
    const { shebangLook, shebangNote } = await import("../shebangs.ts");
    eprint(`rglob: note: ${shebangNote(await shebangLook(op, input, summary, how.config), "cli")}`);
  }
  // count's rules under its human table (#37), so that no file needs reading to check a count.
  const totals = summary?.totals as { files?: unknown } | undefined;
  if (op.id === "count" && !machine && !quiet && typeof totals?.files === "number" && totals.files > 0)
    eprint(`rglob: note: ${countedBy("--classify", "--docstrings code")}`);
  // Nothing skipped silently: an empty answer says what was left out and which flag includes it.
  if (!found && !quiet && summary !== null) {
    const note = skipNote(op, summary, "cli");
    if (note !== null) eprint(`rglob: ${note}`);
    // What the query finds among the ignored entries, and the rule that ignores each.
    const { ignoredHits, ignoredHitsNote } = await import("../ignored.ts");
    const among = ignoredHitsNote(await ignoredHits(op, input, summary, how.config, how.warm), "cli");
    if (among !== null) eprint(`rglob: ${escapeControls(among)}`);
  }
  if (!found && !quiet && op.id === "explain" && summary !== null) {
    const { onlyKeptNoneNote } = await import("./human/explain.ts");
    const note = onlyKeptNoneNote(input, summary);
    if (note !== null) eprint(`rglob: note: ${note}`);
  }
  // explain follows the same rule (#37): 0 when it gave an explanation, whatever the verdict; 2 when a path it
  // was given does not exist.
  const failures = summary === null ? 0 : failuresOf(summary);
  // As rg and grep: 2 when an error occurred (an unreadable file, a missing root), even with results; but -q
  // that found a match answers 0 (its question was answered).
  if (failures > 0 && !(quiet && found)) return 2;
  return found ? 0 : 1;
}

/** How rg names standard input in its output. */
const STDIN_NAME = "<stdin>";
/** Why a served call that reads standard input is the client's: only the client can read it. */
const STDIN_READ = "it reads standard input";

/**
 * Copies standard input to a private temporary file when grep is to search it, as rg does: when `-` is an
 * operand (it is replaced by the copy), or when no path is given and stdin is a pipe or a file (not a terminal,
 * not /dev/null), unless -f - read the patterns from it. The engine searches files by path, so stdin becomes
 * one; its records are named `<stdin>`.
 * @param input the grep input, operands assigned (changed in place)
 * @param patternsRead -f - has read stdin as the patterns
 * @param served a served call: its client's stdin is not this process's, so a call that reads it is not served
 * @returns the copy's path, or null when stdin is not searched
 */
function stdinAsFile(
  input: Record<string, unknown>,
  patternsRead: boolean,
  served?: ServedCall,
): string | null {
  const operands = (input.operands as string[] | undefined) ?? [];
  const viaFlags =
    typeof input.pattern === "string" || ((input.regexps as string[] | undefined) ?? []).length > 0;
  const rest = viaFlags ? operands : operands.slice(1);
  const dash = rest.includes("-");
  if (dash && served !== undefined) throw new NotServed(STDIN_READ);
  if (!dash) {
    if (patternsRead || rest.length > 0 || ((input.paths as string[] | undefined) ?? []).length > 0)
      return null;
    if (served !== undefined) {
      if (served.stdin === "other") return null;
      throw new NotServed(STDIN_READ);
    }
    let st: PathStats;
    try {
      st = statDescriptor(0);
    } catch {
      return null;
    }
    if (!st.isFIFO() && !st.isFile()) return null;
  }
  const dir = makeTempDir(path.join(tmpdir(), "rglob-stdin-"));
  const file = path.join(dir, "stdin");
  writeFile(file, readBytes(0));
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
    begin: (query) => inner.begin?.(query),
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

/** The commands that are not operations (runMeta's, and help). */
const META_COMMANDS: readonly string[] = [
  "help",
  "describe",
  "schema",
  "capabilities",
  "agent-version",
  "mcp",
  "completions",
  "man",
];

/**
 * The usage error of a command that does not exist, naming the one probably meant (`gerp` → `grep`), as rg
 * names a mistyped flag.
 * @param cmd what was typed
 * @returns the error
 */
function unknownCommand(cmd: string): UsageError {
  const guess = cmd.startsWith("-") ? null : closest(cmd, [...OPERATIONS.map((o) => o.id), ...META_COMMANDS]);
  const meant = guess === null ? "" : `: did you mean '${guess}'?`;
  return new UsageError(`unknown command '${cmd}'${meant} (run 'rglob --help')`);
}

/**
 * Runs the CLI.
 * @param argv the arguments after the program name
 * @param served a call a warm server answers for a client (src/surface/serve/server.ts)
 * @param config the environment's switches (src/main.ts reads them once; a served call: its client's)
 * @param host what the environment says of the terminal and the host (read with the Config)
 * @returns the exit code
 */
export async function runCli(
  argv: string[],
  served: ServedCall | undefined,
  config: Config,
  host: Host,
): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (served !== undefined && !OPERATIONS.some((o) => o.id === cmd))
      throw new NotServed("not a command the server runs");
    if (cmd === undefined) {
      eprint(await (await help()).rootHelp(host, 2));
      return 2;
    }
    // Every command's usage and flags in one page (#37), as `git help -a`.
    if (cmd === "--help-all" || (cmd === "help" && (rest[0] === "--all" || rest[0] === "-a"))) {
      stdout.write(`${(await help()).allHelp(host)}\n`);
      return 0;
    }
    if (cmd === "--help" || cmd === "-h" || cmd === "help") {
      const op = rest[0] ? opOrFail(rest[0]) : null;
      // `rglob help gerp`: the command it meant, rather than the overview.
      if (op instanceof RglobError && !META_COMMANDS.includes(rest[0] as string))
        throw unknownCommand(rest[0] as string);
      const { opHelp, opShortHelp, rootHelp } = await help();
      const text =
        op && !(op instanceof RglobError)
          ? cmd === "-h"
            ? opShortHelp(op, host)
            : await opHelp(op, host)
          : await rootHelp(host);
      stdout.write(`${text}\n`);
      return 0;
    }
    if (cmd === "--version" || cmd === "-V") {
      stdout.write(`${VERSION_LINE}\n`);
      return 0;
    }
    const meta = await runMeta(cmd, rest, config, host);
    if (meta !== null) return meta;
    const op = OPERATIONS.find((o) => o.id === cmd);
    if (!op) throw unknownCommand(cmd);
    // A served call runs the operations that read a tree, not the server's own commands.
    if (served !== undefined && (op.id === "index" || op.id === "serve"))
      throw new NotServed(`${op.id} runs in its own process`);
    return await runOperation(op, rest, served, config, host);
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

// A warm server runs calls through this entry (src/surface/serve/server.ts), which it does not import.
// A warm server's library calls (src/surface/serve/server.ts) run the agent core, loaded when one comes.
setCliRunner(runCli, async (opId, input, control) =>
  (await import("../../agent/call.ts")).collect(findOperation(opId), input, control, control.config),
);
