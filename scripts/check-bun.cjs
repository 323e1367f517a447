#!/usr/bin/env node
// Runs before the npm scripts that need Bun (build, test, gen, release, bench): checks that the Bun of the `bun`
// devDependency runs, and when it does not, says why and how to fix it instead of leaving the user with Bun's
// placeholder error. npm installs the real Bun executable from a postinstall script; npm 12 runs a dependency's
// install scripts only when package.json's `allowScripts` names it (this repository names `bun`), and
// `--ignore-scripts`, an `ignore-scripts=true` npmrc or another package manager's policy skip it too. Plain
// CommonJS for Node, since Bun is what may be missing. Exit 0 when Bun runs, 1 with the fix when not.
"use strict";
const { spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const exe = process.platform === "win32" ? "bun.exe" : "bun";
const bun = path.join(root, "node_modules", ".bin", exe);
const installer = path.join("node_modules", "bun", "install.js");

function fail(why) {
  process.stderr.write(
    `rglob: ${why}\n` +
      "npm installs Bun's executable from the postinstall script of the `bun` devDependency. npm 12 runs it only\n" +
      "for packages that package.json's `allowScripts` names (this repository names `bun`); --ignore-scripts,\n" +
      "`ignore-scripts=true` in an .npmrc, or a package manager that blocks install scripts skip it too.\n" +
      "Fix: run Bun's postinstall by hand, then this command again:\n" +
      `  node ${installer}\n` +
      "(or `npm rebuild bun`; with pnpm, `pnpm approve-builds`).\n",
  );
  process.exit(1);
}

if (!existsSync(path.join(root, installer))) fail("Bun is not installed here: run `npm ci` first.");
const r = spawnSync(existsSync(bun) ? bun : "bun", ["--version"], { encoding: "utf8", windowsHide: true });
if (r.error) fail(`Bun could not be started (${r.error.message}).`);
if (r.status !== 0) {
  const said = `${r.stderr || ""}${r.stdout || ""}`.trim().split("\n")[0] || `exit ${r.status}`;
  fail(`Bun does not run: ${said}`);
}
