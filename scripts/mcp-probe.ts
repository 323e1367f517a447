/*! Asks a compiled rglob for its MCP tool list over stdio (initialize, initialized, tools/list) the way a
 * client does, with plain newline-delimited JSON-RPC. Used by the release smoke test and the examples harness
 * to detect whether `rglob mcp` exists in a build. Never leaves the server running. */

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
