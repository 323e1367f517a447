/*! Builds the release set (dist/release/rglob-<version>-<os>-<arch>[.exe] with build.ts's flags, SHA256SUMS) and
 * smoke-tests what runs here. Unfetchable targets are reported and left out (a failure only with --strict;
 * --only=linux-x64,… picks targets). Never publishes anything. */
import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { buildBinary, buildCommit, ROOT, schemasFresh } from "./build.ts";
import { probeMcp } from "./mcp-probe.ts";
import { type NpmPlatform, writeNpmPackages } from "./npm-packages.ts";
import { writeShellFiles } from "./shell-files.ts";

/** One release target: the name part of the file, the Bun compile target and its npm platform package. */
export interface ReleaseTarget {
  readonly os: "linux" | "darwin" | "windows";
  readonly arch: "x64" | "arm64";
  /** Linux builds linked against musl (Alpine) instead of glibc. */
  readonly musl?: true;
  readonly bun: string;
  readonly npm: NpmPlatform;
}

/** Every platform a release ships, in SHA256SUMS order. */
export const TARGETS: readonly ReleaseTarget[] = [
  { os: "linux", arch: "x64", bun: "bun-linux-x64", npm: { os: "linux", cpu: "x64", libc: "glibc" } },
  {
    os: "linux",
    arch: "x64",
    musl: true,
    bun: "bun-linux-x64-musl",
    npm: { os: "linux", cpu: "x64", libc: "musl" },
  },
  { os: "linux", arch: "arm64", bun: "bun-linux-arm64", npm: { os: "linux", cpu: "arm64", libc: "glibc" } },
  { os: "darwin", arch: "x64", bun: "bun-darwin-x64", npm: { os: "darwin", cpu: "x64" } },
  { os: "darwin", arch: "arm64", bun: "bun-darwin-arm64", npm: { os: "darwin", cpu: "arm64" } },
  { os: "windows", arch: "x64", bun: "bun-windows-x64", npm: { os: "win32", cpu: "x64" } },
];

/** A target's name part: "linux-x64", "linux-x64-musl", "windows-x64". */
export function targetKey(t: ReleaseTarget): string {
  return `${t.os}-${t.arch}${t.musl ? "-musl" : ""}`;
}

/** The main npm tarball must stay below this (it holds no binary). */
export const MAIN_TARBALL_LIMIT = 5 * 1024 * 1024;

/** Where the release set goes. */
export const RELEASE_DIR = join(ROOT, "dist", "release");

/**
 * Returns the file name of a target's binary.
 * @param t the target
 * @param version the package version
 * @returns e.g. rglob-0.1.0-linux-x64 or rglob-0.1.0-windows-x64.exe
 */
export function binaryName(t: ReleaseTarget, version: string): string {
  return `rglob-${version}-${targetKey(t)}${t.os === "windows" ? ".exe" : ""}`;
}

/**
 * Returns the file name of the archive of the man page and the shell completions.
 * @param version the package version
 * @returns e.g. rglob-0.1.0-shell.tar.gz (rglob-0.1.0/man/rglob.1, rglob-0.1.0/complete/…)
 */
export function shellArchiveName(version: string): string {
  return `rglob-${version}-shell.tar.gz`;
}

/**
 * Writes the archive of the man page and the shell completions (scripts/shell-files.ts) into a directory.
 * @param dest the directory
 * @param version the package version, the name of the archive's top directory
 * @returns the files in it, relative to the top directory
 * @throws Error when tar fails
 */
export function writeShellArchive(dest: string, version: string): string[] {
  const stage = mkdtempSync(join(tmpdir(), "rglob-shell-"));
  try {
    const written = writeShellFiles(join(stage, `rglob-${version}`));
    const tar = run(
      ["tar"],
      ["czf", join(dest, shellArchiveName(version)), "-C", stage, `rglob-${version}`],
      stage,
    );
    if (tar.code !== 0) throw new Error(`tar of ${shellArchiveName(version)}: ${tar.stderr.trim()}`);
    return written;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Whether this process runs on a musl Linux (Node and Bun report no glibc version there). */
export function hostIsMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

/** Returns the target of this machine, or undefined when no release target runs here. */
export function hostTarget(): ReleaseTarget | undefined {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const musl = hostIsMusl();
  return TARGETS.find((t) => t.os === os && t.arch === process.arch && (t.musl ?? false) === musl);
}

function head(file: string, bytes: number): Buffer {
  const buf = Buffer.alloc(bytes);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buf, 0, bytes, 0);
  } finally {
    closeSync(fd);
  }
  return buf;
}

