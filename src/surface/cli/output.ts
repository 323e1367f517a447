/*! CLI edge: buffered stdout. Output gathers in one reused byte buffer and goes out in 64 KiB chunks, the first
 * one and then about every 50 ms sooner, so a stream shows its first line before the walk ends. Sinks that
 * print many short lines write their pieces as bytes (a cached path, a number, a line), which costs less than
 * building each line as a string and encoding it. A closed pipe (`rglob … | head`) raises BrokenPipe, which
 * main.ts turns into a quiet exit: that is how ripgrep treats EPIPE too. */
import { statDescriptor, statPath, writeSome } from "../../platform/files.ts";
import { encodeName, hasRawBytes } from "../../platform/names.ts";
import { waitWritable } from "../../platform/poll.ts";
import { utf8Write } from "../../platform/runtime.ts";

/** Thrown when stdout's reader has gone away. */
class BrokenPipe extends Error {
  override readonly name = "BrokenPipe";
}

const wait = new Int32Array(new SharedArrayBuffer(4));

/** Where fd 1 and 2 go while a warm server answers a client's call (src/surface/serve/server.ts), else null. */
let route: ((fd: 1 | 2, bytes: Uint8Array) => void) | null = null;
/** The client's answers to "is stdout / stderr a terminal" while its call is answered, else null. */
let routeTtys: readonly [boolean, boolean] | null = null;

/**
 * Sends what the CLI writes to stdout and stderr elsewhere (a warm server's client), with the client's
 * terminals, or back to the process's own (null). Standard output's buffer starts afresh.
 */
export function routeOutput(
  to: ((fd: 1 | 2, bytes: Uint8Array) => void) | null,
  ttys: readonly [boolean, boolean] | null,
): void {
  route = to;
  routeTtys = ttys;
  stdout.restart();
}

/** Writes to stdout (1) or stderr (2): the process's, or the client's while a call is served. */
function emit(fd: 1 | 2, bytes: Uint8Array): void {
  if (route !== null) route(fd, bytes);
  else writeAll(fd, bytes);
}

/**
 * Writes every byte to a file descriptor before it returns (on a non-blocking pipe, waiting after EAGAIN until
 * it takes more: platform/poll.ts).
 * @throws BrokenPipe when the reader has gone away
 */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let buf = bytes;
  while (buf.length > 0) {
    let n: number;
    try {
      n = writeSome(fd, buf);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "EPIPE") throw new BrokenPipe("stdout closed");
      if (code === "EAGAIN") {
        // Until the reader has taken some (poll), else a short sleep.
        if (!waitWritable(fd, 1000)) Atomics.wait(wait, 0, 0, 1);
        continue;
      }
      throw err;
    }
    buf = buf.subarray(n);
  }
}

/**
 * Writes a non-negative integer's decimal digits into buf at `at` (room for 16 bytes is the caller's).
 * @returns the offset after them
 */
function digits(buf: Buffer, at: number, n: number): number {
  let len = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) len++;
  let i = at + len;
  for (let x = n; ; ) {
    const q = Math.floor(x / 10);
    buf[--i] = 48 + x - q * 10;
    if (q === 0) break;
    x = q;
  }
  return at + len;
}

/** Where human output goes: whole texts, or a line's pieces followed by end(). */
export interface Out {
  /** Appends text and lets the buffer go out when it is due. */
  readonly write: (text: string) => void;
  /** Appends text (UTF-8), as a piece of a line. */
  text(text: string): void;
  /** Appends bytes, as a piece of a line. */
  bytes(bytes: Uint8Array): void;
  /** Appends one byte (an ASCII separator), as a piece of a line. */
  byte(b: number): void;
  /** Ends a line written in pieces: the buffer goes out when it is due. */
  end(): void;
  /**
   * Writes a whole `name<sep>number<sep>text` line (grep's), in one call: the name's bytes and its separator
   * when a name is given, the number and its separator when it is not negative.
   */
  line(name: Uint8Array | null, sep: number, n: number, text: string): void;
  /** The same line with its text given as bytes [from, to) of buf (valid UTF-8), copied as they are. */
  lineBytes(name: Uint8Array | null, sep: number, n: number, buf: Uint8Array, from: number, to: number): void;
}

/** Bytes gathered before they are written. */
const CHUNK = 65536;
const NEWLINE = 10;

/**
 * A buffered writer on a file descriptor. Whole texts are appended to a string (a rope, which the engine
 * flattens once per chunk: cheaper than encoding each short JSON line); pieces go to a reused byte buffer,
 * after the texts before them.
 */
class Output implements Out {
  private pending = "";
  /** Twice a chunk: a chunk is written once it is full, so a line of up to a chunk always fits after it. */
  private readonly buf = Buffer.allocUnsafe(2 * CHUNK);
  private pos = 0;
  private lastFlush = 0;
  private wrote = false;
  private writes = 0;

  constructor(private readonly fd: 1 | 2) {}

  /** Forgets what is buffered and when it last wrote (a served call starts as a new process would). */
  restart(): void {
    this.pending = "";
    this.pos = 0;
    this.lastFlush = 0;
    this.wrote = false;
    this.writes = 0;
  }

