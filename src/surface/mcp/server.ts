/*! MCP surface: `rglob mcp`, a stdio server on the SDK's low-level Server, driven by the registry. Each tool
 * call runs through the agent core (the library's dispatcher path) with the operation's agentDefaults, strict
 * base forced on, confined to the roots. stdout carries the protocol only: every log line goes to stderr. */
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { collect, inputKeys, withDefaults } from "../../agent/call.ts";
import { type ErrorInfo, failureOf, RglobError } from "../../contract/errors.ts";
import { PACKAGE_VERSION } from "../../contract/versions.ts";
import { SCHEMAS } from "../../generated/schemas.ts";
import { validateInput } from "../../ops/dispatch.ts";
import type { Operation } from "../../ops/operation.ts";
import { OPERATIONS } from "../../ops/registry.ts";
import { UsageError } from "../cli/flags.ts";
import { directoryGlobs, skipNote } from "../hints.ts";
import { capabilities, describeOp } from "../introspect.ts";
import { confine, resolveRoots } from "./confine.ts";
import { buildTools, DESCRIBE_TOOL, summaryText, toolOperations } from "./tools.ts";

const USAGE = `usage: rglob mcp [--root DIR]...

Serves rglob's operations as MCP tools over stdio (stdout carries the protocol only; logs go to stderr).
Roots: every --root DIR; without any, the client's MCP roots when it offers them; else the working directory.
Paths outside the roots are refused with PERM.`;

const INSTRUCTIONS =
  "rglob: read-only recursive file search. Use find_files to list files by glob and metadata; the other tools search contents, count, find duplicates, show trees and sizes when this build has them. Every result is bounded: when `truncated` is true and `next_cursor` is a string, call the same tool again with the same arguments plus `cursor`. Paths are confined to the server's roots.";

function log(line: string): void {
  process.stderr.write(`rglob mcp: ${line}\n`);
}

/**
 * Parses the arguments of `rglob mcp`.
 * @param argv the arguments after `mcp`
 * @returns the root directories given, or "help"
 * @throws UsageError for an unknown argument or a missing value
 */
export function parseMcpArgs(argv: readonly string[]): { roots: string[] } | "help" {
  const roots: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return "help";
    if (a === "--root") {
      const value = argv[++i];
      if (value === undefined) throw new UsageError("--root needs a value");
      roots.push(value);
    } else if (a.startsWith("--root=")) roots.push(a.slice("--root=".length));
    else throw new UsageError(`rglob mcp: unknown argument '${a}' (run 'rglob mcp --help')`);
  }
  return { roots };
}

/** The roots a server serves: fixed by --root, or from the client, or the working directory. */
class Roots {
  private current: string[];
  private readonly fixed: boolean;
  /** Settles once the first answer to roots/list arrived (or was not asked for). */
  ready: Promise<void> = Promise.resolve();

  constructor(fixed: string[]) {
    this.fixed = fixed.length > 0;
    this.current = this.fixed ? fixed : resolveRoots([process.cwd()]);
  }

  get list(): readonly string[] {
    return this.current;
  }

