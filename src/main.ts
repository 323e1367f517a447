/*! Process entry: argv → the CLI (or the MCP server via `rglob mcp`). The only place that exits. A closed
 * stdout ends quietly with 0; any other unexpected error prints one line (no stack trace unless
 * RGLOB_DEBUG is set) and exits 2. `--version` answers before anything heavy is imported. */
import { watchLauncher } from "./platform/launcher-watch.ts";

const argv = process.argv.slice(2);
watchLauncher(); // started by the npm launcher: end when it is killed (src/platform/launcher-watch.ts)

async function main(): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    const { VERSION_LINE } = await import("./contract/versions.ts");
    console.log(VERSION_LINE); // the cheapest write there is: no fs module, no stream object
    return 0;
  }
  const { runCli } = await import("./surface/cli/app.ts");
  const { losslessArgv } = await import("./platform/names.ts");
  return runCli(losslessArgv(argv));
}

function isBrokenPipe(err: unknown): boolean {
  return (
    (err as { name?: string } | null)?.name === "BrokenPipe" ||
    (err as { code?: string } | null)?.code === "EPIPE"
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (isBrokenPipe(err)) process.exit(0);
    const detail = process.env.RGLOB_DEBUG && err instanceof Error ? err.stack : String(err);
    process.stderr.write(`rglob: internal error: ${detail}\n`);
    process.exit(2);
  },
);
