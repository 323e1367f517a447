/*! Warm server, server side (`rglob serve`): keeps one tree warm (the WarmSet of `rglob mcp`: remembered walks,
 * the trigram index, the watch and the freshness checks of ADR 0032) and answers CLI calls made in it over a Unix
 * socket. A call runs the CLI itself (surface/cli/app.ts runCli) in this process, with the client's working
 * directory, environment and terminals, its stdout and stderr sent back as frames as they are written, so the
 * answer is the cold run's byte for byte. One call at a time; a client that waits too long runs cold. Only
 * connections of this user are taken (SO_PEERCRED). docs/decisions/0033-warm-server.md. */
import { type Config, readConfig, readHost } from "../../config.ts";
import { RglobError } from "../../contract/errors.ts";
import { BUILD_COMMIT, VERSION_LINE } from "../../contract/versions.ts";
import { WarmSet, warmOptions } from "../../engine/index/warm/set.ts";
import type { Operation } from "../../ops/operation.ts";
import {
  closeDescriptor,
  listNames,
  lstatPath,
  makePrivateDir,
  pathExists,
  realPath,
  removeIfThere,
  setMode,
  statPath,
} from "../../platform/files.ts";
import { openLibc } from "../../platform/libc.ts";
import { receiveWithDescriptors } from "../../platform/pass-fds.ts";
import { routeOutput, writeAll } from "../cli/output.ts";
import { rehearseWarm } from "../rehearse.ts";
import { cliRunner, libraryRunner, NotServed } from "./served.ts";
import {
  buildId,
  FRAME,
  ownSocket,
  PROTOCOL,
  privateDirProblem,
  SOCKET_PATH_MAX,
  socketName,
  socketsFor,
  uid,
} from "./where.ts";

/** A running server as `rglob serve` and `rglob index --status` report it. */
interface ServerInfo {
  readonly root: string;
  readonly pid: number;
  readonly socket: string;
  /** When it started, ISO 8601 UTC. */
  readonly since: string;
  /** starting (watch being set up), building (index being built), ready, warm_list (walks only), stopped. */
  readonly state: "starting" | "building" | "ready" | "warm_list" | "stopped";
  /** Calls answered so far. */
  readonly calls: number;
  /** It exits after this many seconds without a call (null: it runs until stopped). */
  readonly idle_seconds: number | null;
  /** The command that runs it: `rglob serve`, or `rglob mcp` (which serves the CLI in its roots too). */
  readonly started_by: "serve" | "mcp";
}

interface Request {
  readonly v?: unknown;
  readonly build?: unknown;
  readonly type?: unknown;
  readonly argv?: unknown;
  readonly cwd?: unknown;
  readonly env?: unknown;
  readonly tty?: unknown;
  readonly stdin?: unknown;
  readonly signal?: unknown;
  /** A library call (type "lib"): the operation and its input, with the library's identity. */
  readonly op?: unknown;
  readonly input?: unknown;
  readonly lib?: unknown;
}

interface BunSocket {
  write(data: string | Uint8Array): number;
  end(): void;
  readonly fd?: number;
  data: Conn;
}

/** A client connection. */
interface Conn {
  sock: BunSocket | null;
  fd: number;
  buf: string;
  closed: boolean;
  /** Stops the call being answered for it (the client's signal, or the client gone). */
  cancel: ((signal: "SIGINT" | "SIGTERM") => void) | null;
}

/** Writes one frame on a connection's descriptor, whole (waiting while the client reads). */
function frame(fd: number, type: number, body: Uint8Array | string = ""): void {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = type;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  writeAll(fd, out);
}

/** Output frames gathered before they are written: a chunk of the CLI's (src/surface/cli/output.ts CHUNK). */
const FRAMES_CHUNK = 65536;
/**
 * The longest output waits to be written: to a terminal 50 ms, as the CLI's own stdout flushes (a person
 * watching); to a pipe or a file (a program that reads the whole answer) 200 ms, so that a call of up to that
 * long reaches its client in one write.
 */
const FRAMES_MS = { tty: 50, other: 200 } as const;
/**
 * The stdout bytes of a call after which the server asks for the client's descriptors (FRAME.pass) and writes
 * the rest itself: past two chunks, the client's reading and writing of every further chunk costs more than the
 * one bun:ffi load its side of the passing takes.
 */
