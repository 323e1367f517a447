// The npm launcher bin/rglob.cjs as a shell sees it, with real processes: it ends the way the binary ended
// (the same exit status, or killed by the same signal), passes on the signals it can catch, and the binary does
// not run on when the launcher itself is killed with SIGKILL (src/platform/launcher-watch.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, FIXTURE, ROOT } from "../helpers.ts";

const LAUNCHER = join(ROOT, "bin", "rglob.cjs");
const linux = process.platform === "linux";
/** The FIFOs' descriptors, closed at the end. */
const held: number[] = [];
afterAll(() => {
  for (const fd of held) closeSync(fd);
});

/** Windows has neither /bin/sh nor POSIX signals; the binary is found through Linux's /proc. */
const windows = process.platform === "win32";

/** The launcher running `sh -c SCRIPT` as its binary. */
function launchShell(script: string) {
  return spawnSync("node", [LAUNCHER, "-c", script], {
    env: { ...process.env, RGLOB_BINARY: "/bin/sh" },
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** The pids of a process's children (Linux /proc). */
function children(pid: number): number[] {
  const out: number[] = [];
  const tasks = join("/proc", String(pid), "task");
  if (!existsSync(tasks)) return out;
  for (const t of readdirSync(tasks)) {
    try {
      for (const c of readFileSync(join(tasks, t, "children"), "utf8")
        .trim()
        .split(/\s+/))
        if (c) out.push(Number(c));
    } catch {
      // the task ended
    }
  }
  return out;
}

/** Whether a pid is a running process (not gone, not a zombie waiting for a reaper). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(join("/proc", String(pid), "stat"), "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (ok()) return;
    await Bun.sleep(50);
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * Starts the launcher running `rglob mcp` (it serves until its stdin closes) and returns it with the binary's pid.
 * Its stdin is a FIFO this process holds open itself: a pipe from spawn() is closed when the launcher exits,
 * which would end the server for another reason.
 */
async function launchMcp() {
  const fifo = join(mkdtempSync(join(tmpdir(), "rglob-launcher-")), "stdin");
  expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
  const stdin = openSync(fifo, "r+");
  held.push(stdin);
  const launcher = spawn("node", [LAUNCHER, "mcp", "--root", FIXTURE], {
    env: { ...process.env, RGLOB_BINARY: BIN, RGLOB_WARM: "0" },
    stdio: [stdin, "pipe", "pipe"],
  });
  let stderr = "";
  launcher.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  await until("the server to start", () => stderr.includes("serving"));
  const pid = launcher.pid as number;
  let binary = 0;
  await until("the binary to start", () => {
    binary = children(pid).find((c) => readFileSync(`/proc/${c}/cmdline`, "utf8").includes("mcp")) ?? 0;
    return binary > 0;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    launcher.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { launcher, binary, exited };
}

describe("npm launcher", () => {
  test.skipIf(windows)("exits with the binary's status (skipped on Windows: no /bin/sh)", () => {
    expect(launchShell("exit 0").status).toBe(0);
    expect(launchShell("exit 1").status).toBe(1);
    expect(launchShell("exit 7").status).toBe(7);
  });

  // Before: SIGPIPE and SIGUSR1 gave exit 0 (Node ignores the one and starts its debugger on the other), so
  // `rglob … | head` in a `set -o pipefail` script, or a supervisor, saw success.
  for (const signal of ["SIGPIPE", "SIGUSR1", "SIGUSR2", "SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"]) {
    test.skipIf(windows)(
      `dies of ${signal} when the binary does, as a shell would see it (skipped on Windows: POSIX signals)`,
      () => {
        const r = launchShell(`kill -${signal.slice(3)} $$`);
        expect({ status: r.status, signal: r.signal }).toEqual({
          status: null,
          signal: signal as NodeJS.Signals,
        });
        expect(r.stderr).not.toContain("Debugger");
        const sh = spawnSync(
          "sh",
          ["-c", `RGLOB_BINARY=/bin/sh node ${LAUNCHER} -c 'kill -${signal.slice(3)} $$'; echo $?`],
          {
            encoding: "utf8",
          },
        );
        const { constants } = require("node:os") as typeof import("node:os");
        expect(sh.stdout.trim()).toBe(
          String(128 + constants.signals[signal as keyof typeof constants.signals]),
        );
      },
    );
  }

  for (const signal of ["SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"] as const) {
    test.skipIf(!linux)(
      `passes ${signal} on to the binary and dies of it (skipped off Linux: reads /proc to find the binary)`,
      async () => {
        const { launcher, binary, exited } = await launchMcp();
        launcher.kill(signal);
        await until("the binary to end", () => !running(binary));
        const end = await exited;
        // The MCP server closes on SIGTERM (exit 0); the others end it by their default action.
        if (signal === "SIGTERM") expect(end.code === 0 || end.signal === "SIGTERM").toBe(true);
        else expect(end).toEqual({ code: null, signal });
      },
      90_000,
    );
  }

  test.skipIf(!linux)(
    "the binary ends when the launcher is killed with SIGKILL (skipped off Linux: reads /proc to find the binary)",
    async () => {
      const { launcher, binary, exited } = await launchMcp();
      expect(running(binary)).toBe(true);
      launcher.kill("SIGKILL");
      expect((await exited).signal).toBe("SIGKILL");
      // Its stdin is still open (this process holds the FIFO): before, it served on, unseen, until that closed.
      await until("the orphaned binary to end", () => !running(binary));
    },
    90_000,
  );
});
