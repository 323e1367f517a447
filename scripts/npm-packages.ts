/*! The npm packages of a release, the way esbuild and biome ship a native tool: a small main package `rglob`
 * (the library in dist/lib, its declarations, the plain-JS launcher bin/rglob.cjs, the man page and the shell
 * completions) whose
 * optionalDependencies name one package per platform, `@rglob/<os>-<arch>[-musl]`, each holding one binary and
 * declaring `os`, `cpu` (and `libc` on Linux) so that npm installs only the one that fits. The main package's
 * package.json is generated from the repository's (scripts and devDependencies dropped, optionalDependencies
 * added): the repository itself never depends on packages that exist only after a release. release.ts calls
 * writeNpmPackages() with the binaries it built; the npm install test calls it with this machine's binary. */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { ROOT } from "./build.ts";
import { writeShellFiles } from "./shell-files.ts";

/** The platform facts of one npm platform package. */
export interface NpmPlatform {
  /** Node's process.platform. */
  readonly os: "linux" | "darwin" | "win32";
  /** Node's process.arch. */
  readonly cpu: "x64" | "arm64";
  /** Linux only: the C library the binary is linked against. */
  readonly libc?: "glibc" | "musl";
}

/** The scope of the platform packages. */
export const NPM_SCOPE = "@rglob";

/**
 * Returns the key of a platform ("linux-x64", "linux-x64-musl", "win32-x64"): the package name after the scope,
 * and what the launcher computes from process.platform, process.arch and the C library.
 * @param p the platform
 * @returns the key
 */
export function platformKey(p: NpmPlatform): string {
  return `${p.os}-${p.cpu}${p.libc === "musl" ? "-musl" : ""}`;
}

/**
 * Returns the npm package name of a platform.
 * @param p the platform
 * @returns e.g. "@rglob/linux-x64"
 */
export function platformPackageName(p: NpmPlatform): string {
  return `${NPM_SCOPE}/${platformKey(p)}`;
}

/**
 * Returns the file name `npm pack` gives a package's tarball.
 * @param name the package name
 * @param version its version
 * @returns e.g. "rglob-linux-x64-0.1.0.tgz" for "@rglob/linux-x64"
 */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

function npmPack(dir: string, dest: string): void {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["pack", "--pack-destination", dest, "--ignore-scripts", "--silent"], {
    cwd: dir,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed: ${r.stderr.trim()}`);
}

/**
 * Returns the main package's package.json: the repository's, without scripts, devDependencies and allowScripts
 * (the repository's own install policy), with one optional dependency per platform at the same version, and the
 * man page and completions (scripts/shell-files.ts) among its files, the page linked by `npm install -g`.
 * @param platforms every platform a release ships
 * @returns the manifest
 */
export function mainManifest(platforms: readonly NpmPlatform[]): Record<string, unknown> {
  const { scripts: _s, devDependencies: _d, allowScripts: _a, ...rest } = pkg as Record<string, unknown>;
  return {
    ...rest,
    files: [...pkg.files, "man", "complete"],
    man: ["./man/rglob.1"],
    optionalDependencies: Object.fromEntries(platforms.map((p) => [platformPackageName(p), pkg.version])),
  };
}

/**
 * Returns a platform package's package.json.
 * @param p the platform
 * @returns the manifest
 */
export function platformManifest(p: NpmPlatform): Record<string, unknown> {
  return {
    name: platformPackageName(p),
    version: pkg.version,
    description: `The ${platformKey(p)} binary of rglob (installed by the rglob package; not for direct use).`,
    license: pkg.license,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.os === "linux" ? { libc: [p.libc ?? "glibc"] } : {}),
    files: ["bin", "README.md", "LICENSE"],
    preferUnplugged: true,
  };
}

/**
 * Writes the npm tarballs: the main package and one per binary given, into `dest`.
 * @param dest the directory the .tgz files go to (created)
 * @param binaries the binaries built, with their platforms
 * @param platforms every platform the main package names (default: those of `binaries`)
 * @returns the tarball paths, the main package's first
 */
export function writeNpmPackages(
  dest: string,
  binaries: ReadonlyArray<{ platform: NpmPlatform; file: string }>,
  platforms: readonly NpmPlatform[] = binaries.map((b) => b.platform),
): string[] {
  mkdirSync(dest, { recursive: true });
  const stage = join(dest, ".stage");
  rmSync(stage, { recursive: true, force: true });
  const tarballs: string[] = [];
  try {
    const main = join(stage, "rglob");
    mkdirSync(join(main, "bin"), { recursive: true });
    mkdirSync(join(main, "dist"), { recursive: true });
    cpSync(join(ROOT, "dist", "lib"), join(main, "dist", "lib"), { recursive: true });
    copyFileSync(join(ROOT, "bin", "rglob.cjs"), join(main, "bin", "rglob.cjs"));
    chmodSync(join(main, "bin", "rglob.cjs"), 0o755);
    for (const f of ["README.md", "LICENSE", "CHANGELOG.md"]) copyFileSync(join(ROOT, f), join(main, f));
    writeShellFiles(main);
    writeFileSync(join(main, "package.json"), `${JSON.stringify(mainManifest(platforms), null, 2)}\n`);
    npmPack(main, dest);
    tarballs.push(join(dest, tarballName(pkg.name, pkg.version)));

    for (const { platform, file } of binaries) {
      const dir = join(stage, platformKey(platform));
      mkdirSync(join(dir, "bin"), { recursive: true });
      const exe = join(dir, "bin", platform.os === "win32" ? "rglob.exe" : "rglob");
      copyFileSync(file, exe);
      if (platform.os !== "win32") chmodSync(exe, 0o755);
      copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
      writeFileSync(
        join(dir, "README.md"),
        `# ${platformPackageName(platform)}\n\nThe ${platformKey(platform)} executable of [rglob](https://www.npmjs.com/package/rglob). ` +
          "Install `rglob` instead: npm picks this package for you when it fits the machine.\n",
      );
      writeFileSync(join(dir, "package.json"), `${JSON.stringify(platformManifest(platform), null, 2)}\n`);
      npmPack(dir, dest);
      tarballs.push(join(dest, tarballName(platformPackageName(platform), pkg.version)));
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  const written = new Set(readdirSync(dest));
  for (const t of tarballs) {
    if (!written.has(t.slice(dest.length + 1))) throw new Error(`npm pack did not write ${t}`);
  }
  return tarballs;
}
