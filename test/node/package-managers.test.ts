// The released npm packages under today's package managers, as a user installs them: npm 12 (which runs no
// install script that `allowScripts` does not name, and links no man page), pnpm (a symlinked node_modules) and
// `npm install --omit=optional` (the library without the 110 MB binary). The main tarball and this machine's
// platform tarball are written by the release's code (scripts/npm-packages.ts) around the binary `npm test`
// built, with the library's dependencies packed from node_modules: no install reaches a registry. npm 12 and
// pnpm need a newer Node than the oldest this project supports, so Node, npm and pnpm come from the npm registry
// the way node-runtimes.ts fetches Node (once, into node_modules/.cache); a test that cannot have them is skipped
// loudly with the reason.
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { platformKey, writeNpmPackages } from "../../scripts/npm-packages.ts";
import { hostTarget, TARGETS } from "../../scripts/release.ts";
import { BIN, FIXTURE, ROOT, skipWhen } from "../helpers.ts";
import { registryNode } from "./node-runtimes.ts";

/** The Node that runs npm 12 and pnpm 11 (npm 12.2 needs ^22.22.2 || ^24.15 || >=26). */
const NODE = "22.23.5";
/** npm 12, the `latest` of npm when this was written. */
const NPM = "12.2.2";
/** pnpm 11, the last pnpm written in JavaScript: pnpm 12 is a native binary fetched by a postinstall. */
const PNPM = "11.28.10";

const host = hostTarget();
let work = "";
let tarballs: string[] = [];
let deps: string[] = [];
// Node, npm 12 and pnpm are fetched when the file is collected (once, cached), so that a test that cannot have
// them is declared skipped with the reason in its title rather than passing having asserted nothing.
const node: { bin: string } | { why: string } = host ? registryNode(NODE) : { why: "no release target" };

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

function sh(cmd: string, args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...userEnv(), ...env }, timeout: 300_000 });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * Returns the unpacked directory of a package from the npm registry, fetched once with `npm pack`.
 * @param name the package
 * @param version its exact version
 * @returns the directory (its package.json at the top), or why it could not be had
 */
function registryPackage(name: string, version: string): { dir: string } | { why: string } {
  const dir = join(ROOT, "node_modules", ".cache", "rglob-test-pm", `${name}-${version}`);
  const top = join(dir, "package");
  if (existsSync(join(top, "package.json"))) return { dir: top };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const packed = sh(npm, ["pack", `${name}@${version}`, "--silent"], dir);
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (packed.code !== 0 || !tgz)
    return { why: `npm pack ${name}@${version} failed: ${packed.stderr.trim()}` };
  const tar = sh("tar", ["xzf", tgz], dir);
  if (tar.code !== 0) return { why: `could not unpack ${tgz}: ${tar.stderr.trim()}` };
  rmSync(join(dir, tgz));
  return { dir: top };
}

/** A package manager's command line (Node and its CLI script), or why there is none. */
function tool(name: "npm" | "pnpm", cli: string): string[] | string {
  if (!host) return `no release target for ${process.platform}-${process.arch}`;
  if ("why" in node) return `no Node ${NODE} for ${name}: ${node.why}`;
  const p = registryPackage(name, name === "npm" ? NPM : PNPM);
  if ("why" in p) return p.why;
  return [node.bin, join(p.dir, cli)];
}

const npm12 = tool("npm", "bin/npm-cli.js");
const pnpm = tool("pnpm", "bin/pnpm.cjs");
/** Why npm 12's or pnpm's tests cannot run here, or null. */
const npm12Why = typeof npm12 === "string" ? `npm 12: ${npm12}` : null;
const pnpmWhy = typeof pnpm === "string" ? `pnpm: ${pnpm}` : null;

/** An empty project directory. */
function project(name: string, manifest: Record<string, unknown> = {}): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "downstream", private: true, type: "module", ...manifest }),
  );
  return dir;
}

/** Runs the installed `rglob` command (node_modules/.bin) of a project: --version and a search. */
function runsRglob(dir: string): void {
  const launcher = join(dir, "node_modules", ".bin", "rglob");
  const v = sh(launcher, ["--version"], dir);
  expect(v.stderr).toBe("");
  expect(v.stdout).toStartWith(`rglob ${pkg.version} (`);
  const g = sh(launcher, ["grep", "-l", "def ", join(FIXTURE, "src"), "--json"], dir);
  expect(g.stderr).toBe("");
  expect(g.code).toBe(0);
  const found = (JSON.parse(g.stdout) as { results: Array<{ path: string }> }).results.map((r) => r.path);
  expect(found.length).toBeGreaterThan(0);
  expect(found.every((p) => p.endsWith(".py"))).toBe(true);
}

