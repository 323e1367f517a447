// The npm packages as a user gets them: the main tarball and this machine's platform tarball (written by the
// same code as `npm run release`, scripts/npm-packages.ts, around the binary `npm test` built, which has the
// release flags) are installed into an empty project with `npm install --offline`, then `npx rglob` runs the
// binary through the launcher and `node` loads the library. Covers this machine's platform package only: the
// other five are built by `npm run release` (their headers are checked there and in release.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { probeMcp } from "../../scripts/mcp-probe.ts";
import {
  mainManifest,
  platformKey,
  platformManifest,
  tarballName,
  writeNpmPackages,
} from "../../scripts/npm-packages.ts";
import { hostTarget, MAIN_TARBALL_LIMIT, TARGETS } from "../../scripts/release.ts";
import { BIN, FIXTURE, ROOT, rglob, skipWhen } from "../helpers.ts";

const host = hostTarget();
let work = "";
let project = "";
let tarballs: string[] = [];

/** The environment of a user's shell: none of the npm_* variables of the `npm test` that runs this suite. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith("npm_") && !["npm_config_cache", "npm_config_userconfig"].includes(k)) continue;
    env[k] = v;
  }
  env.NO_COLOR = "1";
  return env;
}

function sh(cmd: string, args: readonly string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: userEnv(), timeout: 300_000 });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";

beforeAll(() => {
  if (!host) return;
  if (!existsSync(join(ROOT, "dist", "lib", "agent", "index.js"))) {
    const b = sh(process.execPath, [join(ROOT, "scripts", "build-lib.ts")], ROOT);
    if (b.code !== 0) throw new Error(`build-lib failed: ${b.stderr}`);
  }
  work = mkdtempSync(join(tmpdir(), "rglob-npm-"));
  tarballs = writeNpmPackages(
    join(work, "npm"),
    [{ platform: host.npm, file: BIN }],
    TARGETS.map((t) => t.npm),
  );
  project = join(work, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "downstream", private: true, type: "module" }),
  );
  // The library's dependencies as tarballs too, packed from this checkout's node_modules: the install needs no
  // registry and no npm cache (`--offline` fails rather than fetch anything).
  const deps = join(work, "deps");
  mkdirSync(deps);
  for (const dep of Object.keys(pkg.dependencies)) {
    const p = sh(
      npm,
      ["pack", join(ROOT, "node_modules", dep), "--pack-destination", deps, "--silent"],
      work,
    );
    if (p.code !== 0) throw new Error(`npm pack ${dep} failed: ${p.stderr}`);
  }
  const depTarballs = readdirSync(deps).map((f) => join(deps, f));
  const r = sh(
    npm,
    ["install", "--offline", "--no-audit", "--no-fund", ...tarballs, ...depTarballs],
    project,
  );
  if (r.code !== 0) throw new Error(`npm install --offline failed (exit ${r.code}): ${r.stderr}`);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Declares a test that needs a release target for this machine (skipped, with the reason, where there is none). */
const withTarget = skipWhen(!host && `no release target for ${process.platform}-${process.arch}`);

