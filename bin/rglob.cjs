#!/usr/bin/env node
// The `rglob` command of the npm package: finds the native binary of this platform (the optional dependency
// @rglob/<os>-<arch>[-musl] that npm installed beside this package) and runs it with the same arguments, stdio
// and exit status. RGLOB_BINARY names a binary to run instead. Plain CommonJS with no dependencies, so that it
// runs on any Node that can start it. Scheme and reasons: docs/decisions/0022-npm-packages-per-platform.md.
"use strict";
const { spawn } = require("node:child_process");
const { existsSync } = require("node:fs");
const path = require("node:path");

const SUPPORTED = ["linux-x64", "linux-x64-musl", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];

function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report?.getReport();
    const header = report && (typeof report === "string" ? JSON.parse(report) : report).header;
    return Boolean(header) && !header.glibcVersionRuntime;
  } catch {
    return existsSync("/etc/alpine-release");
  }
}

/** The keys to try, the best fit first (the other C library's build as a fallback). */
function candidates() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== "linux") return [base];
  return isMusl() ? [`${base}-musl`, base] : [base, `${base}-musl`];
}

function findBinary() {
  const exe = process.platform === "win32" ? "rglob.exe" : "rglob";
  for (const key of candidates()) {
    try {
      const manifest = require.resolve(`@rglob/${key}/package.json`);
      const file = path.join(path.dirname(manifest), "bin", exe);
      if (existsSync(file)) return file;
    } catch {
      // not installed: try the next one
    }
  }
  // A source checkout: `npm run build` writes dist/rglob beside bin/.
  const local = path.join(__dirname, "..", "dist", exe);
  return existsSync(local) ? local : null;
}

function fail(message) {
  process.stderr.write(`rglob: ${message}\n`);
  process.exit(2);
}

const binary = process.env.RGLOB_BINARY || findBinary();
if (!binary) {
  const key = candidates()[0];
  if (!SUPPORTED.includes(key)) {
    fail(
      `no prebuilt binary for ${key} (there are: ${SUPPORTED.join(", ")}). ` +
        "Build one from source (`npm ci && npm run build` in a clone gives dist/rglob) and set RGLOB_BINARY to it.",
    );
  }
  fail(
    `the binary for ${key} is missing: npm installs it as the optional dependency @rglob/${key}. ` +
      "Reinstall without --omit=optional / --no-optional (a lockfile made on another platform can also leave it " +
      "out: `npm install @rglob/" +
      key +
      "`), download a release binary, or set RGLOB_BINARY to one.",
  );
}

// Signals sent to the launcher are passed on to the binary (a terminal's Ctrl-C reaches both: the binary then
// gets SIGINT twice, which ends it the same way). SIGKILL cannot be caught: RGLOB_LAUNCHER_PID tells the binary
// whose child it is, and the binary ends itself (SIGTERM) when its parent is no longer this process
// (src/platform/launcher-watch.ts).
const FORWARD = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGBREAK"];
const env = { ...process.env, RGLOB_LAUNCHER_PID: String(process.pid) };
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true, env });
const listening = [];
for (const signal of FORWARD) {
  try {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
    listening.push(signal);
  } catch {
    // a signal this platform does not have
  }
}
child.on("error", (err) => fail(`could not run ${binary}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (!signal) process.exit(code === null ? 2 : code);
  // Die of the binary's signal, as a shell reports it (exit 128+n). Node ignores SIGPIPE and starts its debugger
  // on SIGUSR1; a listener added and removed hands the signal back to its default action (libuv restores
  // SIG_DFL), so re-raising it ends this process too. If it still does not, exit with the status a shell gives.
  for (const s of listening) process.removeAllListeners(s);
  if (process.platform !== "win32") {
    try {
      process.on(signal, () => {});
      process.removeAllListeners(signal);
    } catch {
      // SIGKILL and SIGSTOP take no listener (and need none)
    }
    try {
      process.kill(process.pid, signal);
    } catch {
      // not a signal Node can raise here
    }
  }
  process.exit(128 + (require("node:os").constants.signals[signal] ?? 0));
});
