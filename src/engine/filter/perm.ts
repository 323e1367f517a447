/*! Filter: permission bits, as find -perm: '644' exactly these bits, '-111' all of these bits, '/222' any of
 * these bits; a leading '!' negates, as find's `! -perm` ('!/111': no execute bit at all). Octal only. */
import { RglobError } from "../../contract/errors.ts";

/**
 * Compiles a permission test.
 * @param value the perm text
 * @returns a test of a file mode
 * @throws RglobError BAD_PREDICATE for a bad value
 */
export function compilePerm(value: string): (mode: number) => boolean {
  const m = /^(!?)([-/]?)([0-7]{1,4})$/.exec(value.trim());
  if (!m) {
    throw new RglobError(
      "BAD_PREDICATE",
      `perm: '${value}' is not an octal mode ('644', '-111' all bits, '/222' any bit, '!/111' none of them)`,
    );
  }
  const bits = Number.parseInt(m[3] as string, 8);
  let test: (mode: number) => boolean;
  if (m[2] === "-") test = (mode) => (mode & bits) === bits;
  else if (m[2] === "/") test = (mode) => bits === 0 || (mode & bits) !== 0;
  else test = (mode) => (mode & 0o7777) === bits;
  return m[1] === "!" ? (mode) => !test(mode) : test;
}