beforeAll(() => {
  if (!host) return;
  if (!existsSync(join(ROOT, "dist", "lib", "agent", "index.js"))) {
    const b = sh(process.execPath, [join(ROOT, "scripts", "build-lib.ts")], ROOT);
    if (b.code !== 0) throw new Error(`build-lib failed: ${b.stderr}`);
  }
  work = mkdtempSync(join(tmpdir(), "rglob-pm-"));
  tarballs = writeNpmPackages(
    join(work, "npm"),
    [{ platform: host.npm, file: BIN }],
    TARGETS.map((t) => t.npm),
  );
  const depDir = join(work, "deps");
  mkdirSync(depDir);
  for (const dep of Object.keys(pkg.dependencies)) {
    const p = sh(
      npm,
      ["pack", join(ROOT, "node_modules", dep), "--pack-destination", depDir, "--silent"],
      work,
    );
    if (p.code !== 0) throw new Error(`npm pack ${dep} failed: ${p.stderr}`);
  }
  deps = readdirSync(depDir).map((f) => join(depDir, f));
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("npm 12", () => {
  skipWhen(npm12Why)(
    "installs the main and platform tarballs into an empty project; rglob --version and a search run",
    () => {
      const [bin, cli] = npm12 as string[];
      expect(sh(bin as string, [cli as string, "--version"], work).stdout.trim()).toBe(NPM);
      const dir = project("npm12");
      const r = sh(
        bin as string,
        [cli as string, "install", "--offline", "--no-audit", "--no-fund", ...tarballs, ...deps],
        dir,
      );
      expect(r.stderr.replace(/^npm warn Unknown (user|project|env) config .*\n/gm, "")).toBe("");
      expect(r.code).toBe(0);
      // No install script to allow: npm 12 reports none blocked, and installs this machine's package only.
      expect(r.stdout + r.stderr).not.toContain("install-scripts");
      expect(readdirSync(join(dir, "node_modules", "@rglob"))).toEqual([
        platformKey((host as NonNullable<typeof host>).npm),
      ]);
      runsRglob(dir);
      // npx of npm 12 runs it too.
      const npx = sh(
        bin as string,
        [join(cli as string, "..", "npx-cli.js"), "--offline", "rglob", "--version"],
        dir,
      );
      expect(npx.stdout).toStartWith(`rglob ${pkg.version} (`);
      // The man page and the completions are in the package (npm 12 links no man page: `man -l` reads it there).
      for (const f of [
        "man/rglob.1",
        "complete/rglob.bash",
        "complete/_rglob",
        "complete/rglob.fish",
        "complete/_rglob.ps1",
      ])
        expect(existsSync(join(dir, "node_modules", "rglob", f))).toBe(true);
    },
    600_000,
  );

  skipWhen(npm12Why)(
    "--omit=optional leaves the binary out: the library runs under Node, the command says what is missing",
    () => {
      const [bin, cli] = npm12 as string[];
      const dir = project("omit");
      const r = sh(
        bin as string,
        [
          cli as string,
          "install",
          "--omit=optional",
          "--offline",
          "--no-audit",
          "--no-fund",
          tarballs[0] as string,
          ...deps,
        ],
        dir,
      );
      expect(r.code).toBe(0);
      expect(existsSync(join(dir, "node_modules", "@rglob"))).toBe(false);
      writeFileSync(
        join(dir, "lib.mjs"),
        `import { searchAll } from "rglob/agent";
const r = await searchAll({ base: ${JSON.stringify(FIXTURE)}, patterns: ["*.py"] });
console.log(JSON.stringify(r.results.map((f) => f.relative_path)));`,
      );
      const lib = sh("node", ["lib.mjs"], dir);
      expect(lib.stderr).toBe("");
      expect(JSON.parse(lib.stdout)).toEqual(["hidden/.secret.py", "src/main.py", "src/utils/helper.py"]);
      const cmd = sh(join(dir, "node_modules", ".bin", "rglob"), ["--version"], dir, { RGLOB_BINARY: "" });
      expect(cmd.code).toBe(2);
      expect(cmd.stderr).toContain("--omit=optional");
    },
    600_000,
  );
});

describe("pnpm", () => {
  skipWhen(pnpmWhy)(
    "installs the packages (optional platform package resolved to its tarball); rglob --version and a search run",
    () => {
      const [bin, cli] = pnpm as string[];
      const [main, platform] = tarballs as [string, string];
      const dir = project("pnpm", { dependencies: { rglob: `file:${main}` } });
      // The registry would serve @rglob/<platform> and the dependencies; offline, overrides point at the tarballs.
      const byName = (f: string) =>
        readdirSync(join(work, "deps")).find((d) => d.startsWith(`${f}-`)) as string;
      writeFileSync(
        join(dir, "pnpm-workspace.yaml"),
        [
          "overrides:",
          `  "@rglob/${platformKey((host as NonNullable<typeof host>).npm)}": "file:${platform}"`,
          ...Object.keys(pkg.dependencies).map((d) => `  "${d}": "file:${join(work, "deps", byName(d))}"`),
          "",
        ].join("\n"),
      );
      const r = sh(
        bin as string,
        [cli as string, "install", "--offline", "--store-dir", join(work, "pnpm-store")],
        dir,
      );
      expect(r.code).toBe(0);
      runsRglob(dir);
    },
    600_000,
  );
});
