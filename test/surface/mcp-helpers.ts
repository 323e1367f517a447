/*! Shared by the MCP and parity tests: the per-operation table of sample queries, a generic input → argv
 * converter (from the registry's flags), and an MCP client that drives the compiled binary over stdio. */

import { afterAll, beforeAll } from "bun:test";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { inputKeys } from "../../src/agent/call.ts";
import type { Operation } from "../../src/ops/operation.ts";
import { OPERATIONS } from "../../src/ops/registry.ts";
import { type FlagSpec, flagsOf } from "../../src/surface/cli/flags.ts";
import { BIN, FIXTURE, ROOT, type TreeSpec, tempTree } from "../helpers.ts";

/** One sample query of an operation: its input (relative to fixtures/tree, which is the base). */
export interface Sample {
  readonly title: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** True when the full result is more than one page with `limit: 2` (used by the paging test). */
  readonly pageable?: boolean;
}

/**
 * Sample queries per operation id, run on fixtures/tree through every surface. A sample of an operation that
 * is not registered yet is skipped (the tests print which operations they covered); a registered operation
 * without samples fails the tests.
 */
export const SAMPLES: Readonly<Record<string, readonly Sample[]>> = {
  find: [
    { title: "everything", input: {}, pageable: true },
    { title: "globs", input: { patterns: ["*.py", "docs/**"] } },
    { title: "files, hidden included", input: { types: ["f"], hidden: true }, pageable: true },
    { title: "ignore rules off", input: { respect_gitignore: false, hidden: true } },
    { title: "a first page", input: { limit: 3 } },
    { title: "largest first", input: { types: ["f"], sort: "size", reverse: true } },
    { title: "depth 1, directories", input: { types: ["d"], max_depth: 1 } },
  ],
  // ── Samples for the operations still landing: the owner of each operation corrects its input here
  //    (keys follow DESIGN.md and the issues; a registered op whose sample is rejected fails loudly). ──
  grep: [
    { title: "a literal marker", input: { pattern: "TODO" } },
    { title: "one match at most", input: { pattern: "TODO", limit: 1 } },
  ],
  count: [{ title: "all files", input: {} }],
  dupes: [{ title: "duplicate payloads", input: {} }],
  tree: [{ title: "the whole tree", input: {} }],
  top: [{ title: "largest files", input: {} }],
  stats: [{ title: "summary", input: {} }],
  explain: [{ title: "an ignored file", input: { path: "ignored.log" } }],
};

/** The registered operations that have samples, and those that do not (a test fails on the latter). */
export function coverage(): { covered: Operation[]; missing: string[]; notRegistered: string[] } {
  const registered = new Set(OPERATIONS.map((o) => o.id));
  return {
    covered: OPERATIONS.filter((o) => o.mcpTool !== null && (SAMPLES[o.id]?.length ?? 0) > 0),
    // Operations without an MCP tool (the lcount/tsize aliases of count) are covered by count's samples.
    missing: OPERATIONS.filter((o) => o.mcpTool !== null && !SAMPLES[o.id]?.length).map((o) => o.id),
    notRegistered: Object.keys(SAMPLES).filter((id) => !registered.has(id)),
  };
}

/**
 * Returns the full input of a sample, identical for every surface: the base (fixtures/tree), strict base on,
 * and the operation's agent defaults written out (so that the MCP server's defaults change nothing).
 * @param op the operation
 * @param sample the sample
 * @returns the input
 */
export function fullInput(op: Operation, sample: Sample): Record<string, unknown> {
  const keys = inputKeys(op);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(op.agentDefaults)) if (keys.has(k)) out[k] = v;
  if (keys.has("base")) out.base = FIXTURE;
  if (keys.has("strict_base")) out.strict_base = true;
  return { ...out, ...sample.input };
}

/**
 * Converts an input object to CLI arguments through the registry's flags; keys without a flag become operands
 * in the order of the operation's CLI operands.
 * @param op the operation
 * @param input the input
 * @returns the arguments after the subcommand
 */
