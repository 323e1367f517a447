/*! Warm server: what the CLI (surface/cli/app.ts) and the server (server.ts) share about a served call, without
 * either importing the other: the call's seam, the decline, and the CLI's entry, which app.ts hands over here
 * when it loads. */
import type { Config, Host } from "../../config.ts";
import type { WarmProvider } from "../../engine/index/provider.ts";
import type { Operation } from "../../ops/operation.ts";

/**
 * A call answered by a running warm server rather than by a process of its own: the server's warm state, the
 * client's standard input, and how the client stops it. The server has made the client's working directory and
 * terminals this process's for the call, and passes the Config and Host read from the client's environment.
 */
export interface ServedCall {
  readonly warm: WarmProvider;
  /** The client's stdin: grep would read a pipe or a file, which only the client can. */
  readonly stdin: "fifo" | "file" | "other";
  /** Says whether the server keeps every tree the request reads (checked before the run). */
  readonly covers: (op: Operation, input: Record<string, unknown>) => boolean;
  /** Hands over the function that stops the run, for the client's SIGINT or SIGTERM. */
  readonly cancelled: (stop: (signal: "SIGINT" | "SIGTERM") => void) => void;
}

/**
 * Thrown before any output when a served call is the cold path's (the client then runs it itself); its message is
 * why, which the client says with RGLOB_DEBUG set (src/surface/serve/where.ts notServedNote).
 */
export class NotServed extends Error {
  override readonly name = "NotServed";
}

/** The CLI's entry (runCli), set when surface/cli/app.ts loads. */
type CliRunner = (argv: string[], served: ServedCall, config: Config, host: Host) => Promise<number>;

/**
 * The library's entry for a served library call: the agent core's collect of an operation by id, whose outcome
 * (`{ok, result}` or `{ok: false, error}`) is sent back whole (src/agent/served.ts is the client).
 */
type LibRunner = (
  opId: string,
  input: Record<string, unknown>,
  control: { readonly warm: WarmProvider; readonly signal: AbortSignal; readonly config: Config },
) => Promise<object>;

let runner: CliRunner | null = null;
let libRunner: LibRunner | null = null;

/** Hands over the CLI's entry and the library's (app.ts, at load). */
export function setCliRunner(run: CliRunner, lib: LibRunner): void {
  runner = run;
  libRunner = lib;
}

/** The library's entry; set with the CLI's. */
export function libraryRunner(): LibRunner {
  if (libRunner === null) throw new Error("the CLI is not loaded");
  return libRunner;
}

/** The CLI's entry; the server runs inside a CLI run (`rglob serve`), so it is set. */
export function cliRunner(): CliRunner {
  if (runner === null) throw new Error("the CLI is not loaded");
  return runner;
}
