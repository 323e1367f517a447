/*! Asks a compiled rglob for its MCP tool list over stdio (initialize, initialized, tools/list) the way a
 * client does, with plain newline-delimited JSON-RPC. Used by the release smoke test and the examples harness
 * to detect whether `rglob mcp` exists in a build. Never leaves the server running. Also the benchmarks' raw
 * client of one `rglob mcp` (RawMcpServer), shared by bench-index-scale and bench-million. */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";

/** What the probe found. */
export type McpProbe =
  | { readonly ok: true; readonly tools: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/** The MCP protocol version the probe asks for (one the SDK's servers accept). */
export const PROBE_PROTOCOL_VERSION = "2025-06-18";

/**
 * The initialize request a raw client opens a session with (newline-delimited JSON-RPC over stdio).
 * @param clientName the client's name
 * @param id the request's id
 * @returns the message
 */
export function initializeRequest(clientName: string, id: number = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: PROBE_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: "1" },
    },
  };
}

/** The notification a client sends once the server has answered initialize. */
export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" } as const;

/**
 * Starts `BIN mcp`, lists its tools and stops it.
 * @param bin the rglob executable, or a command that runs it (e.g. an emulator and the executable)
 * @param options working directory, extra arguments after `mcp`, and a deadline in milliseconds
 * @returns the tool names, or why the server did not answer
 */
export async function probeMcp(
  bin: string | readonly string[],
  options: { cwd?: string; args?: readonly string[]; timeoutMs?: number } = {},
): Promise<McpProbe> {
  const proc = Bun.spawn([...(typeof bin === "string" ? [bin] : bin), "mcp", ...(options.args ?? [])], {
    cwd: options.cwd ?? process.cwd(),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const send = (message: object) => {
    proc.stdin.write(`${JSON.stringify(message)}\n`);
    proc.stdin.flush();
  };
  const timer = setTimeout(() => proc.kill(), options.timeoutMs ?? 10_000);
  try {
    send(initializeRequest("rglob-probe"));
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        if (!line) continue;
        const message = JSON.parse(line) as {
          id?: number;
          result?: { tools?: Array<{ name: string }> };
          error?: { message?: string };
        };
        if (message.id === 1) {
          if (message.error) return { ok: false, reason: `initialize failed: ${message.error.message}` };
          send(INITIALIZED);
          send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
        } else if (message.id === 2) {
          if (message.error || !message.result?.tools) {
            return { ok: false, reason: `tools/list failed: ${message.error?.message ?? "no tools"}` };
          }
          return { ok: true, tools: message.result.tools.map((t) => t.name) };
        }
      }
    }
    const stderr = (await new Response(proc.stderr).text()).trim();
    return { ok: false, reason: `'rglob mcp' exited ${await proc.exited} without answering: ${stderr}` };
  } catch (err) {
    return { ok: false, reason: `'rglob mcp' did not speak JSON-RPC: ${String(err)}` };
  } finally {
    clearTimeout(timer);
    proc.kill();
  }
}

/**
 * A newline-delimited JSON-RPC client of one `rglob mcp` process over its stdio, with its pid: the benchmarks'
 * raw client (no SDK between the timer and the server).
 */
export class RawMcpServer {
  private readonly proc: ChildProcessByStdio<Writable, Readable, null>;
  private buffered = "";
  private next = 1;
  private readonly waiting = new Map<number, (m: Record<string, unknown>) => void>();

  /**
   * Starts `rglob mcp --root TREE` with its own cache directory.
   * @param bin the rglob binary
   * @param tree the root it serves
   * @param cache RGLOB_CACHE_DIR for it
   * @param clientName the name it gives in initialize
   * @param stderrFd where its log goes (a descriptor open for appending), or nowhere
   */
  constructor(
    bin: string,
    tree: string,
    cache: string,
    private readonly clientName: string,
    stderrFd: number | "ignore" = "ignore",
  ) {
    this.proc = spawn(bin, ["mcp", "--root", tree], {
      cwd: tree,
      env: { ...process.env, RGLOB_CACHE_DIR: cache },
      stdio: ["pipe", "pipe", stderrFd],
    }) as ChildProcessByStdio<Writable, Readable, null>;
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (chunk: string) => {
      this.buffered += chunk;
      for (let nl = this.buffered.indexOf("\n"); nl >= 0; nl = this.buffered.indexOf("\n")) {
        const m = JSON.parse(this.buffered.slice(0, nl)) as Record<string, unknown>;
        this.buffered = this.buffered.slice(nl + 1);
        const w = this.waiting.get(m.id as number);
        if (w !== undefined) {
          this.waiting.delete(m.id as number);
          w(m);
        }
      }
    });
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  request(method: string, params: object): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  async start(): Promise<void> {
    await this.request("initialize", initializeRequest(this.clientName).params);
    this.proc.stdin.write(`${JSON.stringify(INITIALIZED)}\n`);
  }

  /** A grep through the tool grep_content: its structured answer and the milliseconds it took. */
  async grep(a: Record<string, unknown>): Promise<{ ms: number; r: Record<string, unknown> }> {
    const t0 = performance.now();
    const m = await this.request("tools/call", { name: "grep_content", arguments: a });
    const r = (m.result as { structuredContent: Record<string, unknown> }).structuredContent;
    return { ms: performance.now() - t0, r };
  }

  /** A call of any tool: its structured answer and the milliseconds it took. */
  async call(name: string, a: Record<string, unknown>): Promise<{ ms: number; r: Record<string, unknown> }> {
    const t0 = performance.now();
    const m = await this.request("tools/call", { name, arguments: a });
    const r = (m.result as { structuredContent: Record<string, unknown> }).structuredContent;
    return { ms: performance.now() - t0, r };
  }

  /** The first root's warm state, from rglob://capabilities. */
  async warm(): Promise<Record<string, unknown>> {
    const m = await this.request("resources/read", { uri: "rglob://capabilities" });
    const text = (m.result as { contents: Array<{ text: string }> }).contents[0]?.text ?? "{}";
    const caps = JSON.parse(text) as { mcp: { warm: Array<Record<string, unknown>> } };
    return caps.mcp.warm[0] ?? {};
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.proc.exitCode !== null) resolve();
      this.proc.on("exit", () => resolve());
      this.proc.kill();
    });
  }
}
