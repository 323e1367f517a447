/*! The library served warm: a collecting call of `rglob/agent` (searchAll, grepAll, count, …) whose tree a
 * running warm server keeps (`rglob serve`, or `rglob mcp` in its roots) is sent to that server, which runs the
 * same operation with the same input through the same agent core and its warm state, and answers with the result
 * (records identical to a cold run's; grep's summary adds `source`). Anything short of a server that takes the
 * call within a short deadline answers null and the call runs in this process, silently: no server, a stale
 * socket, another user's socket or directory, another version or build commit (a build from source has none),
 * other RGLOB_* settings, a tree outside the server's, a busy server. On by default; RGLOB_SERVE=0 turns it off.
 * With RGLOB_DEBUG set, a call a server was found for but did not answer says why on stderr (`another build`: the
 * library and the server are not one build; rebuild or restart the server).
 * Works under Bun and plain Node (node:net, node:crypto): docs/decisions/0033-warm-server.md. */
import { createHash } from "node:crypto";
import * as net from "node:net";
import * as path from "node:path";
import { readConfig, readHost } from "../config.ts";
import type { ErrorInfo } from "../contract/errors.ts";
import { BUILD_COMMIT, VERSION_LINE } from "../contract/versions.ts";
import { realPath } from "../platform/files.ts";
import { FRAME, notServedNote, PROTOCOL, privateDirProblem, socketsFor } from "../surface/serve/where.ts";
import type { CallControl, Outcome } from "./call.ts";

/** How long a call waits for a server to take it before it runs in this process (RGLOB_SERVE_WAIT_MS). */
const WAIT_MS = 200;

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** Whether a value goes through JSON unchanged (strings, finite numbers, booleans, null, arrays, plain objects). */
function plainJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(plainJson);
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as Record<string, unknown>).every(plainJson);
}

/**
 * The real path of the directory a call reads: its base (default: the working directory), or null when it cannot
 * be found (the call runs in this process, which says why).
 */
function treeOf(input: Readonly<Record<string, unknown>>, cwd: string): string | null {
  const base = typeof input.base === "string" ? input.base : ".";
  try {
    return realPath(path.resolve(cwd, base));
  } catch {
    return null;
  }
}

/**
 * Asks the server that keeps a call's tree warm to run it.
 * @param opId the operation
 * @param input the call's input (the library's defaults applied)
 * @param control the call's control: a progress callback runs the call here (progress is not relayed)
 * @returns the result (or the request failure) as the agent core gives it, or null: run the call here
 */
export async function servedCall(
  opId: string,
  input: Readonly<Record<string, unknown>>,
  control: CallControl,
): Promise<Outcome | null> {
  // The library reads the switches at each call: a program may set them while it runs.
  const config = readConfig();
  const host = readHost();
  if (!config.serve || process.platform !== "linux") return null;
  if (BUILD_COMMIT === null || control.onProgress !== undefined || control.warm !== undefined) return null;
  if (control.signal?.aborted || !plainJson(input)) return null;
  let cwd: string;
  try {
    cwd = process.cwd();
  } catch {
    return null;
  }
  const dir = config.socketDir;
  if (privateDirProblem(dir) !== null) return null;
  const tree = treeOf(input, cwd);
  if (tree === null) return null;
  const found = socketsFor(tree, dir, sha256)[0];
  if (found === undefined) return null;
  const request = { v: PROTOCOL, lib: VERSION_LINE, type: "lib", op: opId, input, cwd, env: host.env };
  const wait = config.serveWaitMs ?? WAIT_MS;
  const waitMs = Number.isFinite(wait) ? wait : WAIT_MS;
  const { answer, why } = await ask(found[1], `${JSON.stringify(request)}\n`, waitMs, control);
  if (answer === null) {
    if (config.debug) process.stderr.write(notServedNote(found[0], why, waitMs));
    return null;
  }
  try {
    const parsed = JSON.parse(answer) as { ok?: unknown; result?: unknown; error?: unknown };
    if (parsed.ok === true && typeof parsed.result === "object" && parsed.result !== null)
      return { ok: true, result: parsed.result as Record<string, unknown> };
    if (parsed.ok === false && typeof parsed.error === "object" && parsed.error !== null)
      return { ok: false, error: parsed.error as ErrorInfo };
  } catch {}
  return null;
}

/** What a server said to a call: the JSON text, or null and why (null: not taken in time). */
interface Asked {
  readonly answer: string | null;
  readonly why: string | null;
}

/**
 * Connects, sends the request, and reads the answer: an accepted frame within waitMs, then one JSON frame.
 * @returns the JSON text, or null (declined, not taken in time, refused, closed early) and why
 */
function ask(sock: string, request: string, waitMs: number, control: CallControl): Promise<Asked> {
  return new Promise((resolve) => {
    let settled = false;
    let accepted = false;
    let why: string | null = null;
    let buf: Buffer = Buffer.alloc(0);
    const socket = net.connect({ path: sock });
    const onAbort = () => {
      // The server stops the run; its result then says cancelled, as a cold run's would.
      if (accepted) socket.write(`${JSON.stringify({ type: "cancel", signal: "SIGINT" })}\n`);
    };
    const finish = (answer: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      control.signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      resolve({ answer, why });
    };
    const timer = setTimeout(() => {
      if (!accepted) finish(null);
    }, waitMs);
    control.signal?.addEventListener("abort", onAbort, { once: true });
    socket.on("connect", () => socket.write(request));
    socket.on("data", (data: Buffer) => {
      buf = buf.length === 0 ? data : Buffer.concat([buf, data]);
      while (!settled && buf.length >= 5) {
        const type = buf[0] as number;
        const len = buf.readUInt32BE(1);
        if (buf.length < 5 + len) break;
        const body = buf.subarray(5, 5 + len);
        buf = buf.subarray(5 + len);
        if (type === FRAME.accepted) {
          accepted = true;
          clearTimeout(timer);
          if (control.signal?.aborted) onAbort();
        } else if (type === FRAME.json) finish(body.toString("utf8"));
        else {
          // Declined: the server says why (an older server says nothing).
          why = type === FRAME.declined && len > 0 ? body.toString("utf8") : "declined";
          finish(null);
        }
      }
    });
    socket.on("error", (err) => {
      why ??= `the connection failed (${(err as { code?: string }).code ?? err.message})`;
      finish(null);
    });
    socket.on("close", () => {
      why ??= "the server closed the connection";
      finish(null);
    });
  });
}
