/*! Search: matching lines packed as bytes, so that a search worker can give the lines a search writes itself
 * (TextOptions.direct: the plain listing) to the calling thread, which writes them in walk order as if it had
 * found them (ADR 0049). A line is its number and its byte length (two little-endian u32) and its UTF-8 bytes; a
 * line given as decoded text is packed as the UTF-8 the output would write for it. Never writes output. */

import { utf8Write } from "../../platform/runtime.ts";
import type { LineEvents } from "../events.ts";

/** Bytes gathered before a worker gives them out in the middle of a file (a large file with many lines). */
const PACK_SPILL = 1 << 20;

/** Lines packed as a search finds them; `take` gives them out and starts again. */
export class LinePacker implements LineEvents {
  private buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;
  /** Lines packed since the last take. */
  count = 0;

  /**
   * @param spill called when PACK_SPILL bytes are gathered (the packer's owner takes them then), or null
   */
  constructor(private readonly spill: (() => void) | null = null) {}

  fileStart(): void {}

  line(n: number, src: Uint8Array, from: number, to: number): void {
    const at = this.head(n, to - from);
    this.buf.set(src.subarray(from, to), at);
    this.done(at, to - from);
  }

  lineText(n: number, text: string): void {
    const at = this.head(n, text.length * 3);
    this.done(at, utf8Write(this.buf, text, at));
  }

  /** The lines packed since the last take, in a buffer of their own (null: none). */
  take(): Uint8Array | null {
    if (this.pos === 0) return null;
    const out = new Uint8Array(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    this.pos = 0;
    this.count = 0;
    return out;
  }

  /** Makes room for a line of up to `room` bytes and writes its number; returns where its bytes go. */
  private head(n: number, room: number): number {
    const need = this.pos + 8 + room;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.buf.length));
      grown.set(this.buf.subarray(0, this.pos));
      this.buf = grown;
    }
    this.buf.writeUInt32LE(n, this.pos);
    return this.pos + 8;
  }

  /** Writes a line's length before its bytes and moves past them. */
  private done(at: number, length: number): void {
    this.buf.writeUInt32LE(length, at - 4);
    this.pos = at + length;
    this.count++;
    if (this.spill !== null && this.pos >= PACK_SPILL) this.spill();
  }
}

/**
 * Gives packed lines to where lines are written, in order, as the search in the calling thread would have.
 * @param to where the lines go (the file already started)
 * @param packed the packed lines
 */
export function unpackLines(to: LineEvents, packed: Uint8Array): void {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  for (let at = 0; at < packed.length; ) {
    const n = view.getUint32(at, true);
    const length = view.getUint32(at + 4, true);
    to.line(n, packed, at + 8, at + 8 + length);
    at += 8 + length;
  }
}