const PASS_AFTER = 2 * FRAMES_CHUNK;
/** How long the server waits for the descriptors before it goes on with frames (a client slow to be scheduled). */
const PASS_WAIT_MS = 1000;

/**
 * Where a served call's output goes once the client passed its descriptors: written there by the server, the
 * client's stdout first (a reader gone away ends the run as a cold run's, BrokenPipe), stderr as the client's
 * own writes to it (a stderr gone away is ignored, the run goes on).
 */
function writeDirect(fds: readonly [number, number], fd: 1 | 2, bytes: Uint8Array): void {
  if (fd === 1) writeAll(fds[0], bytes);
  else
    try {
      writeAll(fds[1], bytes);
    } catch {}
}

/**
 * A served call's output frames, gathered so that an answer goes out in as few writes as it can: a small one and
 * its exit code in one write (the client then wakes once for it, not once per line the CLI flushed), a large one
 * in chunks of 64 KiB. A frame waits at most FRAMES_MS (a timer, and the age checked at each frame while the run
 * keeps the event loop), so a long run still streams. A write that fails (the client's stdout closed, EPIPE) is thrown
 * again at the next frame, which ends the run as a cold run's write would.
 */
class Frames {
  private parts: Uint8Array[] = [];
  private size = 0;
  private since = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failed: unknown = null;

  /**
   * @param fd the connection's descriptor
   * @param waitMs how long a frame may wait (FRAMES_MS)
   */
  constructor(
    private readonly fd: number,
    private readonly waitMs: number,
  ) {}

  /** Adds a frame (its body is copied: the CLI reuses its buffer). */
  add(type: number, body: Uint8Array): void {
    if (this.failed !== null) throw this.failed;
    const f = Buffer.allocUnsafe(5 + body.length);
    f[0] = type;
    f.writeUInt32BE(body.length, 1);
    f.set(body, 5);
    if (this.size === 0) this.since = performance.now();
    this.parts.push(f);
    this.size += f.length;
    if (this.size >= FRAMES_CHUNK || performance.now() - this.since >= this.waitMs) this.flush();
    else
      this.timer ??= setTimeout(() => {
        this.timer = null;
        try {
          this.flush();
        } catch (err) {
          this.failed = err;
        }
      }, this.waitMs);
  }

  /** Writes what is gathered, in one write. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.size === 0) return;
    const all =
      this.parts.length === 1 ? (this.parts[0] as Uint8Array) : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    writeAll(this.fd, all);
  }

  /** Drops what is gathered (the call ends without its output: the client is gone or runs it cold). */
  drop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.parts = [];
    this.size = 0;
  }
}

type PeerCred = (fd: number) => number | null;
let peerUidFn: PeerCred | null | undefined;

/** The user id of a connected Unix socket's peer (SO_PEERCRED through libc), or null when it cannot be read. */
function peerUid(fd: number): number | null {
  if (peerUidFn === undefined) {
    const libc = openLibc((T) => ({
      getsockopt: { args: [T.i32, T.i32, T.i32, T.ptr, T.ptr], returns: T.i32 },
    }));
    peerUidFn =
      libc === null
        ? null
        : (sfd) => {
            const cred = new Int32Array(3); // struct ucred: pid, uid, gid
            const len = new Uint32Array([12]);
            // SOL_SOCKET 1, SO_PEERCRED 17 (Linux)
            const rc = libc.lib.symbols.getsockopt(sfd, 1, 17, libc.ffi.ptr(cred), libc.ffi.ptr(len));
            return rc === 0 ? (cred[1] as number) : null;
          };
  }
  return peerUidFn === null ? null : peerUidFn(fd);
}

/** The operations the library serves (its collecting functions; src/agent/index.ts). */
const LIBRARY_OPS: ReadonlySet<string> = new Set([
  "find",
  "grep",
  "count",
  "dupes",
  "tree",
  "top",
  "stats",
  "explain",
]);

/**
 * The RGLOB_* settings a call must share with the server (some are read once, when a module loads). Not
 * RGLOB_DEBUG: read into each call's Config, and set to learn why a call was not served, it must not be the why.
 */
