/*! Search: how a file's bytes are decoded. Byte order marks, the sniff of UTF-16 text written without one
 * (docs/decisions/0041-encodings.md: the NUL pattern of mostly-Latin UTF-16 over the whole first block), and
 * UTF-8 validity (a file that is not valid UTF-8 is named in grep's summary, or decoded as windows-1252 with
 * `encoding: auto`). Pure functions over bytes: never reads a file. */
import { isUtf8 } from "node:buffer";

/** A UTF-16 byte order. */
type Utf16Order = "utf-16le" | "utf-16be";

/**
 * Returns the byte order of UTF-16 text without a byte order mark, or null. The rule (strict, so that a binary
 * file is never taken for text): over the first `length` bytes (the sniffed block; `whole` when that is the
 * entire file, whose length must then be even), every 16-bit unit in that order is a character of text: never
 * U+0000, no C0 control but tab, LF, VT, FF and CR, no DEL or C1 control, no U+FFFE/U+FFFF, every surrogate in a
 * pair; and at least three units in four are in U+0001..U+00FF (the zero byte of each ASCII or Latin-1
 * character is what made the file look binary). At least two units.
 * @param buf the bytes
 * @param length how many leading bytes to look at
 * @param whole whether they are the whole file
 * @returns the byte order, or null
 */
export function sniffUtf16(buf: Uint8Array, length: number, whole: boolean): Utf16Order | null {
  if (whole && length % 2 !== 0) return null;
  const units = length >> 1;
  if (units < 2) return null;
  if (utf16Text(buf, units, 0)) return "utf-16le";
  if (utf16Text(buf, units, 1)) return "utf-16be";
  return null;
}

/** Whether `units` 16-bit units of buf, read with the high byte at offset `hi` of each pair, are text. */
function utf16Text(buf: Uint8Array, units: number, hi: 0 | 1): boolean {
  const highAt = hi === 1 ? 0 : 1;
  let latin = 0;
  for (let i = 0; i < units; i++) {
    const h = buf[2 * i + highAt] as number;
    const l = buf[2 * i + (1 - highAt)] as number;
    if (h === 0) {
      if (l < 0x20 ? l < 9 || l > 13 : l >= 0x7f && l <= 0x9f) return false;
      latin++;
      continue;
    }
    if (h >= 0xd8 && h <= 0xdb) {
      // A high surrogate: its low one follows (or the block ends there).
      if (i + 1 === units) break;
      const h2 = buf[2 * (i + 1) + highAt] as number;
      if (h2 < 0xdc || h2 > 0xdf) return false;
      i++;
      continue;
    }
    if (h >= 0xdc && h <= 0xdf) return false;
    if (h === 0xff && l >= 0xfe) return false;
  }
  return latin * 4 >= units * 3;
}

/**
 * Says whether the first `length` bytes are valid UTF-8, allowing a character cut at the end (the rest of a
 * file not read yet).
 * @param buf the bytes
 * @param length how many
 * @param whole whether they are the whole file (then nothing may be cut)
 * @returns true when valid
 */
export function validUtf8(buf: Uint8Array, length: number, whole: boolean): boolean {
  if (isUtf8(buf.subarray(0, length))) return true;
  if (whole) return false;
  // A cut character: back off to the lead byte of the last one (at most 3 bytes) and check what comes before.
  for (let k = 1; k <= 3 && k <= length; k++) {
    const b = buf[length - k] as number;
    if ((b & 0xc0) !== 0x80) return b >= 0xc0 && isUtf8(buf.subarray(0, length - k));
  }
  return false;
}

/**
 * The key of a file in grep's summary `encodings`: its encoding, with `+bom` when it began with a byte order mark.
 * @param encoding how it was decoded
 * @param bom whether it had a byte order mark
 * @returns the key
 */
export function encodingKey(encoding: string, bom: boolean): string {
  return bom ? `${encoding}+bom` : encoding;
}

/** The leading bytes grep's first block holds, which decide a file's encoding (headEncoding). */
export const HEAD_BYTES = 64 * 1024;
/** The leading bytes grep checks for a NUL byte by default (binary_sniff_bytes). */
const NUL_SNIFF = 8192;

/**
 * Names a file's encoding from its head as grep's `encoding: auto` names it (its summary's `encodings` keys): a
 * byte order mark (`utf-8+bom`, `utf-16le+bom`, `utf-16be+bom`), UTF-16 text without one (`utf-16le`,
 * `utf-16be`), `binary` for a NUL byte that is not UTF-16 text, `utf-8` when the head is valid UTF-8 (ASCII
 * included), else `windows-1252`.
 * @param buf the head's bytes
 * @param length how many were read (at most HEAD_BYTES)
 * @param whole whether they are the whole file
 * @returns the name
 */
export function headEncoding(buf: Uint8Array, length: number, whole: boolean): string {
  if (length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return "utf-16le+bom";
  if (length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return "utf-16be+bom";
  const sniffed = Math.min(length, NUL_SNIFF);
  if (buf.subarray(0, sniffed).indexOf(0) >= 0) {
    return sniffUtf16(buf, sniffed, sniffed === length && whole) ?? "binary";
  }
  const bom = length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  if (validUtf8(buf, length, whole)) return bom ? "utf-8+bom" : "utf-8";
  return "windows-1252";
}
