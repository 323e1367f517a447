/*! Benchmarks: a minimal newline-delimited JSON-RPC client of one `rglob mcp` process, shared by bench-mcp.ts
 * and bench-warm.ts (raw stdio, no SDK, so the client's own cost stays out of the timings). */
import { INITIALIZED, initializeRequest } from "./mcp-probe.ts";

/** A newline-delimited JSON-RPC client of one `rglob mcp` process. */
export class RawMcpClient {
  private readonly proc;
  private readonly reader;
  private buffered = "";
  private readonly decoder = new TextDecoder();
  private nextId = 1;

  /**
   * Starts `rglob mcp --root serveRoot`, in that directory.
   * @param bin the rglob binary
   * @param serveRoot the root to serve
   * @param clientName the name the client gives in `initialize`
   */
  constructor(
    bin: string,
    serveRoot: string,
    private readonly clientName: string,
  ) {
    this.proc = Bun.spawn([bin, "mcp", "--root", serveRoot], {
      cwd: serveRoot,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    this.reader = this.proc.stdout.getReader();
  }

  private send(message: object): void {
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
    this.proc.stdin.flush();
  }

  /**
   * Sends a request and reads until its answer (notifications in between are skipped).
   * @param method the JSON-RPC method
   * @param params its parameters
   * @returns the answer message
   */
  async request(method: string, params: object): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.send({ jsonrpc: "2.0", id, method, params });
    for (;;) {
      const nl = this.buffered.indexOf("\n");
      if (nl >= 0) {
        const message = JSON.parse(this.buffered.slice(0, nl)) as Record<string, unknown>;
        this.buffered = this.buffered.slice(nl + 1);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the server closed its output");
      this.buffered += this.decoder.decode(value, { stream: true });
    }
  }

  /**
   * Initializes the session.
   * @returns the server's answer to `initialize`
   */
  async start(): Promise<Record<string, unknown>> {
    const answer = await this.request("initialize", initializeRequest(this.clientName).params);
    this.send(INITIALIZED);
    return answer;
  }

  /** Ends the server. */
  stop(): void {
    this.proc.kill();
  }
}