function settingsOf(env: Readonly<Record<string, string | undefined>>): string {
  return Object.keys(env)
    .filter((k) => k.startsWith("RGLOB_") && !k.startsWith("RGLOB_SERVE") && k !== "RGLOB_DEBUG")
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join("\n");
}

/**
 * Why a CLI call of another build is declined (said by its client with RGLOB_DEBUG): the versions when they
 * differ, else the binary (rebuilt or replaced since one of the two started).
 * @param build the client's build id (where.ts buildId: protocol|version|binary)
 */
function otherBuild(build: unknown): string {
  const theirs = typeof build === "string" ? build.split("|")[1] : undefined;
  if (theirs !== undefined && theirs !== VERSION_LINE)
    return `another build: the server is ${VERSION_LINE}, the client ${theirs}`;
  return `another build: the server's binary (${VERSION_LINE}) is not the client's file as it is now`;
}

/**
 * Turns at the process's state: a served call (CLI or library) makes the client's working directory and output
 * the process's (its environment is read into the call's Config and Host, passed in), so it runs alone (exclusive); `rglob mcp`'s tool calls change none of these and may
 * run together (shared), but not during a served call. Waiters are served in order, so a served call is not
 * starved by a stream of tool calls (which wait behind it).
 */
export class Turns {
  private shared = 0;
  private exclusive = false;
  private readonly waiting: Array<{ readonly exclusive: boolean; readonly go: () => void }> = [];

  /**
   * Waits for a turn.
   * @param exclusive a served call (alone), or a tool call (with others of its kind)
   * @returns the release (the first call counts)
   */
  async acquire(exclusive: boolean): Promise<() => void> {
    if (this.waiting.length > 0 || !this.grantable(exclusive))
      await new Promise<void>((go) => this.waiting.push({ exclusive, go }));
    else this.take(exclusive);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (exclusive) this.exclusive = false;
      else this.shared--;
      this.next();
    };
  }

  private grantable(exclusive: boolean): boolean {
    return exclusive ? !this.exclusive && this.shared === 0 : !this.exclusive;
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusive = true;
    else this.shared++;
  }

  private next(): void {
    for (let w = this.waiting[0]; w !== undefined && this.grantable(w.exclusive); w = this.waiting[0]) {
      this.waiting.shift();
      this.take(w.exclusive);
      w.go();
    }
  }
}

/** What a server answers with: its warm state and turns, its own (`rglob serve`) or its host's (`rglob mcp`). */
export interface ServerHost {
  readonly warm: WarmSet;
  readonly turns: Turns;
  readonly startedBy: "serve" | "mcp";
  /** Whether the warm state is the server's own: it keeps its root in it and closes it when it stops. */
  readonly owned: boolean;
  /** Called when the server has stopped (asked to, its socket taken, or idle). */
  readonly stopped?: (server: WarmServer, asked: boolean) => void;
}

/** A running warm server for one tree. */
export class WarmServer {
  readonly since = new Date().toISOString();
  private readonly warm: WarmSet;
  private readonly queue: Conn[] = [];
  private busy = false;
  private calls = 0;
  private last = Date.now();
  private stopped = false;
  private asked = false;
  private listener: { stop(closeActive?: boolean): void } | null = null;
  private socketIno = 0;
  private idleTimer: ReturnType<typeof setInterval> | null = null;
  private readonly settings: string;
  private readonly build = buildId(VERSION_LINE);
  private readonly home = process.cwd();
  private resolveDone: () => void = () => {};
  /** Settles when the server has stopped. */
  readonly done = new Promise<void>((r) => {
    this.resolveDone = r;
  });

  private constructor(
    readonly root: string,
    readonly socket: string,
    private readonly idleSeconds: number | null,
    private readonly host: ServerHost,
    started: Readonly<Record<string, string>>,
  ) {
    this.warm = host.warm;
    this.settings = settingsOf(started);
  }

