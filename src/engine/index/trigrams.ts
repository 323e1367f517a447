/*! Engine, warm index: a trigram index of file contents. Byte trigrams of the text as they are (exact case:
 * `sef` and `Fas` of traverseFast are told apart, so a case-sensitive identifier narrows as far as its own
 * spelling), posting lists of file ids as delta varints. An ASCII-caseless query asks for every case variant of
 * each trigram (the union of their lists), which is what an index of folded trigrams held. Built in segments of
 * a bounded number of pending postings, merged when frozen. It only narrows: a file it rules out cannot hold a
 * required literal; the matcher decides on the file's current bytes. No I/O here (the builder hands it bytes). */
import { holdsFoldTrap } from "../search/fold-traps.ts";
import type { PathTable } from "./path-table.ts";
import { caseVariants, mayHold, QUAD_MIN_BYTES, quadBitsOf, quadProbe } from "./quads.ts";

/** Words of a bitset over the 2^24 trigram keys (2 MiB). */
const WORDS = 1 << 19;
/** Distinct keys of a file gathered before they go to the chunks. */
const TOUCHED = 1 << 16;
/** Sizes of the chunks of postings (keys): from 64 KiB to 4 MiB, about half of what is held so far. */
const CHUNK_MIN = 1 << 14;
const CHUNK_MAX = 1 << 20;
/**
 * Pending postings (4 bytes each) after which the builder freezes them into a segment of varint lists (about
 * a byte a posting): what bounds the build's memory beyond the final index (docs/decisions/0035-index-at-scale.md).
 */
const SEGMENT_POSTINGS = 1 << 23;

/** A frozen part of the postings (files [from, to)): lists whose first delta is from -1 (the id plus one). */
interface Segment {
  readonly keys: Uint32Array;
  readonly starts: Uint32Array;
  readonly data: Uint8Array;
  /** The last file id of each key's list. */
  readonly last: Int32Array;
}

/** A page of the page cache: a file read takes at least one, however small. */
const PAGE_BYTES = 4096;

/** The number of bits set in a 32-bit word. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  v = (v + (v >>> 4)) & 0x0f0f0f0f;
  return Math.imul(v, 0x01010101) >>> 24;
}

/**
 * Puts beside each word of a key bitset (its bits at 2w + 1) the rank of its first key (at 2w).
 * @returns the number of keys
 */
function rankWords(rankOf: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < WORDS; w++) {
    const bits = rankOf[2 * w + 1] as number;
    rankOf[2 * w] = n;
    if (bits !== 0) n += popcount(bits);
  }
  return n;
}

/** The keys of a ranked bitset (rankWords), in ascending order. */
function keysOf(rankOf: Uint32Array, n: number): Uint32Array {
  const keys = new Uint32Array(n);
  let r = 0;
  for (let w = 0; w < WORDS; w++) {
    let b = rankOf[2 * w + 1] as number;
    while (b !== 0) {
      const low = b & -b;
      keys[r++] = (w << 5) | (31 - Math.clz32(low));
      b ^= low;
    }
  }
  return keys;
}

/** The bytes of a delta as a varint. */
function varintLength(d: number): number {
  return d < 0x80 ? 1 : d < 0x4000 ? 2 : d < 0x200000 ? 3 : d < 0x10000000 ? 4 : 5;
}

/** The value of the varint at `at` (no object made: merge() calls it for every list of every segment). */
function varintAt(data: Uint8Array, at: number): number {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const byte = data[i++] as number;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value;
    shift += 7;
  }
}

/** Where the varint at `at` ends (the index after its last byte). */
function varintEnd(data: Uint8Array, at: number): number {
  let i = at;
  while (((data[i++] as number) & 0x80) !== 0) {}
  return i;
}

/** Lists shorter than this are copied byte by byte (a view per list would be an object per list per segment). */
const COPY_BY_VIEW = 64;

/** The ASCII lower-case form of a trigram key. */
function foldKey(k: number): number {
  let out = 0;
  for (let s = 16; s >= 0; s -= 8) {
    const b = (k >>> s) & 0xff;
    out = (out << 8) | (b >= 65 && b <= 90 ? b + 32 : b);
  }
  return out;
}

/**
 * Writes the distinct trigram keys of a text to `out` from `at` (the build worker's share of TrigramIndex.add:
 * the keys go to addKeys). `seen` is a bitset over the 2^24 keys, all clear, and left clear.
 * @param bytes the text
 * @param seen the bitset (WORDS words)
 * @param out where the keys go: room for bytes.length - 2 of them from `at`
 * @param at where the first goes
 * @returns how many keys were written
 */
export function distinctKeys(bytes: Uint8Array, seen: Uint32Array, out: Uint32Array, at: number): number {
  const n = bytes.length;
  if (n < 3) return 0;
  let t = at;
  let k = ((bytes[0] as number) << 8) | (bytes[1] as number);
  for (let i = 2; i < n; i++) {
    k = ((k << 8) | (bytes[i] as number)) & 0xffffff;
    const w = k >>> 5;
    const bit = 1 << (k & 31);
    const s = seen[w] as number;
    if ((s & bit) === 0) {
      seen[w] = s | bit;
      out[t++] = k;
    }
  }
  for (let j = at; j < t; j++) seen[(out[j] as number) >>> 5] = 0;
  return t - at;
}

/** Words of the bitset distinctKeys() takes. */
export const KEY_WORDS = WORDS;

/** The most trigrams of a literal a query intersects (its rarest: more narrow little, for more decoding). */
const USE_TRIGRAMS = 16;

/** Postings per step of TrigramIndex.freezing(). */
const FREEZE_STEP = 1 << 18;

