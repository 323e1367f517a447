// What a build says about itself: `rglob --version` and `capabilities` name the version and the commit the
// binary was built from (injected at build time), a build outside git says so, and `capabilities` lists the
// MCP tools the server serves.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { buildCommit } from "../../scripts/build.ts";
import { ROOT, rglob, rglobJson, skipWhen } from "../helpers.ts";

/** Whether the temp directory is inside a git work tree (then no directory made in it is outside git). */
const tmpInGit = spawnSync("git", ["rev-parse", "--git-dir"], { cwd: tmpdir() }).status === 0;

describe("version and commit", () => {
  test("rglob --version prints `rglob <version> (<commit>)` of this checkout", () => {
    const commit = buildCommit();
    const r = rglob(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`rglob ${pkg.version} (${commit || "built outside git"})\n`);
    if (commit) expect(commit).toMatch(/^[0-9a-f]{7,}(-dirty)?$/);
  });

  test("capabilities carries the same commit as build_commit", () => {
    const { json } = rglobJson(["capabilities"]);
    expect(json.package_version).toBe(pkg.version);
    expect(json.build_commit).toBe(buildCommit() || null);
  });

  skipWhen(tmpInGit && `the temp directory ${tmpdir()} is inside a git work tree`)(
    "a directory outside git gives no commit, and such a build says `built outside git`",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "rglob-nogit-"));
      try {
        expect(buildCommit(dir)).toBe("");
        // The same define scripts/build.ts passes, on an uncompiled bundle (compiling costs a minute here).
        const out = join(dir, "main.js");
        const b = spawnSync(
          process.execPath,
          [
            "build",
            "--target=bun",
            "--define=RGLOB_BUILD_COMMIT=" + JSON.stringify(""),
            join(ROOT, "src", "main.ts"),
            "--outfile",
            out,
          ],
          { encoding: "utf8" },
        );
        expect(b.status).toBe(0);
        const r = spawnSync(process.execPath, [out, "--version"], { encoding: "utf8", cwd: dir });
        expect(r.stdout).toBe(`rglob ${pkg.version} (built outside git)\n`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