  async refreshFrom(server: Server): Promise<void> {
    if (this.fixed || !server.getClientCapabilities()?.roots) return;
    try {
      const answer = await server.listRoots();
      const dirs: string[] = [];
      for (const r of answer.roots) {
        if (!r.uri.startsWith("file://")) continue;
        try {
          dirs.push(...resolveRoots([fileURLToPath(r.uri)]));
        } catch (err) {
          log(`ignoring client root ${r.uri}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      this.current = dirs.length > 0 ? dirs : resolveRoots([process.cwd()]);
      log(`roots from the client: ${this.current.join(", ")}`);
    } catch (err) {
      log(`roots/list failed, serving ${this.current.join(", ")}: ${String(err)}`);
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
  _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification: (n: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
}

async function callOperation(
  op: Operation,
  args: Record<string, unknown>,
  roots: readonly string[],
  extra: Extra,
): Promise<CallToolResult> {
  try {
    validateInput(op, args);
  } catch (err) {
    if (err instanceof RglobError) throw new McpError(ErrorCode.InvalidParams, err.message);
    throw err;
  }
  let input: Record<string, unknown>;
  try {
    const keys = inputKeys(op);
    const withAgent = withDefaults(op, args, op.agentDefaults);
    if (keys.has("strict_base")) withAgent.strict_base = true;
    input = confine(withAgent, roots, keys.has("base"));
  } catch (err) {
    if (err instanceof RglobError) return failure(err.toInfo());
    throw err;
  }
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
  const outcome = await collect(op, input, {
    signal: extra.signal,
    ...(token !== undefined ? { onProgress: (n: number) => void notify(n) } : {}),
  });
  if (!outcome.ok) return failure(outcome.error);
  const result = outcome.result;
  if (extra.signal.aborted) {
    log(`${op.mcpTool} cancelled after ${result.total_files_searched} entries`);
  } else await notify(Math.max(sent, Number(result.total_files_searched) || 0));
  let text = summaryText(op, result);
  if (Array.isArray(result.results) && result.results.length === 0) {
    const note = skipNote(op, result, "mcp");
    if (note !== null) text += `\n${note}`;
    for (const g of directoryGlobs(input, process.cwd())) {
      text += `\nnote: '${g}' in patterns is a glob matched against entry names, not a directory to search; to search inside it, pass paths: ["${g}"] (or base)`;
    }
  }
  return { structuredContent: result, content: [{ type: "text", text }] };
}

/**
 * Creates the MCP server over the registry (not yet connected).
 * @param roots the roots to serve
 * @returns the server
 */
function createServer(roots: Roots, inflight: Set<Promise<unknown>>): Server {
  const server = new Server(
    { name: "rglob", version: PACKAGE_VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: {}, logging: {} },
      instructions: INSTRUCTIONS,
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
      if (name === DESCRIBE_TOOL) {
        const keys = Object.keys(args);
        const id = args.name;
        const op = OPERATIONS.find((o) => o.id === id);
        if (!op || keys.some((k) => k !== "name")) {
          throw new McpError(
            ErrorCode.InvalidParams,
            `${DESCRIBE_TOOL} takes {name}, one of: ${OPERATIONS.map((o) => o.id).join(", ")}`,
          );
        }
        const manifest = describeOp(op);
        return {
          structuredContent: manifest,
          content: [{ type: "text", text: JSON.stringify(manifest) }],
        } satisfies CallToolResult;
      }
      const op = byTool.get(name);
      if (!op) {
        throw new McpError(ErrorCode.InvalidParams, `unknown tool '${name}'; see tools/list`);
      }
      await roots.ready;
      return await callOperation(op, args, roots.list, extra);
    } catch (err) {
      if (err instanceof McpError) throw err;
      const detail = err instanceof Error ? (process.env.RGLOB_DEBUG ? err.stack : err.message) : String(err);
      log(`internal error in ${name}: ${detail}`);
      throw new McpError(ErrorCode.InternalError, `internal error: ${String(err)}`);
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
    if (uri === "rglob://capabilities") body = capabilities();
    else if (uri === "rglob://schemas") body = SCHEMAS;
    else if (uri.startsWith("rglob://schema/")) body = SCHEMAS[uri.slice("rglob://schema/".length)];
    if (body === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown resource '${uri}'`);
    const mimeType = uri.startsWith("rglob://schema/") ? "application/schema+json" : "application/json";
    return { contents: [{ uri, mimeType, text: JSON.stringify(body, null, 2) }] };
  });

  server.oninitialized = () => {
    roots.ready = roots.refreshFrom(server);
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    roots.ready = roots.refreshFrom(server);
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
function answerMalformedMessages(transport: StdioServerTransport): void {
  const reported = transport.onerror;
  transport.onerror = (err: Error) => {
    reported?.(err);
    const parse = err instanceof SyntaxError;
    const response = {
      jsonrpc: "2.0",
      id: null,
      error: { code: parse ? -32700 : -32600, message: parse ? "Parse error" : "Invalid Request" },
    };
    // The SDK's message type has no null id; the wire form is what JSON-RPC 2.0 specifies.
    void transport.send(response as unknown as Parameters<StdioServerTransport["send"]>[0]).catch(() => {});
  };
}

/**
 * Serves the registry over MCP stdio until the client closes stdin.
 * @param argv the arguments after `mcp`
 * @returns the exit code (0 after a clean close)
 * @throws UsageError for bad arguments, RglobError for a bad --root
 */
export async function serveMcp(argv: string[]): Promise<number> {
  const parsed = parseMcpArgs(argv);
  if (parsed === "help") {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const roots = new Roots(resolveRoots(parsed.roots));
  const inflight = new Set<Promise<unknown>>();
  const server = createServer(roots, inflight);
  // A bug in a request must not end the server: log it and go on serving.
  process.on("unhandledRejection", (err) => log(`unhandled rejection: ${String(err)}`));
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  answerMalformedMessages(transport);
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
  log(`serving ${roots.list.join(", ")} (rglob ${PACKAGE_VERSION})`);
  await closed;
  return 0;
}
