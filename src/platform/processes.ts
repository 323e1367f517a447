/*! Platform: the processes rglob starts (node:child_process, loaded only by the code that starts one). It never
 * decides policy. */
import { spawn } from "node:child_process";
import { sourceScript } from "./runtime.ts";

/**
 * Starts this program again, detached from this process (its own session, no standard streams), and never waits
 * for it: `rglob serve --detach`.
 * @param args the arguments after the program (the script's path is put first when running from source)
 * @param cwd the new process's working directory
 * @param onExit called if it exits while this process lives
 */
export function startDetachedSelf(args: readonly string[], cwd: string, onExit: () => void): void {
  const script = sourceScript();
  const child = spawn(process.execPath, [...(script === null ? [] : [script]), ...args], {
    cwd,
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  child.on("exit", onExit);
}