export function argvOf(op: Operation, input: Readonly<Record<string, unknown>>): string[] {
  const flags = flagsOf(op).filter((f) => !f.presentation);
  const args: string[] = [];
  const operands: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const f = flags.find((x) => x.key === key);
    const items = flagsOf(op).filter((x) => x.item?.key === key);
    if (!f && items.length > 0 && Array.isArray(value)) {
      args.push(...itemArgs(items, value as Array<Record<string, unknown>>));
      continue;
    }
    if (!f) {
      operands.push(...(Array.isArray(value) ? value.map(String) : [String(value)]));
      continue;
    }
    if (f.kind === "boolean") args.push(`--${f.long}=${value ? "true" : "false"}`);
    else if (Array.isArray(value)) for (const item of value) args.push(`--${f.long}=${String(item)}`);
    else args.push(`--${f.long}=${String(value)}`);
  }
  return [...args, "--", ...operands];
}

/**
 * The flags that build a list of objects (grep's also: --also, --without, --also-in), item by item: the adding
 * flag whose fixed values the item has (the most of them), then each field a flag bound to it sets.
 */
function itemArgs(items: readonly FlagSpec[], list: ReadonlyArray<Record<string, unknown>>): string[] {
  const args: string[] = [];
  const fixed = (x: FlagSpec) => Object.entries(x.item?.with ?? {});
  for (const obj of list) {
    const adder = items
      .filter((x) => x.item?.onLast !== true && fixed(x).every(([k, v]) => obj[k] === v))
      .sort((a, b) => fixed(b).length - fixed(a).length)[0] as FlagSpec;
    args.push(`--${adder.long}=${String(obj[adder.item?.field as string])}`);
    for (const x of items)
      if (x.item?.onLast === true && obj[x.item.field] !== undefined) {
        const v = obj[x.item.field];
        args.push(`--${x.long}=${Array.isArray(v) ? v.join(",") : String(v)}`);
      }
  }
  return args;
}

/** A connected MCP client on the compiled binary, with the server's stderr. */
export interface McpSession {
  readonly client: Client;
  /** The server's process id (null once it ended). */
  pid(): number | null;
  stderr(): string;
  /** Resolves when the server's stderr contains the text. */
  waitForStderr(text: string | RegExp): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts `rglob mcp` (the compiled binary) and connects the SDK's Client over stdio.
 * @param args arguments after `mcp` (e.g. ["--root", dir])
 * @param opts the client's MCP roots (offered when given), the server's cwd, and environment variables added to
 * this process's. The server does not serve the CLI in its roots (RGLOB_SERVE=0) unless `env` says otherwise: the
 * CLI calls of a test stay cold runs (test/serve/mcp-serve.test.ts tests the serving).
 * @returns the session
 */
export async function startMcp(
  args: readonly string[] = ["--root", FIXTURE],
  opts: { roots?: readonly string[]; cwd?: string; env?: Record<string, string> } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", ...args],
    cwd: opts.cwd ?? ROOT,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1", RGLOB_SERVE: "0", ...opts.env },
  });
  let text = "";
  const waiters: Array<{ test: string | RegExp; resolve: (s: string) => void }> = [];
  transport.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of [...waiters]) {
      if (typeof w.test === "string" ? text.includes(w.test) : w.test.test(text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(text);
      }
    }
  });
  const client = new Client(
    { name: "rglob-tests", version: "1.0.0" },
    { capabilities: opts.roots ? { roots: { listChanged: true } } : {} },
  );
  if (opts.roots) {
    const roots = opts.roots;
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: r })),
    }));
  }
  await client.connect(transport);
  return {
    client,
    pid: () => transport.pid,
    stderr: () => text,
    waitForStderr: (test) =>
      (typeof test === "string" ? text.includes(test) : test.test(text))
        ? Promise.resolve(text)
        : new Promise((resolve) => waiters.push({ test, resolve })),
    close: () => client.close(),
  };
}

/**
 * Creates a temp tree and an MCP server rooted at it for one test file: the server starts before the file's tests
 * and is closed, and the tree removed, after them.
 * @param spec the tree
 * @returns the tree's directory and the session (`mcp`, once the tests run)
 */
export function mcpOnTree(spec: TreeSpec): { readonly dir: string; readonly mcp: McpSession } {
  const t = tempTree(spec);
  let session: McpSession | null = null;
  beforeAll(async () => {
    session = await startMcp(["--root", t.dir]);
  });
  afterAll(async () => {
    await session?.close();
    t.cleanup();
  });
  return {
    dir: t.dir,
    get mcp(): McpSession {
      if (session === null) throw new Error("the MCP session starts before the file's tests");
      return session;
    },
  };
}
