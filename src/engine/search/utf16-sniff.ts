/*! Text that looks like UTF-16 without a byte order mark (#37, docs/decisions/0039-utf16-without-bom.md): the
 * first block of a file that holds a NUL byte is read as UTF-16LE and as UTF-16BE, and is text when most of its
 * code units are ASCII characters (a NUL byte beside each, on the same side: the pattern of ASCII in UTF-16), none
 * is a NUL character or a C0 control other than tab, newline, vertical tab, form feed, carriage return and
 * escape, and its surrogates pair up. Called only for a block that holds a NUL, so text files never pay for it. */

/** The share of code units that must be ASCII characters (plain text in UTF-16 holds far more). */
const ASCII_SHARE = 0.7;

/** C0 controls text holds: \t \n \v \f \r and ESC (a coloured log). */
const TEXT_CONTROLS = new Set([9, 10, 11, 12, 13, 27]);

/**
 * Tells whether a first block that holds a NUL byte is UTF-16 text without a BOM, and in which byte order.
 * @param buf the bytes
 * @param length how many of them to look at (the sniff window)
 * @returns "utf-16le" or "utf-16be", or null for anything else (binary)
 */
export function sniffUtf16(buf: Uint8Array, length: number): "utf-16le" | "utf-16be" | null {
  const n = length & ~1;
  if (n < 4) return null;
  if (looksLike(buf, n, 0)) return "utf-16le";
  if (looksLike(buf, n, 1)) return "utf-16be";
  return null;
}

/**
 * Whether the code units of `buf[0..n)` in one byte order are text.
 * @param lo 0 when the low byte comes first (LE), 1 when second (BE)
 */
function looksLike(buf: Uint8Array, n: number, lo: 0 | 1): boolean {
  const hi = 1 - lo;
  const units = n >> 1;
  let ascii = 0;
  let pendingHigh = false;
  for (let i = 0; i < n; i += 2) {
    const unit = ((buf[i + hi] as number) << 8) | (buf[i + lo] as number);
    if (unit < 0x20 && !TEXT_CONTROLS.has(unit)) return false; // NUL characters and other controls: binary
    if (unit < 0x80) ascii++;
    // Surrogates pair up: a high one followed by a low one (the block may end between them).
    if (unit >= 0xd800 && unit <= 0xdbff) {
      if (pendingHigh) return false;
      pendingHigh = true;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      if (!pendingHigh) return false;
      pendingHigh = false;
    } else if (pendingHigh) return false;
    if (unit === 0xfffe || unit === 0xffff) return false; // not characters
  }
  return ascii >= units * ASCII_SHARE;
}
