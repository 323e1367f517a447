/*! CLI edge: buffered stdout. Writes go out in 64 KiB chunks, the first one and then at most every 50 ms
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
  private chunks: string[] = [];
  private size = 0;
  private lastFlush = 0;
  private wrote = false;

  constructor(private readonly fd: number) {}

  /** Appends text; flushes when the buffer is large, on the first write, or when 50 ms passed. */
  readonly write = (text: string): void => {
    this.chunks.push(text);
    this.size += text.length;
    if (this.size >= 65536 || !this.wrote || performance.now() - this.lastFlush > 50) this.flush();
  };

  /** Writes everything buffered. */
  flush(): void {
    if (this.chunks.length === 0) return;
    const text = this.chunks.join("");
    this.chunks = [];
    this.size = 0;
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
