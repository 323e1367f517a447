/*! Warm server, client side: a CLI call in a tree a running `rglob serve` keeps warm is sent to it, and its
 * answer (stdout and stderr bytes, in order, then the exit code) is written out as it comes. Anything short of a
 * server that takes the call within a short deadline answers null: the call then runs cold in this process, as
 * if no server existed (no socket, a stale socket file, a socket of another user or in a directory others can
 * reach, a busy server, another build, a call the server does not serve). Loaded before any engine module
 * (src/main.ts): it imports where.ts, node:fs and pass-fds.ts (bun:ffi opened only when a large answer asks for
 * the descriptors; node:tty when an output is a terminal). docs/decisions/0033-warm-server.md, 0043. */
import { VERSION_LINE } from "../../contract/versions.ts";
import { statDescriptor, statPath, writeSome } from "../../platform/files.ts";
import { sendWithDescriptors } from "../../platform/pass-fds.ts";
import { buildId, FRAME, notServedNote, PROTOCOL, privateDirProblem, socketsFor } from "./where.ts";

/** How long a client waits for a server to take its call before it runs the call itself (RGLOB_SERVE_WAIT_MS). */
const WAIT_MS = 200;

/** What a served call ended with: an exit code, or the signal that stopped it (the client then dies of it). */
type ServedEnd = number | { readonly signal: "SIGINT" | "SIGTERM" };

/** The kind of standard input: grep reads a pipe or a file when no path is given, which a server cannot. */
function stdinKind(): "fifo" | "file" | "other" {
  try {
    const st = statDescriptor(0);
    return st.isFIFO() ? "fifo" : st.isFile() ? "file" : "other";
  } catch {
    return "other";
  }
}

/**
 * Whether a standard stream is a terminal. A pipe, a file, a socket or /dev/null is known not to be one from an
 * fstat; only another character device asks isatty, whose module (node:tty, with the stream machinery it loads)
 * costs more start-up than the rest of a served call's client together (src/surface/cli/output.ts isTerminal
 * decides the same way).
 */
async function tty(fd: 1 | 2): Promise<boolean> {
  try {
    const st = statDescriptor(fd);
    if (!st.isCharacterDevice() || st.rdev === statPath("/dev/null").rdev) return false;
    return (await import("node:tty")).isatty(fd);
  } catch {
    return false;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of bytes to fd 1 or 2. A reader gone away ends the process quietly with 0, as a cold run does
 * (src/main.ts).
 */
function writeOut(fd: number, bytes: Uint8Array): void {
  let buf = bytes;
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSome(fd, buf));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 1);
        continue;
      }
      if (code === "EPIPE" && fd === 1) process.exit(0);
      if (fd === 2) return; // stderr gone: the rest of the run still goes on, as eprint's
      throw err;
    }
  }
}

/**
 * Sends a CLI call to the server that keeps the working directory's tree warm, if one takes it.
 * @param argv the arguments after the program name
 * @param with_ where the sockets are (the Config's socketDir), how long to wait for a server to take the call
 *   (RGLOB_SERVE_WAIT_MS; null: WAIT_MS), the environment the call is made with (the Host's), which it sends, and
 *   RGLOB_DEBUG: a call a server was found for but did not answer then says why on stderr, as the library's
 * @returns how the call ended, or null: run it cold
 */
export async function served(
  argv: readonly string[],
  with_: {
    readonly socketDir: string;
    readonly waitMs: number | null;
    readonly env: Readonly<Record<string, string>>;
    readonly debug: boolean;
  },
): Promise<ServedEnd | null> {
  const { waitMs, env } = with_;
  // Help (laid out to the terminal) and names that are not valid UTF-8 (held as raw bytes by the cold path)
  // are not sent.
  if (argv.some((a) => a === "--help" || a === "-h" || a.includes("\uFFFD"))) return null;
  let cwd: string;
  try {
    cwd = process.cwd();
  } catch {
    return null; // a deleted working directory: the cold path knows what to say
  }
  if (cwd.includes("\uFFFD")) return null;
  const dir = with_.socketDir;
  if (privateDirProblem(dir) !== null) return null;
  const found = socketsFor(cwd, dir)[0];
  if (found === undefined) return null;
  const request = {
    v: PROTOCOL,
    build: buildId(VERSION_LINE),
    type: "call",
    argv,
    cwd,
    env,
    tty: [await tty(1), await tty(2)],
    stdin: stdinKind(),
  };
  const wait = waitMs ?? WAIT_MS;
  const { end, why } = await call(found[1], `${JSON.stringify(request)}\n`, wait);
  if (end === null && with_.debug) writeOut(2, new TextEncoder().encode(notServedNote(found[0], why, wait)));
  return end;
}

