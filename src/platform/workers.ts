/*! Platform: workers. Where a worker's entry file is, bundled or not, and whether this runtime starts workers
 * (Bun's; under Node every pool works in the calling thread). The one place that knows how scripts/build.ts and
 * build-lib.ts store worker entries. Never starts a worker itself. */

/** Whether workers can be started here (Bun; the library under plain Node works in the calling thread). */
export const workersAvailable: boolean = typeof Bun !== "undefined";

/**
 * Returns the URL to start a worker entry from. Bundled (the binary, or dist/lib), the holding module sits at
 * the top and the entry is stored by its path under src/ with a .js extension (scripts/build.ts and build-lib.ts
 * list it as an entrypoint); from source it is the .ts file under src/.
 * @param entry the entry's path under src/, without extension (e.g. "engine/walk-worker")
 * @returns the URL as a string
 */
export function workerUrl(entry: string): string {
  return !import.meta.url.endsWith(".ts")
    ? new URL(`./${entry}.js`, import.meta.url).href
    : new URL(`../${entry}.ts`, import.meta.url).href;
}