  /**
   * Appends text; flushes when a chunk is full, on the first write, or when 50 ms passed (the clock is read
   * every 64 writes: a line costs less than reading it).
   */
  readonly write = (text: string): void => {
    this.pending += text;
    if (this.pending.length >= CHUNK) this.flush();
    else this.end();
  };

  /** Moves the pending texts into the byte buffer, so pieces come after them. */
  private settle(): void {
    const text = this.pending;
    this.pending = "";
    this.text(text);
  }

  /** Makes room for n more bytes; false when n bytes can never fit (the buffer was written out). */
  private fits(n: number): boolean {
    if (this.pos + n <= this.buf.length) return true;
    this.writeBuffer();
    return n <= this.buf.length;
  }

  text(text: string): void {
    if (this.pending !== "") this.settle();
    // A name that is not valid UTF-8 is written as its raw bytes (as rg and fd do; platform/names.ts).
    if (hasRawBytes(text)) {
      this.bytes(encodeName(text));
      return;
    }
    // At most 3 bytes per UTF-16 unit (a surrogate pair is 2 units for 4 bytes).
    if (this.fits(text.length * 3)) this.pos += utf8Write(this.buf, text, this.pos);
    else this.direct(Buffer.from(text));
  }

  bytes(bytes: Uint8Array): void {
    if (this.pending !== "") this.settle();
    if (this.fits(bytes.length)) {
      this.buf.set(bytes, this.pos);
      this.pos += bytes.length;
    } else this.direct(bytes);
  }

  /** Appends a non-negative integer in decimal (the long-line path of line()). */
  private uint(n: number): void {
    if (this.pending !== "") this.settle();
    this.fits(16);
    this.pos = digits(this.buf, this.pos, n);
  }

  byte(b: number): void {
    if (this.pending !== "") this.settle();
    this.fits(1);
    this.buf[this.pos++] = b;
  }

  line(name: Uint8Array | null, sep: number, n: number, text: string): void {
    // At most 3 bytes per UTF-16 unit; a very long line goes piece by piece (its text may go out directly).
    if (!this.lineHead(name, sep, n, text.length * 3)) this.text(text);
    else this.pos += utf8Write(this.buf, text, this.pos);
    this.lineEnd();
  }

  lineBytes(
    name: Uint8Array | null,
    sep: number,
    n: number,
    src: Uint8Array,
    from: number,
    to: number,
  ): void {
    if (!this.lineHead(name, sep, n, to - from)) this.bytes(src.subarray(from, to));
    else {
      this.buf.set(src.subarray(from, to), this.pos);
      this.pos += to - from;
    }
    this.lineEnd();
  }

  /**
   * Writes the `name<sep>number<sep>` of a grep line: into the buffer, with room made for a text of up to
   * `textBytes` after it (true); or, when the line would not fit a chunk, as pieces (false: the caller writes the
   * text as a piece too).
   */
  private lineHead(name: Uint8Array | null, sep: number, n: number, textBytes: number): boolean {
    if (this.pending !== "") this.settle();
    const room = (name === null ? 0 : name.length + 1) + 18 + textBytes;
    if (room > CHUNK) {
      if (name !== null) {
        this.bytes(name);
        this.byte(sep);
      }
      if (n >= 0) {
        this.uint(n);
        this.byte(sep);
      }
      return false;
    }
    this.fits(room);
    const buf = this.buf;
    let pos = this.pos;
    if (name !== null) {
      buf.set(name, pos);
      pos += name.length;
      buf[pos++] = sep;
    }
    if (n >= 0) {
      pos = digits(buf, pos, n);
      buf[pos++] = sep;
    }
    this.pos = pos;
    return true;
  }

  /** Ends a grep line: its newline, and the buffer goes out when it is due. */
  private lineEnd(): void {
    this.byte(NEWLINE);
    this.end();
  }

  end(): void {
    if (
      this.pos >= CHUNK ||
      !this.wrote ||
      ((++this.writes & 63) === 0 && performance.now() - this.lastFlush > 50)
    )
      this.flush();
  }

  private direct(bytes: Uint8Array): void {
    this.wrote = true;
    this.lastFlush = performance.now();
    emit(this.fd, bytes);
  }

  private writeBuffer(): void {
    if (this.pos === 0) return;
    const n = this.pos;
    this.pos = 0;
    this.direct(this.buf.subarray(0, n));
  }

  /** Writes everything buffered. */
  flush(): void {
    if (this.pending !== "") this.settle();
    this.writeBuffer();
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
    // What stdout holds goes first, so that a reader of both streams (2>&1) sees a note after the lines it
    // speaks of, not in the middle of them.
    stdout.flush();
    emit(2, Buffer.from(`${text}\n`));
  } catch {}
}

/**
 * Writes text to stderr at once, as it is (progress lines).
 * @param text the text
 */
export function ewrite(text: string): void {
  try {
    emit(2, Buffer.from(text));
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
  if (routeTtys !== null) return routeTtys[fd - 1] === true;
  let rdev: number;
  try {
    const st = statDescriptor(fd);
    if (!st.isCharacterDevice()) return false;
    rdev = st.rdev;
  } catch {
    return false;
  }
  if (nullDevice === undefined) {
    try {
      nullDevice = statPath("/dev/null").rdev;
    } catch {
      nullDevice = null;
    }
  }
  if (rdev === nullDevice) return false;
  return (fd === 1 ? process.stdout.isTTY : process.stderr.isTTY) === true;
}
