/*! Platform: the runtime rglob runs on (Bun, the binary or from source, or plain Node for the library). The one
 * place that asks `typeof Bun` outside the platform's own implementations, so that the rest of rglob asks a named
 * question (scripts/check-layers.ts); the processes it starts: processes.ts. It never decides policy. */

/** Whether this process runs on Bun (the binary, or from source with bun); false under plain Node. */
export const onBun: boolean = typeof Bun !== "undefined";

/**
 * Names the runtime and its version, as capabilities reports it.
 * @returns "bun 1.x.y" or "node 2x.y.z"
 */
export function runtimeVersion(): string {
  return onBun ? `bun ${Bun.version}` : `node ${process.versions.node}`;
}

/**
 * Returns the script Bun runs when rglob runs from source (`bun src/main.ts`), or null in the compiled binary
 * (whose modules live in its own /$bunfs) and under Node. The binary is told by this module's own path: Bun.main
 * opens the entry (O_PATH, to resolve a link) at its first read, which there fails with ENOENT on
 * /$bunfs/root/rglob, a system call in every served CLI call's client.
 * @returns the script's path, or null
 */
export function sourceScript(): string | null {
  return onBun && !import.meta.path.startsWith("/$bunfs") ? Bun.main : null;
}

/**
 * Waits a while without holding the thread.
 * @param ms how long
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * SHA-256 of a string as hex, by Bun's native hasher (no module to load); Bun only (the library under Node
 * passes node:crypto's where it needs one).
 * @param text the string (hashed as UTF-8)
 * @returns 64 hex digits
 */
export function bunSha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/**
 * Collects the garbage of the whole heap now, synchronously (Bun only; nothing under Node): a caller that just
 * dropped a large structure and is about to build another lets the new one reuse its memory instead of growing
 * the process by both.
 */
export function collectGarbage(): void {
  if (onBun) Bun.gc(true);
}

/** Buffer#utf8Write, where the runtime has it (Bun and Node do, undocumented). */
const nativeUtf8Write = (
  Buffer.prototype as unknown as { utf8Write?: (this: Buffer, text: string, at: number) => number }
).utf8Write;

/**
 * Encodes text as UTF-8 into buf at `at`, as `buf.write(text, at)` does (lone surrogates as U+FFFD): through
 * `utf8Write` when there is one, about 40 % faster per short line (it skips the argument parsing).
 * @returns the bytes written
 */
export const utf8Write: (buf: Buffer, text: string, at: number) => number =
  typeof nativeUtf8Write === "function"
    ? (buf, text, at) => nativeUtf8Write.call(buf, text, at)
    : (buf, text, at) => buf.write(text, at);
