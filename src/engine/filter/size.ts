/*! Filter: sizes. Two grammars, each with its own tool's meaning:
 * - rglob's (no sign): '1024', '10k', '1K', '1KiB', '1ki', '2.5M', '100 kb'. K, M, G, T alone and KiB/Ki… are
 *   binary (1024) in either case; kb, mb, gb, tb are decimal (1000).
 * - fd's (a '+' or '-' sign: '+3k' at least, '-10m' at most): fd's units, in either case: b; k/kb, m/mb, g/gb,
 *   t/tb decimal (1000); ki/kib, mi/mib, gi/gib, ti/tib binary (1024). So '+3k' is 3000 bytes, as `fd -S +3k`.
 * Bounds are inclusive. A size past 2^53 bytes is an error, never a silent wrap. */
import { RglobError } from "../../contract/errors.ts";

/** A parsed size bound: bytes, and whether the sign said at-least (+) or at-most (-). */
interface SizeBound {
  readonly bytes: number;
  readonly sign: "+" | "-" | null;
}

/** rglob's units (a size without a sign). */
const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  ki: 1024,
  kib: 1024,
  kb: 1000,
  m: 1024 ** 2,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1000 ** 2,
  g: 1024 ** 3,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  gb: 1000 ** 3,
  t: 1024 ** 4,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
  tb: 1000 ** 4,
};

/** fd's units (a size with a '+' or '-' sign, as `fd -S +3k`): a lone k, m, g, t is decimal. */
const FD_UNITS: Record<string, number> = {
  ...UNITS,
  k: 1000,
  m: 1000 ** 2,
  g: 1000 ** 3,
  t: 1000 ** 4,
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
    if (!Number.isSafeInteger(Math.floor(value)))
      throw new RglobError("BAD_PREDICATE", `${flag}: ${value} is too large (at most 2^53 - 1 bytes)`);
    return { bytes: Math.floor(value), sign: null };
  }
  const m = /^\s*([+-])?\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(value);
  const sign = (m?.[1] as "+" | "-" | undefined) ?? null;
  const unit = (sign === null ? UNITS : FD_UNITS)[(m?.[3] ?? "").toLowerCase()];
  if (!m || unit === undefined) {
    throw new RglobError(
      "BAD_PREDICATE",
      `${flag}: '${value}' is not a size (examples: 1024, 10k or 10KiB = 10240, 100kb = 100000; fd's signed form: +3k = at least 3000, -1mi = at most 1048576)`,
    );
  }
  const bytes = Math.round(Number(m[2]) * unit);
  if (!Number.isSafeInteger(bytes))
    throw new RglobError("BAD_PREDICATE", `${flag}: '${value}' is too large (at most 2^53 - 1 bytes)`);
  return { bytes, sign };
}

/**
 * Compiles fd's -S/--size constraints: '+3k' at least, '-10mi' at most, '3000b' exactly, each in fd's units
 * whatever its sign (k = 1000, ki = 1024), all of them AND'd, inclusive.
 * @param values the constraints
 * @returns a test of a size in bytes, or null when there are none
 * @throws RglobError BAD_PREDICATE for a value that is not one
 */
export function fdSizeTest(values: readonly string[]): ((size: number) => boolean) | null {
  if (values.length === 0) return null;
  const tests = values.map((value) => {
    const m = /^\s*([+-])?(\d+)\s*([a-zA-Z]*)\s*$/.exec(value);
    const unit = FD_UNITS[(m?.[3] ?? "").toLowerCase()];
    if (!m || unit === undefined)
      throw new RglobError(
        "BAD_PREDICATE",
        `size: '${value}' is not fd's size form (+3k at least, -10mi at most, 3000b exactly; k = 1000, ki = 1024)`,
      );
    const bytes = Number(m[2]) * unit;
    if (!Number.isSafeInteger(bytes))
      throw new RglobError("BAD_PREDICATE", `size: '${value}' is too large (at most 2^53 - 1 bytes)`);
    if (m[1] === "+") return (n: number) => n >= bytes;
    if (m[1] === "-") return (n: number) => n <= bytes;
    return (n: number) => n === bytes;
  });
  return (n) => tests.every((t) => t(n));
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
