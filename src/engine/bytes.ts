/*! Engine: a read buffer with fast byte kernels. The bytes live in a WebAssembly memory so that SIMD kernels
 * (16 bytes per instruction) count newlines, or find where they are, in place: about 10x faster than one native
 * `indexOf` per line, which was the cost of numbering lines in grep, of sliding its large-file windows and of
 * splitting lines in count; a third finds an ASCII literal in any case (grep -i's prefilter) without turning the
 * bytes into a string. Files are read straight into it (no copy). Without WebAssembly it falls back to a plain
 * Buffer and JavaScript loops. The kernel's source is kernel.wat, assembled by wasm-kernel.ts, run as a Bun macro
 * when this file is bundled or transpiled (no binary blob, nothing assembled at run time). No I/O. */
import { kernelBase64 } from "./wasm-kernel.ts" with { type: "macro" };

/** A reusable byte buffer whose newlines can be counted fast. */
export interface ByteBuffer {
  /** The bytes. Replaced by grow() and shrink(): read it again after calling them. */
  readonly bytes: Buffer;
  /**
   * Makes `bytes` at least `size` long, keeping its first `keep` bytes.
   * @returns the new `bytes`
   */
  grow(size: number, keep: number): Buffer;
  /** Gives back memory held beyond `size` bytes (a fresh, smaller buffer; contents are not kept). */
  shrink(size: number): void;
  /** The number of newline bytes (0x0A) in bytes[from, to). */
  newlines(from: number, to: number): number;
  /**
   * Finds the newline bytes in bytes[from, to), in order, at most MAX_ENDS of them: their offsets are
   * `ends[0..n)`. Fewer than MAX_ENDS means there are no more before `to`.
   * @returns n
   */
  lineEnds(from: number, to: number): number;
  /** The offsets found by lineEnds (replaced by grow() and shrink(), like `bytes`). */
  readonly ends: Int32Array;
  /**
   * Sets what findCaseless looks for: an ASCII literal of 1 to MAX_NEEDLE bytes, letters in either case.
   * @returns false when the literal cannot be searched so (not ASCII, empty or too long)
   */
  setNeedle(literal: string): boolean;
  /** The offset of the first occurrence of the needle in bytes[from, to), ASCII letters in any case, or -1. */
  findCaseless(from: number, to: number): number;
}

/** The most newline offsets one lineEnds call gives. */
export const MAX_ENDS = 16384;
/** The longest literal findCaseless takes. */
export const MAX_NEEDLE = 4096;

/** The kernel module, inlined at bundle time. */
const KERNEL = kernelBase64();

const PAGE = 65536;
let kernel: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where WebAssembly (with SIMD) is not available. */
function compiledKernel(): WebAssembly.Module | null {
  if (kernel !== undefined) return kernel;
  try {
    kernel = new WebAssembly.Module(Buffer.from(KERNEL, "base64"));
  } catch {
    kernel = null;
  }
  return kernel;
}

/** Bytes of memory after the data: lineEnds' offsets, then findCaseless' needle and its fold masks. */
const ENDS_BYTES = MAX_ENDS * 4;
const TAIL_BYTES = ENDS_BYTES + 2 * MAX_NEEDLE;

interface Kernel {
  readonly newlines: (p: number, end: number) => number;
  readonly lineEnds: (p: number, end: number, out: number, max: number) => number;
  readonly findCaseless: (p: number, end: number, needle: number, len: number) => number;
}

/** The needle as findCaseless reads it (lowercase bytes, then a fold mask per byte), or null when unfit. */
function needleBytes(literal: string): Uint8Array | null {
  const n = literal.length;
  if (n === 0 || n > MAX_NEEDLE || /[^\x00-\x7f]/.test(literal)) return null;
  const out = new Uint8Array(2 * n);
  for (let i = 0; i < n; i++) {
    const c = literal.charCodeAt(i);
    const letter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
    out[i] = letter ? c | 0x20 : c;
    out[n + i] = letter ? 0x20 : 0;
  }
  return out;
}

class WasmBytes implements ByteBuffer {
  bytes!: Buffer;
  ends!: Int32Array;
  private memory!: WebAssembly.Memory;
  private kernel!: Kernel;
  private needle: Uint8Array | null = null;

  constructor(
    private readonly mod: WebAssembly.Module,
    size: number,
  ) {
    this.reset(size);
  }