  /**
   * Starts a server for a tree: its socket in the user's socket directory (made 0700 when missing, refused when
   * another user owns it or others can reach it), a stale socket file of a server gone replaced.
   * @param root the tree's real path
   * @param idleSeconds exit after this long without a call (null: never)
   * @param started the Config and the environment the server was started with (its entry read them): where
   *   its socket goes, its own warm state's switches, and the RGLOB_* settings a call must share
   * @param host the warm state and turns to answer with (default: its own, for `rglob serve`)
   * @throws RglobError when another server keeps the tree, or the socket cannot be made safely
   */
  static async start(
    root: string,
    idleSeconds: number | null,
    started: { readonly config: Config; readonly env: Readonly<Record<string, string>> },
    host?: ServerHost,
  ): Promise<WarmServer> {
    if (process.platform !== "linux" || !openLibcOk())
      throw new RglobError(
        "UNSUPPORTED_PLATFORM",
        "rglob serve runs on Linux only (it checks its peers with SO_PEERCRED)",
      );
    const dir = started.config.socketDir;
    try {
      makePrivateDir(dir);
    } catch (err) {
      throw new RglobError("PERM", `cannot make the socket directory: ${(err as Error).message}`, {
        path: dir,
      });
    }
    const problem = privateDirProblem(dir);
    if (problem !== null)
      throw new RglobError("PERM", `the socket directory is not private: ${problem}`, { path: dir });
    const socket = `${dir}/${socketName(root)}.sock`;
    if (Buffer.byteLength(socket) > SOCKET_PATH_MAX)
      throw new RglobError(
        "BAD_PREDICATE",
        `the socket path is longer than ${SOCKET_PATH_MAX} bytes: set XDG_RUNTIME_DIR or RGLOB_CACHE_DIR to a shorter directory`,
        { path: socket },
      );
    if (pathExists(socket)) {
      const running = await ask(socket, "status");
      if (running !== null)
        throw new RglobError(
          "BAD_PREDICATE",
          `a server already keeps ${root} warm (pid ${running.pid}); 'rglob serve --stop --base ${root}' stops it`,
          { path: root },
        );
      // Nobody listens: a server that died. Only this user's socket file is removed.
      if (!ownSocket(socket))
        throw new RglobError("PERM", "a file that is not this user's socket holds the socket's name", {
          path: socket,
        });
      removeIfThere(socket);
    }
    // Its own warm state rehearses queries once its index answers as it will from then on, as `rglob mcp` does
    // (rehearse.ts): through the CLI it runs for its clients.
    let rehearsed: WarmServer | null = null;
    const onTrusted = async () => {
      if (rehearsed !== null)
        await rehearseWarm((pattern, page) => (rehearsed as WarmServer).rehearse(pattern, page, started));
    };
    const server = new WarmServer(
      root,
      socket,
      idleSeconds,
      host ?? {
        warm: new WarmSet({ ...warmOptions(started.config), onTrusted }),
        turns: new Turns(),
        startedBy: "serve",
        owned: true,
      },
      started.env,
    );
    rehearsed = server;
    server.listen();
    return server;
  }

  private listen(): void {
    this.listener = Bun.listen<Conn>({
      unix: this.socket,
      socket: {
        open: (s) => {
          const sock = s as unknown as BunSocket;
          const fd = sock.fd ?? -1;
          // Only this user's processes are answered: the peer's credentials, as the kernel gives them.
          if (fd < 0 || peerUid(fd) !== uid()) {
            s.end();
            return;
          }
          s.data = { sock, fd, buf: "", closed: false, cancel: null };
        },
        data: (s, data) => {
          const conn = s.data as Conn | undefined;
          if (conn !== undefined) this.received(conn, data);
        },
        close: (s) => this.gone(s.data as Conn | undefined),
        error: (s) => this.gone(s.data as Conn | undefined),
      },
    });
    setMode(this.socket, 0o600);
    this.socketIno = statPath(this.socket).ino;
    if (this.host.owned) this.warm.ensure([this.root]);
    // Every few seconds: the idle exit, and the socket still its own. A server whose socket file was removed or
    // taken by another (git's fsmonitor calls it stolen) can be reached by no client, nor listed: it exits.
    const every = Math.max(50, Math.min(5_000, ((this.idleSeconds ?? 20) * 1000) / 4));
    this.idleTimer = setInterval(() => {
      let ours = false;
      try {
        ours = lstatPath(this.socket).ino === this.socketIno;
      } catch {}
      const idle =
        this.idleSeconds !== null &&
        !this.busy &&
        this.queue.length === 0 &&
        Date.now() - this.last >= this.idleSeconds * 1000;
      if (!ours || idle) this.stop();
    }, every);
    this.idleTimer.unref?.();
  }