/** Where TrigramIndex.freezing() stands: the rank table, the per-rank state, the lists, the next posting. */
interface Freezing {
  readonly rankOf: Uint32Array;
  readonly meta: Int32Array;
  data: Uint8Array;
  /** The chunk and the offset in it of the next posting. */
  c: number;
  i: number;
}

/** Per-file flags. */
const FLAG_DEAD = 1;
const FLAG_TRAP = 2;
/** Other hard links when the file was read: a write through another name sends no event for this one. */
const FLAG_LINKED = 4;

/** What a query needs from the index about the literals one of which every match must contain. */
export interface LiteralQuery {
  /** The literals (UTF-8 text). */
  readonly literals: readonly string[];
  /** Whether Unicode case folding could match K (U+212A) or ſ (U+017F) with an ASCII k or s of a literal. */
  readonly traps: boolean;
  /**
   * Whether the literals are matched ASCII case-insensitively (every case variant of a trigram is asked for).
   * Absent: true (the answer that can only narrow less).
   */
  readonly ignoreCase?: boolean;
}

/** Sizes of an index, for the budget and for capabilities. */
export interface IndexStats {
  readonly files: number;
  readonly trigrams: number;
  /** Bytes of posting lists. */
  readonly postingBytes: number;
  /** Bytes of text indexed. */
  readonly textBytes: number;
  /** Estimated memory of the whole index (postings, tables and paths). */
  readonly memoryBytes: number;
}

/** The stat facts of an indexed file, compared when the tree is not watched. */
interface FileFacts {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

/** The arrays of a frozen index (what a persisted copy holds besides paths and stat facts). */
interface FrozenParts {
  /** Trigram keys in ascending order. */
  readonly keys: Uint32Array<ArrayBuffer>;
  /** Where each key's list starts in `data` (one more than the keys: the end). */
  readonly starts: Uint32Array<ArrayBuffer>;
  /** Posting lists: file ids as delta varints. */
  readonly data: Uint8Array<ArrayBuffer>;
  /** Per-file flags (a byte per file id). */
  readonly flags: Uint8Array<ArrayBuffer>;
  /** Bytes of text indexed. */
  readonly textBytes: number;
  /** The 4-gram bitsets of the large files (quads.ts): pairs of a file id and its bitset's length, ascending. */
  readonly quadIds: Uint32Array<ArrayBuffer>;
  /** Those bitsets, end to end in the order of quadIds. */
  readonly quads: Uint8Array<ArrayBuffer>;
}

/**
 * A trigram index over a set of files, built file by file (ids in the order added), then frozen.
 */
export class TrigramIndex {
  // While building: per file, the distinct keys it holds (deduplicated with the `seen` bitset over the 2^24 key
  // space, cleared key by key after each file), appended to `chunks` (4 bytes a posting, file after file), and
  // every key seen in `all` (a bitset over the key space: the bits of word w at 2w + 1; freeze() puts the rank
  // of its first key at 2w, so that one lookup reads both). freeze() numbers the keys in ascending order from it
  // (the rank of a key: keys in the words before plus the bits below; no table and no sort) and writes the
  // varint lists in two passes over the chunks: their lengths, then their bytes straight into the final array.
  private all: Uint32Array;
  private seen: Uint32Array;
  private touched: Uint32Array;
  private chunks: Uint32Array[] = [];
  private chunk = new Uint32Array(0);
  private fill = 0;
  /** Postings added (pairs of a file and a key it holds). */
  private postings = 0;
  /** Postings in the chunks, not yet in a segment (those of files from `segFrom` on). */
  private pending = 0;
  private segFrom = 0;
  /** The postings of files before `segFrom`, frozen a bounded number at a time (spilling). */
  private segments: Segment[] = [];
  private segmentBytes = 0;
  /** Per file id, how many keys it holds (its run in the chunks). */
  private counts = new Uint32Array(1024);
  // After freeze(), `keys`, `starts` and `data` hold the lists.
  /** Trigram keys in ascending order (after freeze). */
  private keys = new Uint32Array(0);
  /** Where each key's list starts in `data` (one more than the keys: the end). */
  private starts = new Uint32Array(1);
  private data = new Uint8Array(0);
  private readonly idOf = new Map<string, number>();
  private pendingPaths: readonly string[] | (() => readonly string[]) | null = null;
  /** While the map is not built: a loaded index's ids by path, from the file's bytes (path-table.ts), or null. */
  private pathTable: PathTable | null = null;
  /** The characters of the paths not taken in yet (fromParts' count), for stats() before the map is built. */
  private pendingChars = 0;
  private count = 0;
  private pathChars = 0;
  private flags = new Uint8Array(1024);
  private facts = new Float64Array(4 * 1024);
  private postingBytes = 0;
  private textBytes = 0;
  /** Text bytes added with each file counted as at least a page (PAGE_BYTES). */
  private pagedBytes = 0;
  /** Paths of directories renamed or created since the last query: their indexed descendants are stale. */
  private readonly stalePrefixes = new Set<string>();
  /** Files marked dead since the index was built. */
  dead = 0;
  /** Per file id, the mark of the last trigram of a literal it held (candidateIds); made once per index. */
  private marks: Uint32Array | null = null;
  /** Every mark of an earlier lookup is at most this. */
  private markBase = 0;
  /** The ids always candidates (alwaysIds), by the dead count and whether traps are asked for. */
  private readonly always = new Map<number, number[]>();
  /** The 4-gram bitset of each file of QUAD_MIN_BYTES or more, by id (quads.ts), and their bytes. */
  private quads = new Map<number, Uint8Array>();
  private quadBytes = 0;

  /**
   * @param building whether files will be added (the build's tables, 6 MiB, are made only then: a frozen
   * index read from a file has none)
   */
  constructor(
    building = true,
    private readonly segmentPostings = SEGMENT_POSTINGS,
  ) {
    this.all = new Uint32Array(building ? 2 * WORDS : 0);
    this.seen = new Uint32Array(building ? WORDS : 0);
    this.touched = new Uint32Array(building ? TOUCHED : 0);
  }

