/*! Engine: the WebAssembly kernel of bytes.ts, assembled from its text source `kernel.wat` (the instructions
 * to review). It runs when the code is bundled or transpiled: bytes.ts imports it as a Bun macro, so the
 * binary and the built library hold only its output (base64), and no process reads the .wat, loads wabt or
 * assembles anything at run time. wabt (a devDependency, docs/decisions/0024-kernel-as-wat.md) is the
 * assembler. Bundle-time I/O only: it reads kernel.wat, a file of this repository, never a searched tree. */
import wabtInit from "wabt";
import { readText } from "../platform/files.ts";

// A macro module is loaded by the bundler, once: top-level await is fine there.
const wabt = await wabtInit();

/**
 * Assembles kernel.wat.
 * @returns the module bytes
 */
function kernelBytes(): Uint8Array {
  const text = readText(new URL("./kernel.wat", import.meta.url));
  const mod = wabt.parseWat("kernel.wat", text, { simd: true });
  try {
    mod.validate();
    return mod.toBinary({ log: false, write_debug_names: false }).buffer;
  } finally {
    mod.destroy();
  }
}

/**
 * Returns the kernel module as base64 (what a macro can inline).
 * @returns the module bytes in base64
 */
export function kernelBase64(): string {
  return Buffer.from(kernelBytes()).toString("base64");
}
