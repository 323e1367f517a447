/*! The serve tests' sandbox: a temporary directory with its own cache directory (and so its own servers'
 * sockets) and a project folder, the compiled binary run there, and the servers `rglob index --status` lists.
 * Not a test file (no `.test.ts`). */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../helpers.ts";

/** What a run of the binary printed. */
export interface Out {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** A server as `rglob index --status --json` lists it. */
export type Info = Record<string, unknown>;

/**
 * Creates a sandbox under the system's temporary directory.
 * @param prefix the temporary directory's name prefix
 * @returns its directories, the environment that points the binary at its cache, and the two helpers
 */
export function serveSandbox(prefix: string) {
  const outer = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const cache = join(outer, "cache");
  const root = join(outer, "proj");
  const env = { RGLOB_CACHE_DIR: cache };
  /** Runs the binary in cwd with the sandbox's cache directory (and so its servers). */
  const run = (args: readonly string[], cwd = root, extra: Record<string, string> = {}): Out => {
    const res = Bun.spawnSync([BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "", ...env, ...extra },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: res.exitCode ?? -1, stdout: res.stdout, stderr: res.stderr.toString() };
  };
  /** The running servers `rglob index --status` lists. */
  const servers = (): Info[] => {
    const out = run(["index", "--status", "--json"]);
    const r = (JSON.parse(out.stdout.toString()) as { results: Array<{ servers: Info[] }> }).results[0];
    return r?.servers ?? [];
  };
  return { outer, cache, root, env, run, servers };
}