  /** Bytes the posting lists take so far: while building, the segments and the pending postings (4 bytes each). */
  get postingSize(): number {
    return this.postingBytes;
  }

  /** Bytes of text added so far. */
  get textSize(): number {
    return this.textBytes;
  }

  /**
   * Bytes of text added so far, each file counted as at least a page (4 KiB): the memory a query that reads the
   * files instead holds them in (the page cache keeps a file in whole pages), what the warm server's budget
   * weighs the index against (docs/decisions/0038-index-of-a-million-files.md).
   */
  get pagedTextSize(): number {
    return this.pagedBytes;
  }

  /**
   * Bytes the build holds for the index so far: the posting lists (segments, and pending postings at 4 bytes
   * each) and each file's path, facts, flags and map entry. What the warm server's byte budget is checked on.
   */
  get buildingSize(): number {
    return this.postingBytes + this.quadBytes + this.pathChars + this.count * (64 + 1 + 32);
  }

  /**
   * A lower bound of the memory the frozen index will take (as stats() counts it), while building: a byte per
   * posting (a delta varint takes at least one), the paths, and each file's facts, flags and map entry.
   */
  get frozenAtLeast(): number {
    return this.postings + this.quadBytes + this.pathChars + this.count * (64 + 1 + 32);
  }

  /** Number of files indexed. */
  get size(): number {
    return this.count;
  }

  /**
   * Gives a file its id and keeps its path, stat facts, trap flag and text size (the keys are the caller's).
   * @returns its id
   */
  private register(abs: string, facts: FileFacts, textLength: number, trap: boolean): number {
    const id = this.count++;
    this.idOf.set(abs, id);
    this.pathChars += abs.length;
    if (id >= this.flags.length) {
      const f = new Uint8Array(this.flags.length * 2);
      f.set(this.flags);
      this.flags = f;
      const g = new Float64Array(this.facts.length * 2);
      g.set(this.facts);
      this.facts = g;
      const c = new Uint32Array(this.counts.length * 2);
      c.set(this.counts);
      this.counts = c;
    }
    const at = id * 4;
    this.facts[at] = facts.size;
    this.facts[at + 1] = facts.mtimeMs;
    this.facts[at + 2] = facts.ctimeMs;
    this.facts[at + 3] = facts.ino;
    if (trap) (this.flags[id] as number) |= FLAG_TRAP;
    this.textBytes += textLength;
    this.pagedBytes += Math.max(textLength, PAGE_BYTES);
    return id;
  }

  /**
   * Adds a file by the distinct keys of its text (distinctKeys, made where it was read: the build worker), as
   * add() would with its bytes, except that its keys are marked apart (markKeys or markWords).
   * @param abs the file's absolute path
   * @param keys its distinct trigram keys, in any order
   * @param facts its stat facts
   * @param textLength the bytes of its text
   * @param trap whether its text holds a fold trap (holdsFoldTrap)
   * @param quads its 4-gram bitset (quadBitsOf), or null
   */
  addKeys(
    abs: string,
    keys: Uint32Array,
    facts: FileFacts,
    textLength: number,
    trap: boolean,
    quads: Uint8Array | null = null,
  ): void {
    const id = this.register(abs, facts, textLength, trap);
    if (quads !== null) this.keepQuads(id, quads);
    const t = keys.length;
    if (t === 0) return;
    this.append(t, keys);
    this.counts[id] = t;
  }

  /**
   * Marks keys as held by the files added since the last spill (each file added by addKeys has its keys marked,
   * here or by markWords, before the next spill or freeze).
   * @param keys trigram keys
   */
  markKeys(keys: Uint32Array): void {
    const all = this.all;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as number;
      const w = 2 * (k >>> 5) + 1;
      all[w] = (all[w] as number) | (1 << (k & 31));
    }
  }

  /**
   * Marks the keys of several files at once: the union of their keys as words of the key bitset (made where
   * they were read: a batch of the build worker's, build-read.ts), pairs of a word's number and its bits.
   * @param words the pairs
   */
  markWords(words: Uint32Array): void {
    const all = this.all;
    for (let i = 0; i < words.length; i += 2) {
      const w = 2 * (words[i] as number) + 1;
      all[w] = (all[w] as number) | (words[i + 1] as number);
    }
  }

  /**
   * Adds a file's bytes (not binary, not UTF-16; the builder decides).
   * @param abs the file's absolute path
   * @param bytes its content
   * @param facts its stat facts
   */
  add(abs: string, bytes: Uint8Array, facts: FileFacts): void {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const id = this.register(abs, facts, bytes.length, holdsFoldTrap(buf));
    const quads = quadBitsOf(bytes);
    if (quads !== null) this.keepQuads(id, quads);
    const n = bytes.length;
    if (n < 3) return;
    const seen = this.seen;
    const touched = this.touched;
    const cap = touched.length;
    let t = 0;
    let total = 0;
    let k = ((bytes[0] as number) << 8) | (bytes[1] as number);
    for (let i = 2; i < n; i++) {
      k = ((k << 8) | (bytes[i] as number)) & 0xffffff;
      const w = k >>> 5;
      const bit = 1 << (k & 31);
      const s = seen[w] as number;
      if ((s & bit) === 0) {
        seen[w] = s | bit;
        touched[t++] = k;
        if (t === cap) {
          this.append(t);
          total += t;
          t = 0;
        }
      }
    }
    this.append(t);
    total += t;
    this.counts[id] = total;
    const all = this.all;
    if (total === t) {
      for (let j = 0; j < t; j++) {
        const w = (touched[j] as number) >>> 5;
        const s = seen[w] as number;
        if (s !== 0) {
          all[2 * w + 1] = (all[2 * w + 1] as number) | s;
          seen[w] = 0;
        }
      }
    } else {
      // More distinct keys than `touched` holds: sweep the whole bitset (2 MiB) once.
      for (let w = 0; w < WORDS; w++) {
        const s = seen[w] as number;
        if (s !== 0) {
          all[2 * w + 1] = (all[2 * w + 1] as number) | s;
          seen[w] = 0;
        }
      }
    }
  }

