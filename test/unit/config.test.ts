// The environment's switches are read in src/config.ts into a Config that the entries pass in (#35). No other
// file reads an RGLOB_* variable from an environment, but for the ones still listed here (the list only shrinks:
// the test fails on a new reader and on a listed one that no longer reads).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { readConfig, readHost } from "../../src/config.ts";

const ROOT = join(import.meta.dir, "..", "..");

/** Files that still read a switch where it applies: none (scripts/check-layers.ts holds every other read too). */
const STILL_READ: string[] = [];

/** An RGLOB_* variable read from an environment object (process.env, Bun.env, an env parameter). */
const READ = /\b(?:env|Bun\.env)(?:\.RGLOB_|\[\s*["'`]RGLOB_)/;

function readers(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...readers(full));
    else if (name.endsWith(".ts") && READ.test(readFileSync(full, "utf8"))) out.push(relative(ROOT, full));
  }
  return out;
}

describe("Config", () => {
  test("no file but src/config.ts (and the known list) reads an RGLOB_* variable from an environment", () => {
    const found = readers(join(ROOT, "src")).map((f) => f.split("\\").join("/"));
    expect(found).toEqual(["src/config.ts", ...STILL_READ].sort());
  });

  test("an empty environment gives the defaults", () => {
    expect(readConfig({})).toEqual({
      cacheDir: null,
      indexDir: join(homedir(), ".cache", "rglob", "index"),
      index: true,
      warm: true,
      watch: true,
      indexBudgetMb: 1024,
      statEveryFile: false,
      persistMinFiles: null,
      serve: true,
      serveWaitMs: null,
      debug: false,
      watchGate: null,
      buildGate: null,
      recheckGate: null,
      watchLimit: null,
      walkSplit: null,
      dirFd: true,
      treeWatch: true,
      statsInWorker: false,
      recordSlice: null,
      socketDir: `${homedir()}/.cache/rglob/serve`,
      git: { home: homedir(), xdgConfigHome: null, noSystem: null },
    });
  });

  test("each switch is read as its page documents it", () => {
    const c = readConfig({
      RGLOB_CACHE_DIR: "/tmp/c",
      RGLOB_INDEX: "0",
      RGLOB_WARM: "0",
      RGLOB_WATCH: "0",
      RGLOB_INDEX_BUDGET_MB: "64",
      RGLOB_WARM_CHECK: "stat",
      RGLOB_PERSIST_MIN_FILES: "3",
      RGLOB_SERVE: "0",
      RGLOB_SERVE_WAIT_MS: "50",
      RGLOB_DEBUG: "1",
      RGLOB_TEST_WATCH_GATE: "/tmp/gate",
      RGLOB_TEST_BUILD_GATE: "/tmp/build-gate",
      RGLOB_TEST_RECHECK_GATE: "/tmp/recheck-gate",
      RGLOB_TEST_WATCH_LIMIT: "7",
      RGLOB_WALK_SPLIT: "3",
      RGLOB_DIR_FD: "0",
      RGLOB_TREE_WATCH: "0",
      RGLOB_STAT_SPLIT: "worker",
      RGLOB_TEST_RECORD_SLICE: "7",
    });
    expect(c).toEqual({
      cacheDir: "/tmp/c",
      indexDir: "/tmp/c/index",
      index: false,
      warm: false,
      watch: false,
      indexBudgetMb: 64,
      statEveryFile: true,
      persistMinFiles: 3,
      serve: false,
      serveWaitMs: 50,
      debug: true,
      watchGate: "/tmp/gate",
      buildGate: "/tmp/build-gate",
      recheckGate: "/tmp/recheck-gate",
      watchLimit: 7,
      walkSplit: 3,
      dirFd: false,
      treeWatch: false,
      statsInWorker: true,
      recordSlice: 7,
      socketDir: "/tmp/c/serve",
      git: { home: homedir(), xdgConfigHome: null, noSystem: null },
    });
    // Values that are not numbers fall back to the defaults, as before (a negative budget too).
    const bad = readConfig({
      RGLOB_INDEX_BUDGET_MB: "-1",
      RGLOB_PERSIST_MIN_FILES: "x",
      RGLOB_SERVE_WAIT_MS: "y",
    });
    expect([bad.indexBudgetMb, bad.persistMinFiles, bad.serveWaitMs]).toEqual([1024, null, null]);
    // A walk split that is not a whole number of entries (or is empty) is not set; 0 turns walk workers off.
    for (const raw of ["", "-1", "2.5", "x"])
      expect(readConfig({ RGLOB_WALK_SPLIT: raw }).walkSplit).toBeNull();
    expect(readConfig({ RGLOB_WALK_SPLIT: "0" }).walkSplit).toBe(0);
    // Only "0" turns a route off, as before.
    expect(readConfig({ RGLOB_DIR_FD: "1", RGLOB_TREE_WATCH: "" })).toMatchObject({
      dirFd: true,
      treeWatch: true,
    });
    // Set but empty: RGLOB_CACHE_DIR and RGLOB_DEBUG count as unset; "1" or anything but "0" leaves a route on.
    expect(readConfig({ RGLOB_CACHE_DIR: "", RGLOB_DEBUG: "", RGLOB_INDEX: "1" })).toMatchObject({
      cacheDir: null,
      debug: false,
      index: true,
    });
  });

  test("the index directory is RGLOB_CACHE_DIR's, resolved from the working directory", () => {
    expect(readConfig({ RGLOB_CACHE_DIR: "rel/c" }).indexDir).toBe(join(process.cwd(), "rel", "c", "index"));
  });

  test.skipIf(process.platform !== "linux")(
    "without RGLOB_CACHE_DIR it is XDG_CACHE_HOME's when absolute, else ~/.cache's (skipped off Linux: macOS and Windows have their own)",
    () => {
      expect(readConfig({ XDG_CACHE_HOME: "/x/cache" }).indexDir).toBe("/x/cache/rglob/index");
      expect(readConfig({ XDG_CACHE_HOME: "x/cache" }).indexDir).toBe(
        join(homedir(), ".cache", "rglob", "index"),
      );
    },
  );

  test("HOME, XDG_* and GIT_CONFIG_NOSYSTEM place the sockets and git's config files; a served call's are its client's", () => {
    const c = readConfig({
      HOME: "/h",
      XDG_CONFIG_HOME: "/x/conf",
      GIT_CONFIG_NOSYSTEM: "1",
      XDG_RUNTIME_DIR: "/run/u/",
    });
    expect(c.git).toEqual({ home: "/h", xdgConfigHome: "/x/conf", noSystem: "1" });
    expect(c.socketDir).toBe("/run/u/rglob");
    expect(readConfig({ HOME: "/h", XDG_RUNTIME_DIR: "rel" }).socketDir).toBe("/h/.cache/rglob/serve");
    expect(readConfig({ HOME: "/h", XDG_CACHE_HOME: "/c/" }).socketDir).toBe("/c/rglob/serve");
  });
});

describe("Host", () => {
  test("the terminal's and the host's variables are read as the CLI and the MCP server use them", () => {
    const h = readHost({
      HOME: "/h",
      PWD: "/was/here",
      COLUMNS: "72",
      LS_COLORS: "di=34",
      NO_COLOR: "1",
      TERM: "dumb",
      OTHER: "x",
    });
    expect(h).toMatchObject({ home: "/h", pwd: "/was/here", columns: 72, lsColors: "di=34" });
    expect(h.colorVars).toEqual({
      NO_COLOR: "1",
      CLICOLOR_FORCE: undefined,
      FORCE_COLOR: undefined,
      CLICOLOR: undefined,
      TERM: "dumb",
    });
    expect(h.env.OTHER).toBe("x");
    // Unset, empty, relative or not a positive number: not taken.
    expect(readHost({ HOME: "", PWD: "rel", COLUMNS: "0", LS_COLORS: "" })).toMatchObject({
      home: null,
      pwd: null,
      columns: null,
      lsColors: null,
    });
    expect(readHost({ COLUMNS: "wide" }).columns).toBeNull();
  });
});