/** How a call went: its end, or null (run it cold) and why (null: not taken in time). */
interface Called {
  readonly end: ServedEnd | null;
  readonly why: string | null;
}

/**
 * Connects, sends the request and plays the answer.
 * @param sock the socket's path
 * @param request the request line
 * @param waitMs how long to wait for the server to take the call
 */
function call(sock: string, request: string, waitMs: number): Promise<Called> {
  return new Promise((resolve) => {
    let settled = false;
    let why: string | null = null;
    let accepted = false;
    let wrote = false;
    let pending = new Uint8Array(0);
    let socket: { write(d: string): number; end(): void; readonly fd?: number } | null = null;
    const signals: Array<"SIGINT" | "SIGTERM"> = ["SIGINT", "SIGTERM"];
    const onSignal = (sig: "SIGINT" | "SIGTERM") => {
      // The server stops the run and closes its output as a cold run would; a second signal kills at once.
      for (const s of signals) process.off(s, onSignal);
      socket?.write(`${JSON.stringify({ type: "cancel", signal: sig })}\n`);
    };
    const finish = (end: ServedEnd | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const s of signals) process.off(s, onSignal);
      try {
        socket?.end();
      } catch {}
      resolve({ end, why });
    };
    // A connection that could not be made (or broke before any answer): the call runs cold.
    const failed = (err: Error) => {
      why ??= `the connection failed (${(err as { code?: string }).code ?? err.message})`;
      finish(null);
    };
    // A server that does not take the call in time (busy with another, or stuck) is left: the call runs cold.
    const timer = setTimeout(() => {
      if (!accepted) finish(null);
    }, waitMs);
    const frames = (data: Uint8Array) => {
      let buf: Uint8Array = data;
      if (pending.length > 0) {
        const all = new Uint8Array(pending.length + data.length);
        all.set(pending);
        all.set(data, pending.length);
        buf = all;
      }
      let at = 0;
      // The stdout bytes of the frames in hand, written in one write (before a stderr frame, to keep their order,
      // and before the end).
      const outs: Uint8Array[] = [];
      let outBytes = 0;
      const flushOut = () => {
        if (outs.length === 0) return;
        writeOut(1, outs.length === 1 ? (outs[0] as Uint8Array) : Buffer.concat(outs, outBytes));
        outs.length = 0;
        outBytes = 0;
      };
      while (!settled && buf.length - at >= 5) {
        const type = buf[at] as number;
        const len =
          (((buf[at + 1] as number) << 24) >>> 0) +
          ((buf[at + 2] as number) << 16) +
          ((buf[at + 3] as number) << 8) +
          (buf[at + 4] as number);
        if (buf.length - at - 5 < len) break;
        const body = buf.subarray(at + 5, at + 5 + len);
        at += 5 + len;
        switch (type) {
          case FRAME.accepted:
            accepted = true;
            clearTimeout(timer);
            for (const s of signals) process.on(s, onSignal);
            break;
          case FRAME.declined:
            // The server says why (an older server says nothing).
            why = len > 0 ? new TextDecoder().decode(body) : "declined";
            if (!wrote) finish(null);
            break;
          case FRAME.stdout:
            wrote = true;
            outs.push(body);
            outBytes += body.length;
            break;
          case FRAME.stderr:
            wrote = true;
            flushOut();
            writeOut(2, body);
            break;
          case FRAME.exit:
            flushOut();
            finish(Number(new TextDecoder().decode(body)) || 0);
            break;
          case FRAME.signal:
            flushOut();
            finish({ signal: new TextDecoder().decode(body) === "SIGINT" ? "SIGINT" : "SIGTERM" });
            break;
          case FRAME.pass: {
            // A large answer: the server writes the rest to our stdout and stderr itself, after what is out.
            flushOut();
            const line = `${JSON.stringify({ type: "fds" })}\n`;
            const fd = socket?.fd;
            if (fd === undefined || !sendWithDescriptors(fd, line, [1, 2])) socket?.write(line);
            break;
          }
        }
      }
      flushOut();
      pending = buf.slice(at);
    };
    const closed = () => {
      if (settled) return;
      // The server went away mid-answer: what it wrote is out, and the call failed; before any output the call
      // runs cold.
      if (!wrote) {
        why ??= "the server closed the connection";
        finish(null);
      } else {
        writeOut(
          2,
          new TextEncoder().encode("rglob: the warm server closed the connection before the end\n"),
        );
        finish(2);
      }
    };
    Bun.connect({
      unix: sock,
      socket: {
        open(s) {
          socket = s;
          s.write(request);
        },
        data(_s, data) {
          frames(data);
        },
        close: closed,
        error: closed,
        connectError: (_s, err) => failed(err),
        end: closed,
      },
    }).catch(failed);
  });
}