  /**
   * Runs one rehearsal (rehearse.ts): `rglob grep PATTERN` in the root, as a call is run (its turn taken, the
   * background work held, the watch's changes taken in), its output dropped.
   * @param pattern the literal
   * @param page whether it is a first page (`--limit 100`, an MCP call's default)
   * @param started the server's own Config and environment
   * @throws when the server has stopped (the rehearsal ends)
   */
  async rehearse(
    pattern: string,
    page: boolean,
    started: { readonly config: Config; readonly env: Readonly<Record<string, string>> },
  ): Promise<void> {
    if (this.stopped) throw new Error("stopped");
    const release = await this.host.turns.acquire(true);
    const held = this.warm.hold();
    try {
      if (this.stopped) throw new Error("stopped");
      process.chdir(this.root);
      if (!this.warm.settle()) await new Promise((r) => setImmediate(r));
      routeOutput(() => {}, [false, false]);
      const served = { warm: this.warm, stdin: "other", covers: () => true, cancelled: () => {} } as const;
      const argv = page ? ["grep", "--limit", "100", pattern] : ["grep", pattern];
      await cliRunner()(argv, served, started.config, readHost(started.env));
    } finally {
      routeOutput(null, null);
      held();
      release();
      try {
        process.chdir(this.home);
      } catch {}
    }
  }

  private gone(conn: Conn | undefined): void {
    if (conn === undefined || conn.closed) return;
    conn.closed = true;
    conn.cancel?.("SIGTERM");
  }

  private received(conn: Conn, data: Uint8Array): void {
    conn.buf += Buffer.from(data).toString("utf8");
    let nl = conn.buf.indexOf("\n");
    while (nl >= 0) {
      const line = conn.buf.slice(0, nl);
      conn.buf = conn.buf.slice(nl + 1);
      let req: Request;
      try {
        req = JSON.parse(line) as Request;
      } catch {
        conn.sock?.end();
        return;
      }
      this.request(conn, req);
      nl = conn.buf.indexOf("\n");
    }
  }

  private request(conn: Conn, req: Request): void {
    switch (req.type) {
      case "status":
        this.reply(conn, this.info());
        return;
      case "stop":
        this.reply(conn, { ...this.info(), state: "stopped" });
        this.stop(true);
        return;
      case "cancel":
        conn.cancel?.(req.signal === "SIGINT" ? "SIGINT" : "SIGTERM");
        return;
      case "fds":
        // The descriptors came after takeOutputs stopped waiting: the kernel dropped them, the frames go on.
        return;
      case "lib":
        // The library's identity is its version and build commit (a build from source has none: never served).
        if (req.v !== PROTOCOL || BUILD_COMMIT === null || req.lib !== VERSION_LINE || this.stopped) {
          this.decline(
            conn,
            this.stopped
              ? "it is stopping"
              : `another build: the server is ${VERSION_LINE}, the library ${String(req.lib)}`,
          );
          return;
        }
        this.queue.push(Object.assign(conn, { request: req }));
        this.pump();
        return;
      case "call":
        // Another protocol or build must not answer: the client runs cold.
        if (req.v !== PROTOCOL || req.build !== this.build || this.stopped) {
          this.decline(conn, this.stopped ? "it is stopping" : otherBuild(req.build));
          return;
        }
        this.queue.push(Object.assign(conn, { request: req }));
        this.pump();
        return;
      default:
        conn.sock?.end();
    }
  }

  private reply(conn: Conn, value: object): void {
    try {
      frame(conn.fd, FRAME.json, JSON.stringify(value));
    } catch {}
    conn.sock?.end();
  }

  /**
   * Declines a call: its client runs it in its own process.
   * @param why what a client says with RGLOB_DEBUG set (the library: src/agent/served.ts), or nothing
   */
  private decline(conn: Conn, why = ""): void {
    try {
      frame(conn.fd, FRAME.declined, why);
    } catch {}
    conn.sock?.end();
  }

