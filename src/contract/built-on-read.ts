/*! An object whose values are made when first read, then kept: the embedded JSON Schemas (src/generated), of
 * which a command reads one or two, are not all built at every start. */

/**
 * Returns an object with a property per maker: the first read makes the value and keeps it in place of the maker.
 * @param makers the makers, by key (enumeration order is theirs)
 * @returns the object
 */
export function builtOnRead<T>(makers: Record<string, () => T>): Readonly<Record<string, T>> {
  const out: Record<string, T> = {};
  for (const [key, make] of Object.entries(makers))
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = make();
        Object.defineProperty(out, key, { value, enumerable: true });
        return value;
      },
    });
  return out;
}
