/*! The environment, read in one place (scripts/check-layers.ts holds that no other file of src/ reads it): the
 * switches (RGLOB_*) and where rglob's state and git's config files are (HOME, XDG_*, GIT_CONFIG_NOSYSTEM) into a
 * Config, and what the terminal and the host say (COLUMNS, LS_COLORS, NO_COLOR and the other colour variables,
 * PWD, HOME) into a Host. An entry (src/main.ts, the MCP server, `rglob serve`, each call of the library) reads
 * both once and passes them in. Each variable, what it does and who it is for: docs/architecture.md (Environment
 * switches) and the man page's ENVIRONMENT (src/surface/cli/shell.ts). Another process's environment (a served
 * call's, sent by its client) is read by the same functions. */
import * as os from "node:os";
import * as path from "node:path";
import type { GitPlaces } from "./engine/ignore.ts";

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
  /** RGLOB_TEST_BUILD_GATE (tests, through the binary): the warm server's build, its reads done, waits for this path. */
  readonly buildGate: string | null;
  /** RGLOB_TEST_RECHECK_GATE (tests, through the binary): the warm server's check of every file waits halfway for this path. */
  readonly recheckGate: string | null;
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
  /** RGLOB_TEST_RECORD_SLICE (tests, through the binary): `rglob index` collects garbage every N walk entries. */
  readonly recordSlice: number | null;
  /**
   * Where the warm servers' sockets are (`rglob serve`): RGLOB_CACHE_DIR's `serve`; else `$XDG_RUNTIME_DIR/rglob`;
   * else the cache directory's `serve` (`$XDG_CACHE_HOME/rglob/serve` or `~/.cache/rglob/serve`); absolute.
   */
  readonly socketDir: string;
  /** Where git's config files and global excludes file are looked for (HOME, XDG_CONFIG_HOME, GIT_CONFIG_NOSYSTEM). */
  readonly git: GitPlaces;
}

/** What the environment says about the terminal and the host, beside the switches: read with the Config. */
export interface Host {
  /** HOME as set (null: unset or empty): `rglob mcp` does not serve it unless named. */
  readonly home: string | null;
  /** PWD when it is absolute: the working directory's path when that was deleted. */
  readonly pwd: string | null;
  /** COLUMNS when it is a positive whole number: the width help is wrapped to. */
  readonly columns: number | null;
  /** LS_COLORS when set and not empty: the colours of paths (null: fd's). */
  readonly lsColors: string | null;
  /** The colour variables (NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR, CLICOLOR, TERM), as set. */
  readonly colorVars: Readonly<
    Record<"NO_COLOR" | "CLICOLOR_FORCE" | "FORCE_COLOR" | "CLICOLOR" | "TERM", string | undefined>
  >;
  /** The whole environment, as a CLI or library call sends it to a warm server (which reads it with these functions). */
  readonly env: Readonly<Record<string, string>>;
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
  const home = homeOf(env);
  const budget = numberOf(env.RGLOB_INDEX_BUDGET_MB ?? "1024");
  return {
    cacheDir: env.RGLOB_CACHE_DIR ? env.RGLOB_CACHE_DIR : null,
    indexDir: path.join(cacheDirOf(env, home), "index"),
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
    buildGate: env.RGLOB_TEST_BUILD_GATE ? env.RGLOB_TEST_BUILD_GATE : null,
    recheckGate: env.RGLOB_TEST_RECHECK_GATE ? env.RGLOB_TEST_RECHECK_GATE : null,
    watchLimit: numberOf(env.RGLOB_TEST_WATCH_LIMIT),
    walkSplit: splitOf(env.RGLOB_WALK_SPLIT),
    dirFd: env.RGLOB_DIR_FD !== "0",
    treeWatch: env.RGLOB_TREE_WATCH !== "0",
    statsInWorker: env.RGLOB_STAT_SPLIT === "worker",
    recordSlice: numberOf(env.RGLOB_TEST_RECORD_SLICE),
    socketDir: socketDirOf(env, home),
    git: {
      home,
      xdgConfigHome: env.XDG_CONFIG_HOME ?? null,
      noSystem: env.GIT_CONFIG_NOSYSTEM ?? null,
    },
  };
}

/**
 * Reads what the terminal and the host say.
 * @param env the environment (default: this process's)
 * @returns the host record
 */
export function readHost(env: Env = process.env): Host {
  const columns = Number.parseInt(env.COLUMNS ?? "", 10);
  const all: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) all[k] = v;
  return {
    home: env.HOME ? env.HOME : null,
    pwd: env.PWD && path.isAbsolute(env.PWD) ? env.PWD : null,
    columns: Number.isFinite(columns) && columns > 0 ? columns : null,
    lsColors: env.LS_COLORS ? env.LS_COLORS : null,
    colorVars: {
      NO_COLOR: env.NO_COLOR,
      CLICOLOR_FORCE: env.CLICOLOR_FORCE,
      FORCE_COLOR: env.FORCE_COLOR,
      CLICOLOR: env.CLICOLOR,
      TERM: env.TERM,
    },
    env: all,
  };
}

/**
 * Returns the user's home directory: HOME when set (a served call's is its client's), else the system's.
 * @param env the environment
 * @returns the directory
 */
function homeOf(env: Env): string {
  return env.HOME ? env.HOME : os.homedir();
}

/**
 * Returns rglob's cache directory: RGLOB_CACHE_DIR when set; else XDG_CACHE_HOME/rglob or ~/.cache/rglob
 * (Linux and other Unix), ~/Library/Caches/rglob (macOS), %LOCALAPPDATA%\rglob (Windows).
 * @param env the environment
 * @param home the user's home directory
 * @returns the directory, absolute (it may not exist yet)
 */
function cacheDirOf(env: Env, home: string): string {
  if (env.RGLOB_CACHE_DIR) return path.resolve(env.RGLOB_CACHE_DIR);
  if (process.platform === "win32")
    return path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), "rglob");
  if (process.platform === "darwin") return path.join(home, "Library", "Caches", "rglob");
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".cache"), "rglob");
}

/**
 * Returns the directory of the user's server sockets: `RGLOB_CACHE_DIR/serve` when RGLOB_CACHE_DIR is set (one
 * setting moves all of rglob's state); else `$XDG_RUNTIME_DIR/rglob` (a per-user directory of the session, on a
 * tmpfs, removed at logout, where sockets belong); else the cache directory's `serve`
 * (`$XDG_CACHE_HOME/rglob/serve` or `~/.cache/rglob/serve`).
 * @param env the environment
 * @param home the user's home directory
 * @returns an absolute path (it may not exist yet)
 */
function socketDirOf(env: Env, home: string): string {
  const abs = (p: string | undefined): p is string => p?.startsWith("/") === true;
  if (env.RGLOB_CACHE_DIR) return `${resolveSlashes(env.RGLOB_CACHE_DIR)}/serve`;
  if (abs(env.XDG_RUNTIME_DIR)) return `${trimSlash(env.XDG_RUNTIME_DIR)}/rglob`;
  const cache = abs(env.XDG_CACHE_HOME) ? trimSlash(env.XDG_CACHE_HOME) : `${home}/.cache`;
  return `${cache}/rglob/serve`;
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

/** Makes a path absolute from the working directory with `.` components and doubled slashes taken out. */
function resolveSlashes(p: string): string {
  if (p.startsWith("/")) return trimSlash(p);
  return `${process.cwd()}/${p}`.replace(/\/\.?(?=\/|$)/g, "");
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
