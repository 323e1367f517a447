/*! The npm launcher (bin/rglob.cjs) runs the binary as its child and passes on every signal it can catch; it
 * cannot pass on SIGKILL. It sets RGLOB_LAUNCHER_PID to its own pid, and a binary started so checks twice a
 * second (an unref'd timer, which keeps no process alive) that its parent is still that process: when the
 * launcher is gone the binary is reparented, and it ends itself with SIGTERM (the MCP server closes, a search
 * stops) instead of running on unseen. POSIX only: Windows keeps a dead parent's pid. src/config.ts takes the
 * variable out of the environment (takeLauncherPid) so that no process the binary starts inherits it. */

/** Whether a process exists (signal 0 checks without sending). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/** How often the parent is checked. */
const CHECK_MS = 500;

/**
 * Starts the parent check when the launcher asked for it.
 * @param raw the launcher's pid as it set it (RGLOB_LAUNCHER_PID), or null when not started by it
 * @returns whether the check runs
 */
export function watchLauncher(raw: string | null): boolean {
  if (raw === null) return false;
  const launcher = Number(raw);
  if (process.platform === "win32" || !Number.isInteger(launcher) || launcher <= 1) return false;
  const end = () => process.kill(process.pid, "SIGTERM");
  if (process.ppid !== launcher) {
    // Killed before this line ran (the binary is already reparented), or not started by it: an inherited value.
    if (!alive(launcher)) end();
    return false;
  }
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    end();
  }, CHECK_MS);
  timer.unref();
  return true;
}
