/*! Engine, warm index: a trigram index of file contents. Byte trigrams of the text with ASCII letters folded
 * to lower case (one index answers case-sensitive and ASCII-caseless queries), posting lists of file ids as
 * delta varints. It only narrows: a file it rules out cannot hold a required literal; the matcher decides on
 * the file's current bytes. No I/O here (the builder hands it bytes). */

/** ASCII lower-case folding of a byte. */
const FOLD = new Uint8Array(256);
for (let i = 0; i < 256; i++) FOLD[i] = i >= 65 && i <= 90 ? i + 32 : i;

/** The bytes of U+212A KELVIN SIGN and U+017F LONG S: Unicode case folding matches them with k and s. */
const KELVIN = Buffer.from("\u212a", "utf8");
const LONG_S = Buffer.from("\u017f", "utf8");

/** Per-file flags. */
const FLAG_DEAD = 1;
const FLAG_TRAP = 2;

/** What a query needs from the index about the literals one of which every match must contain. */
export interface LiteralQuery {
  /** The literals (UTF-8 text). */
  readonly literals: readonly string[];
  /** Whether Unicode case folding could match K (U+212A) or ſ (U+017F) with an ASCII k or s of a literal. */
  readonly traps: boolean;
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
export interface FileFacts {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

/** The arrays of a frozen index (what a persisted copy holds besides paths and stat facts). */
export interface FrozenParts {
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
}

/**
 * A trigram index over a set of files, built file by file (ids in the order added), then frozen.
 */
export class TrigramIndex {
  // Posting lists while building: an open-addressing table from trigram key to slot, and per slot a growing
  // buffer, its length and the last id (a Map of objects took about 1.5 times as long on babel).
  private tableBits = 18;
  private table = new Int32Array(1 << 18).fill(-1);
  private tableSlot = new Int32Array(1 << 18);
  private slots = 0;
  private lens = new Int32Array(1 << 14);
  private lasts = new Int32Array(1 << 14);
  private bufs: Uint8Array[] = [];
  // After freeze(), `keys`, `starts` and `data` hold the lists.
  /** Trigram keys in ascending order (after freeze). */
  private keys = new Uint32Array(0);
  /** Where each key's list starts in `data` (one more than the keys: the end). */
  private starts = new Uint32Array(1);
  private data = new Uint8Array(0);
  private readonly idOf = new Map<string, number>();
  private count = 0;
  private pathChars = 0;
  private flags = new Uint8Array(1024);
  private facts = new Float64Array(4 * 1024);
  private seen = new Uint32Array(1 << 19);
  private touched = new Uint32Array(1 << 16);
  private postingBytes = 0;
  private textBytes = 0;
  /** Paths of directories renamed or created since the last query: their indexed descendants are stale. */
  private readonly stalePrefixes = new Set<string>();
  /** Files marked dead since the index was built. */
  dead = 0;

  /** Bytes of posting lists so far. */
  get postingSize(): number {
    return this.postingBytes;
  }

  /** Number of files indexed. */
  get size(): number {
    return this.count;
  }

