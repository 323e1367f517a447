/*! MCP surface: `rglob mcp`, a stdio server on the SDK's low-level Server, driven by the registry. Each tool
 * call runs through the agent core (the library's dispatcher path) with the operation's agentDefaults, strict
 * base forced on, confined to the roots. stdout carries the protocol only: every log line goes to stderr. */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type CallControl, collect, inputKeys, withDefaults } from "../../agent/call.ts";
import type { Config, Host } from "../../config.ts";
import { clipText, type ErrorInfo, failureOf, RglobError } from "../../contract/errors.ts";
import { withoutTextFacts } from "../../contract/result.ts";
import { PACKAGE_VERSION } from "../../contract/versions.ts";
import { WarmSet, warmOptions } from "../../engine/index/warm/set.ts";
import { SCHEMAS } from "../../generated/schemas.ts";
import { validateInput } from "../../ops/dispatch.ts";
import type { Operation } from "../../ops/operation.ts";
import { findOperation } from "../../ops/registry.ts";
import { flagsOf, UsageError } from "../cli/flags.ts";
import { escapeControls } from "../cli/human/paths.ts";
import {
  coverageNotes,
  crNotes,
  directoryGlobs,
  hardLinkOnlyWords,
  nothingFound,
  patternNotes,
  skipNote,
  UNKNOWN_NAMED,
  unknownRowNote,
  wordEdgeNotes,
} from "../hints.ts";
import { ignoredHits, ignoredHitsNote } from "../ignored.ts";
import { capabilities } from "../introspect.ts";
import { rehearseWarm } from "../rehearse.ts";
import { fileTypeNames, shebangLook, shebangNote } from "../shebangs.ts";
import { closest } from "../suggest.ts";
import { confine, resolveRoots } from "./confine.ts";
import { resultText, type TextOptions } from "./text.ts";
import {
  argumentKeys,
  buildTools,
  DEFAULT_RESPONSE_BYTES,
  DESCRIBE_TOOL,
  DESCRIBE_TOPICS,
  describeTool,
  describeTopic,
  instructions,
  ONE_TOOL,
  operationNamed,
  toolOperations,
} from "./tools.ts";
import { LineTransport } from "./transport.ts";

const USAGE = `usage: rglob mcp [--root DIR]...

Serves rglob's operations as MCP tools over stdio (stdout carries the protocol only; logs go to stderr).
Roots: every --root DIR; without any, the client's MCP roots when it offers the roots capability (none that
is a local directory: every call is refused); a client without roots: the working directory, unless it is / or
the home directory (refused: name it with --root to serve it).
Paths outside the roots are refused with PERM.`;

/** How to give the server roots, in every refusal for want of them. */
const HOW_TO_ROOT =
  'start the server with --root DIR (e.g. args: ["mcp", "--root", "/path/to/project"]), or have the client offer MCP roots (file:// URIs of existing local directories)';

/** The most bytes one response may take whatever max_output_bytes says: well under the 10 MB clients refuse. */
const RESPONSE_CEILING = 4_000_000;

function log(line: string): void {
  process.stderr.write(`rglob mcp: ${line}\n`);
}

/**
 * Parses the arguments of `rglob mcp`.
 * @param argv the arguments after `mcp`
 * @returns the root directories given, or "help"
 * @throws UsageError for an unknown argument or a missing value
 */
function parseMcpArgs(argv: readonly string[]): { roots: string[] } | "help" {
  const roots: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return "help";
    if (a === "--root") {
      const value = argv[++i];
      if (value === undefined) throw new UsageError("--root needs a value");
      roots.push(value);
    } else if (a.startsWith("--root=")) roots.push(a.slice("--root=".length));
    else {
      const guess = closest(a.replace(/=.*$/, ""), ["--root", "--help"]);
      const meant = guess === null ? "" : `: did you mean '${guess}'?`;
      throw new UsageError(`rglob mcp: unknown argument '${a}'${meant} (run 'rglob mcp --help')`);
    }
  }
  return { roots };
}

/**
 * The root of a server given no --root by a client that offers no roots: the working directory, unless it is
 * the file system's root or the home directory, where hosts start servers and where serving it would expose
 * every file (then why it is refused, and how to serve it anyway). A working directory that no longer exists is
 * refused too.
 * @param homeVar HOME as set (the Host's), or null
 * @returns the directory's real path, or the refusal
 */
function defaultRoot(homeVar: string | null): string | { refused: string } {
  let cwd: string;
  try {
    [cwd] = resolveRoots([process.cwd()]) as [string];
  } catch {
    return { refused: "the working directory no longer exists" };
  }
  let home: string | null = null;
  try {
    home = homeVar !== null ? (resolveRoots([homeVar])[0] ?? null) : null;
  } catch {}
  if (cwd !== path.parse(cwd).root && cwd !== home) return cwd;
  const what = cwd === home ? "the home directory" : "the file system's root";
  return {
    refused: `the working directory ${cwd} is ${what}, which is not served unless named (--root ${cwd} serves it)`,
  };
}

/**
 * The roots a server serves: fixed by --root; else the client's roots (refused when none is a local
 * directory, when roots/list fails, and before notifications/initialized); a client without the roots
 * capability: the working directory.
 */
class Roots {
  private current: string[];
  private readonly fixed: boolean;
  private initialized = false;
  private problem: string | null = null;
  /** Ids of tools/call requests that arrived before notifications/initialized (handlers run later). */
  readonly early = new Set<string | number>();
  /** Settles once the first answer to roots/list arrived (or was not asked for). */
  ready: Promise<void> = Promise.resolve();

  /**
   * @param fixed the roots given by --root (none: the client's)
   * @param home HOME as set (the Host's): not served by default
   */
  constructor(
    fixed: string[],
    private readonly home: string | null,
  ) {
    this.fixed = fixed.length > 0;
    this.current = fixed;
  }