describe("npm packages", () => {
  withTarget("the main tarball is under 5 MB and holds the library and the launcher, no binary", () => {
    const main = tarballs[0] as string;
    expect(basename(main)).toBe(tarballName("rglob", pkg.version));
    expect(statSync(main).size).toBeLessThan(MAIN_TARBALL_LIMIT);
    const list = sh("tar", ["tzf", main], work).stdout.trim().split("\n");
    expect(list).toContain("package/bin/rglob.cjs");
    expect(list).toContain("package/dist/lib/agent/index.js");
    expect(list).toContain("package/dist/lib/engine/search/worker.js");
    // The man page and the completions, as `rglob man` and `rglob completions SHELL` print them.
    for (const [file, args] of [
      ["man/rglob.1", ["man"]],
      ["complete/rglob.bash", ["completions", "bash"]],
      ["complete/_rglob", ["completions", "zsh"]],
      ["complete/rglob.fish", ["completions", "fish"]],
      ["complete/_rglob.ps1", ["completions", "powershell"]],
    ] as const) {
      expect(list).toContain(`package/${file}`);
      expect(readFileSync(join(project, "node_modules", "rglob", file), "utf8")).toBe(
        rglob([...args]).stdout,
      );
    }
    expect(list.filter((f) => /\/rglob(\.exe)?$/.test(f))).toEqual([]);
    const installed = join(project, "node_modules", "rglob");
    let biggest = 0;
    const walk = (d: string) => {
      for (const n of readdirSync(d, { withFileTypes: true })) {
        if (n.isDirectory()) walk(join(d, n.name));
        else biggest = Math.max(biggest, statSync(join(d, n.name)).size);
      }
    };
    walk(installed);
    expect(biggest).toBeLessThan(2 * 1024 * 1024);
  });

  test("the main package names every platform as an optional dependency; each platform package says where it runs", () => {
    const manifest = mainManifest(TARGETS.map((t) => t.npm));
    expect(manifest.optionalDependencies).toEqual({
      "@rglob/linux-x64": pkg.version,
      "@rglob/linux-x64-musl": pkg.version,
      "@rglob/linux-arm64": pkg.version,
      "@rglob/darwin-x64": pkg.version,
      "@rglob/darwin-arm64": pkg.version,
      "@rglob/win32-x64": pkg.version,
    });
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(["ignore", "re2js", "valibot"]);
    expect(platformManifest({ os: "linux", cpu: "x64", libc: "musl" })).toMatchObject({
      name: "@rglob/linux-x64-musl",
      os: ["linux"],
      cpu: ["x64"],
      libc: ["musl"],
    });
    expect(platformManifest({ os: "win32", cpu: "x64" })).toMatchObject({ os: ["win32"], cpu: ["x64"] });
    expect(platformManifest({ os: "win32", cpu: "x64" }).libc).toBeUndefined();
  });

  withTarget("npm install --offline of the two tarballs installs this platform's package only", () => {
    const scope = join(project, "node_modules", "@rglob");
    expect(readdirSync(scope)).toEqual([platformKey((host as NonNullable<typeof host>).npm)]);
  });

  withTarget("npx rglob --version and a search run the platform binary through the launcher", () => {
    const v = sh(npx, ["--offline", "rglob", "--version"], project);
    expect(v.stderr.replace(/^npm warn .*\n/gm, "")).toBe(""); // npm's own warnings about its config
    // The very binary `npm test` built, run through npx and the launcher (version.test.ts checks its commit).
    expect(v.stdout).toBe(rglob(["--version"]).stdout);
    expect(v.stdout).toStartWith(`rglob ${pkg.version} (`);
    const g = sh(npx, ["--offline", "rglob", "grep", "-l", "def ", join(FIXTURE, "src"), "--json"], project);
    expect(g.code).toBe(0);
    const found = (JSON.parse(g.stdout) as { results: Array<{ relative_path: string }> }).results
      .map((r) => r.relative_path)
      .sort();
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((p) => p.endsWith(".py"))).toBe(true);
  });

  withTarget("the launcher passes exit codes through (1 nothing found, 2 usage error)", () => {
    const launcher = join(project, "node_modules", ".bin", "rglob");
    expect(sh(launcher, ["grep", "-F", "no such text anywhere 7f3a", FIXTURE], project).code).toBe(1);
    const bad = sh(launcher, ["find", "--no-such-flag"], project);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--no-such-flag");
  });

  withTarget(
    "the launcher serves MCP over its stdio (tools/list through npx)",
    async () => {
      const probe = await probeMcp([npx, "--offline", "rglob"], { cwd: FIXTURE, timeoutMs: 60_000 });
      expect(probe.ok ? probe.tools : probe.reason).toContain("rglob");
    },
    90_000,
  );

  withTarget(
    "without its platform package the launcher says what is missing and how to get it (exit 2)",
    () => {
      const alone = join(work, "alone", "bin");
      mkdirSync(alone, { recursive: true });
      copyFileSync(join(project, "node_modules", "rglob", "bin", "rglob.cjs"), join(alone, "rglob.cjs"));
      const r = sh(
        process.execPath.endsWith("node") ? process.execPath : "node",
        [join(alone, "rglob.cjs"), "--version"],
        work,
      );
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`@rglob/${platformKey((host as NonNullable<typeof host>).npm)}`);
      expect(r.stderr).toContain("RGLOB_BINARY");
    },
  );

  withTarget(
    "node imports the library from the installed package; require() works where Node loads ESM with it",
    () => {
      writeFileSync(
        join(project, "lib.mjs"),
        `import { searchAll } from "rglob/agent";
const r = await searchAll({ base: ${JSON.stringify(FIXTURE)}, patterns: ["*.py"] });
console.log(JSON.stringify(r.results.map((f) => f.relative_path)));`,
      );
      const imp = sh("node", ["lib.mjs"], project);
      expect(imp.stderr).toBe("");
      expect(JSON.parse(imp.stdout)).toEqual(["hidden/.secret.py", "src/main.py", "src/utils/helper.py"]);
      writeFileSync(
        join(project, "req.cjs"),
        `if (!process.features.require_module) { console.log("no require(esm)"); process.exit(0); }
const { searchAll } = require("rglob");
searchAll({ base: ${JSON.stringify(FIXTURE)}, patterns: ["*.py"] }).then((r) => console.log(r.results.length));`,
      );
      const req = sh("node", ["req.cjs"], project);
      expect(req.stderr).toBe("");
      expect(["3\n", "no require(esm)\n"]).toContain(req.stdout);
    },
  );
});