  private pump(): void {
    if (this.busy) return;
    const conn = this.queue.shift();
    if (conn === undefined) return;
    if (conn.closed) {
      this.pump();
      return;
    }
    this.busy = true;
    const req = (conn as Conn & { request: Request }).request;
    let release: () => void = () => {};
    void this.host.turns
      .acquire(true)
      .then((r) => {
        release = r;
        // A client that gave up waiting (it runs cold) is not answered.
        if (conn.closed || this.stopped) return this.decline(conn, "it is stopping");
        return req.type === "lib" ? this.answerLib(conn, req) : this.answer(conn, req);
      })
      .finally(() => {
        release();
        this.busy = false;
        this.last = Date.now();
        conn.sock?.end();
        if (this.stopped) this.finish();
        else setImmediate(() => this.pump());
      });
  }

  /**
   * Asks the client of a call with a large answer for its stdout and stderr (FRAME.pass, after the frames
   * gathered so far: the client writes those first) and waits for them, reading the socket itself so that the
   * descriptors are not dropped by a plain read.
   * @param conn the call's connection
   * @param frames its frames
   * @returns the two descriptors, or null: the call goes on with frames (no descriptors in time, or no FFI)
   */
  private takeOutputs(conn: Conn, frames: Frames): readonly [number, number] | null {
    frames.flush();
    frame(conn.fd, FRAME.pass);
    const got = receiveWithDescriptors(conn.fd, PASS_WAIT_MS);
    if (got === null) return null;
    // What came with them (a cancel line) is read as any request is.
    this.received(conn, got.bytes);
    const [out, err] = got.fds;
    if (got.fds.length === 2 && out !== undefined && err !== undefined) return [out, err];
    for (const fd of got.fds)
      try {
        closeDescriptor(fd);
      } catch {}
    return null;
  }

  /**
   * Takes a call (CLI or library) into the client's directory when its environment's RGLOB_* settings are the
   * server's (some are read once, so a call with others is the cold path's); declines it otherwise.
   * @param conn the call's connection
   * @param req its request
   * @returns the call's environment, or null when the call was declined
   */
  private enter(conn: Conn, req: Request): Record<string, string> | null {
    const env = typeof req.env === "object" && req.env !== null ? (req.env as Record<string, string>) : null;
    const cwd = typeof req.cwd === "string" ? req.cwd : null;
    if (env === null || cwd === null || settingsOf(env) !== this.settings) {
      this.decline(conn, "other RGLOB_* settings than the server's");
      return null;
    }
    try {
      process.chdir(cwd);
    } catch {
      this.decline(conn, "the server cannot enter the working directory");
      return null;
    }
    return env;
  }