  get list(): readonly string[] {
    return this.current;
  }

  /** Why no call can be served now (with how to fix it), or null when there are roots. */
  refusal(requestId: string | number): string | null {
    if (this.fixed) return null;
    if (!this.initialized || this.early.delete(requestId)) {
      return `no roots yet: a tools/call came before notifications/initialized (roots are asked of the client then); ${HOW_TO_ROOT}`;
    }
    if (this.current.length > 0) return null;
    return `no roots to serve: ${this.problem ?? "none"}; ${HOW_TO_ROOT}`;
  }

  async refreshFrom(server: Server): Promise<void> {
    this.initialized = true;
    if (this.fixed) return;
    if (!server.getClientCapabilities()?.roots) {
      const fallback = defaultRoot(this.home);
      this.current = typeof fallback === "string" ? [fallback] : [];
      this.problem = typeof fallback === "string" ? null : fallback.refused;
      log(
        typeof fallback === "string"
          ? `the client offers no roots: serving the working directory ${fallback}`
          : `the client offers no roots; refusing calls: ${fallback.refused}`,
      );
      return;
    }
    try {
      const answer = await server.listRoots();
      const dirs: string[] = [];
      const refused: string[] = [];
      for (const r of answer.roots) {
        const uri = clipText(r.uri, 200);
        if (!r.uri.startsWith("file://")) {
          refused.push(`${uri} is not a file:// URI`);
          continue;
        }
        try {
          for (const d of resolveRoots([fileURLToPath(r.uri)])) if (!dirs.includes(d)) dirs.push(d);
        } catch (err) {
          refused.push(`${uri}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      for (const why of refused) log(`ignoring client root ${why}`);
      this.current = dirs;
      this.problem =
        answer.roots.length === 0
          ? "the client's roots/list answered no roots"
          : `no root the client offered is a local directory (${refused.join("; ")})`;
      log(dirs.length > 0 ? `roots from the client: ${dirs.join(", ")}` : `refusing calls: ${this.problem}`);
    } catch (err) {
      this.current = [];
      this.problem = `roots/list failed (${String(err)})`;
      log(`refusing calls: ${this.problem}`);
    }
  }
}

/**
 * Creates the tool result of an operational failure: isError with the failure envelope as JSON text. The
 * envelope is not sent as structuredContent: clients (the SDK's Client among them) validate any
 * structuredContent against the tool's outputSchema, error or not, and the envelope is not a result.
 */
function failure(info: ErrorInfo): CallToolResult {
  const envelope = failureOf(new RglobError(info.code, info.message, { path: info.path }));
  return { isError: true, content: [{ type: "text", text: JSON.stringify(envelope) }] };
}

/** What a tool call's handler uses of the SDK's request context. */
interface Extra {
  signal: AbortSignal;
  requestId: string | number;
  _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification: (n: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
}

/**
 * Returns the argument a caller probably meant by an unknown key: its snake_case form, the key of a CLI
 * spelling (`--max-count`, `-m`, `--no-hidden`), the plural or singular, or a close spelling.
 * @param op the operation
 * @param key the unknown key
 * @param keys the tool's argument names
 * @returns the suggestion (an argument name, or `name: value`), or null
 */
export function suggestArgument(op: Operation, key: string, keys: readonly string[]): string | null {
  if (key.length > 64) return null; // no argument name is that long
  const bare = key.replace(/^-+/, "").replace(/=.*$/, "");
  const norm = bare.replace(/-/g, "_").toLowerCase();
  if (keys.includes(norm)) return norm;
  // CLI operands: grep's are its pattern, then paths; the others' are globs.
  if (norm === "operands") return keys.includes("pattern") ? "pattern" : "patterns";
  const negated = norm.startsWith("no_") ? norm.slice(3) : null;
  for (const f of flagsOf(op)) {
    if (f.presentation || !keys.includes(f.key)) continue;
    const names = [f.key, ...f.aliases.map((a) => a.replace(/-/g, "_"))];
    if (f.short !== undefined && bare === f.short) return f.key;
    if (names.includes(norm)) return f.key;
    if (f.negations.some((a) => a.replace(/-/g, "_") === norm)) return `${f.key}: false`;
    if (negated !== null && f.kind === "boolean" && names.includes(negated)) return `${f.key}: false`;
  }
  if (keys.includes(`${norm}s`)) return `${norm}s`;
  if (norm.endsWith("s") && keys.includes(norm.slice(0, -1))) return norm.slice(0, -1);
  return closest(norm, keys);
}

/**
 * A JSON-RPC error for the SDK to send: an Error with a numeric code, not an McpError, whose message already
 * holds "MCP error CODE:" and would reach the client with that prefix twice.
 */
class ProtocolError extends Error {
  /**
   * Creates the error.
   * @param code the JSON-RPC error code
   * @param message what went wrong
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The tool error for an argument the operation does not take, naming the one probably meant and the ones it
 * takes; for the one tool, an argument of another operation says which operations take it.
 * @param op the operation
 * @param args the arguments (without `op`)
 * @param tool the tool called: the one tool, or an operation's tool name of agent API 1.2
 * @returns the error, or null
 */
function unknownArgument(
  op: Operation,
  args: Readonly<Record<string, unknown>>,
  tool: string,
): ErrorInfo | null {
  const keys = argumentKeys(op);
  const label = tool === ONE_TOOL ? `op '${op.id}'` : tool;
  for (const k of Object.keys(args)) {
    if (keys.includes(k)) continue;
    const takers = toolOperations().filter((o) => argumentKeys(o).includes(k));
    const guess = suggestArgument(op, k, keys);
    const hint = guess === null ? "." : `: did you mean '${guess}'?`;
    const what =
      takers.length > 0 && tool === ONE_TOOL
        ? `${label} takes no '${k}' (op ${takers.map((o) => o.id).join(", ")} does)`
        : `unknown argument '${clipText(k, 60)}' for ${label}`;
    return {
      code: "BAD_PREDICATE",
      message: `${what}${hint} Its arguments: ${keys.join(", ")} (${DESCRIBE_TOOL} has their meaning).`,
      path: null,
    };
  }
  if (
    op.id === "grep" &&
    args.pattern === undefined &&
    !(Array.isArray(args.regexps) && args.regexps.length > 0)
  ) {
    const globs = Array.isArray(args.patterns)
      ? ` ('patterns' are globs that select files: did you mean pattern: ${clipText(JSON.stringify(args.patterns[0] ?? ""), 60)}?)`
      : "";
    return {
      code: "BAD_PREDICATE",
      message: `${tool === ONE_TOOL ? "op 'grep'" : tool} needs 'pattern', the regular expression (or literal with fixed_strings) to search for${globs}`,
      path: null,
    };
  }
  return null;
}

/**
 * The operation a call of the one tool names in `op`, or the tool error that says which ops there are.
 * @param args the call's arguments
 * @returns the operation, or the error
 */
function opOf(args: Readonly<Record<string, unknown>>): Operation | ErrorInfo {
  const ids = toolOperations().map((o) => o.id);
  const op = typeof args.op === "string" && ids.includes(args.op) ? operationNamed(args.op) : undefined;
  if (op !== undefined) return op;
  const asked = typeof args.op === "string" ? clipText(args.op, 60) : null;
  // An old tool name (find_files) or a close spelling gets its op named.
  const byTool = typeof args.op === "string" ? operationNamed(args.op)?.id : undefined;
  const guess = byTool ?? (asked === null ? null : closest(asked, ids));
  return {
    code: "BAD_PREDICATE",
    message: `${ONE_TOOL} needs 'op', one of: ${ids.join(", ")}${asked === null ? "" : ` ('${asked}' is not one${guess ? `: did you mean '${guess}'?` : ""})`}`,
    path: null,
  };
}

/** Bytes of a value as JSON. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * Bounds the structured result to a byte budget: per-path errors past a tenth of the budget become one error
 * per code that counts them, and other summary lists (a count breakdown) are cut to what fits.
 * @param result the result (not modified)
 * @param budget the bytes the structured result may take
 * @returns the bounded result and what was cut (for the text)
 */
function boundResult(
  result: Record<string, unknown>,
  budget: number,
): { result: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  if (jsonBytes(result) <= budget) return { result, notes };
  const out: Record<string, unknown> = { ...result };
  const errors = Array.isArray(result.errors) ? (result.errors as ErrorInfo[]) : [];
  if (errors.length > 0) {
    const room = Math.max(500, Math.floor(budget / 10));
    const kept: ErrorInfo[] = [];
    let used = 0;
    const left = new Map<string, number>();
    for (const e of errors) {
      const size = jsonBytes(e) + 1;
      if (left.size === 0 && used + size <= room) {
        kept.push(e);
        used += size;
      } else left.set(e.code, (left.get(e.code) ?? 0) + 1);
    }
    for (const [code, n] of left) {
      kept.push({
        code: code as ErrorInfo["code"],
        message: `${n} more ${code} error(s) not listed (max_output_bytes)`,
        path: null,
      });
    }
    if (left.size > 0) out.errors = kept;
  }
  for (const [k, v] of Object.entries(out)) {
    if (jsonBytes(out) <= budget) break;
    if (k === "results" || k === "errors" || !Array.isArray(v) || v.length === 0) continue;
    const over = jsonBytes(out) - budget;
    let cut = v.length;
    let shed = 0;
    while (cut > 0 && shed < over) shed += jsonBytes(v[--cut]) + 1;
    out[k] = v.slice(0, cut);
    notes.push(
      `${k}: ${cut} of ${v.length} entries (max_output_bytes; pass a larger max_output_bytes for all)`,
    );
  }
  return { result: out, notes };
}

/**
 * Names the files of count's `(unknown)` row when it holds few (#37): from the records of this page when they are
 * all there, else by counting again the files of no known type (few, so the look is short; the warm state walks).
 * @param op count
 * @param input its input
 * @param result its result
 * @param warm the server's warm state
 * @param config the call's switches
 * @returns their paths relative to the base, or null when the row is not there, holds many, or the look failed
 */
async function unknownNames(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  result: Readonly<Record<string, unknown>>,
  warm: WarmSet | null,
  config: Config,
): Promise<string[] | null> {
  const row = Array.isArray(result.breakdown)
    ? (result.breakdown as Array<{ key?: unknown; files?: unknown }>).find((g) => g.key === "(unknown)")
    : undefined;
  if (result.by !== "language" || typeof row?.files !== "number" || row.files > UNKNOWN_NAMED) return null;
  const of = (rs: unknown) =>
    (Array.isArray(rs) ? (rs as Array<{ language?: unknown; relative_path?: unknown }>) : [])
      .filter((r) => r.language === null && typeof r.relative_path === "string")
      .map((r) => r.relative_path as string);
  const here = of(result.results);
  if (here.length === row.files) return here;
  const { cursor: _c, max_output_bytes: _m, classify: _k, ...query } = input;
  const again = await whileHeld(warm, (control) =>
    collect(
      op,
      { ...query, file_types: [], file_types_not: fileTypeNames(), limit: UNKNOWN_NAMED + 1 },
      control,
      config,
    ),
  );
  return again.ok ? of(again.result.results) : null;
}

/**
 * Runs a second look of a call (the notes' own queries) as the call ran: the background work held back while it
 * runs, and the warm state answering when there is one.
 * @param warm the server's warm state
 * @param look the look, given the control to call with
 * @returns what the look returns
 */
async function whileHeld<T>(warm: WarmSet | null, look: (control: CallControl) => Promise<T>): Promise<T> {
  const hold = warm?.hold() ?? null;
  try {
    return await look(warm !== null ? { warm } : {});
  } finally {
    hold?.();
  }
}

/**
 * The notes that name the doubtful few (#37), each a line of the text: dupes' files with hard links only, count's
 * `(unknown)` row, the scripts a file type left out.
 * @param op the operation
 * @param input its input
 * @param whole its whole result (with its TEXT_FACTS)
 * @param warm the server's warm state
 * @param config the call's switches
 * @returns the lines, each after a newline
 */
async function doubtNotes(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  whole: Readonly<Record<string | symbol, unknown>>,
  warm: WarmSet | null,
  config: Config,
): Promise<string> {
  let tail = "";
  // dupes: the files with hard links only, named when few (#37).
  const linkedOnly =
    op.id === "dupes" && input.include_hard_links !== true
      ? hardLinkOnlyWords(whole, (rel) => rel, "mcp")
      : null;
  if (linkedOnly !== null) tail += `\nnote: ${escapeControls(linkedOnly)}`;
  if (op.id === "count") {
    const note = unknownRowNote(whole, await unknownNames(op, input, whole, warm, config), "mcp");
    if (note !== null) tail += `\nnote: ${note}`;
  }
  if (whole.type_globs !== undefined) {
    const look = await whileHeld(warm, (control) => shebangLook(op, input, whole, config, control));
    tail += `\nnote: ${shebangNote(look, "mcp")}`;
  }
  return tail;
}

/** A call's input made ready: as the server sets it (`input`, which the notes read) and as the dispatcher runs it
 * (`checked`), the response's budget and the label that heads its text. */
interface CallInput {
  readonly ok: true;
  readonly label: string;
  readonly budget: number;
  readonly input: Record<string, unknown>;
  readonly checked: Record<string, unknown>;
}

/** The failure to answer a call with, found while its input was made ready. */
interface CallRefused {
  readonly ok: false;
  readonly answer: CallToolResult;
}

/** A failure to answer instead of a call's input. */
function failed(answer: CallToolResult): CallRefused {
  return { ok: false, answer };
}

/**
 * Checks a call's arguments and sets the server's over them: the agent defaults, strict_base, the records' share of
 * the response, the base confined to the roots.
 * @returns the call's input, or the failure to answer
 */
async function callInput(
  op: Operation,
  args: Record<string, unknown>,
  roots: readonly string[],
  tool: string,
): Promise<CallInput | CallRefused> {
  const wrong = unknownArgument(op, args, tool);
  if (wrong) return failed(failure(wrong));
  // The one tool's answers are headed by the op (`grep: 3 record(s)`), an old tool name's by that name.
  const label = tool === ONE_TOOL ? op.id : tool;
  let checked: Record<string, unknown>;
  try {
    checked = await validateInput(op, args);
  } catch (err) {
    if (err instanceof RglobError) {
      const info = err.toInfo();
      return failed(failure({ ...info, message: info.message.replace(` for ${op.id}`, ` for ${label}`) }));
    }
    throw err;
  }
  const keys = inputKeys(op);
  const asked =
    typeof args.max_output_bytes === "number" ? args.max_output_bytes : op.agentDefaults.max_output_bytes;
  const budget = Math.min(RESPONSE_CEILING, typeof asked === "number" ? asked : DEFAULT_RESPONSE_BYTES);
  let input: Record<string, unknown>;
  try {
    const withAgent = withDefaults(op, args, op.agentDefaults);
    if (keys.has("strict_base")) withAgent.strict_base = true;
    // The records take at most three quarters of the response (so that a default page of `limit` records
    // fits: ADR 0016); the text (a summary first, then the records as far as it has room), errors and summary
    // share the rest.
    if (keys.has("max_output_bytes")) withAgent.max_output_bytes = Math.max(1, Math.floor((budget * 3) / 4));
    input = confine(withAgent, roots, keys.has("base"));
  } catch (err) {
    if (err instanceof RglobError) return failed(failure(err.toInfo()));
    throw err;
  }
  // What the dispatcher runs: the model's output of the caller's arguments, with what the server set over them
  // (the agent defaults, strict_base, the records' budget, the confined base), taken as checked (#36: the input
  // was checked twice a call, here and in the dispatcher).
  for (const [k, value] of Object.entries(input)) if (value !== args[k]) checked[k] = value;
  return { ok: true, label, budget, input, checked };
}

async function callOperation(
  op: Operation,
  args: Record<string, unknown>,
  roots: readonly string[],
  extra: Extra,
  warm: WarmSet | null,
  tool: string,
  config: Config,
): Promise<CallToolResult> {
  const prepared = await callInput(op, args, roots, tool);
  if (!prepared.ok) return prepared.answer;
  const { label, budget, input, checked } = prepared;
  const token = extra._meta?.progressToken;
  let sent = 0;
  // The newest progress send; awaiting it before the result keeps the last progress ahead of the response
  // (a client drops progress that arrives after its result).
  let lastSend: Promise<void> = Promise.resolve();
  const notify = (n: number) => {
    if (token !== undefined && n > sent) {
      sent = n;
      lastSend = extra
        .sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: n, message: `scanned ${n} entries` },
        })
        .catch(() => {});
    }
    return lastSend;
  };
  // The background work (the watch's set-up, the index build) waits while the call is answered: it would take
  // turns with it on this thread. Until the watch is set up (a large tree just after the start) the call walks
  // cold, as the CLI does. Changes made before this call (an edit just before it) are taken in before the warm
  // state answers: read from the tree's own watch; with Bun's fs.watch (where that is not there) one turn of the
  // event loop lets in the events already handed over.
  const release = warm?.hold() ?? null;
  let outcome: Awaited<ReturnType<typeof collect>>;
  try {
    if (warm !== null && !warm.settle()) await new Promise((resolve) => setImmediate(resolve));
    outcome = await collect(
      op,
      checked,
      {
        ...(warm !== null ? { warm } : {}),
        validated: true,
        signal: extra.signal,
        ...(token !== undefined ? { onProgress: (n: number) => void notify(n) } : {}),
      },
      config,
    );
  } finally {
    release?.();
  }
  if (!outcome.ok) return failure(outcome.error);
  if (extra.signal.aborted) {
    log(`${label} cancelled after ${outcome.result.total_files_searched} entries`);
  } else await notify(Math.max(sent, Number(outcome.result.total_files_searched) || 0));
  const { result, notes } = boundResult(outcome.result, Math.floor((budget * 7) / 8));
  const room = budget - jsonBytes(result);
  let tail = notes.join("\n");
  // Where the notes take relative operands from: the server's working directory, or the base when that
  // directory was deleted (a root removed and made again that the server was started in).
  let here: string;
  try {
    here = process.cwd();
  } catch {
    here = typeof input.base === "string" ? input.base : "/";
  }
  if (Array.isArray(result.results) && result.results.length === 0) {
    // Notes for an answer with nothing in it (not a count's totals alone, nor records held back by limit 0).
    const none = nothingFound(result, 0);
    const note = none ? skipNote(op, result, "mcp") : null;
    if (note !== null) tail += `\n${note}`;
    // Held as the call was: a warm server answers the look it remembers (the same answer), or records this one.
    const among = none
      ? ignoredHitsNote(
          await whileHeld(warm, (control) => ignoredHits(op, input, result, config, control.warm)),
          "mcp",
        )
      : null;
    if (among !== null) tail += `\n${among}`;
    for (const g of directoryGlobs(input, here)) {
      tail += `\nnote: '${g}' in patterns is a glob matched against entry names, not a directory to search; to search inside it, pass paths: ["${g}"] (or base)`;
    }
    if (none) for (const note of patternNotes(op, [], input, here)) tail += `\nnote: ${note}`;
  }
  for (const note of wordEdgeNotes(op, [], input, here)) tail += `\nnote: ${note}`;
  for (const note of crNotes(op, [], input, here, "mcp")) tail += `\nnote: ${note}`;
  for (const note of coverageNotes(result, "mcp")) tail += `\nnote: ${note}`;
  tail += await doubtNotes(op, input, outcome.result, warm, config);
  const allErrors = Array.isArray(outcome.result.errors) ? (outcome.result.errors as ErrorInfo[]) : [];
  const base = typeof input.base === "string" ? input.base : null;
  // The text travels JSON-escaped (a newline is two bytes there, a quote two): while the escaped text is over its
  // room, it is made again with less (the room it took too much, twice at most).
  const cut = cutNote(op, input, result, budget);
  if (cut !== null) tail += `\nnote: ${cut}`;
  const totals = op.id === "grep" ? grepTotalsScope(input, result) : undefined;
  let options: TextOptions = {
    ...(totals === undefined ? {} : { totals }),
    ...(op.id === "grep" && input.files_without_match === true ? { withoutMatch: true } : {}),
    ...(op.id === "grep" && typeof input.encoding === "string" && input.encoding !== "auto"
      ? { encodingNamed: true }
      : {}),
  };
  let textRoom = room - jsonBytes(tail);
  let text = resultText(op, label, result, textRoom, allErrors, base, options);
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < 2 && jsonBytes(text) > textRoom; i++) {
      textRoom -= jsonBytes(text) - textRoom;
      text = resultText(op, label, result, textRoom, allErrors, base, options);
    }
    // A text cut short says the max_output_bytes with which it lists every record: the size of the response
    // it would make (made only then: most answers fit).
    // (When max_output_bytes cut the records too, a larger one brings more records: the note above says it.)
    if (pass > 0 || cut !== null || !text.includes("(text cut at max_output_bytes)")) break;
    const whole = resultText(op, label, result, Number.POSITIVE_INFINITY, allErrors, base, options);
    const wholeTextBytes = Math.min(
      RESPONSE_CEILING,
      jsonBytes(result) + jsonBytes(whole) + jsonBytes(tail) + 400,
    );
    options = { ...options, wholeTextBytes };
    text = resultText(op, label, result, textRoom, allErrors, base, options);
  }
  if (tail.trim() !== "") text += `\n${tail.trim()}`;
  return { structuredContent: withoutTextFacts(result), content: [{ type: "text", text }] };
}

/**
 * Answers describe_tool: ops, topics every op shares, or old tool names (find_files), one or several separated by
 * commas: text alone, each said once, in the order asked (one call instead of one per op while an agent orients
 * itself).
 * @param args the call's arguments
 * @returns the answer, or a BAD_PREDICATE failure naming what it takes
 */
function describeAnswer(args: Record<string, unknown>): CallToolResult {
  const asked = typeof args.name === "string" ? args.name.split(",").map((n) => n.trim()) : [];
  const texts = asked.map((n) => {
    const target = operationNamed(n);
    const topic = DESCRIBE_TOPICS.find((t) => t === n);
    return target ? describeTool(target) : topic ? describeTopic(topic) : null;
  });
  const unknown = asked.find((_n, i) => texts[i] === null);
  if (asked.length === 0 || unknown !== undefined || Object.keys(args).some((k) => k !== "name")) {
    const names = [...toolOperations().map((o) => o.id), ...DESCRIBE_TOPICS];
    const guess = unknown !== undefined ? closest(unknown, names) : null;
    return failure({
      code: "BAD_PREDICATE",
      message: `${DESCRIBE_TOOL} takes {name}: one or more of ${names.join(", ")}, separated by commas${guess ? ` (did you mean '${guess}'?)` : ""}`,
      path: null,
    });
  }
  const sections: Array<{ name: string; text: string }> = [];
  for (const [i, text] of texts.entries())
    if (!sections.some((x) => x.text === text))
      sections.push({ name: asked[i] as string, text: text as string });
  return {
    content: [{ type: "text", text: describeWithin(sections, DESCRIBE_BYTES) }],
  } satisfies CallToolResult;
}

/**
 * The most bytes of one describe_tool answer (#37: every name at once was 46 KB, and an agent's host cut it about
 * 15 KB short, silently): one line naming the sections left out, then those that fit, in the order asked.
 */
const DESCRIBE_BYTES = 24_000;

/**
 * Joins describe_tool's sections within a budget: the first always, each next one while it fits; a line argument
 * that an earlier section said word for word is named, not said again. When sections are left out, a first line
 * names them and the `name` values that fit one answer each, in order.
 * @param sections the texts, in the order asked
 * @param budget the most bytes
 * @returns the answer's text
 */
function describeWithin(sections: ReadonlyArray<{ name: string; text: string }>, budget: number): string {
  const SEP = "\n\n---\n\n";
  const said = new Set<string>();
  const kept: string[] = [];
  const left: Array<{ name: string; bytes: number }> = [];
  let used = 0;
  for (const { name, text } of sections) {
    // An argument or field line said above (a few ops share `links`, `expand`, the link fields): named only.
    const again: string[] = [];
    const lines = text.split("\n").filter((l) => {
      if (!l.startsWith("- ") || !said.has(l)) return true;
      again.push(/^- ([^ :]+)/.exec(l)?.[1] ?? l);
      return false;
    });
    if (again.length > 0) lines.push(`- as above: ${again.join(", ")}`);
    const body = lines.join("\n");
    const bytes = Buffer.byteLength(body) + (kept.length > 0 ? SEP.length : 0);
    if (kept.length > 0 && (left.length > 0 || used + bytes > budget - 300)) {
      left.push({ name, bytes: Buffer.byteLength(text) });
      continue;
    }
    for (const l of text.split("\n")) if (l.startsWith("- ")) said.add(l);
    kept.push(body);
    used += bytes;
  }
  if (left.length === 0) return kept.join(SEP);
  // The `name` values that fit, in order: each group as many as one answer holds.
  const groups: string[][] = [];
  let room = 0;
  for (const { name, bytes } of left) {
    const last = groups.at(-1);
    if (last !== undefined && room + bytes + SEP.length <= budget - 300) {
      last.push(name);
      room += bytes + SEP.length;
    } else {
      groups.push([name]);
      room = bytes;
    }
  }
  const asks = groups.map((g) => `{name: "${g.join(",")}"}`).join(", then ");
  // First, so that a host that cuts the answer further still shows it.
  return `(cut at ${budget} bytes, as hosts cut long tool answers: left out ${left.map((x) => x.name).join(", ")}; ask ${DESCRIBE_TOOL} ${asks})\n\n${kept.join(SEP)}`;
}

/**
 * Says what grep's totals count when the answer is paged (#37: a page's totals were read as the whole search's):
 * "in all" when the search ran to its end (count mode finishes counting past the page), "this page"
 * when it stopped with the page, and "from the cursor on" for a page after the first.
 * @param input the request
 * @param result the result
 * @returns the words, or undefined when the answer is one whole page
 */
function grepTotalsScope(
  input: Readonly<Record<string, unknown>>,
  result: Readonly<Record<string, unknown>>,
) {
  const resumed = typeof input.cursor === "string";
  // limit 0 asks for the totals alone: they are the whole search's, and there is no page to tell them from.
  if (input.limit === 0) return resumed ? "from the cursor on, to the end" : undefined;
  if (result.truncated !== true) return resumed ? "from the cursor on, not earlier pages" : undefined;
  const counting = input.count === true || input.count_matches === true;
  if (counting && result.truncated_reason === "limit")
    return resumed ? "from the cursor on, to the end" : "in all, past this page";
  const n = Number(result.total_files_searched) || 0;
  return `this page: the ${n} ${n === 1 ? "file" : "files"} searched before it stopped; the next page counts on`;
}

/**
 * Says, for an answer whose records max_output_bytes cut, the max_output_bytes with which a page of `limit`
 * records would fit (from what the records kept took), so that one call gets them (#37: agents set it too small
 * and asked twice); null when max_output_bytes did not cut the records.
 * @param op the operation
 * @param input the request (its limit)
 * @param result the result
 * @param budget the max_output_bytes this answer had
 * @returns the note, or null
 */
function cutNote(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  result: Readonly<Record<string, unknown>>,
  budget: number,
): string | null {
  if (result.truncated_reason !== "max_output_bytes") return null;
  const kept = Array.isArray(result.results) ? result.results.length : 0;
  const limit = typeof input.limit === "number" && input.limit > 0 ? input.limit : null;
  const next = typeof result.next_cursor === "string" ? "the next page: cursor as above; " : "";
  if (limit === null || kept === 0)
    return `max_output_bytes=${budget} cut the records; ${next}a larger max_output_bytes (up to ${RESPONSE_CEILING}) gives more in one answer`;
  // The records take three quarters of the response; a fifth more for records larger than these.
  const need = Math.min(RESPONSE_CEILING, Math.ceil(((budget * limit) / kept) * 1.2));
  return `max_output_bytes=${budget} held ${kept} of up to limit=${limit} ${op.id} records; ${next}max_output_bytes=${need} should hold a page of ${limit} in one answer`;
}

/**
 * Creates the MCP server over the registry (not yet connected).
 * @param roots the roots to serve
 * @returns the server
 */
function createServer(
  roots: Roots,
  inflight: Set<Promise<unknown>>,
  warm: WarmSet | null,
  config: Config,
  cli: CliSockets | null,
): Server {
  const server = new Server(
    { name: "rglob", version: PACKAGE_VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: {}, logging: {} },
      instructions: instructions(),
    },
  );
  const tools = buildTools();
  const byTool = new Map(toolOperations().map((op) => [op.mcpTool as string, op]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    // Tracked so that a client closing stdin still gets the answers to what it asked before.
    const call = callTool(request.params, extra);
    inflight.add(call);
    void call.finally(() => inflight.delete(call)).catch(() => {});
    return call;
  });

  const callTool = async (
    params: { name: string; arguments?: Record<string, unknown> | undefined },
    extra: Extra,
  ): Promise<CallToolResult> => {
    const request = { params };
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    try {
      if (name === DESCRIBE_TOOL) return describeAnswer(args);
      let op = byTool.get(name);
      let callArgs = args;
      if (name === ONE_TOOL) {
        const chosen = opOf(args);
        if (!("id" in chosen)) return failure(chosen);
        op = chosen;
        const { op: _op, ...rest } = args;
        callArgs = rest;
      }
      if (!op) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `unknown tool '${clipText(name, 60)}'; see tools/list`,
        );
      }
      await roots.ready;
      const refusal = roots.refusal(extra.requestId);
      if (refusal !== null) return failure({ code: "PERM", message: refusal, path: null });
      warm?.ensure(roots.list);
      // Tool calls run together, but not during a CLI call the server answers (it changes the process's
      // directory, environment and output for the call).
      const release = cli === null ? null : await cli.turns.acquire(false);
      // The warm state is held until the answer is made, its notes included (callOperation holds it for the
      // search): background work resumed in between took its slice before the answer was sent (#36).
      const held = warm?.hold() ?? null;
      try {
        return await callOperation(op, callArgs, roots.list, extra, warm, name, config);
      } finally {
        held?.();
        release?.();
      }
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      const detail = err instanceof Error ? (config.debug ? err.stack : err.message) : String(err);
      log(`internal error in ${name}: ${detail}`);
      throw new ProtocolError(ErrorCode.InternalError, `internal error: ${String(err)}`);
    }
  };

  const resources = [
    {
      uri: "rglob://capabilities",
      name: "capabilities",
      title: "rglob capability report",
      description: "Versions, platform, operations, predicate support and MCP tools of this build.",
      mimeType: "application/json",
    },
    {
      uri: "rglob://schemas",
      name: "schemas",
      title: "Every rglob JSON Schema",
      description: "Every public JSON Schema (Draft 2020-12), keyed by stem.",
      mimeType: "application/json",
    },
    ...Object.keys(SCHEMAS).map((stem) => ({
      uri: `rglob://schema/${stem}`,
      name: `schema ${stem}`,
      title: `JSON Schema ${stem}`,
      mimeType: "application/schema+json",
    })),
  ];
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    let body: unknown;
    if (uri === "rglob://capabilities") body = capabilities(warm?.status());
    else if (uri === "rglob://schemas") body = SCHEMAS;
    else if (uri.startsWith("rglob://schema/")) {
      const stem = uri.slice("rglob://schema/".length);
      if (Object.hasOwn(SCHEMAS, stem)) body = SCHEMAS[stem];
    }
    if (body === undefined) {
      throw new ProtocolError(ErrorCode.InvalidParams, `unknown resource '${clipText(uri, 100)}'`);
    }
    const mimeType = uri.startsWith("rglob://schema/") ? "application/schema+json" : "application/json";
    return { contents: [{ uri, mimeType, text: JSON.stringify(body, null, 2) }] };
  });

  server.oninitialized = () => {
    // Marked at once (not when roots/list answers): a call after this awaits the answer, one before is refused.
    roots.ready = roots.refreshFrom(server);
    // The CLI in the client's roots is served once they are known (their warm state starts then).
    if (cli !== null)
      void roots.ready.then(() => {
        warm?.ensure(roots.list);
        return cli.sockets.sync(roots.list);
      });
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    // The warm state of roots no longer served is let go at once (an inotify descriptor each), not at the next
    // call: a client that changes its roots often would otherwise hold the user's inotify instances.
    roots.ready = roots.refreshFrom(server).then(() => {
      warm?.ensure(roots.list);
      void cli?.sockets.sync(roots.list);
    });
  });
  server.onerror = (err) => log(`protocol error: ${err.message}`);
  return server;
}

