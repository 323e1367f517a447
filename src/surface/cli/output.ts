/*! CLI edge: buffered stdout. Writes go out in 64 KiB chunks, the first one and then about every 50 ms
 * sooner, so a stream shows its first line before the walk ends. A closed pipe (`rglob … | head`) raises
 * BrokenPipe, which main.ts turns into a quiet exit: that is how ripgrep treats EPIPE too. */
import * as fs from "node:fs";

/** Thrown when stdout's reader has gone away. */
export class BrokenPipe extends Error {
  override readonly name = "BrokenPipe";
}

const wait = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length > 0) {
    let n: number;
    try {
      n = fs.writeSync(fd, buf);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "EPIPE") throw new BrokenPipe("stdout closed");
      if (code === "EAGAIN") {
        Atomics.wait(wait, 0, 0, 2);
        continue;
      }
      throw err;
    }
    buf = buf.subarray(n);
  }
}

/** A buffered writer on a file descriptor. */
export class Output {
  /** Pending text: appending builds a rope, which the engine flattens once when it is written. */
  private pending = "";
  private lastFlush = 0;
  private wrote = false;
  private writes = 0;

  constructor(private readonly fd: number) {}

  /**
   * Appends text; flushes when the buffer is large, on the first write, or when 50 ms passed (the clock is
   * read every 64 writes: a line costs less than reading it).
   */
  readonly write = (text: string): void => {
    this.pending += text;
    if (
      this.pending.length >= 65536 ||
      !this.wrote ||
      ((++this.writes & 63) === 0 && performance.now() - this.lastFlush > 50)
    )
      this.flush();
  };

  /** Writes everything buffered. */
  flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending;
    this.pending = "";
    this.wrote = true;
    this.lastFlush = performance.now();
    writeAll(this.fd, text);
  }
}

/** Standard output, buffered. */
export const stdout = new Output(1);

/**
 * Writes a line to stderr at once (diagnostics, usage errors, progress).
 * @param text the text, without its newline
 */
export function eprint(text: string): void {
  try {
    writeAll(2, `${text}\n`);
  } catch {}
}

let nullDevice: number | null | undefined;

/**
 * Says whether a standard stream is a terminal. A pipe, a file, a socket or /dev/null is known not to be one
 * from an fstat; only another character device asks the runtime, whose stream objects cost milliseconds of
 * start-up to create.
 * @param fd 1 (stdout) or 2 (stderr)
 * @returns true on a terminal
 */
export function isTerminal(fd: 1 | 2): boolean {
  let rdev: number;
  try {
    const st = fs.fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    rdev = st.rdev;
  } catch {
    return false;
  }
  if (nullDevice === undefined) {
    try {
      nullDevice = fs.statSync("/dev/null").rdev;
    } catch {
      nullDevice = null;
    }
  }
  if (rdev === nullDevice) return false;
  return (fd === 1 ? process.stdout.isTTY : process.stderr.isTTY) === true;
}