/**
 * Checks that a binary's header is the executable format and CPU of its target (ELF, Mach-O or PE).
 * @param file the binary
 * @param t its target
 * @returns null when it matches, else what is wrong
 */
export function formatMismatch(file: string, t: ReleaseTarget): string | null {
  const h = head(file, 4096);
  if (t.os === "linux") {
    if (h.readUInt32BE(0) !== 0x7f454c46) return "not an ELF file";
    const machine = h.readUInt16LE(18);
    const want = t.arch === "x64" ? 0x3e : 0xb7;
    if (machine !== want) return `ELF machine 0x${machine.toString(16)}, expected 0x${want.toString(16)}`;
    // The program interpreter (PT_INTERP, near the start) names the C library: /lib/ld-musl-<cpu>.so.1 for musl.
    const musl = h.includes("/ld-musl-");
    if (musl !== (t.musl ?? false))
      return musl ? "linked against musl, expected glibc" : "not linked against musl";
    return null;
  }
  if (t.os === "darwin") {
    if (h.readUInt32LE(0) !== 0xfeedfacf) return "not a 64-bit Mach-O file";
    const cpu = h.readUInt32LE(4);
    const want = t.arch === "x64" ? 0x01000007 : 0x0100000c;
    return cpu === want ? null : `Mach-O cputype 0x${cpu.toString(16)}, expected 0x${want.toString(16)}`;
  }
  if (h.toString("latin1", 0, 2) !== "MZ") return "not a PE file";
  const pe = h.readUInt32LE(0x3c);
  if (pe + 6 > h.length || h.toString("latin1", pe, pe + 4) !== "PE\0\0") return "no PE header";
  const machine = h.readUInt16LE(pe + 4);
  const want = t.arch === "x64" ? 0x8664 : 0xaa64;
  return machine === want ? null : `PE machine 0x${machine.toString(16)}, expected 0x${want.toString(16)}`;
}

/**
 * Checks a Mach-O binary's embedded code signature the way macOS does at launch: every page hash of every
 * CodeDirectory must match the file, and the signed range must reach the signature. Bun signs its darwin
 * output ad hoc; some Bun versions leave a stale signature on some targets, which macOS may refuse to run.
 * @param file the binary
 * @returns null when the signature is valid, else what is wrong
 */
export function machoSignatureProblem(file: string): string | null {
  const data = readFileSync(file);
  if (data.readUInt32LE(0) !== 0xfeedfacf) return "not a 64-bit Mach-O file";
  const ncmds = data.readUInt32LE(16);
  let at = 32;
  let sigOff = -1;
  let sigSize = 0;
  for (let i = 0; i < ncmds; i++) {
    if (data.readUInt32LE(at) === 0x1d) {
      sigOff = data.readUInt32LE(at + 8);
      sigSize = data.readUInt32LE(at + 12);
    }
    at += data.readUInt32LE(at + 4);
  }
  if (sigOff < 0) return "no code signature";
  const blob = data.subarray(sigOff, sigOff + sigSize);
  if (blob.readUInt32BE(0) !== 0xfade0cc0) return "the code signature is not a SuperBlob";
  const problems: string[] = [];
  for (let i = 0; i < blob.readUInt32BE(8); i++) {
    const cd = blob.subarray(blob.readUInt32BE(16 + 8 * i));
    if (cd.readUInt32BE(0) !== 0xfade0c02) continue; // not a CodeDirectory
    const hashOffset = cd.readUInt32BE(16);
    const nCodeSlots = cd.readUInt32BE(28);
    const codeLimit = cd.readUInt32BE(32);
    const hashSize = cd.readUInt8(36);
    const algorithm = cd.readUInt8(37) === 2 ? "sha256" : cd.readUInt8(37) === 1 ? "sha1" : null;
    const pageSize = 2 ** cd.readUInt8(39);
    if (!algorithm) continue;
    let bad = 0;
    for (let k = 0; k < nCodeSlots; k++) {
      const page = data.subarray(k * pageSize, Math.min((k + 1) * pageSize, codeLimit));
      const want = cd.subarray(hashOffset + k * hashSize, hashOffset + (k + 1) * hashSize);
      if (!createHash(algorithm).update(page).digest().subarray(0, hashSize).equals(want)) bad++;
    }
    if (bad > 0) problems.push(`${bad} of ${nCodeSlots} page hashes (${algorithm}) do not match`);
    if (codeLimit !== sigOff)
      problems.push(`the signed range ends at ${codeLimit}, the signature starts at ${sigOff}`);
  }
  return problems.length > 0 ? `invalid code signature: ${problems.join("; ")}` : null;
}