  /**
   * Adds a file's bytes (not binary, not UTF-16; the builder decides).
   * @param abs the file's absolute path
   * @param bytes its content
   * @param facts its stat facts
   */
  add(abs: string, bytes: Uint8Array, facts: FileFacts): void {
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
    }
    this.facts.set([facts.size, facts.mtimeMs, facts.ctimeMs, facts.ino], id * 4);
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.indexOf(KELVIN) >= 0 || buf.indexOf(LONG_S) >= 0) (this.flags[id] as number) |= FLAG_TRAP;
    this.textBytes += bytes.length;
    const n = bytes.length;
    if (n < 3) return;
    if (this.touched.length < n) this.touched = new Uint32Array(Math.max(n, this.touched.length * 2));
    const seen = this.seen;
    const touched = this.touched;
    let t = 0;
    let k = ((FOLD[bytes[0] as number] as number) << 8) | (FOLD[bytes[1] as number] as number);
    for (let i = 2; i < n; i++) {
      k = ((k << 8) | (FOLD[bytes[i] as number] as number)) & 0xffffff;
      const w = k >>> 5;
      const bit = 1 << (k & 31);
      const s = seen[w] as number;
      if ((s & bit) === 0) {
        seen[w] = s | bit;
        touched[t++] = k;
      }
    }
    const bufs = this.bufs;
    for (let j = 0; j < t; j++) {
      const key = touched[j] as number;
      seen[key >>> 5] = 0;
      const s = this.slotOf(key);
      // Read after slotOf: a new slot may have grown these arrays.
      const lens = this.lens;
      const lasts = this.lasts;
      let d = id - (lasts[s] as number);
      lasts[s] = id;
      let len = lens[s] as number;
      let b = bufs[s] as Uint8Array;
      if (len + 5 > b.length) {
        const nb = new Uint8Array(b.length * 2);
        nb.set(b.subarray(0, len));
        this.postingBytes += nb.length - b.length;
        bufs[s] = b = nb;
      }
      while (d >= 0x80) {
        b[len++] = (d & 0x7f) | 0x80;
        d >>>= 7;
      }
      b[len++] = d;
      lens[s] = len;
    }
  }

  /** The slot of a trigram key, made when new (the table doubles at half full). */
  private slotOf(key: number): number {
    const mask = (1 << this.tableBits) - 1;
    let h = Math.imul(key, 0x9e3779b1) >>> (32 - this.tableBits);
    while (true) {
      const k = this.table[h] as number;
      if (k === key) return this.tableSlot[h] as number;
      if (k === -1) break;
      h = (h + 1) & mask;
    }
    const s = this.slots++;
    this.table[h] = key;
    this.tableSlot[h] = s;
    if (s >= this.lens.length) {
      const l = new Int32Array(this.lens.length * 2);
      l.set(this.lens);
      this.lens = l;
      const q = new Int32Array(this.lasts.length * 2);
      q.set(this.lasts);
      this.lasts = q;
    }
    this.lasts[s] = -1;
    this.bufs.push(new Uint8Array(4));
    this.postingBytes += 4;
    if (this.slots * 2 > 1 << this.tableBits) this.growTable();
    return s;
  }