  /** Keeps a file's 4-gram bitset. */
  private keepQuads(id: number, quads: Uint8Array): void {
    this.quads.set(id, quads);
    this.quadBytes += quads.length;
  }

  /** Appends the first `t` keys of `touched` (or of `from`) to the chunks. */
  private append(t: number, from: Uint32Array = this.touched): void {
    const touched = from;
    let j = 0;
    while (j < t) {
      if (this.fill === this.chunk.length) {
        this.chunk = new Uint32Array(Math.min(CHUNK_MAX, Math.max(CHUNK_MIN, this.pending >>> 1)));
        this.chunks.push(this.chunk);
        this.fill = 0;
      }
      const chunk = this.chunk;
      let fill = this.fill;
      const stop = Math.min(t, j + chunk.length - fill);
      if (stop - j > 64) {
        chunk.set(touched.subarray(j, stop), fill);
        fill += stop - j;
        j = stop;
      }
      while (j < stop) chunk[fill++] = touched[j++] as number;
      this.postings += fill - this.fill;
      this.pending += fill - this.fill;
      this.fill = fill;
    }
    this.postingBytes = this.segmentBytes + this.pending * 4;
  }

  /** Whether the pending postings reached a segment's worth: the builder calls spill() or steps spilling(). */
  get spillDue(): boolean {
    return this.pending >= this.segmentPostings;
  }

  /** Freezes the pending postings into a segment (a byte or so a posting instead of four). */
  spill(): void {
    const steps = this.spilling();
    let r = steps.next();
    while (r.done !== true) r = steps.next();
  }

  /**
   * spill() a step at a time (see freezing()). Files may not be added until it is done.
   * @yields after each step
   */
  *spilling(): Generator<void, void, void> {
    if (this.segFrom === this.count) return;
    const seg = yield* this.freezeRange(this.segFrom);
    this.segments.push(seg);
    this.segmentBytes += seg.data.length;
    this.chunks = [];
    this.chunk = new Uint32Array(0);
    this.fill = 0;
    this.pending = 0;
    this.segFrom = this.count;
    this.all.fill(0);
    this.postingBytes = this.segmentBytes;
  }

  /** Turns the postings into the sorted keys, list starts and varint lists, and frees the build buffers. */
  freeze(): void {
    const steps = this.freezing();
    let r = steps.next();
    while (r.done !== true) r = steps.next();
  }

  /**
   * freeze() a step at a time (about a quarter of a million postings each), for a caller that must keep
   * answering meanwhile (the warm server). The index is not used until the last step is done; invalidate() may
   * be called between steps.
   * @yields after each step
   */
  *freezing(): Generator<void, void, void> {
    let frozen: Segment;
    if (this.segments.length === 0) frozen = yield* this.freezeRange(0);
    else {
      yield* this.spilling();
      frozen = yield* this.merge();
    }
    this.keys = frozen.keys as Uint32Array<ArrayBuffer>;
    this.starts = frozen.starts as Uint32Array<ArrayBuffer>;
    this.data = frozen.data as Uint8Array<ArrayBuffer>;
    this.dropBuild();
    this.postingBytes = this.data.length;
    this.flags = this.flags.slice(0, this.count);
    this.facts = this.facts.slice(0, this.count * 4);
  }

  /**
   * Freezes the pending postings (those of files from `from` to the last) into sorted keys, list starts and
   * varint lists (each list's first delta from -1).
   */
  private *freezeRange(from: number): Generator<void, Segment, void> {
    // Per word w of the key bitset, beside its bits: how many keys lie in the words before it (the rank of its
    // first key).
    const rankOf = this.all;
    const n = rankWords(rankOf);
    const keys = keysOf(rankOf, n);
    // Per rank, side by side: the last file id added to its list, and the list's length (pass 1), then where
    // its next byte goes (pass 2).
    const meta = new Int32Array(2 * n);
    for (let j = 0; j < n; j++) meta[2 * j] = -1;
    const st: Freezing = { rankOf, meta, data: new Uint8Array(0), c: 0, i: 0 };
    const files = this.count;
    yield;
    // Pass 1: each posting's key becomes its rank, and each list's length in bytes is counted.
    for (let id = from; id < files; ) {
      const to = this.stepEnd(id);
      this.countLists(st, id, to);
      id = to;
      yield;
    }
    const { starts, total } = startsOf(meta, n);
    // Pass 2: the varints, straight into the final array.
    st.data = new Uint8Array(total);
    st.c = 0;
    st.i = 0;
    for (let id = from; id < files; ) {
      const to = this.stepEnd(id);
      this.writeLists(st, id, to);
      id = to;
      yield;
    }
    const last = new Int32Array(n);
    for (let j = 0; j < n; j++) last[j] = meta[2 * j] as number;
    return { keys, starts, data: st.data, last };
  }

