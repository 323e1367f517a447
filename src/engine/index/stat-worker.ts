/*! Engine, persisted index: a worker thread that compares indexed files' stats with those they were indexed
 * with, for an indexed grep (persist.ts's checkStats), while the calling thread checks the others and what the
 * recorded walk depends on: on babel these stat calls are most of an indexed grep. It is started before the
 * index is read (its own start-up overlaps that), gets the index's relative paths as bytes, the files' words
 * (stat-words.ts) and the ids to check, writes 1 (unchanged) or 0 per id into a shared array and wakes the
 * caller. */
import { encodeName } from "../../platform/names.ts";
import { STAT_OK, STAT_WORDS, statBytesInto } from "../../platform/stat-words.ts";

/** What the caller sends. */
export interface StatJob {
  /** The tree's real path; the paths below are relative to it. */
  readonly root: string;
  /** The index's relative paths, NUL-separated, in id order. */
  readonly pathBytes: Uint8Array;
  /** STAT_WORDS words per id. */
  readonly facts: Uint32Array;
  /** The ids to check. */
  readonly ids: Int32Array;
  /** One byte per id of `ids` (the answers), after a 4-byte flag set to 1 when all are written. */
  readonly out: SharedArrayBuffer;
}

declare const self: Worker;

self.onmessage = (e: MessageEvent<StatJob>) => {
  const { root, pathBytes, facts, ids, out } = e.data;
  const flag = new Int32Array(out, 0, 1);
  const same = new Uint8Array(out, 4, ids.length);
  try {
    // Where each id's path starts (the paths are in id order).
    const starts: number[] = [0];
    for (let at = pathBytes.indexOf(0); at >= 0; at = pathBytes.indexOf(0, at + 1)) starts.push(at + 1);
    starts.push(pathBytes.length + 1);
    // Each path is the root's bytes and the relative path's, copied straight to the system call's buffer.
    const prefix = encodeName(root.endsWith("/") ? root : `${root}/`);
    const stat = statBytesInto();
    const words = new Uint32Array(STAT_WORDS);
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k] as number;
      const ok = stat(
        prefix,
        pathBytes,
        starts[id] as number,
        (starts[id + 1] as number) - 1,
        false,
        words,
        0,
      );
      let same1 = ok === STAT_OK;
      for (let w = 0; same1 && w < STAT_WORDS; w++) same1 = words[w] === facts[id * STAT_WORDS + w];
      same[k] = same1 ? 1 : 0;
    }
    Atomics.store(flag, 0, 1);
  } catch {
    Atomics.store(flag, 0, 2); // the caller checks them itself
  }
  Atomics.notify(flag, 0);
};
