// Every npm script runs files that exist: `npm run bench` once named a scripts/bench.ts that was never there.
// And the README's set-up commands hold under npm 12, which runs a dependency's install scripts only when
// package.json's `allowScripts` names it (Bun's executable comes from the `bun` devDependency's postinstall).
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { ROOT } from "../helpers.ts";

test("each package.json script names only files that exist", () => {
  const missing: string[] = [];
  let named = 0;
  for (const [name, command] of Object.entries(pkg.scripts)) {
    for (const file of command.match(/\bscripts\/[\w.-]+\.c?[tj]s\b/g) ?? []) {
      named++;
      if (!existsSync(join(ROOT, file))) missing.push(`${name}: ${file}`);
    }
  }
  expect(named).toBeGreaterThan(5);
  expect(missing).toEqual([]);
});

/** The installed packages (node_modules, one level of scopes) whose package.json declares an install script. */
function packagesWithInstallScripts(): string[] {
  const found: string[] = [];
  const nm = join(ROOT, "node_modules");
  const look = (dir: string, name: string) => {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) return;
    const scripts = (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> })
      .scripts;
    if (scripts && ["preinstall", "install", "postinstall"].some((s) => s in scripts)) found.push(name);
  };
  for (const entry of readdirSync(nm)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      for (const sub of readdirSync(join(nm, entry))) look(join(nm, entry, sub), `${entry}/${sub}`);
    } else look(join(nm, entry), entry);
  }
  return found.sort();
}

test("allowScripts names every dependency with an install script, by name (npm 12 runs no other)", () => {
  const allowed = (pkg as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
  // Name-only keys: a pinned key (`bun@1.4.5`) is refused where the lockfile records no resolved URL
  // (omit-lockfile-registry-resolved), and the lockfile pins the version and its integrity anyway.
  const withScripts = packagesWithInstallScripts();
  expect(withScripts).toContain("bun");
  expect(Object.keys(allowed).sort()).toEqual(withScripts);
  // Bun's postinstall fetches its binary and must run; the grammar packages' native builds are denied by name:
  // the region differential uses only their .wasm files (docs/decisions/0036-region-oracles.md).
  expect(
    Object.entries(allowed)
      .filter(([, v]) => v === true)
      .map(([k]) => k),
  ).toEqual(["bun"]);
  expect(Object.values(allowed).every((v) => typeof v === "boolean")).toBe(true);
  // The scripts that run Bun check it first.
  for (const name of ["build", "test", "gen", "release"]) {
    expect(pkg.scripts[name as keyof typeof pkg.scripts]).toStartWith("node scripts/check-bun.cjs && ");
  }
});

test("when Bun's postinstall did not run, the build says why and how to fix it (exit 1)", () => {
  // A checkout whose node_modules holds Bun's placeholder, as npm 12 leaves it without allowScripts.
  const dir = mkdtempSync(join(tmpdir(), "rglob-nobun-"));
  try {
    mkdirSync(join(dir, "scripts"));
    copyFileSync(join(ROOT, "scripts", "check-bun.cjs"), join(dir, "scripts", "check-bun.cjs"));
    mkdirSync(join(dir, "node_modules", "bun"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "bun", "install.js"), "");
    mkdirSync(join(dir, "node_modules", ".bin"));
    const placeholder = join(dir, "node_modules", ".bin", "bun");
    writeFileSync(
      placeholder,
      '#!/bin/sh\necho "Error: Bun\'s postinstall script was not run." >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const r = spawnSync("node", [join(dir, "scripts", "check-bun.cjs")], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Bun's postinstall script was not run");
    expect(r.stderr).toContain("allowScripts");
    expect(r.stderr).toContain("node node_modules/bun/install.js");
    // The real one runs.
    const ok = spawnSync("node", [join(ROOT, "scripts", "check-bun.cjs")], { cwd: ROOT, encoding: "utf8" });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the README opens with the two set-up commands, a search and the tests, and their npm scripts exist", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => (m[1] as string).trim());
  expect(blocks.slice(0, 2)).toEqual([
    "npm ci && npm run build && ./dist/rglob grep -w RglobError src --max-total 3",
    "npm ci && npm test",
  ]);
  // Nothing but the title and one paragraph before them.
  expect(readme.indexOf("```sh")).toBeLessThan(readme.indexOf("\n## "));
  expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(["build", "test"]));
  // .ci/run runs the second.
  expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toContain("npm ci --no-audit --no-fund\nnpm test\n");
});
