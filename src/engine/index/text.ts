/*! Engine, indexes: reading a file's text for a trigram index (the warm server's and the persisted one), whole,
 * from a descriptor the caller opened and checked. */
import { isUtf8 } from "node:buffer";
import { platform } from "../../platform/platform.ts";

/**
 * Returns a read buffer with room for a file of `size` bytes and one more (a longer read shows the file grew).
 * @param buf the buffer so far
 * @param size the file's size
 * @returns buf, or a larger one
 */
export function textBuffer(buf: Buffer, size: number): Buffer {
  return buf.length >= size + 1 ? buf : Buffer.alloc(size + 1 + (size >> 3));
}

/**
 * Reads a whole file for an index: its bytes, or null when they are not indexed: another size than its stat's
 * was read (it changed while read), a NUL byte within the first `nulScan` bytes (binary), or a UTF-16 byte
 * order mark.
 * @param fd the open file
 * @param size its size from the stat taken on that descriptor
 * @param buf a buffer from textBuffer(…, size)
 * @param nulScan how many leading bytes are checked for a NUL byte (Infinity: all)
 * @returns a view of buf holding the text, or null
 */
export function readIndexText(fd: number, size: number, buf: Buffer, nulScan: number): Buffer | null {
  let n = 0;
  while (n < buf.length) {
    const want = buf.length - n;
    const r = platform.read(fd, n === 0 ? buf : buf.subarray(n), want, null);
    if (r <= 0) break;
    n += r;
    // A short read of a regular file ends at its end: no second call to read nothing (a write after it is one
    // after the read, either way).
    if (r < want && n >= size) break;
  }
  if (n !== size) return null;
  const view = buf.subarray(0, n);
  if (view.subarray(0, nulScan).indexOf(0) >= 0) return null;
  if (n >= 2 && ((view[0] === 0xff && view[1] === 0xfe) || (view[0] === 0xfe && view[1] === 0xff)))
    return null;
  // Only what a cold read takes as plain UTF-8 may be ruled out unread: a file with a UTF-8 BOM or bytes that are
  // not UTF-8 is read by every query, so grep's `encodings` and `not_utf8` are a cold run's (ADR 0041).
  if (n >= 3 && view[0] === 0xef && view[1] === 0xbb && view[2] === 0xbf) return null;
  if (!isUtf8(view)) return null;
  return view;
}
