// The Node runtimes the library is tested under: the `node` on PATH and the oldest Node that package.json's
// `engines` allows. The oldest one comes from the npm registry (the `node-<os>-<arch>` package of that version,
// the binary the `node` package installs), fetched once with `npm pack` into node_modules/.cache: nothing is
// downloaded from anywhere but the registry `npm ci` uses.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { ROOT } from "../helpers.ts";

/** The oldest Node version `engines.node` allows (">=20.16.0" → "20.16.0"). */
export function oldestNode(): string {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(pkg.engines.node.trim());
  if (!m) throw new Error(`engines.node is not of the form ">=X.Y.Z": ${pkg.engines.node}`);
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
}

/**
 * Returns the path of the Node binary of a version, fetched from the npm registry on first use.
 * @param version e.g. "20.16.0"
 * @returns the executable, or an explanation of why it could not be fetched
 */
export function registryNode(version: string): { bin: string } | { why: string } {
  const os = process.platform === "win32" ? "win" : process.platform;
  const name = `node-${os}-${process.arch}`;
  const dir = join(ROOT, "node_modules", ".cache", "rglob-test-node", `${name}-${version}`);
  const bin = join(dir, "package", process.platform === "win32" ? "node.exe" : join("bin", "node"));
  if (existsSync(bin)) return { bin };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const packed = spawnSync(npm, ["pack", `${name}@${version}`, "--silent"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 300_000,
  });
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (packed.status !== 0 || !tgz)
    return { why: `npm pack ${name}@${version} failed: ${packed.stderr.trim()}` };
  const tar = spawnSync("tar", ["xzf", tgz], { cwd: dir, encoding: "utf8" });
  if (tar.status !== 0 || !existsSync(bin)) return { why: `could not unpack ${tgz}: ${tar.stderr.trim()}` };
  rmSync(join(dir, tgz));
  return { bin };
}