  /** Answers one call: the CLI run with the client's directory, environment and terminals. */
  private async answer(conn: Conn, req: Request): Promise<void> {
    const argv =
      Array.isArray(req.argv) && req.argv.every((a) => typeof a === "string") ? (req.argv as string[]) : null;
    const ttys = Array.isArray(req.tty)
      ? ([req.tty[0] === true, req.tty[1] === true] as const)
      : ([false, false] as const);
    if (argv === null) {
      this.decline(conn, "a malformed request");
      return;
    }
    const env = this.enter(conn, req);
    if (env === null) return;
    const runCli = cliRunner();
    // The call's switches and host, read from the environment its client sent (this process's is not touched).
    const config = readConfig(env);
    const host = readHost(env);
    const release = this.warm.hold();
    let out = false;
    const frames = new Frames(conn.fd, ttys[0] ? FRAMES_MS.tty : FRAMES_MS.other);
    // The client's stdout and stderr, once it passed them (a large answer), else null: frames.
    let direct: readonly [number, number] | null = null;
    let framed = 0;
    routeOutput((fd, bytes) => {
      out = true;
      if (direct !== null) {
        writeDirect(direct, fd, bytes);
        return;
      }
      frames.add(fd === 1 ? FRAME.stdout : FRAME.stderr, bytes);
      if (fd !== 1 || framed >= PASS_AFTER) return;
      framed += bytes.length;
      if (framed >= PASS_AFTER) direct = this.takeOutputs(conn, frames);
    }, ttys);
    let end: { type: number; body: string } | null = null;
    try {
      frame(conn.fd, FRAME.accepted);
      if (!this.warm.settle()) await new Promise((r) => setImmediate(r));
      const code = await runCli(
        argv,
        {
          warm: this.warm,
          stdin: req.stdin === "fifo" || req.stdin === "file" ? req.stdin : "other",
          covers: (op, input) => this.covers(op, input),
          cancelled: (stop) => {
            conn.cancel = stop;
          },
        },
        config,
        host,
      );
      end = { type: FRAME.exit, body: String(code) };
    } catch (err) {
      const name = (err as { name?: string } | null)?.name;
      if (err instanceof NotServed || name === "NotServed")
        end = out
          ? { type: FRAME.exit, body: "2" }
          : { type: FRAME.declined, body: (err as Error).message || "declined" };
      else if (name === "Interrupted")
        end = { type: FRAME.signal, body: String((err as { signal?: unknown }).signal) };
      else if (name === "BrokenPipe" || (err as { code?: string } | null)?.code === "EPIPE")
        // The client's stdout closed: written by the server, the client hears it here and exits 0 as a cold
        // run does; through frames, the client saw it first.
        end = direct !== null ? { type: FRAME.exit, body: "0" } : null;
      else {
        const detail = config.debug && err instanceof Error ? err.stack : String(err);
        try {
          frames.add(FRAME.stderr, Buffer.from(`rglob: internal error: ${detail}\n`));
        } catch {}
        end = { type: FRAME.exit, body: "2" };
      }
    } finally {
      routeOutput(null, null);
      // The client's descriptors are closed before its exit code goes out: its reader sees the end as it exits.
      for (const fd of direct ?? [])
        try {
          closeDescriptor(fd);
        } catch {}
      conn.cancel = null;
      release();
      try {
        process.chdir(this.home);
      } catch {}
    }
    if (end === null || end.type !== FRAME.declined) this.calls++;
    // The end goes out with the output still gathered: a small answer is one write.
    if (end === null || end.type === FRAME.declined) frames.drop();
    if (end !== null)
      try {
        frames.add(end.type, Buffer.from(end.body));
        frames.flush();
      } catch {
        frames.drop();
      }
  }

  /**
   * Answers one library call (`rglob/agent`'s collecting functions, src/agent/served.ts): the operation run by
   * the agent core with the client's directory and environment and the warm state, its whole result (or the
   * request's failure) sent back as one JSON frame. A call whose trees are not all this server's, or whose input
   * does not validate into one it covers, is declined before anything runs: the library then runs it itself.
   */
  private async answerLib(conn: Conn, req: Request): Promise<void> {
    const input =
      typeof req.input === "object" && req.input !== null && !Array.isArray(req.input)
        ? (req.input as Record<string, unknown>)
        : null;
    const op = typeof req.op === "string" && LIBRARY_OPS.has(req.op) ? req.op : null;
    if (op === null || input === null) {
      this.decline(conn, "a malformed request");
      return;
    }
    const env = this.enter(conn, req);
    if (env === null) return;
    const config = readConfig(env);
    const release = this.warm.hold();
    const abort = new AbortController();
    conn.cancel = () => abort.abort();
    try {
      if (!this.covers(null, input)) {
        this.decline(conn, "a path outside the server's tree");
        return;
      }
      frame(conn.fd, FRAME.accepted);
      if (!this.warm.settle()) await new Promise((r) => setImmediate(r));
      let answer: object;
      try {
        answer = await libraryRunner()(op, input, { warm: this.warm, signal: abort.signal, config });
      } catch (err) {
        const message = `internal error: ${err instanceof Error ? err.message : String(err)}`;
        answer = { ok: false, error: { code: "UNREADABLE", message, path: null } };
      }
      this.calls++;
      try {
        frame(conn.fd, FRAME.json, JSON.stringify(answer));
      } catch {}
    } finally {
      conn.cancel = null;
      release();
      try {
        process.chdir(this.home);
      } catch {}
    }
  }

  /**
   * Says whether this server keeps every tree a request reads: its base (the working directory by default) and
   * every path operand that exists inside the server's root. A tree outside it is not watched, so its answer is
   * the cold path's.
   */
  private covers(_op: Operation | null, input: Record<string, unknown>): boolean {
    const inside = (p: string): boolean => {
      let real: string;
      try {
        real = realPath(p);
      } catch {
        return false;
      }
      return real === this.root || real.startsWith(this.root === "/" ? "/" : `${this.root}/`);
    };
    if (!inside(typeof input.base === "string" ? input.base : ".")) return false;
    const named: unknown[] = [input.path, input.paths, input.targets, input.operands].flat();
    for (const p of named) {
      if (typeof p !== "string" || p === "") continue;
      let exists = false;
      try {
        lstatPath(p);
        exists = true;
      } catch {}
      if (exists && !inside(p)) return false;
    }
    return true;
  }

