/*! MCP stdio transport: newline-delimited JSON-RPC on stdin/stdout, as the SDK's StdioServerTransport, with two
 * differences. A line longer than MAX_LINE_BYTES is skipped (never buffered whole) and answered with a JSON-RPC
 * error carrying its id when the line's head shows one, so the server goes on serving; the SDK's transport
 * closes on a 10 MiB line and every call in flight goes unanswered. And an answer is written whole before
 * `send` returns (to the process's stdout with blocking writes), so nothing is left in a stream's buffer when the
 * server exits: a stream's write callback could come, under load, before all of a large answer had left. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { writeAll } from "../cli/output.ts";

/** The longest JSON-RPC line read (bytes); a longer one is answered with an error. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Bytes of an over-long line kept to find its id. */
const HEAD_BYTES = 4096;

/** A JSON-RPC error for a message that is not read, with the id its head shows (else null). */
function tooLong(head: string, size: number): Record<string, unknown> {
  const m = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  let id: unknown = null;
  if (m?.[1] !== undefined) {
    try {
      id = JSON.parse(m[1]);
    } catch {
      id = null;
    }
  }
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32600,
      message: `message too large: ${size >= MAX_LINE_BYTES ? `at least ${size}` : size} bytes; this server reads messages of up to ${MAX_LINE_BYTES} bytes`,
    },
  };
}

/** The stdio transport of `rglob mcp`. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private pending = 0;
  /** Set while the rest of an over-long line is skipped: its head and its size so far. */
  private skipping: { head: string; size: number } | null = null;
  private readonly writes = new Set<Promise<void>>();
  private closed = false;
  /** Set when a write to the process's stdout failed: the client is gone and nothing more is written. */
  private gone = false;

  /**
   * @param stdin where messages come from
   * @param stdout where answers go, as a stream (tests), or null: the process's stdout, written synchronously
   */
  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream | null = null,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(10, from);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(from, end);
      if (this.skipping) {
        this.skipping.size += piece.length;
      } else if (this.pending + piece.length > MAX_LINE_BYTES) {
        const head = Buffer.concat([...this.chunks, piece])
          .subarray(0, HEAD_BYTES)
          .toString("utf8");
        this.skipping = { head, size: this.pending + piece.length };
        this.chunks = [];
        this.pending = 0;
      } else if (piece.length > 0) {
        this.chunks.push(Buffer.from(piece));
        this.pending += piece.length;
      }
      if (nl < 0) break;
      this.endLine();
      from = nl + 1;
    }
  };

  private endLine(): void {
    if (this.skipping) {
      const { head, size } = this.skipping;
      this.skipping = null;
      this.onerror?.(new Error(`skipped a message of ${size} bytes (more than ${MAX_LINE_BYTES})`));
      void this.send(tooLong(head, size) as unknown as JSONRPCMessage).catch(() => {});
      return;
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.pending = 0;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  private readonly onError = (err: Error): void => {
    this.onerror?.(err);
  };

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.gone) return Promise.resolve();
    const json = `${JSON.stringify(message)}\n`;
    const stdout = this.stdout;
    if (stdout === null) {
      try {
        writeAll(1, Buffer.from(json));
        return Promise.resolve();
      } catch (err) {
        // The client has gone away (EPIPE): nothing more can be answered. Marked before the error is reported:
        // its handler answers a transport error, and that answer's failed write reported again, without end.
        this.gone = true;
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        void this.close();
        return Promise.reject(err);
      }
    }
    const done = new Promise<void>((resolve) => {
      // The callback runs once the bytes are handed to the OS (or the write failed): then the answer is whole.
      stdout.write(json, () => resolve());
    });
    this.writes.add(done);
    void done.then(() => this.writes.delete(done));
    return done;
  }

  /** Resolves once every answer written so far has left the process (or stdout is gone). */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
    // A write's callback may come while the stream still holds bytes: wait until its buffer is empty.
    const out = this.stdout as
      | (NodeJS.WritableStream & { writableLength?: number; destroyed?: boolean })
      | null;
    while (out !== null && (out.writableLength ?? 0) > 0 && !out.destroyed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          out.off("drain", done);
          out.off("error", done);
          out.off("close", done);
          resolve();
        };
        out.once("drain", done);
        out.once("error", done);
        out.once("close", done);
        setTimeout(done, 50);
      });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onError);
    this.stdin.pause();
    await this.flush();
    this.closed = true;
    this.onclose?.();
  }
}