/**
 * Makes a line that is not JSON, or not a JSON-RPC message, get a JSON-RPC error response (-32700 parse error,
 * -32600 invalid request) with a null id, as JSON-RPC 2.0 asks; the SDK's stdio transport only reports it
 * locally. The server goes on serving.
 * @param transport the connected transport (its onerror is set by the SDK's Server on connect)
 */
function answerMalformedMessages(transport: LineTransport): void {
  const reported = transport.onerror;
  transport.onerror = (err: Error) => {
    reported?.(err);
    if (err.message.startsWith("skipped a message")) return; // answered by the transport, with its id
    const parse = err instanceof SyntaxError;
    const response = {
      jsonrpc: "2.0",
      id: null,
      error: { code: parse ? -32700 : -32600, message: parse ? "Parse error" : "Invalid Request" },
    };
    // The SDK's message type has no null id; the wire form is what JSON-RPC 2.0 specifies.
    void transport.send(response as unknown as Parameters<LineTransport["send"]>[0]).catch(() => {});
  };
}

/**
 * Serves the registry over MCP stdio until the client closes stdin.
 * @param argv the arguments after `mcp`
 * @param config the environment's switches (read once by the process's entry, src/main.ts)
 * @param host what the environment says of the host (HOME: not served unless named)
 * @returns the exit code (0 after a clean close)
 * @throws UsageError for bad arguments, RglobError for a bad --root
 */