  private growTable(): void {
    const oldKeys = this.table;
    const oldSlots = this.tableSlot;
    this.tableBits++;
    const size = 1 << this.tableBits;
    const mask = size - 1;
    this.table = new Int32Array(size).fill(-1);
    this.tableSlot = new Int32Array(size);
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i] as number;
      if (k === -1) continue;
      let h = Math.imul(k, 0x9e3779b1) >>> (32 - this.tableBits);
      while (this.table[h] !== -1) h = (h + 1) & mask;
      this.table[h] = k;
      this.tableSlot[h] = oldSlots[i] as number;
    }
  }

  /** Shrinks every posting list to its length (once the build is done) and frees the build buffers. */
  freeze(): void {
    // Keys are 24 bits and slots fewer than 2^24: one sort of key * 2^24 + slot orders the slots by key.
    const order = new Float64Array(this.slots);
    let n = 0;
    for (let i = 0; i < this.table.length; i++) {
      const k = this.table[i] as number;
      if (k !== -1) order[n++] = k * 16777216 + (this.tableSlot[i] as number);
    }
    order.sort();
    const keys = new Uint32Array(n);
    const starts = new Uint32Array(n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const v = order[i] as number;
      keys[i] = Math.floor(v / 16777216);
      starts[i] = total;
      total += this.lens[v % 16777216] as number;
    }
    starts[n] = total;
    const data = new Uint8Array(total);
    for (let i = 0; i < n; i++) {
      const s = (order[i] as number) % 16777216;
      data.set((this.bufs[s] as Uint8Array).subarray(0, this.lens[s] as number), starts[i] as number);
    }
    this.keys = keys;
    this.starts = starts;
    this.data = data;
    this.table = new Int32Array(0);
    this.tableSlot = new Int32Array(0);
    this.lens = new Int32Array(0);
    this.lasts = new Int32Array(0);
    this.bufs = [];
    this.postingBytes = total;
    this.seen = new Uint32Array(0);
    this.touched = new Uint32Array(0);
    this.flags = this.flags.slice(0, this.count);
    this.facts = this.facts.slice(0, this.count * 4);
  }

  /**
   * The arrays of a frozen index, for a persisted copy (src/engine/index/persist.ts). Ids are in the order the
   * files were added.
   * @returns keys, list starts, posting bytes and per-file flags
   */
  frozenParts(): FrozenParts {
    return {
      keys: this.keys,
      starts: this.starts,
      data: this.data,
      flags: this.flags,
      textBytes: this.textBytes,
    };
  }

  /**
   * Makes a frozen index from the arrays of frozenParts() and the files' paths and facts, as read back from a
   * persisted copy. The arrays are used as they are (not copied).
   * @param paths the absolute path of each file id
   * @param parts the arrays
   * @param sizes the size of each file id (for the max_file_size check)
   * @returns the index
   */
  static fromParts(paths: readonly string[], parts: FrozenParts, sizes: ArrayLike<number>): TrigramIndex {
    const idx = new TrigramIndex();
    const n = paths.length;
    idx.table = new Int32Array(0);
    idx.tableSlot = new Int32Array(0);
    idx.lens = new Int32Array(0);
    idx.lasts = new Int32Array(0);
    idx.seen = new Uint32Array(0);
    idx.touched = new Uint32Array(0);
    idx.keys = parts.keys;
    idx.starts = parts.starts;
    idx.data = parts.data;
    idx.flags = parts.flags;
    idx.textBytes = parts.textBytes;
    idx.postingBytes = parts.data.length;
    idx.count = n;
    idx.facts = new Float64Array(4 * n);
    for (let id = 0; id < n; id++) {
      const p = paths[id] as string;
      idx.idOf.set(p, id);
      idx.pathChars += p.length;
      idx.facts[id * 4] = sizes[id] as number;
    }
    return idx;
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
    // are typed arrays (a key and a start per trigram).
    const memoryBytes =
      this.postingBytes +
      this.keys.length * 8 +
      this.pathChars +
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
    const id = this.idOf.get(abs);
    if (id === undefined) return;
    this.idOf.delete(abs);
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
    for (const [p, id] of this.idOf) {
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
   * Returns the id of a live indexed file, or -1 (not indexed, or changed since).
   * @param abs the file's absolute path
   * @returns the id or -1
   */
  idOfPath(abs: string): number {
    return this.idOf.get(abs) ?? -1;
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
    this.applyPrefixes();
    const keysOf: number[][] = [];
    for (const lit of q.literals) {
      const b = Buffer.from(lit, "utf8");
      if (b.length < 3) return null;
      const keys = new Set<number>();
      for (let i = 2; i < b.length; i++)
        keys.add(
          ((FOLD[b[i - 2] as number] as number) << 16) |
            ((FOLD[b[i - 1] as number] as number) << 8) |
            (FOLD[b[i] as number] as number),
        );
      keysOf.push([...keys]);
    }
    const n = this.count;
    const out = new Uint8Array(n);
    const count = new Uint16Array(n);
    for (const keys of keysOf) {
      const lists: Uint8Array[] = [];
      let missing = false;
      for (const k of keys) {
        const list = this.listOf(k);
        if (list === null) {
          missing = true;
          break;
        }
        lists.push(list);
      }
      if (missing) continue;
      // The rarest trigrams narrow as much as all of them, for less decoding.
      lists.sort((a, b) => a.length - b.length);
      const use = lists.slice(0, 8);
      count.fill(0);
      for (const list of use) {
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
          count[id] = (count[id] as number) + 1;
        }
      }
      const need = use.length;
      for (let id = 0; id < n; id++) if (count[id] === need) out[id] = 1;
    }
    if (q.traps) {
      const flags = this.flags;
      for (let id = 0; id < n; id++) if ((flags[id] as number) & FLAG_TRAP) out[id] = 1;
    }
    return out;
  }
}