  /** A fresh memory for `size` bytes of data and the tail after them. */
  private reset(size: number): void {
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((size + TAIL_BYTES) / PAGE) });
    this.kernel = new WebAssembly.Instance(this.mod, { m: { mem: this.memory } })
      .exports as unknown as Kernel;
    this.view();
  }

  /** The data is the memory but its last TAIL_BYTES, which hold the ends and the needle. */
  private view(): void {
    const data = this.memory.buffer.byteLength - TAIL_BYTES;
    this.bytes = Buffer.from(this.memory.buffer, 0, data);
    this.ends = new Int32Array(this.memory.buffer, data, MAX_ENDS);
    if (this.needle !== null) new Uint8Array(this.memory.buffer).set(this.needle, data + ENDS_BYTES);
  }

  /** Makes a given-back buffer ready for its next use: no needle, at least `size` bytes. */
  reuse(size: number): void {
    this.needle = null;
    this.view();
    this.grow(size);
  }

  grow(size: number): Buffer {
    // memory.grow keeps every byte, so `keep` needs no copy.
    if (size <= this.bytes.length) return this.bytes;
    this.memory.grow(Math.ceil((size - this.bytes.length) / PAGE));
    this.view();
    return this.bytes;
  }

  shrink(size: number): void {
    if (this.bytes.length > size) this.reset(size);
  }

  newlines(from: number, to: number): number {
    return to > from ? this.kernel.newlines(from, to) : 0;
  }

  lineEnds(from: number, to: number): number {
    return to > from ? this.kernel.lineEnds(from, to, this.bytes.length, MAX_ENDS) : 0;
  }

  setNeedle(literal: string): boolean {
    this.needle = needleBytes(literal);
    this.view();
    return this.needle !== null;
  }

  findCaseless(from: number, to: number): number {
    const n = this.needle;
    if (n === null) throw new Error("findCaseless before setNeedle");
    return this.kernel.findCaseless(from, to, this.bytes.length + ENDS_BYTES, n.length >> 1);
  }
}

class PlainBytes implements ByteBuffer {
  bytes: Buffer;
  readonly ends = new Int32Array(MAX_ENDS);
  private needle: Uint8Array | null = null;

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafe(size);
  }

  grow(size: number, keep: number): Buffer {
    if (size <= this.bytes.length) return this.bytes;
    const bigger = Buffer.allocUnsafe(size);
    this.bytes.copy(bigger, 0, 0, keep);
    this.bytes = bigger;
    return bigger;
  }

  shrink(size: number): void {
    if (this.bytes.length > size) this.bytes = Buffer.allocUnsafe(size);
  }

  newlines(from: number, to: number): number {
    let n = 0;
    const b = this.bytes;
    for (let i = b.indexOf(10, from); i >= 0 && i < to; i = b.indexOf(10, i + 1)) n++;
    return n;
  }

  lineEnds(from: number, to: number): number {
    let n = 0;
    const b = this.bytes;
    for (let i = b.indexOf(10, from); i >= 0 && i < to && n < MAX_ENDS; i = b.indexOf(10, i + 1)) {
      this.ends[n++] = i;
    }
    return n;
  }

  setNeedle(literal: string): boolean {
    this.needle = needleBytes(literal);
    return this.needle !== null;
  }

  findCaseless(from: number, to: number): number {
    const nd = this.needle;
    if (nd === null) throw new Error("findCaseless before setNeedle");
    const len = nd.length >> 1;
    const b = this.bytes;
    for (let c = from; c <= to - len; c++) {
      let k = 0;
      while (k < len && ((b[c + k] as number) | (nd[len + k] as number)) === nd[k]) k++;
      if (k === len) return c;
    }
    return -1;
  }
}

/**
 * Buffers given back (releaseByteBuffer), taken again by the next createByteBuffer of this thread. A new
 * WebAssembly.Memory costs a full garbage collection of the thread's heap (JavaScriptCore reclaims memories
 * before it reserves one): next to nothing in a CLI run, but 5-30 ms in a long-lived server whose heap holds
 * an index and remembered walks, on every call that searched in its own thread.
 */
const spare: WasmBytes[] = [];
const SPARE_MAX = 2;
/** A buffer grown past this for a large file is not kept (a WebAssembly memory cannot shrink). */
const SPARE_BYTES = 16 * 1024 * 1024;

/**
 * Creates a byte buffer (one per thread and use: it is not shared), or takes one given back.
 * @param size its initial size in bytes
 * @param plain use the fallback (plain Buffer and indexOf) even where WebAssembly is available
 * @returns the buffer
 */
export function createByteBuffer(size: number, plain = false): ByteBuffer {
  const mod = plain ? null : compiledKernel();
  if (mod === null) return new PlainBytes(size);
  const b = spare.pop();
  if (b === undefined) return new WasmBytes(mod, size);
  b.reuse(size);
  return b;
}

/**
 * Gives a buffer back for a later createByteBuffer of the same thread. Its owner must not use it afterwards.
 * @param b the buffer
 */
export function releaseByteBuffer(b: ByteBuffer): void {
  if (!(b instanceof WasmBytes) || b.bytes.length > SPARE_BYTES || spare.length >= SPARE_MAX) return;
  if (!spare.includes(b)) spare.push(b);
}