export async function serveMcp(argv: string[], config: Config, host: Host): Promise<number> {
  const parsed = parseMcpArgs(argv);
  if (parsed === "help") {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const roots = new Roots(resolveRoots(parsed.roots), host.home);
  const inflight = new Set<Promise<unknown>>();
  // Per-root warm state: remembered walks and a content index, built after start (docs/decisions/0028).
  // Once a root's index answers as it will from then on, queries of it are rehearsed (rehearse.ts).
  const onTrusted = async (root: string) => {
    if (warm !== null && roots.list.includes(root)) await rehearseRoot(root, roots.list, config, warm);
  };
  const warm: WarmSet | null = config.warm ? new WarmSet({ ...warmOptions(config), onTrusted }) : null;
  // CLI and library calls in the roots are answered from the same warm state (Linux; RGLOB_SERVE=0: not).
  const cli =
    warm !== null && process.platform === "linux" && config.serve
      ? await cliSockets(warm, { config, env: host.env })
      : null;
  const server = createServer(roots, inflight, warm, config, cli);
  // A bug in a request must not end the server: log it and go on serving.
  process.on("unhandledRejection", (err) => log(`unhandled rejection: ${String(err)}`));
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const transport = new LineTransport();
  await server.connect(transport);
  answerMalformedMessages(transport);
  // The SDK runs request handlers a tick after reading them, when later messages may have been read too: the
  // order of arrival is kept here, so a tools/call sent before notifications/initialized is known as such.
  const deliver = transport.onmessage;
  let initialized = false;
  transport.onmessage = (message) => {
    if ("method" in message) {
      if (message.method === "notifications/initialized") initialized = true;
      else if (!initialized && message.method === "tools/call" && "id" in message)
        roots.early.add(message.id);
    }
    deliver?.(message);
  };
  warm?.ensure(roots.list);
  if (roots.list.length > 0) void cli?.sockets.sync(roots.list);
  setImmediate(() => void rehearse(roots.list, config));
  // End of input: answer what is in flight (the SDK sends each answer once its handler settles), then close.
  process.stdin.once("end", () => {
    void (async () => {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
      await new Promise((resolve) => setImmediate(resolve));
      await server.close();
    })();
  });
  // A client that goes away closes our stdout: end quietly, as on a signal.
  process.stdout.on("error", () => void server.close());
  // SIGINT/SIGTERM end the server cleanly: close the transport, then exit 0 from main.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void server.close());
  log(
    `serving ${roots.list.length > 0 ? roots.list.join(", ") : "the client's roots (asked on initialization)"} (rglob ${PACKAGE_VERSION})`,
  );
  await closed;
  await cli?.sockets.close();
  warm?.close();
  return 0;
}

/**
 * Rehearses a tool call once at start, so that the first call an agent makes does not compile what every call
 * runs (#36: the first literal found nowhere after `ready` took 40-110 ms where later ones took 5): the SDK's
 * schemas of a tool call and its result (compiled on first use), the argument check, the query's compilation
 * and the answer's text. The grep reads nothing (max_depth 0 of the first root, a directory) and does not touch
 * the warm state; its answer is dropped.
 * @param roots the roots known at start (none: nothing is rehearsed)
 * @param config the configuration
 */
async function rehearse(roots: readonly string[], config: Config): Promise<void> {
  const root = roots[0];
  if (root === undefined) return;
  const args = { pattern: "rglob_rehearsal_zq", paths: [root], max_depth: 0 };
  try {
    CallToolRequestSchema.safeParse({
      method: "tools/call",
      params: { name: ONE_TOOL, arguments: { op: "grep", ...args } },
    });
    const extra: Extra = {
      signal: new AbortController().signal,
      requestId: 0,
      sendNotification: async () => {},
    };
    const answer = await callOperation(findOperation("grep"), args, roots, extra, null, ONE_TOOL, config);
    CallToolResultSchema.safeParse(answer);
  } catch {
    // A rehearsal only saves time: whatever it meets, the real calls meet (and report) again.
  }
}

/**
 * Rehearses warm queries of a root once its index answers as it will from then on (rehearse.ts): each a tool call
 * as a client's, over the whole root; it waits for and holds back the background work as a call does, and takes
 * in the changes the watch saw before it (what the next call would do first).
 * @param root the root
 * @param roots the roots served
 * @param config the configuration
 * @param warm the warm state
 */
async function rehearseRoot(
  root: string,
  roots: readonly string[],
  config: Config,
  warm: WarmSet,
): Promise<void> {
  const extra: Extra = {
    signal: new AbortController().signal,
    requestId: 0,
    sendNotification: async () => {},
  };
  await rehearseWarm((pattern) =>
    callOperation(findOperation("grep"), { pattern, base: root }, roots, extra, warm, ONE_TOOL, config),
  );
}

/** The CLI sockets of an MCP server and the turns its tool calls share with them. */
interface CliSockets {
  readonly sockets: import("../serve/mcp-sockets.ts").McpSockets;
  readonly turns: import("../serve/server.ts").Turns;
}

/** Loads the CLI's socket server (src/surface/serve/) for the warm state. */
async function cliSockets(
  warm: WarmSet,
  started: { readonly config: Config; readonly env: Readonly<Record<string, string>> },
): Promise<CliSockets> {
  const [{ McpSockets }, { Turns }] = await Promise.all([
    import("../serve/mcp-sockets.ts"),
    import("../serve/server.ts"),
  ]);
  const turns = new Turns();
  return { sockets: new McpSockets(warm, turns, log, started), turns };
}
