/*! Engine, warm index: a bitset of the hashed byte 4-grams of each large file (docs/decisions/0060-quad-bitsets-of-large-files.md).
 * A large minified or generated file holds nearly every trigram, so the trigram lists cannot rule it out and it
 * is read by nearly every query; a literal of four bytes or more one of whose 4-grams (any case variant, when
 * caseless) hashes to a clear bit of a file's bitset cannot be in that file. One bit per byte of text, rounded
 * down to a power of two: a file's bitset takes at most 1/8 of its bytes. False positives only (a hash
 * collision keeps a file a candidate); never a false negative. No I/O here. */

/** Files with at least this many bytes of text get a bitset: those of babel that hold the most trigrams. */
export const QUAD_MIN_BYTES = 64 * 1024;

/** The multiplier of the 4-gram hash (Fibonacci hashing: its top bits index the bitset). */
const MUL = 0x9e3779b1;

/**
 * The 4-gram bitset of a text, or null for a text shorter than QUAD_MIN_BYTES.
 * @param bytes the text, exactly as its trigrams are taken
 * @returns the bitset (a power of two bytes, at most bytes.length / 8), or null
 */
export function quadBitsOf(bytes: Uint8Array): Uint8Array<ArrayBuffer> | null {
  const n = bytes.length;
  if (n < QUAD_MIN_BYTES) return null;
  // 2^(31 - clz32(n)) bits: the largest power of two at most n; in bytes, an eighth of it.
  const bits = new Uint8Array((2 ** (31 - Math.clz32(n))) >>> 3);
  const shift = Math.clz32(bits.length) - 2;
  let g = ((bytes[0] as number) << 16) | ((bytes[1] as number) << 8) | (bytes[2] as number);
  for (let i = 3; i < n; i++) {
    g = (g << 8) | (bytes[i] as number);
    const h = Math.imul(g, MUL) >>> shift;
    bits[h >>> 3] = (bits[h >>> 3] as number) | (1 << (h & 7));
  }
  return bits;
}

/** Whether a byte is an ASCII letter (its other case differs by 0x20). */
const isLetter = (b: number): boolean => (b >= 65 && b <= 90) || (b >= 97 && b <= 122);

/**
 * Every ASCII case variant of a run of bytes, each as a big-endian key (up to 2^len of them; the trigram lists
 * and the 4-gram probes of a caseless literal both ask for these).
 * @param bytes the bytes
 * @param from where the run starts
 * @param len its length (3 for a trigram, 4 for a 4-gram)
 * @returns the keys, the run as it is first
 */
export function caseVariants(bytes: Uint8Array, from: number, len: number): number[] {
  let variants = [0];
  for (let j = from; j < from + len; j++) {
    const b = bytes[j] as number;
    const next: number[] = [];
    for (const v of variants) {
      next.push((v << 8) | b);
      if (isLetter(b)) next.push((v << 8) | (b ^ 0x20));
    }
    variants = next;
  }
  return variants;
}

/**
 * What a literal asks of a bitset: per distinct 4-gram of its bytes, the hash products of its variants (itself,
 * or every ASCII case variant when caseless: up to sixteen), any one of which a file holding it must have.
 * @param lit the literal's UTF-8 bytes
 * @param caseless whether it is matched ASCII case-insensitively
 * @returns the products per 4-gram, or null for a literal shorter than four bytes (the filter is skipped)
 */
export function quadProbe(lit: Uint8Array, caseless: boolean): Int32Array[] | null {
  if (lit.length < 4) return null;
  const out: Int32Array[] = [];
  const seen = new Set<number>();
  for (let i = 3; i < lit.length; i++) {
    const variants = caseless
      ? caseVariants(lit, i - 3, 4)
      : [
          ((lit[i - 3] as number) << 24) |
            ((lit[i - 2] as number) << 16) |
            ((lit[i - 1] as number) << 8) |
            (lit[i] as number),
        ];
    const canon = Math.min(...variants.map((v) => v >>> 0));
    if (seen.has(canon)) continue;
    seen.add(canon);
    out.push(Int32Array.from(variants, (v) => Math.imul(v, MUL)));
  }
  return out;
}

/**
 * Whether a file's bitset has every 4-gram of a literal (some variant of each): false means the file cannot hold it.
 * @param bits the file's bitset (quadBitsOf)
 * @param probe the literal's probe (quadProbe)
 * @returns whether the file may hold the literal
 */
export function mayHold(bits: Uint8Array, probe: readonly Int32Array[]): boolean {
  const shift = Math.clz32(bits.length) - 2;
  for (const products of probe) {
    let any = false;
    for (let k = 0; k < products.length; k++) {
      const h = (products[k] as number) >>> shift;
      if (((bits[h >>> 3] as number) & (1 << (h & 7))) !== 0) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}
