/*! The floor of a served CLI call (#36, ADR 0033): the smallest Bun program that asks a running warm server
 * (`rglob serve`, or `rglob mcp` in its roots) to answer one call and prints its answer. It does only what no
 * client can skip: the request line (argv, working directory, environment, terminals), one connection to the
 * socket, the frames' bytes written to stdout and stderr, the exit code. It does not look for the socket (its
 * path is given), check the socket directory or the socket's owner, stat its standard input, or keep a deadline:
 * what a served `rglob` call costs over this program is its client's checks, its start and its module loading.
 * Compiled by scripts/bench-serve.ts with the binary's flags (scripts/build.ts).
 * Usage: floor-serve SOCKET BUILD ARG... (BUILD: the build identity the server answers, scripts/bench-serve.ts
 * computes it as src/surface/serve/where.ts buildId does for the rglob binary). */
import { fstatSync, statSync, writeSync } from "node:fs";

/** Whether fd 1 or 2 is a terminal: an fstat tells for a pipe, a file, a socket or /dev/null; only another
 * character device asks isatty (node:tty, whose module costs more start-up than the rest of this program). */
async function tty(fd: 1 | 2): Promise<boolean> {
  const st = fstatSync(fd);
  if (!st.isCharacterDevice() || st.rdev === statSync("/dev/null").rdev) return false;
  return (await import("node:tty")).isatty(fd);
}

const [sock, build, ...argv] = process.argv.slice(2) as [string, string, ...string[]];
const request = `${JSON.stringify({
  v: 1,
  build,
  type: "call",
  argv,
  cwd: process.cwd(),
  env: process.env,
  tty: [await tty(1), await tty(2)],
  stdin: "other",
})}\n`;

let pending = new Uint8Array(0);

/** Writes every byte to fd 1 or 2. */
function out(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

/** Plays the frames received so far: one byte of type, a 4-byte big-endian length, the payload. */
function frames(data: Uint8Array): void {
  let buf = data;
  if (pending.length > 0) {
    buf = new Uint8Array(pending.length + data.length);
    buf.set(pending);
    buf.set(data, pending.length);
  }
  let at = 0;
  while (buf.length - at >= 5) {
    const len =
      (((buf[at + 1] as number) << 24) >>> 0) +
      (((buf[at + 2] as number) << 16) | ((buf[at + 3] as number) << 8) | (buf[at + 4] as number));
    if (buf.length - at - 5 < len) break;
    const type = buf[at] as number;
    const body = buf.subarray(at + 5, at + 5 + len);
    at += 5 + len;
    if (type === 0x4f) out(1, body);
    else if (type === 0x45) out(2, body);
    else if (type === 0x58) process.exit(Number(new TextDecoder().decode(body)));
    else if (type === 0x44 || type === 0x53) process.exit(3); // declined, or stopped by a signal
  }
  pending = buf.slice(at);
}

await Bun.connect({
  unix: sock,
  socket: {
    open: (s) => void s.write(request),
    data: (_s, data) => frames(data),
    close: () => process.exit(3),
  },
});
