/*! Process entry: argv → the CLI (or the MCP server via `rglob mcp`). The only place that exits. A closed
 * stdout ends quietly with 0; a run stopped by SIGINT or SIGTERM ends by that signal (as rg and fd: a shell
 * sees 130 or 143); any other unexpected error prints one line (no stack trace unless RGLOB_DEBUG is set) and
 * exits 2. `--version` answers before anything heavy is imported, and so does a call a running warm server takes
 * (`rglob serve`: src/surface/serve/client.ts; RGLOB_SERVE=0 runs every call in this process). */
import { readConfig, readHost, takeLauncherPid } from "./config.ts";
import { watchLauncher } from "./platform/launcher-watch.ts";
import { setRoutes } from "./platform/routes.ts";

const argv = process.argv.slice(2);
// The npm launcher's handshake leaves the environment first: no process started, and no served call's
// environment, carries it.
const launcherPid = takeLauncherPid();
/** The environment's switches, read once (src/config.ts), and what it says of the terminal and the host. */
const config = readConfig();
const host = readHost();
// The routes to the kernel this process and the workers it starts take (src/platform/routes.ts).
setRoutes(config);

/** The commands a warm server may answer: those that read a tree (not index, serve, mcp, help, describe…). */
const SERVED: ReadonlySet<string> = new Set([
  "find",
  "grep",
  "count",
  "dupes",
  "tree",
  "top",
  "stats",
  "explain",
  "lcount",
  "tsize",
]);
// Started by the npm launcher: end when it is killed (src/platform/launcher-watch.ts).
watchLauncher(launcherPid);

async function main(): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    const { VERSION_LINE } = await import("./contract/versions.ts");
    console.log(VERSION_LINE); // the cheapest write there is: no fs module, no stream object
    return 0;
  }
  if (SERVED.has(argv[0] as string) && config.serve) {
    const end = await (await import("./surface/serve/client.ts")).served(argv, {
      socketDir: config.socketDir,
      waitMs: config.serveWaitMs,
      env: host.env,
      debug: config.debug,
    });
    if (typeof end === "number") return end;
    if (end !== null)
      throw Object.assign(new Error("interrupted"), { name: "Interrupted", signal: end.signal });
  }
  const { runCli } = await import("./surface/cli/app.ts");
  const { losslessArgv } = await import("./platform/names.ts");
  return runCli(losslessArgv(argv), undefined, config, host);
}

function isBrokenPipe(err: unknown): boolean {
  return (
    (err as { name?: string } | null)?.name === "BrokenPipe" ||
    (err as { code?: string } | null)?.code === "EPIPE"
  );
}

/** The signal that stopped a run (surface/cli/app.ts Interrupted), or null. */
function interruptOf(err: unknown): "SIGINT" | "SIGTERM" | null {
  if ((err as { name?: string } | null)?.name !== "Interrupted") return null;
  const signal = (err as { signal?: unknown }).signal;
  return signal === "SIGINT" || signal === "SIGTERM" ? signal : null;
}

/**
 * Ends the process by a signal, as a program without a handler for it ends: its handlers are gone (the CLI's
 * are removed once the run stopped), so raising it again takes the default action. Where that does not end the
 * process (a platform without such signals), it exits with the shell's number for it, 128 + the signal's.
 */
function dieBy(signal: "SIGINT" | "SIGTERM"): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(signal === "SIGINT" ? 130 : 143), 1000);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const signal = interruptOf(err);
    if (signal !== null) return dieBy(signal);
    if (isBrokenPipe(err)) process.exit(0);
    const detail = config.debug && err instanceof Error ? err.stack : String(err);
    process.stderr.write(`rglob: internal error: ${detail}\n`);
    process.exit(2);
  },
);
