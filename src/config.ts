/*! The environment switches (RGLOB_*), read in one place into a Config that an entry (src/main.ts, the MCP server,
 * `rglob serve`) reads once and passes in. Each switch, what it does and who it is for: docs/architecture.md
 * (Environment switches) and the man page's ENVIRONMENT (src/surface/cli/shell.ts). Reading another process's
 * environment (a served call's) goes through the same function. */
import * as os from "node:os";
import * as path from "node:path";

/** The switches, parsed, with their defaults. */
export interface Config {
  /** RGLOB_CACHE_DIR: where `rglob index` writes, resolved by the reader (null: the platform's cache directory). */
  readonly cacheDir: string | null;
  /**
   * Where persisted indexes are kept: RGLOB_CACHE_DIR's `index`, else the platform's cache directory's
   * (`$XDG_CACHE_HOME/rglob/index` or `~/.cache/rglob/index`, `~/Library/Caches/rglob/index` on macOS,
   * `%LOCALAPPDATA%\rglob\index` on Windows); absolute.
   */
  readonly indexDir: string;
  /** RGLOB_INDEX=0 makes grep ignore the persisted index and the warm server neither load nor write one. */
  readonly index: boolean;
  /** RGLOB_WARM=0: `rglob mcp` keeps no warm state. */
  readonly warm: boolean;
  /** RGLOB_WATCH=0: the warm server does not watch (per-query checks only). */
  readonly watch: boolean;
  /** RGLOB_INDEX_BUDGET_MB: the warm index's cap in MiB (default 1024). */
  readonly indexBudgetMb: number;
  /** RGLOB_WARM_CHECK=stat: the warm server stats every file the index rules out at each query. */
  readonly statEveryFile: boolean;
  /** RGLOB_PERSIST_MIN_FILES: the fewest files a warm server's index has for it to go to the cache (null: default). */
  readonly persistMinFiles: number | null;
  /** RGLOB_SERVE=0: CLI calls are never answered by a running `rglob serve`. */
  readonly serve: boolean;
  /** RGLOB_SERVE_WAIT_MS: how long a call waits for a server to take it (null: default). */
  readonly serveWaitMs: number | null;
  /** RGLOB_DEBUG: the stack of an internal error is printed. */
  readonly debug: boolean;
  /** RGLOB_TEST_WATCH_GATE (tests, through the binary): the warm server's watch waits for this path (null: none). */
  readonly watchGate: string | null;
  /** RGLOB_TEST_WATCH_LIMIT (tests, through the binary): the watch fails after this many directories (null: none). */
  readonly watchLimit: number | null;
  /**
   * RGLOB_WALK_SPLIT (tests, through the binary): walk workers on every walk that outgrows this many entries, or
   * none (0); null: the walk decides.
   */
  readonly walkSplit: number | null;
  /** RGLOB_DIR_FD=0 (tests, through the binary): directories listed and stat'ed by path, the reference route. */
  readonly dirFd: boolean;
  /** RGLOB_TREE_WATCH=0 (tests, through the binary): the warm server watches with Bun's fs.watch. */
  readonly treeWatch: boolean;
  /** RGLOB_STAT_SPLIT=worker (tests, through the binary): every stat check of the persisted index in the worker. */
  readonly statsInWorker: boolean;
}

/** A process environment (process.env, or the one a served call was made with). */
type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads a number switch.
 * @param raw the variable's text
 * @returns the number, or null when unset or not a finite number
 */
function numberOf(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

/**
 * Reads the switches from an environment.
 * @param env the environment (default: this process's)
 * @returns the config
 */
export function readConfig(env: Env = process.env): Config {
  const budget = numberOf(env.RGLOB_INDEX_BUDGET_MB ?? "1024");
  return {
    cacheDir: env.RGLOB_CACHE_DIR ? env.RGLOB_CACHE_DIR : null,
    indexDir: path.join(cacheDirOf(env), "index"),
    index: env.RGLOB_INDEX !== "0",
    warm: env.RGLOB_WARM !== "0",
    watch: env.RGLOB_WATCH !== "0",
    indexBudgetMb: budget !== null && budget >= 0 ? budget : 1024,
    statEveryFile: env.RGLOB_WARM_CHECK === "stat",
    persistMinFiles: numberOf(env.RGLOB_PERSIST_MIN_FILES),
    serve: env.RGLOB_SERVE !== "0",
    serveWaitMs: numberOf(env.RGLOB_SERVE_WAIT_MS),
    debug: Boolean(env.RGLOB_DEBUG),
    watchGate: env.RGLOB_TEST_WATCH_GATE ? env.RGLOB_TEST_WATCH_GATE : null,
    watchLimit: numberOf(env.RGLOB_TEST_WATCH_LIMIT),
    walkSplit: splitOf(env.RGLOB_WALK_SPLIT),
    dirFd: env.RGLOB_DIR_FD !== "0",
    treeWatch: env.RGLOB_TREE_WATCH !== "0",
    statsInWorker: env.RGLOB_STAT_SPLIT === "worker",
  };
}

/**
 * Returns rglob's cache directory: RGLOB_CACHE_DIR when set; else XDG_CACHE_HOME/rglob or ~/.cache/rglob
 * (Linux and other Unix), ~/Library/Caches/rglob (macOS), %LOCALAPPDATA%\rglob (Windows).
 * @param env the environment
 * @returns the directory, absolute (it may not exist yet)
 */
function cacheDirOf(env: Env): string {
  if (env.RGLOB_CACHE_DIR) return path.resolve(env.RGLOB_CACHE_DIR);
  if (process.platform === "win32")
    return path.join(env.LOCALAPPDATA || path.join(os.homedir(), "AppData", "Local"), "rglob");
  if (process.platform === "darwin") return path.join(os.homedir(), "Library", "Caches", "rglob");
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache"), "rglob");
}

/**
 * Reads RGLOB_WALK_SPLIT.
 * @param raw the variable's text
 * @returns a whole number of entries (0 or more), or null when unset, empty or anything else
 */
function splitOf(raw: string | undefined): number | null {
  if (raw === undefined || raw === "") return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

/**
 * Takes the npm launcher's handshake (RGLOB_LAUNCHER_PID, bin/rglob.cjs) out of this process's environment, so
 * that no process the binary starts inherits it; src/main.ts calls it once, first.
 * @param env the environment (the variable is removed from it)
 * @returns the launcher's pid as set, or null when the binary was not started by the launcher
 */
export function takeLauncherPid(env: NodeJS.ProcessEnv = process.env): string | null {
  const raw = env.RGLOB_LAUNCHER_PID;
  if (raw === undefined) return null;
  delete env.RGLOB_LAUNCHER_PID;
  return raw;
}
