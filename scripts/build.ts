/*! Builds the single-file executable for this machine (dist/rglob), or for a target with --target=bun-OS-ARCH
 * and --outfile=PATH. Autoloading of .env and bunfig.toml is off, so a searched repository can never inject
 * configuration or code into the binary (docs/decisions/0005-build-flags.md). Worker entry files are extra
 * entrypoints. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** Worker files that must be compiled into the binary as extra entrypoints. */
export const WORKER_ENTRYPOINTS: readonly string[] = ["src/engine/search/worker.ts"];

const root = join(import.meta.dir, "..");
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const target = arg("target");
const outfile = arg("outfile") ?? join(root, "dist", process.platform === "win32" ? "rglob.exe" : "rglob");

const gen = spawnSync(process.execPath, [join(root, "scripts", "gen-schemas.ts"), "--check"], {
  stdio: "inherit",
});
if (gen.status !== 0) process.exit(gen.status ?? 1);

const args = [
  "build",
  "--compile",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--minify",
  "--sourcemap=none",
  "--bytecode",
  "--format=esm",
  ...(target ? [`--target=${target}`] : []),
  join(root, "src", "main.ts"),
  ...WORKER_ENTRYPOINTS.map((w) => join(root, w)),
  "--outfile",
  outfile,
];
const res = spawnSync(process.execPath, args, { stdio: "inherit", cwd: root });
process.exit(res.status ?? 1);