  /**
   * Merges the segments into one set of lists: per key, its lists in segment order, each but the first with
   * its first delta taken from the previous list's last id (the ids of a later segment are all larger).
   */
  private *merge(): Generator<void, Segment, void> {
    const segs = this.segments;
    const rankOf = this.all;
    rankOf.fill(0);
    for (const seg of segs)
      for (const key of seg.keys)
        rankOf[2 * (key >>> 5) + 1] = (rankOf[2 * (key >>> 5) + 1] as number) | (1 << (key & 31));
    const n = rankWords(rankOf);
    const keys = keysOf(rankOf, n);
    const meta = new Int32Array(2 * n);
    for (let j = 0; j < n; j++) meta[2 * j] = -1;
    yield;
    // Pass 1: lengths (a re-encoded first delta may take fewer bytes).
    for (const seg of segs) {
      const { keys: sk, starts: ss, data: sd, last } = seg;
      for (let j = 0; j < sk.length; j++) {
        const key = sk[j] as number;
        const w2 = (key >>> 5) << 1;
        const at = ((rankOf[w2] as number) + popcount((rankOf[w2 + 1] as number) & ~(-1 << (key & 31)))) << 1;
        const a = ss[j] as number;
        let len = (ss[j + 1] as number) - a;
        const prev = meta[at] as number;
        if (prev >= 0) len += varintLength(varintAt(sd, a) - 1 - prev) - (varintEnd(sd, a) - a);
        meta[at] = last[j] as number;
        meta[at + 1] = (meta[at + 1] as number) + len;
        if ((j & 0x3ffff) === 0x3ffff) yield;
      }
      yield;
    }
    const { starts, total } = startsOf(meta, n);
    const data = new Uint8Array(total);
    // Pass 2: the bytes.
    for (const seg of segs) {
      const { keys: sk, starts: ss, data: sd, last } = seg;
      for (let j = 0; j < sk.length; j++) {
        const key = sk[j] as number;
        const w2 = (key >>> 5) << 1;
        const at = ((rankOf[w2] as number) + popcount((rankOf[w2 + 1] as number) & ~(-1 << (key & 31)))) << 1;
        let a = ss[j] as number;
        const b = ss[j + 1] as number;
        let p = meta[at + 1] as number;
        const prev = meta[at] as number;
        if (prev >= 0) {
          let d = varintAt(sd, a) - 1 - prev;
          a = varintEnd(sd, a);
          while (d >= 0x80) {
            data[p++] = (d & 0x7f) | 0x80;
            d >>>= 7;
          }
          data[p++] = d;
        }
        if (b - a >= COPY_BY_VIEW) data.set(sd.subarray(a, b), p);
        else for (let q = a, r = p; q < b; ) data[r++] = sd[q++] as number;
        meta[at] = last[j] as number;
        meta[at + 1] = p + (b - a);
        if ((j & 0x3ffff) === 0x3ffff) yield;
      }
      yield;
    }
    this.segments = [];
    this.segmentBytes = 0;
    return { keys, starts, data, last: new Int32Array(0) };
  }

  /** The file id a step of freezing() that starts at `from` stops before. */
  private stepEnd(from: number): number {
    const counts = this.counts;
    const files = this.count;
    let to = from;
    let sum = 0;
    while (to < files && sum < FREEZE_STEP) sum += counts[to++] as number;
    return to;
  }

  /** Pass 1 of freezing() over the postings of files [from, to). */
  private countLists(st: Freezing, from: number, to: number): void {
    const { rankOf, meta } = st;
    const counts = this.counts;
    const chunks = this.chunks;
    const last = chunks.length - 1;
    let c = st.c;
    let i = st.i;
    let chunk = chunks[c] ?? new Uint32Array(0);
    let end = c === last ? this.fill : chunk.length;
    for (let id = from; id < to; id++) {
      for (let m = counts[id] as number; m > 0; m--) {
        if (i === end) {
          chunk = chunks[++c] as Uint32Array;
          end = c === last ? this.fill : chunk.length;
          i = 0;
        }
        const key = chunk[i] as number;
        const w2 = (key >>> 5) << 1;
        const rank = (rankOf[w2] as number) + popcount((rankOf[w2 + 1] as number) & ~(-1 << (key & 31)));
        chunk[i++] = rank;
        const at = rank << 1;
        const d = id - (meta[at] as number);
        meta[at] = id;
        meta[at + 1] =
          (meta[at + 1] as number) +
          (d < 0x80 ? 1 : d < 0x4000 ? 2 : d < 0x200000 ? 3 : d < 0x10000000 ? 4 : 5);
      }
    }
    st.c = c;
    st.i = i;
  }

  /** Pass 2 of freezing() over the postings (now ranks) of files [from, to). */
  private writeLists(st: Freezing, from: number, to: number): void {
    const { meta, data } = st;
    const counts = this.counts;
    const chunks = this.chunks;
    const last = chunks.length - 1;
    let c = st.c;
    let i = st.i;
    let chunk = chunks[c] ?? new Uint32Array(0);
    let end = c === last ? this.fill : chunk.length;
    for (let id = from; id < to; id++) {
      for (let m = counts[id] as number; m > 0; m--) {
        if (i === end) {
          chunk = chunks[++c] as Uint32Array;
          end = c === last ? this.fill : chunk.length;
          i = 0;
        }
        const at = (chunk[i++] as number) << 1;
        let d = id - (meta[at] as number);
        meta[at] = id;
        let p = meta[at + 1] as number;
        while (d >= 0x80) {
          data[p++] = (d & 0x7f) | 0x80;
          d >>>= 7;
        }
        data[p++] = d;
        meta[at + 1] = p;
      }
    }
    st.c = c;
    st.i = i;
  }

  /** Frees the build's buffers. */
  private dropBuild(): void {
    this.all = new Uint32Array(0);
    this.seen = new Uint32Array(0);
    this.touched = new Uint32Array(0);
    this.chunks = [];
    this.chunk = new Uint32Array(0);
    this.fill = 0;
    this.counts = new Uint32Array(0);
    this.segments = [];
    this.segmentBytes = 0;
    this.pending = 0;
  }

