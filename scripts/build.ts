/*! Builds the single-file executable for this machine (dist/rglob), or --target=bun-OS-ARCH --outfile=PATH. No
 * .env or bunfig.toml autoloading, so a searched repository never configures the binary; workers are extra
 * entrypoints (docs/decisions/0005-build-flags.md). release.ts builds every target through buildBinary(). */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** Worker files that must be compiled into the binary as extra entrypoints. */
export const WORKER_ENTRYPOINTS: readonly string[] = [
  "src/engine/search/worker.ts",
  "src/engine/count-worker.ts",
  "src/engine/walk-worker.ts",
  "src/engine/index/stat-worker.ts",
  "src/engine/index/build-worker.ts",
  "src/platform/watch-reader.ts",
];

/** The repository root. */
export const ROOT = join(import.meta.dir, "..");

/** What one build should produce. */
export interface BuildOptions {
  /** A Bun compile target such as "bun-linux-arm64"; absent: this machine. */
  readonly target?: string;
  /** Where the executable goes. */
  readonly outfile: string;
  /** Passed to the child process: "inherit" shows bun's output, "pipe" captures it. */
  readonly stdio?: "inherit" | "pipe";
}

/** What one build returned. */
export interface BuildResult {
  readonly ok: boolean;
  readonly status: number;
  /** bun's captured output (empty when stdio is "inherit"). */
  readonly output: string;
}

/**
 * Returns the commit the build is made from: the short hash of HEAD, with "-dirty" when tracked files differ
 * from it; "" outside a git checkout (the binary then says "built outside git").
 * @param dir the checkout (default: this repository)
 * @returns the commit text
 */
export function buildCommit(dir: string = ROOT): string {
  const head = spawnSync("git", ["rev-parse", "--short=7", "HEAD"], { cwd: dir, encoding: "utf8" });
  if (head.status !== 0 || !head.stdout) return "";
  const clean = spawnSync("git", ["diff", "--quiet", "HEAD", "--"], { cwd: dir });
  return `${head.stdout.trim()}${clean.status === 1 ? "-dirty" : ""}`;
}

/**
 * Returns the `--define` flags every build gets (the binary and dist/lib): the commit (src/contract/versions.ts).
 * @returns the flags
 */
export function buildDefines(): string[] {
  return [`--define=RGLOB_BUILD_COMMIT=${JSON.stringify(buildCommit())}`];
}

/**
 * Returns the `bun build` arguments for one binary: the flags every rglob binary is built with.
 * @param options target and output file
 * @returns the argument list (without the bun executable)
 */
export function buildArgs(options: BuildOptions): string[] {
  return [
    "build",
    "--compile",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    // With exec arguments the executable starts from a deleted working directory (without, Bun 1.4 refuses to
    // start, even for --version); --no-deprecation also keeps runtime deprecation warnings off stderr.
    "--compile-exec-argv=--no-deprecation",
    "--minify",
    "--sourcemap=none",
    "--bytecode",
    "--format=esm",
    "--splitting",
    ...buildDefines(),
    ...(options.target ? [`--target=${options.target}`] : []),
    join(ROOT, "src", "main.ts"),
    ...WORKER_ENTRYPOINTS.map((w) => join(ROOT, w)),
    "--outfile",
    options.outfile,
  ];
}

/**
 * Checks that src/generated/schemas.ts is fresh (a stale one would ship wrong schemas).
 * @returns true when fresh
 */
export function schemasFresh(): boolean {
  const gen = spawnSync(process.execPath, [join(ROOT, "scripts", "gen-schemas.ts"), "--check"], {
    stdio: "inherit",
  });
  return gen.status === 0;
}

/**
 * Builds one executable with the release flags.
 * @param options target, output file and output handling
 * @returns whether it worked, bun's exit status and its captured output
 */
export function buildBinary(options: BuildOptions): BuildResult {
  const res = spawnSync(process.execPath, buildArgs(options), {
    stdio: options.stdio ?? "inherit",
    cwd: ROOT,
    encoding: "utf8",
  });
  const status = res.status ?? 1;
  return { ok: status === 0, status, output: `${res.stdout ?? ""}${res.stderr ?? ""}` };
}

if (import.meta.main) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const target = arg("target");
  const outfile = arg("outfile") ?? join(ROOT, "dist", process.platform === "win32" ? "rglob.exe" : "rglob");
  if (!schemasFresh()) process.exit(1);
  process.exit(buildBinary({ ...(target ? { target } : {}), outfile }).status);
}
