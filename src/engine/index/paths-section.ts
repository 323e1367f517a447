/*! Engine, persisted index: the section of relative paths (UTF-8, NUL-separated, in file id order), as the
 * index loader (persist.ts) and the stat worker (stat-worker.ts) both find their way in it. */

/**
 * Returns where each relative path starts in the section, and one more entry (the end plus one, as if a NUL
 * followed the last path), or null when the section does not hold `files` paths.
 * @param section the section's bytes
 * @param files how many paths it should hold
 * @returns the starts, or null
 */
export function pathStarts(section: Uint8Array, files: number): Int32Array | null {
  const starts = new Int32Array(files + 1);
  if (files === 0) return starts;
  const bytes = Buffer.from(section.buffer, section.byteOffset, section.length);
  let n = 0;
  for (let i = bytes.indexOf(0); i >= 0; i = bytes.indexOf(0, i + 1)) {
    if (++n >= files) return null;
    starts[n] = i + 1;
  }
  if (n !== files - 1) return null;
  starts[files] = bytes.length + 1;
  return starts;
}