  /**
   * The arrays of a frozen index, for a persisted copy (src/engine/index/persist.ts). Ids are in the order the
   * files were added.
   * @returns keys, list starts, posting bytes and per-file flags
   */
  frozenParts(): FrozenParts {
    const ids = [...this.quads.keys()].sort((a, b) => a - b);
    const quadIds = new Uint32Array(2 * ids.length);
    const quads = new Uint8Array(this.quadBytes);
    let at = 0;
    for (let j = 0; j < ids.length; j++) {
      const bits = this.quads.get(ids[j] as number) as Uint8Array;
      quadIds[2 * j] = ids[j] as number;
      quadIds[2 * j + 1] = bits.length;
      quads.set(bits, at);
      at += bits.length;
    }
    return {
      keys: this.keys,
      starts: this.starts,
      data: this.data,
      flags: this.flags,
      textBytes: this.textBytes,
      quadIds,
      quads,
    };
  }

  /**
   * Makes a frozen index from the arrays of frozenParts() and the files' paths and facts, as read back from a
   * persisted copy. The arrays are used as they are (not copied), the 4-gram table as its load checked it.
   * @param paths the absolute path of each file id
   * @param parts the arrays
   * @param sizes the size of each file id (for the max_file_size check)
   * @param pathChars the characters of those paths (stats() counts them before their map is built)
   * @param table the ids by path from the file's bytes: lookups use it until something needs every path (null:
   *   the map is built at the first lookup)
   * @returns the index
   */
  static fromParts(
    paths: readonly string[] | (() => readonly string[]),
    parts: FrozenParts,
    sizes: ArrayLike<number>,
    pathChars: number,
    table: PathTable | null = null,
  ): TrigramIndex {
    const idx = new TrigramIndex(false);
    const n = sizes.length;
    idx.dropBuild();
    idx.keys = parts.keys;
    idx.starts = parts.starts;
    idx.data = parts.data;
    idx.flags = parts.flags;
    idx.textBytes = parts.textBytes;
    idx.postingBytes = parts.data.length;
    let at = 0;
    for (let j = 0; j + 1 < parts.quadIds.length; j += 2) {
      const len = parts.quadIds[j + 1] as number;
      // Views of the file's bytes, not copies, of a table the load checked (persist.ts, quadsHold).
      idx.keepQuads(parts.quadIds[j] as number, parts.quads.subarray(at, at + len));
      at += len;
    }
    idx.count = n;
    idx.facts = new Float64Array(4 * n);
    for (let id = 0; id < n; id++) idx.facts[id * 4] = sizes[id] as number;
    // The map from paths is built when first asked for: a grep that replays a recorded walk knows its ids.
    idx.pendingPaths = paths;
    idx.pendingChars = pathChars;
    idx.pathTable = table;
    return idx;
  }

  /** The map from a path to its id (built from the paths fromParts was given, when first needed). */
  private pathMap(): Map<string, number> {
    const pending = this.pendingPaths;
    if (pending !== null) {
      this.pathTable = null;
      this.pendingPaths = null;
      const paths = typeof pending === "function" ? pending() : pending;
      for (let id = 0; id < paths.length; id++) {
        const p = paths[id] as string;
        this.pathChars += p.length;
        // A file marked changed (invalidateId, or so persisted) is no longer the index's.
        if (((this.flags[id] as number) & FLAG_DEAD) === 0) this.idOf.set(p, id);
      }
    }
    return this.idOf;
  }