/**
 * Returns the SHA-256 of a file as hex.
 * @param file the file
 * @returns the digest
 */
export function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** Explains a failed build: most often the Bun runtime of the target could not be fetched. */
function whyFailed(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("Downloading"));
  const detail = lines.slice(-3).join(" / ") || "no output";
  const fetch = /download|fetch|network|connect|resolve|tarball|HTTP|ECONN|ENOTFOUND|certificate/i.test(
    output,
  );
  return fetch ? `the Bun runtime for this target could not be fetched (${detail})` : detail;
}

function run(
  command: readonly string[],
  args: string[],
  cwd: string,
): { code: number; stdout: string; stderr: string } {
  const res = Bun.spawnSync([...command, ...args], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: res.exitCode ?? -1, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

/**
 * Returns the command that runs a foreign Linux binary here through qemu user-mode emulation, when this machine
 * has the emulator and the target's C library (Debian: qemu-user and libc6-arm64-cross); else null.
 * @param t the target
 * @returns the command prefix (emulator and its flags), or null
 */
export function emulatorFor(t: ReleaseTarget): string[] | null {
  if (t.os !== "linux" || t.musl || process.platform !== "linux" || t.arch === process.arch) return null;
  const cpu = t.arch === "arm64" ? "aarch64" : "x86_64";
  const emulator = Bun.which(`qemu-${cpu}`) ?? Bun.which(`qemu-${cpu}-static`);
  const sysroot = `/usr/${cpu}-linux-gnu`;
  return emulator && existsSync(sysroot) ? [emulator, "-L", sysroot] : null;
}

/**
 * Smoke-tests a binary: its version, a real search from another directory, and (when the build has an MCP
 * server) an MCP tools/list that names every tool the registry declares.
 * @param command the binary, or an emulator command followed by the binary
 * @returns failures (empty when it passed) and notes
 */
export async function smokeTest(
  command: readonly string[],
): Promise<{ failures: string[]; notes: string[] }> {
  const bin = command;
  const failures: string[] = [];
  const notes: string[] = [];
  const cwd = mkdtempSync(join(tmpdir(), "rglob-release-"));
  try {
    const version = run(bin, ["--version"], cwd);
    const want = `rglob ${pkg.version} (${buildCommit() || "built outside git"})\n`;
    if (version.code !== 0 || version.stdout !== want) {
      failures.push(
        `--version printed ${JSON.stringify(version.stdout)} (exit ${version.code}), expected ${JSON.stringify(want)}`,
      );
    } else notes.push(`--version: ${version.stdout.trim()}`);

    const fixture = join(ROOT, "fixtures", "tree");
    const search = run(bin, ["find", "*.py", "--base", fixture, "--json"], cwd);
    try {
      const rels = (JSON.parse(search.stdout) as { results: Array<{ relative_path: string }> }).results.map(
        (r) => r.relative_path,
      );
      const want = ["hidden/.secret.py", "src/main.py", "src/utils/helper.py"]; // hidden entries are included by default
      if (search.code !== 0 || JSON.stringify(rels) !== JSON.stringify(want)) {
        failures.push(
          `find '*.py' found ${JSON.stringify(rels)} (exit ${search.code}), expected ${JSON.stringify(want)}`,
        );
      } else notes.push(`find '*.py' on fixtures/tree: ${rels.join(", ")}`);
    } catch {
      failures.push(`find --json did not print JSON (exit ${search.code}): ${search.stderr.trim()}`);
    }

    const caps = JSON.parse(run(bin, ["capabilities"], cwd).stdout) as { mcp: { tools: string[] } };
    const probe = await probeMcp(bin, { cwd: fixture, timeoutMs: 30_000 });
    if (probe.ok) {
      const missing = caps.mcp.tools.filter((t) => !probe.tools.includes(t));
      const unlisted = probe.tools.filter((t) => !caps.mcp.tools.includes(t));
      if (missing.length > 0) failures.push(`MCP tools/list lacks ${missing.join(", ")}`);
      else if (unlisted.length > 0)
        failures.push(`capabilities does not name the tools ${unlisted.join(", ")}`);
      else notes.push(`MCP tools/list: ${probe.tools.join(", ")}`);
    } else if (/UNSUPPORTED_PLATFORM|unknown command/.test(probe.reason)) {
      // The build's `rglob mcp` refuses to start by design (no MCP server in it yet): nothing to smoke-test.
      notes.push(`MCP: skipped, this build has no MCP server (${probe.reason.split("\n")[0]})`);
    } else failures.push(`MCP tools/list failed: ${probe.reason}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  return { failures, notes };
}

async function main(): Promise<number> {
  const strict = process.argv.includes("--strict");
  const only = process.argv
    .find((a) => a.startsWith("--only="))
    ?.slice("--only=".length)
    .split(",");
  const targets = TARGETS.filter((t) => !only || only.includes(targetKey(t)));
  if (targets.length === 0) {
    console.error(`release: --only matches no target; targets: ${TARGETS.map(targetKey).join(", ")}`);
    return 2;
  }
  if (!schemasFresh()) return 1;

  const version = pkg.version;
  let failedEarly = false;
  // The library goes into the main npm package: build it fresh.
  const lib = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "build-lib.ts")], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if (lib.exitCode !== 0) return 1;
  rmSync(RELEASE_DIR, { recursive: true, force: true });
  mkdirSync(RELEASE_DIR, { recursive: true });
  console.log(`release: rglob ${version}, ${targets.length} target(s) → dist/release/`);

  const built: Array<{ target: ReleaseTarget; file: string }> = [];
  const missing: Array<{ target: ReleaseTarget; reason: string }> = [];
  const unsigned: Array<{ target: ReleaseTarget; reason: string }> = [];
  for (const t of targets) {
    const name = binaryName(t, version);
    const file = join(RELEASE_DIR, name);
    const started = performance.now();
    const res = buildBinary({ target: t.bun, outfile: file, stdio: "pipe" });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (!res.ok) {
      missing.push({ target: t, reason: whyFailed(res.output) });
      console.log(`  ✗ ${name}: NOT BUILT: ${whyFailed(res.output)}`);
      continue;
    }
    const wrong = formatMismatch(file, t);
    if (wrong) {
      missing.push({ target: t, reason: `wrong executable format: ${wrong}` });
      rmSync(file, { force: true });
      console.log(`  ✗ ${name}: wrong executable format: ${wrong}`);
      continue;
    }
    if (t.os !== "windows") chmodSync(file, 0o755);
    built.push({ target: t, file });
    const mb = (statSync(file).size / 1024 / 1024).toFixed(1);
    const signature = t.os === "darwin" ? machoSignatureProblem(file) : null;
    if (signature) {
      // Kept in the set (a Mac can repair it), but the release is incomplete until it is re-signed.
      unsigned.push({ target: t, reason: signature });
      console.log(`  ! ${name} (${mb} MiB, ${seconds} s): ${signature}; macOS may refuse to run it`);
    } else console.log(`  ✓ ${name} (${mb} MiB, ${seconds} s)`);
  }

  // The npm packages: the main one names every platform (npm skips a missing one as an optional dependency);
  // a platform package is written for each binary built.
  const npmDir = join(RELEASE_DIR, "npm");
  const tarballs = writeNpmPackages(
    npmDir,
    built.map((b) => ({ platform: b.target.npm, file: b.file })),
    TARGETS.map((t) => t.npm),
  );
  for (const t of tarballs) {
    const kb = (statSync(t).size / 1024).toFixed(0);
    console.log(`  ✓ npm/${basename(t)} (${kb} KiB)`);
  }
  const mainSize = statSync(tarballs[0] as string).size;
  if (mainSize >= MAIN_TARBALL_LIMIT) {
    console.log(`release: FAILED: the main npm tarball is ${mainSize} bytes, over ${MAIN_TARBALL_LIMIT}`);
    failedEarly = true;
  }

  // The man page and completions, as rg and fd ship them beside the binary (the npm package has them too).
  const shell = shellArchiveName(version);
  try {
    const written = writeShellArchive(RELEASE_DIR, version);
    console.log(`  ✓ ${shell} (${written.join(", ")})`);
  } catch (err) {
    console.log(`release: FAILED: ${(err as Error).message}`);
    failedEarly = true;
  }

  const files = [
    ...built.map(({ target }) => binaryName(target, version)),
    ...(existsSync(join(RELEASE_DIR, shell)) ? [shell] : []),
    ...tarballs.map((t) => `npm/${basename(t)}`),
  ];
  const sums = files.map((f) => `${sha256(join(RELEASE_DIR, f))}  ${f}\n`).join("");
  writeFileSync(join(RELEASE_DIR, "SHA256SUMS"), sums);
  console.log(`  ✓ SHA256SUMS (${files.length} file(s))`);

  let failed = failedEarly;
  const host = hostTarget();
  const hostBuilt = built.find((b) => b.target === host);
  if (!host) {
    console.log(`smoke test: skipped, no release target runs on ${process.platform}-${process.arch}`);
  } else if (!hostBuilt) {
    if (targets.includes(host)) {
      console.log(`smoke test: FAILED, the binary of this machine (${targetKey(host)}) was not built`);
      failed = true;
    } else console.log(`smoke test: skipped, ${targetKey(host)} is not among the targets asked for`);
  } else {
    const { failures, notes } = await smokeTest([hostBuilt.file]);
    for (const n of notes) console.log(`smoke test: ${n}`);
    for (const f of failures) console.log(`smoke test: FAILED: ${f}`);
    if (failures.length > 0) failed = true;
    else console.log(`smoke test: passed (${binaryName(host, version)})`);
  }
  // Foreign Linux binaries run here too when qemu user-mode emulation is installed: test them the same way.
  for (const b of built) {
    const emulator = emulatorFor(b.target);
    if (!emulator) continue;
    const name = binaryName(b.target, version);
    const { failures } = await smokeTest([...emulator, b.file]);
    for (const f of failures) console.log(`smoke test (${name} under ${emulator[0]}): FAILED: ${f}`);
    if (failures.length > 0) failed = true;
    else console.log(`smoke test: passed (${name} under qemu user-mode emulation)`);
  }

  for (const u of unsigned) {
    const name = binaryName(u.target, version);
    console.log(
      `release: ${name} needs re-signing on a Mac before it ships: ` +
        `codesign --remove-signature ${name} && codesign --force --sign - ${name}, then rewrite SHA256SUMS`,
    );
  }
  if (missing.length > 0 || unsigned.length > 0) {
    const names = missing.map((m) => targetKey(m.target)).join(", ");
    const what = [
      ...(missing.length > 0
        ? [`${missing.length} of ${targets.length} target(s) not built (${names})`]
        : []),
      ...(unsigned.length > 0 ? [`${unsigned.length} with an invalid code signature`] : []),
    ].join(", ");
    console.log(
      `release: INCOMPLETE: ${what}; ` +
        (strict
          ? "failing (--strict)"
          : "the others are built and checksummed (use --strict to fail on this)"),
    );
    if (strict) failed = true;
  } else console.log(`release: complete, ${built.length} binaries and SHA256SUMS in dist/release/`);
  return failed ? 1 : 0;
}

if (import.meta.main) process.exit(await main());