  /** The server as reported. */
  info(): ServerInfo {
    const status = this.warm.status().find((s) => s.root === this.root);
    const state = this.stopped
      ? "stopped"
      : status === undefined || (!status.watching && status.state === "building")
        ? "starting"
        : status.state;
    return {
      root: this.root,
      pid: process.pid,
      socket: this.socket,
      since: this.since,
      state,
      calls: this.calls,
      idle_seconds: this.idleSeconds,
      started_by: this.host.startedBy,
    };
  }

  /**
   * Stops taking calls, ends after the call being answered, removes its socket file.
   * @param asked whether a user asked (`rglob serve --stop`): `rglob mcp` then does not listen there again
   */
  stop(asked = false): void {
    if (this.stopped) return;
    this.stopped = true;
    this.asked = asked;
    try {
      this.listener?.stop(false);
    } catch {}
    // Its own socket only: a new server may have taken the name since (it made a new inode).
    try {
      if (statPath(this.socket).ino === this.socketIno) removeIfThere(this.socket);
    } catch {}
    for (const c of this.queue.splice(0)) this.decline(c);
    if (!this.busy) this.finish();
  }

  private finish(): void {
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    if (this.host.owned) this.warm.close();
    this.host.stopped?.(this, this.asked);
    this.resolveDone();
  }
}

/** Whether libc can be opened for SO_PEERCRED. */
function openLibcOk(): boolean {
  peerUid(-1);
  return peerUidFn !== null;
}

/**
 * Asks a server for its status, or to stop.
 * @param socket the socket's path
 * @param type what to ask
 * @param timeoutMs how long to wait for the answer
 * @returns its answer, or null when nobody answered (a stale socket file)
 */
export function ask(socket: string, type: "status" | "stop", timeoutMs = 2000): Promise<ServerInfo | null> {
  if (!ownSocket(socket)) return Promise.resolve(null);
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (v: ServerInfo | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    Bun.connect({
      unix: socket,
      socket: {
        open: (s) => void s.write(`${JSON.stringify({ type })}\n`),
        data: (_s, d) => {
          buf = Buffer.concat([buf, d]);
          if (buf.length >= 5 && buf[0] === FRAME.json) {
            const len = buf.readUInt32BE(1);
            if (buf.length >= 5 + len) {
              try {
                finish(JSON.parse(buf.subarray(5, 5 + len).toString("utf8")) as ServerInfo);
              } catch {
                finish(null);
              }
            }
          }
        },
        close: () => finish(null),
        error: () => finish(null),
        connectError: () => finish(null),
      },
    }).catch(() => finish(null));
  });
}

/**
 * Every running server of this user, with its status (stale socket files are left out).
 * @param dir where the sockets are (the Config's socketDir; absent: none is looked for)
 * @returns their status, by root
 */
export async function runningServers(dir: string | undefined): Promise<ServerInfo[]> {
  if (dir === undefined) return [];
  if (privateDirProblem(dir) !== null) return [];
  let names: string[];
  try {
    names = listNames(dir).filter((n) => n.endsWith(".sock"));
  } catch {
    return [];
  }
  const all = await Promise.all(names.map((n) => ask(`${dir}/${n}`, "status", 1000)));
  return all
    .filter((s): s is ServerInfo => s !== null)
    .sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
}

/**
 * The socket of the server that keeps a directory warm: its own or the innermost above it, if one answers.
 * @param dir a real path
 * @param sockets where the sockets are (the Config's socketDir)
 * @returns the server's status, or null
 */
export async function serverFor(dir: string, sockets: string): Promise<ServerInfo | null> {
  if (privateDirProblem(sockets) !== null) return null;
  for (const [, sock] of socketsFor(dir, sockets)) {
    const info = await ask(sock, "status", 1000);
    if (info !== null) return info;
  }
  return null;
}
