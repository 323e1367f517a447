/*! Search: the messages between the search pool and its workers, and the flat encoding of file outcomes.
 * Outcomes cross threads as a Float64Array of numbers (transferred) and one string holding every string
 * (copied once): measured on 43k hits, cloning a flat array of mixed numbers and strings took 22-43 ms, a
 * JSON string ~110 ms. Packed lines (packed-lines.ts) cross as one transferred byte array. */

import { REGION_NAMES, type RegionName } from "../../contract/regions.ts";
import type { Routes } from "../../platform/routes.ts";
import type { LineEvent, LineKind, Submatch } from "../events.ts";
import { languageNumber, languageNumbered } from "../languages.ts";
import type { FileOutcome, SearchSpec, SkipReason } from "./search-file.ts";

/** Outcomes as they cross threads: numbers in one array (transferred), strings in one string (copied once). */
interface EncodedOutcomes {
  readonly nums: Float64Array;
  /** Every string of the outcomes, concatenated; each one's length (-1 for null) is in nums before it. */
  readonly text: string;
  /** The packed lines of the outcomes, concatenated (each one's length is in nums), or null when none has any. */
  readonly packed: Uint8Array | null;
}

/** The buffers of encoded outcomes that a message transfers. */
export function transferOf(data: EncodedOutcomes): ArrayBuffer[] {
  const out = [data.nums.buffer as ArrayBuffer];
  if (data.packed !== null) out.push(data.packed.buffer as ArrayBuffer);
  return out;
}

/**
 * Hits a worker may have given out and the pool not yet taken before the worker waits: hits of a large file go
 * out window by window, and this bounds the memory they hold when the consumer is slower than the search.
 */
export const MAX_HITS_OUT = 16384;

/** From the pool to a worker. */
export type ToWorker =
  | {
      /** A search begins: its spec (a worker serves one search at a time, and many searches in its life). */
      readonly type: "init";
      readonly spec: SearchSpec;
      /**
       * Two Int32s shared with the pool: [0] the hits this worker gave out that the pool has not taken yet (the
       * worker adds, the pool subtracts); [1] the generation: the pool increments it when a search no longer
       * wants this worker's answers, and the worker drops the jobs of an older one.
       */
      readonly shared: SharedArrayBuffer;
      /** The calling thread's routes to the kernel (src/platform/routes.ts), set before the worker reads. */
      readonly routes: Routes;
      /**
       * Whether the worker packs the lines of the plain listing (packed-lines.ts) instead of giving hits (its
       * outcomes' and parts' `packed`, a part's `lines` then counting its packed lines), and whether it gathers
       * the outcomes of several files with lines before sending them (`batched`); null: it gives hits.
       */
      readonly pack: { readonly batched: boolean } | null;
    }
  | {
      readonly type: "job";
      readonly id: number;
      readonly generation: number;
      readonly paths: readonly string[];
    }
  /** Answered by "drained" once every job sent before it is done or dropped: the worker is free again. */
  | { readonly type: "drain"; readonly generation: number };

/** From a worker to the pool. */
export type FromWorker =
  | {
      readonly type: "files";
      readonly id: number;
      /** Index in the batch of the first outcome. */
      readonly start: number;
      /** The outcomes, encoded by encodeOutcomes. */
      readonly data: EncodedOutcomes;
    }
  | {
      readonly type: "part";
      readonly id: number;
      /** Index in the batch of the file. */
      readonly index: number;
      /**
       * One outcome holding only the chunk's bytes and hits (or packed lines, their count in `lines`), encoded
       * by encodeOutcomes.
       */
      readonly data: EncodedOutcomes;
    }
  | { readonly type: "drained"; readonly generation: number }
  | { readonly type: "fatal"; readonly message: string };

const SKIPS: ReadonlyArray<SkipReason | null> = [
  null,
  "binary",
  "too_large",
  "unreadable",
  "unknown_language",
];
const KINDS: readonly LineKind[] = ["match", "before", "after"];

/**
 * Encodes outcomes for another thread: numbers in a Float64Array (transferable) and the strings joined into one
 * (a structured clone of one long string is a copy; of a few hundred thousand mixed values it was the larger
 * part of grep's cost per output line).
 * @param outcomes the outcomes
 * @returns the encoded outcomes
 */
