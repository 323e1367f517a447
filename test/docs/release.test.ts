// The release script's naming and executable checks (building every target is `npm run release`, not a test:
// it downloads runtimes and writes half a gigabyte).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import {
  binaryName,
  formatMismatch,
  hostTarget,
  shellArchiveName,
  TARGETS,
  writeShellArchive,
} from "../../scripts/release.ts";
import { BIN, rglob, skipWhen } from "../helpers.ts";

describe("release", () => {
  test("binaries are named rglob-<version>-<os>-<arch>[-musl][.exe] for the six platforms", () => {
    expect(TARGETS.map((t) => binaryName(t, pkg.version))).toEqual([
      `rglob-${pkg.version}-linux-x64`,
      `rglob-${pkg.version}-linux-x64-musl`,
      `rglob-${pkg.version}-linux-arm64`,
      `rglob-${pkg.version}-darwin-x64`,
      `rglob-${pkg.version}-darwin-arm64`,
      `rglob-${pkg.version}-windows-x64.exe`,
    ]);
  });

  const host = hostTarget();
  skipWhen(!host && `no release target for ${process.platform}-${process.arch}`)(
    "the header check accepts the binary of this machine and refuses it for other targets",
    () => {
      if (!host) throw new Error("unreachable: skipped without a release target");
      expect(formatMismatch(BIN, host)).toBeNull();
      for (const other of TARGETS.filter((t) => t !== host))
        expect(formatMismatch(BIN, other)).not.toBeNull();
    },
  );

  test("the man page and the completions ship beside the binaries, as the binary prints them", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-shell-archive-"));
    try {
      writeShellArchive(dir, pkg.version);
      const archive = join(dir, shellArchiveName(pkg.version));
      expect(shellArchiveName(pkg.version)).toBe(`rglob-${pkg.version}-shell.tar.gz`);
      const top = `rglob-${pkg.version}`;
      const list = spawnSync("tar", ["tzf", archive], { encoding: "utf8" })
        .stdout.split("\n")
        .filter(Boolean);
      const files = [
        ["man/rglob.1", ["man"]],
        ["complete/rglob.bash", ["completions", "bash"]],
        ["complete/_rglob", ["completions", "zsh"]],
        ["complete/rglob.fish", ["completions", "fish"]],
        ["complete/_rglob.ps1", ["completions", "powershell"]],
      ] as const;
      expect(list.filter((f) => !f.endsWith("/")).sort()).toEqual(files.map(([f]) => `${top}/${f}`).sort());
      for (const [file, args] of files) {
        const text = spawnSync("tar", ["xzf", archive, "-O", `${top}/${file}`], { encoding: "utf8" }).stdout;
        expect(text).toBe(rglob([...args]).stdout);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
