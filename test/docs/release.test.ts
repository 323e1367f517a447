// The release script's naming and executable checks (building every target is `npm run release`, not a test:
// it downloads runtimes and writes half a gigabyte).
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { binaryName, formatMismatch, hostTarget, TARGETS } from "../../scripts/release.ts";
import { BIN } from "../helpers.ts";

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

  test("the header check accepts the binary of this machine and refuses it for other targets", () => {
    const host = hostTarget();
    if (!host) {
      console.warn(
        `release: no release target for ${process.platform}-${process.arch}; header check skipped`,
      );
      return;
    }
    expect(formatMismatch(BIN, host)).toBeNull();
    for (const other of TARGETS.filter((t) => t !== host)) expect(formatMismatch(BIN, other)).not.toBeNull();
  });
});
