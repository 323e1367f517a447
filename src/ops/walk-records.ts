/*! Shared by the metadata operations: turning walk entries into FileMatch records, and a cooperative yield
 * so that timers, cancellation and output flushing run during a long synchronous walk. */
import type { FileMatch } from "../contract/records.ts";
import { kindsOf } from "../engine/filter/type.ts";
import type { Entry } from "../engine/walk.ts";

const EPOCH = new Date(0).toISOString();

/**
 * Creates the FileMatch record of an entry. `size`, `mtime` and `kinds` are own enumerable getters that read
 * the entry's stats on first use (once; the entry caches them): JSON, JSONL, spreading and the library see a
 * plain record, while a consumer that prints only paths (the human find output) never pays for a stat. The
 * values are those at first access: sinks serialise right away; a library caller reading much later sees the
 * file as it is then (or size 0 and the epoch when it is gone).
 * @param e the entry
 * @returns the record (size 0 and the epoch when stats cannot be read)
 */
export function fileMatchOf(e: Entry): FileMatch {
  let mtime: string | undefined;
  let kinds: FileMatch["kinds"] | undefined;
  return {
    path: e.abs,
    relative_path: e.rel,
    get size(): number {
      return e.stats()?.size ?? 0;
    },
    get mtime(): string {
      if (mtime === undefined) {
        const st = e.stats();
        mtime = st ? new Date(st.mtimeMs).toISOString() : EPOCH;
      }
      return mtime;
    },
    get kinds(): FileMatch["kinds"] {
      kinds ??= kindsOf(e);
      return kinds;
    },
  };
}

/** Returns a promise that resolves after pending I/O and timers had a chance to run. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Creates a counter that says when to yield to the event loop (every `every` calls or 25 ms).
 * @param every how many calls between yields at most
 * @returns a function returning true when the caller should `await tick()`
 */
export function yielder(every = 512): () => boolean {
  let n = 0;
  let last = performance.now();
  return () => {
    if (++n < every) return false;
    n = 0;
    const now = performance.now();
    if (now - last < 25) return false;
    last = now;
    return true;
  };
}