export function encodeOutcomes(outcomes: readonly FileOutcome[]): EncodedOutcomes {
  const nums: number[] = [outcomes.length];
  const parts: string[] = [];
  let packedBytes = 0;
  const str = (s: string | null): void => {
    if (s === null) nums.push(-1);
    else {
      nums.push(s.length);
      parts.push(s);
    }
  };
  for (const o of outcomes) {
    nums.push(o.bytes, SKIPS.indexOf(o.skip));
    str(o.error?.code ?? null);
    str(o.error?.message ?? null);
    // The language its `#!` line named, by number (0: none).
    nums.push(o.lines, o.matches, o.dropped ?? 0, languageNumber(o.language ?? null));
    str(o.encoding);
    // bom 1, invalid 2, excluded (by `also`) 4; the NUL offset of a binary file searched (-1: none).
    nums.push(
      (o.bom ? 1 : 0) | (o.invalid ? 2 : 0) | (o.excluded ? 4 : 0),
      o.nul ?? -1,
      o.packed?.length ?? 0,
      o.hits.length,
    );
    packedBytes += o.packed?.length ?? 0;
    for (const h of o.hits) {
      nums.push(
        KINDS.indexOf(h.kind),
        h.line_number,
        h.clipped ? 1 : 0,
        h.content_offset,
        h.submatches.length,
      );
      str(h.content);
      // A submatch's region (with `in` naming several): its code + 1, 0 for none.
      for (const m of h.submatches)
        nums.push(
          m.start,
          m.end,
          m.byte_start,
          m.byte_end,
          m.region === undefined ? 0 : REGION_NAMES.indexOf(m.region) + 1,
        );
    }
  }
  let packed: Uint8Array | null = null;
  if (packedBytes > 0) {
    packed = new Uint8Array(packedBytes);
    let at = 0;
    for (const o of outcomes)
      if (o.packed !== undefined) {
        packed.set(o.packed, at);
        at += o.packed.length;
      }
  }
  return { nums: Float64Array.from(nums), text: parts.join(""), packed };
}

/**
 * Decodes outcomes encoded by encodeOutcomes.
 * @param data the encoded outcomes
 * @returns the outcomes
 */
export function decodeOutcomes(data: EncodedOutcomes): FileOutcome[] {
  const { nums, text } = data;
  let i = 0;
  let at = 0;
  let packedAt = 0;
  const num = () => nums[i++] as number;
  const str = (): string | null => {
    const n = nums[i++] as number;
    if (n < 0) return null;
    const s = text.slice(at, at + n);
    at += n;
    return s;
  };
  const count = num();
  const outcomes: FileOutcome[] = [];
  for (let f = 0; f < count; f++) {
    const bytes = num();
    const skip = SKIPS[num()] ?? null;
    const code = str();
    const message = str();
    const lines = num();
    const matches = num();
    const dropped = num();
    const language = languageNumbered(num());
    const encoding = str() as string;
    const flags = num();
    const nul = num();
    const nPacked = num();
    const nHits = num();
    const hits: LineEvent[] = [];
    for (let h = 0; h < nHits; h++) {
      const kind = KINDS[num()] as LineKind;
      const line_number = num();
      const clipped = num() === 1;
      const content_offset = num();
      const nSubs = num();
      const content = str() as string;
      const submatches: Submatch[] = [];
      for (let k = 0; k < nSubs; k++) {
        const sub: Submatch = { start: num(), end: num(), byte_start: num(), byte_end: num() };
        const r = num();
        if (r > 0) sub.region = REGION_NAMES[r - 1] as RegionName;
        submatches.push(sub);
      }
      hits.push({ kind, line_number, content, clipped, content_offset, submatches });
    }
    outcomes.push({
      bytes,
      skip,
      error: code === null ? null : { code, message: message ?? "" },
      lines,
      matches,
      ...(dropped > 0 ? { dropped } : {}),
      ...(language !== null ? { language } : {}),
      hits,
      encoding,
      ...((flags & 1) !== 0 ? { bom: true as const } : {}),
      ...((flags & 2) !== 0 ? { invalid: true as const } : {}),
      ...((flags & 4) !== 0 ? { excluded: true as const } : {}),
      ...(nul >= 0 ? { nul } : {}),
      ...(nPacked > 0 && data.packed !== null
        ? { packed: data.packed.subarray(packedAt, packedAt + nPacked) }
        : {}),
    });
    packedAt += nPacked;
  }
  return outcomes;
}