  /** The posting list of a trigram key (frozen index), or null. */
  private listOf(key: number): Uint8Array | null {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[mid] as number;
      if (k < key) lo = mid + 1;
      else if (k > key) hi = mid - 1;
      else return this.data.subarray(this.starts[mid] as number, this.starts[mid + 1] as number);
    }
    return null;
  }

  /** Sizes, for the budget and capabilities. */
  stats(): IndexStats {
    // A path is held once (its characters, a string header and a map entry: about 64 bytes); the frozen lists
    // are typed arrays (a key and a start per trigram). A loaded index's paths are counted, not decoded: the map
    // of 277k paths takes most of a second to build, and a restarted server is asked this before any lookup.
    const memoryBytes =
      this.postingBytes +
      this.quadBytes +
      this.keys.length * 8 +
      (this.pendingPaths !== null ? this.pendingChars : this.pathChars) +
      this.count * 64 +
      this.flags.length +
      this.facts.length * 8;
    return {
      files: this.count,
      trigrams: this.keys.length,
      postingBytes: this.postingBytes,
      textBytes: this.textBytes,
      memoryBytes,
    };
  }

  /**
   * Marks a file as changed: it is no longer ruled out by the index (its content is searched again).
   * @param abs the file's absolute path
   */
  invalidate(abs: string): void {
    if (this.pendingPaths !== null && this.pathTable !== null) {
      const id = this.idOfPath(abs);
      if (id >= 0) this.invalidateId(id);
      return;
    }
    const id = this.pathMap().get(abs);
    if (id === undefined) return;
    this.idOf.delete(abs);
    this.flags[id] = (this.flags[id] as number) | FLAG_DEAD;
    this.dead++;
  }

  /**
   * Marks a file id as changed (a loaded index's file whose stats differ from those it was indexed with). Call it
   * before the paths are first looked up (fromParts builds their map when first asked): the file is then not the
   * index's at all; after, it is still never ruled out (candidates() keeps every changed file).
   * @param id the file id
   */
  invalidateId(id: number): void {
    if (((this.flags[id] as number) & FLAG_DEAD) !== 0) return;
    this.flags[id] = (this.flags[id] as number) | FLAG_DEAD;
    this.dead++;
  }

  /**
   * Marks every indexed file below a directory as changed (the directory was renamed, replaced or created:
   * the same paths may now hold other files). Applied at the next query, in one pass.
   * @param abs the directory's absolute path
   */
  invalidateBelow(abs: string): void {
    this.stalePrefixes.add(abs);
  }

  private applyPrefixes(): void {
    if (this.stalePrefixes.size === 0) return;
    const prefixes = this.stalePrefixes;
    const table = this.pendingPaths === null ? null : this.pathTable;
    if (table !== null) {
      // A loaded index's paths below each directory, found in the file's bytes (the map of every path is not built).
      for (const dir of prefixes) table.eachBelow(dir, (id) => this.invalidateId(id));
      prefixes.clear();
      return;
    }
    for (const [p, id] of this.pathMap()) {
      let cut = p.lastIndexOf("/");
      while (cut > 0) {
        const dir = p.slice(0, cut);
        if (prefixes.has(dir)) {
          this.idOf.delete(p);
          this.flags[id] = (this.flags[id] as number) | FLAG_DEAD;
          this.dead++;
          break;
        }
        cut = p.lastIndexOf("/", cut - 1);
      }
    }
    prefixes.clear();
  }

  /**
   * The path of each live file id (null for one changed since it was indexed), for a persisted copy.
   * @returns the paths by id
   */
  pathsById(): (string | null)[] {
    this.applyPrefixes();
    const out: (string | null)[] = new Array(this.count).fill(null);
    for (const [p, id] of this.pathMap()) out[id] = p;
    return out;
  }

  /**
   * Returns the id of a live indexed file, or -1 (not indexed, or changed since).
   * @param abs the file's absolute path
   * @returns the id or -1
   */
  idOfPath(abs: string): number {
    const table = this.pendingPaths === null ? null : this.pathTable;
    if (table !== null) return table.idOf(abs, this.live);
    return this.pathMap().get(abs) ?? -1;
  }

  /** Whether an id is live (isLive, bound once for the path table's lookups). */
  private readonly live = (id: number): boolean => ((this.flags[id] as number) & FLAG_DEAD) === 0;

  /**
   * Places up to `n` more of a loaded index's paths in its table of ids by path (a slice of the restart's work,
   * so that no lookup pays for the rest in one block).
   * @param n how many paths
   * @returns whether nothing is left to place
   */
  mapPathsSome(n: number): boolean {
    const table = this.pendingPaths === null ? null : this.pathTable;
    return table === null || table.fill(n);
  }

  /**
   * Whether a lookup by path is cheap now: the map from paths is built, or a loaded index's table of ids by path
   * is filled (without it, a loaded index builds the map of every path at the first lookup).
   */
  get pathsMapped(): boolean {
    return this.pendingPaths === null || this.pathTable?.whole === true;
  }

  /**
   * Tells whether a file id is still live (not changed since it was indexed).
   * @param id the file id
   * @returns true when live
   */
  isLive(id: number): boolean {
    return ((this.flags[id] as number) & FLAG_DEAD) === 0;
  }

  /**
   * Records that a file had other hard links (a link count over one) when it was read; the flag is written with
   * the index, so a server that loads it knows which files a write through another name can change unseen.
   * @param id the file id
   */
  markLinked(id: number): void {
    this.flags[id] = (this.flags[id] as number) | FLAG_LINKED;
  }

  /**
   * The files that had other hard links when they were read (markLinked), by id (a pass over the flags).
   * @returns their ids
   */
  linkedIds(): number[] {
    return this.idsFlagged(FLAG_LINKED);
  }

  /** The ids of the files with any of these flags (a pass over the flags). */
  private idsFlagged(bits: number): number[] {
    const out: number[] = [];
    const flags = this.flags;
    for (let id = 0; id < this.count; id++) if ((flags[id] as number) & bits) out.push(id);
    return out;
  }

  /**
   * Returns the size a file had when it was indexed.
   * @param id the file id
   * @returns its size in bytes
   */
  sizeOf(id: number): number {
    return this.facts[id * 4] as number;
  }

  /**
   * Returns the stat facts recorded for a file when it was indexed.
   * @param id the file id
   * @returns its facts
   */
  factsOf(id: number): FileFacts {
    const f = this.facts;
    const at = id * 4;
    return {
      size: f[at] as number,
      mtimeMs: f[at + 1] as number,
      ctimeMs: f[at + 2] as number,
      ino: f[at + 3] as number,
    };
  }

  /**
   * Returns which indexed files may hold one of the literals: a byte per file id (1: may), or null when the
   * index cannot narrow the query (a literal shorter than three bytes).
   * @param q the literals
   * @returns the candidate map, or null
   */
  candidates(q: LiteralQuery): Uint8Array | null {
    const ids = this.candidateIds(q);
    if (ids === null) return null;
    const out = new Uint8Array(this.count);
    for (let k = 0; k < ids.length; k++) out[ids[k] as number] = 1;
    return out;
  }

  /**
   * Returns the ids of the indexed files that may hold one of the literals, ascending, or null when the index
   * cannot narrow the query (a literal shorter than three bytes). It costs the posting lists it decodes and the
   * ids it gives, not the files indexed: a literal one of whose trigrams no file holds decodes nothing.
   * @param q the literals
   * @returns the candidate ids, or null
   */
  candidateIds(q: LiteralQuery): Int32Array | null {
    this.applyPrefixes();
    const caseless = q.ignoreCase ?? true;
    // Per literal, per distinct trigram of it: the keys that stand for it (its case variants when caseless).
    const literals: number[][][] = [];
    // Per literal, what a large file's 4-gram bitset must hold (null: shorter than four bytes, not filtered).
    const probes: (Int32Array[] | null)[] = [];
    for (const lit of q.literals) {
      const b = Buffer.from(lit, "utf8");
      if (b.length < 3) return null;
      // A caseless literal beyond ASCII: its other cases are other bytes, which no variant of a byte gives.
      if (caseless && b.some((x) => x >= 0x80)) return null;
      const seen = new Set<number>();
      const positions: number[][] = [];
      for (let i = 2; i < b.length; i++) {
        const k = ((b[i - 2] as number) << 16) | ((b[i - 1] as number) << 8) | (b[i] as number);
        const canon = caseless ? foldKey(k) : k;
        if (seen.has(canon)) continue;
        seen.add(canon);
        positions.push(caseless ? caseVariants(b, i - 2, 3) : [k]);
      }
      literals.push(positions);
      probes.push(this.quads.size > 0 ? quadProbe(b, caseless) : null);
    }
    const out: number[] = [];
    let sorted = true;
    for (let l = 0; l < literals.length; l++) {
      const positions = literals[l] as number[][];
      // Per trigram, the lists of its variants (a file holding any of them holds the trigram).
      const unions: { lists: Uint8Array[]; bytes: number }[] = [];
      let missing = false;
      for (const variants of positions) {
        const lists: Uint8Array[] = [];
        let bytes = 0;
        for (const k of variants) {
          const list = this.listOf(k);
          if (list === null || list.length === 0) continue;
          lists.push(list);
          bytes += list.length;
        }
        if (lists.length === 0) {
          missing = true;
          break;
        }
        unions.push({ lists, bytes });
      }
      if (missing) continue;
      // The rarest trigrams narrow as much as all of them, for less decoding.
      unions.sort((a, b) => a.bytes - b.bytes);
      const use = unions.slice(0, USE_TRIGRAMS);
      const need = use.length;
      // A file's mark reaches base + p + 1 at the p-th trigram only when it held each one before (once, whichever
      // variant). Every mark of an earlier lookup is at most base, so the marks need no clearing.
      const mark = this.marksFor();
      const base = this.markBase;
      const before = out.length;
      for (let p = 0; p < need; p++) {
        const last = p === need - 1;
        const lists = (use[p] as { lists: Uint8Array[] }).lists;
        for (const list of lists) {
          let id = -1;
          let d = 0;
          let shift = 0;
          for (let i = 0; i < list.length; i++) {
            const byte = list[i] as number;
            d |= (byte & 0x7f) << shift;
            if (byte & 0x80) {
              shift += 7;
              continue;
            }
            id += d;
            d = 0;
            shift = 0;
            const m = mark[id] as number;
            if (p === 0 ? m <= base : m === base + p) {
              mark[id] = base + p + 1;
              if (last) out.push(id);
            }
          }
        }
      }
      const probe = probes[l];
      if (probe != null) this.ruleOutByQuads(out, before, probe);
      // One list for the last trigram gives its ids ascending; its variants' lists, or another literal's, do not.
      if (out.length > before && (before > 0 || (use[need - 1] as { lists: Uint8Array[] }).lists.length > 1))
        sorted = false;
    }
    // Files that changed since they were indexed (a persisted index's, marked when it was checked) and, when
    // Unicode case folding could match them, files holding K or ſ are always candidates.
    const always = this.alwaysIds(q.traps);
    if (always.length > 0) {
      for (const id of always) out.push(id);
      sorted = false;
    }
    const ids = Int32Array.from(out);
    if (sorted) return ids;
    ids.sort();
    // Without duplicates (a file may hold two literals, or be both a candidate and changed).
    let n = 0;
    for (let k = 0; k < ids.length; k++) if (n === 0 || ids[k] !== ids[n - 1]) ids[n++] = ids[k] as number;
    return ids.slice(0, n);
  }

  /**
   * Drops from out[from..] the large files whose 4-gram bitset lacks a 4-gram of the literal (in place, in order).
   * A changed file (dead) or a trap is added back by alwaysIds, as for the trigram lists.
   */
  private ruleOutByQuads(out: number[], from: number, probe: readonly Int32Array[]): void {
    let n = from;
    for (let k = from; k < out.length; k++) {
      const id = out[k] as number;
      const bits = (this.facts[id * 4] as number) >= QUAD_MIN_BYTES ? this.quads.get(id) : undefined;
      if (bits === undefined || mayHold(bits, probe)) out[n++] = id;
    }
    out.length = n;
  }

  /** The marks, with a base above every mark given so far (and room above it for a literal's trigrams). */
  private marksFor(): Uint32Array {
    if (this.marks === null || this.marks.length !== this.count || this.markBase > 0xffff_0000) {
      this.marks = new Uint32Array(this.count);
      this.markBase = 0;
    } else this.markBase += USE_TRIGRAMS + 1;
    return this.marks;
  }

  /** The ids always candidates (changed since indexed; with traps, holding K or ſ), cached by the dead count. */
  private alwaysIds(traps: boolean): number[] {
    const key = this.dead * 2 + (traps ? 1 : 0);
    const had = this.always.get(key);
    if (had !== undefined) return had;
    const out = this.idsFlagged(FLAG_DEAD | (traps ? FLAG_TRAP : 0));
    if (this.always.size >= 4) this.always.clear();
    this.always.set(key, out);
    return out;
  }
}

/**
 * Turns each list's length (meta[2j+1]) into its start: the lists laid end to end in key order. meta[2j+1] becomes
 * the write cursor of list j and meta[2j] is reset to -1 (no id written yet) for the pass that writes them.
 * @param meta per list, [last id, length in bytes]
 * @param n the number of lists
 * @returns the starts (n + 1, the last the total) and the total length in bytes
 */
function startsOf(meta: Int32Array, n: number): { starts: Uint32Array; total: number } {
  const starts = new Uint32Array(n + 1);
  let total = 0;
  for (let j = 0; j < n; j++) {
    starts[j] = total;
    const len = meta[2 * j + 1] as number;
    meta[2 * j] = -1;
    meta[2 * j + 1] = total;
    total += len;
  }
  starts[n] = total;
  return { starts, total };
}
