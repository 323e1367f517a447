/*! serve: starts a warm server for a tree (in the foreground, or detached), or stops one, and yields its record.
 * The server is src/surface/serve/server.ts. */
import * as path from "node:path";
import { readConfig, readHost } from "../../config.ts";
import { RglobError } from "../../contract/errors.ts";
import type { RunContext } from "../../engine/run.ts";
import { pathExists, realPath, statPath } from "../../platform/files.ts";
import { startDetachedSelf } from "../../platform/processes.ts";
import { onBun, sleep } from "../../platform/runtime.ts";
import type { Emitted } from "../operation.ts";
import type { ServeInput, ServerInfo } from "./schema.ts";

/** How long --detach waits for the new server to answer. */
const START_MS = 10_000;

/** A detached server's idle exit unless --idle-seconds says otherwise. */
const DETACHED_IDLE_SECONDS = 1800;

/**
 * Runs serve.
 * @param input validated serve input
 * @param ctx the run context
 * @yields the server's "server" record
 */
export async function* runServe(input: ServeInput, ctx: RunContext): AsyncGenerator<Emitted> {
  if (input.stop && input.detach) throw new RglobError("BAD_PREDICATE", "stop and detach exclude each other");
  if (ctx.shouldStop()) return;
  if (!onBun || process.platform !== "linux")
    throw new RglobError("UNSUPPORTED_PLATFORM", "rglob serve runs on Linux, in the rglob binary");
  const server = await import("../../surface/serve/server.ts");
  // `rglob serve` is a server's entry: it reads the environment once, at its start (its socket's directory, its
  // warm state's switches, and the RGLOB_* settings a call must share to be answered).
  const started = { config: readConfig(), env: readHost().env };
  const record = (r: ServerInfo): Emitted => ({ kind: "server", record: r, key: r.root });
  let root: string;
  try {
    root = realPath(path.resolve(input.base));
    if (!statPath(root).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new RglobError("NOT_FOUND", "no such directory", { path: input.base });
  }
  if (input.stop) {
    const running = await server.serverFor(root, started.config.socketDir);
    if (running === null) return;
    const stopped = await server.ask(running.socket, "stop");
    if (stopped === null) return;
    // It ends after the call it is answering; its socket file goes with it.
    for (let i = 0; i < 100 && pathExists(running.socket); i++) await sleep(50);
    yield record(stopped);
    return;
  }
  if (input.detach) {
    const running = await server.serverFor(root, started.config.socketDir);
    if (running !== null && running.root === root) {
      yield record(running);
      return;
    }
    const idle = input.idle_seconds ?? DETACHED_IDLE_SECONDS;
    let exited = false;
    startDetachedSelf(["serve", "--base", root, "--idle-seconds", String(idle)], root, () => {
      exited = true;
    });
    for (const until = Date.now() + START_MS; Date.now() < until && !exited && !ctx.shouldStop(); ) {
      const info = await server.serverFor(root, started.config.socketDir);
      if (info !== null && info.root === root) {
        yield record(info);
        return;
      }
      await sleep(25);
    }
    throw new RglobError(
      "BAD_PREDICATE",
      exited
        ? "the server exited at once: run 'rglob serve' in the foreground to see why"
        : "the server did not answer in time",
      { path: root },
    );
  }
  const warm = await server.WarmServer.start(root, input.idle_seconds ?? null, started);
  yield record(warm.info());
  const stop = () => warm.stop();
  ctx.signal.addEventListener("abort", stop, { once: true });
  try {
    await warm.done;
  } finally {
    ctx.signal.removeEventListener("abort", stop);
  }
}
