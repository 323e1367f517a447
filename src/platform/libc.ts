/*! libc through bun:ffi, for the modules that make system calls Node does not offer (dir-fd.ts, stat-words.ts,
 * tree-watch.ts, watch-reader.ts, poll.ts): the one place its name is spelled and a failure to open it becomes "not here". */
import type * as Ffi from "bun:ffi";

/**
 * Opens libc with the functions a module calls.
 * @param symbols the functions' declarations, given bun:ffi's types
 * @returns bun:ffi and the library, or null: not Linux under Bun, no FFI, no glibc (musl names it differently)
 *   or a function it lacks; the caller then takes its other route
 */
export function openLibc<Fns extends Record<string, Ffi.FFIFunction>>(
  symbols: (types: typeof Ffi.FFIType) => Fns,
): { readonly ffi: typeof Ffi; readonly lib: Ffi.Library<Fns> } | null {
  if (typeof Bun === "undefined" || process.platform !== "linux") return null;
  try {
    const ffi = process.getBuiltinModule("bun:ffi") as typeof Ffi;
    return { ffi, lib: ffi.dlopen("libc.so.6", symbols(ffi.FFIType)) };
  } catch {
    return null;
  }
}
