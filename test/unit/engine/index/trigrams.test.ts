// The trigram index (#24, #36) against a plain search: on seeded random files, every file that holds a literal
// (exactly, or ASCII case folded for a caseless query) is a candidate, over files with enough distinct trigrams
// to grow the index's tables inside one file (a slot table that grew while a file was added once lost that
// file's postings), varint deltas of every width, and invalidation (by path and below a directory). The frozen
// arrays (what a persisted index stores) equal those of a naive reference built from each file's set of
// trigrams, byte for byte, whether built in one piece or spilled in many segments and merged.
import { describe, expect, test } from "bun:test";
import { TrigramIndex } from "../../../../src/engine/index/trigrams.ts";
import { prng } from "../../../helpers.ts";

const FACTS = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };

function randomBytes(r: () => number, n: number, alphabet: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = 32 + Math.floor(r() * Math.min(alphabet, 224));
  return b;
}

describe("TrigramIndex", () => {
  test.each([1, 2, 3])("never rules out a file holding the literal (seed %i)", (seed) => {
    const r = prng(seed);
    const files: Buffer[] = [];
    const idx = new TrigramIndex();
    // Many small files (ids past 128 and 16384 need longer varints) and a few with ~100k distinct trigrams.
    for (let f = 0; f < 400; f++) {
      const big = f % 100 === 7;
      const b = randomBytes(r, big ? 300_000 : 20 + Math.floor(r() * 200), big ? 90 : 20);
      files.push(b);
      idx.add(`/t/f${f}`, b, FACTS);
    }
    for (let f = 0; f < 17_000; f++) idx.add(`/t/pad${f}`, Buffer.from("zz"), FACTS);
    const last = Buffer.from("the tail literal QX~");
    files.push(last);
    idx.add("/t/last", last, FACTS);
    idx.freeze();
    for (let q = 0; q < 300; q++) {
      const src = files[Math.floor(r() * files.length)] as Buffer;
      const at = Math.floor(r() * Math.max(1, src.length - 8));
      const lit = src.subarray(at, at + 3 + Math.floor(r() * 5)).toString("latin1");
      const cand = idx.candidates({ literals: [lit], traps: false });
      const exact = idx.candidates({ literals: [lit], traps: false, ignoreCase: false });
      expect(cand).not.toBeNull();
      files.forEach((b, i) => {
        const id = idx.idOfPath(i === files.length - 1 ? "/t/last" : `/t/f${i}`);
        if (b.toString("latin1").toLowerCase().includes(lit.toLowerCase())) expect(cand?.[id]).toBe(1);
        if (b.toString("latin1").includes(lit)) expect(exact?.[id]).toBe(1);
      });
    }
    const tail = idx.candidates({ literals: ["tail literal qx~"], traps: false });
    expect(tail?.[idx.idOfPath("/t/last")]).toBe(1);
  });

  test.each([4, 5])(
    "candidateIds: exactly the files holding every trigram of a literal, ascending, lookup after lookup (seed %i)",
    (seed) => {
      const r = prng(seed);
      const files: Buffer[] = [];
      const idx = new TrigramIndex();
      for (let f = 0; f < 600; f++) {
        const b = randomBytes(r, 10 + Math.floor(r() * 120), 12);
        // Some upper-case letters, so that a caseless lookup unites several variants' lists.
        for (let i = 0; i < b.length; i += 7) if (r() < 0.5) b[i] = 65 + Math.floor(r() * 4);
        files.push(b);
        idx.add(`/t/f${f}`, b, FACTS);
      }
      idx.freeze();
      const grams = (b: Buffer, fold: boolean) => {
        const t = fold ? Buffer.from(b.toString("latin1").toLowerCase(), "latin1") : b;
        const out = new Set<string>();
        for (let i = 2; i < t.length; i++) out.add(t.subarray(i - 2, i + 1).toString("latin1"));
        return out;
      };
      const held = files.map((b) => [grams(b, false), grams(b, true)] as const);
      // Hundreds of lookups on one index: the marks one lookup leaves must never count in the next.
      for (let q = 0; q < 600; q++) {
        const caseless = r() < 0.5;
        const lits: string[] = [];
        for (let l = 0, n = 1 + Math.floor(r() * 3); l < n; l++) {
          const src = files[Math.floor(r() * files.length)] as Buffer;
          const at = Math.floor(r() * (src.length - 6));
          lits.push(src.subarray(at, at + 3 + Math.floor(r() * 4)).toString("latin1"));
        }
        const litGrams = lits.map((lit) => [...grams(Buffer.from(lit, "latin1"), caseless)]);
        const want: number[] = [];
        files.forEach((_, i) => {
          const g = (held[i] as readonly [Set<string>, Set<string>])[caseless ? 1 : 0];
          if (litGrams.some((ts) => ts.every((t) => g.has(t)))) want.push(idx.idOfPath(`/t/f${i}`));
        });
        want.sort((a, b) => a - b);
        const got = idx.candidateIds({ literals: lits, traps: false, ignoreCase: caseless });
        expect([...(got ?? [])]).toEqual(want);
      }
    },
  );

  test("narrows: a file without the literal's trigrams is not a candidate; short literals do not narrow", () => {
    const idx = new TrigramIndex();
    idx.add("/a/x.txt", Buffer.from("hello needle world"), FACTS);
    idx.add("/a/y.txt", Buffer.from("nothing to see"), FACTS);
    idx.add("/b/z.txt", Buffer.from("NEEDLE in caps, \u212a"), FACTS);
    idx.freeze();
    const c = idx.candidates({ literals: ["needle"], traps: false });
    expect([...(c ?? [])]).toEqual([1, 0, 1]);
    expect(idx.candidates({ literals: ["ne"], traps: false })).toBeNull();
    // Exact case: a case-sensitive literal narrows to its own spelling; a caseless one to every spelling.
    expect([...(idx.candidates({ literals: ["NEEDLE"], traps: false, ignoreCase: false }) ?? [])]).toEqual([
      0, 0, 1,
    ]);
    expect([...(idx.candidates({ literals: ["NeEdLe"], traps: false, ignoreCase: true }) ?? [])]).toEqual([
      1, 0, 1,
    ]);
    expect([...(idx.candidates({ literals: ["NeEdLe"], traps: false, ignoreCase: false }) ?? [])]).toEqual([
      0, 0, 0,
    ]);
    // A caseless literal beyond ASCII cannot be narrowed by byte variants.
    expect(idx.candidates({ literals: ["néedle"], traps: false, ignoreCase: true })).toBeNull();
    // Unicode case folding: a file holding KELVIN SIGN stays a candidate of a caseless literal with a k.
    expect([...(idx.candidates({ literals: ["kite"], traps: true }) ?? [])]).toEqual([0, 0, 1]);
    idx.invalidate("/a/x.txt");
    expect(idx.idOfPath("/a/x.txt")).toBe(-1);
    idx.invalidateBelow("/b");
    idx.candidates({ literals: ["needle"], traps: false });
    expect(idx.idOfPath("/b/z.txt")).toBe(-1);
    expect(idx.idOfPath("/a/y.txt")).toBe(1);
  });

  test.each([
    [4, 0],
    [5, 0],
    [6, 0],
    [7, 3000],
    [8, 257],
  ])(
    "frozen arrays equal a naive reference, byte for byte (seed %i, segments of %i postings)",
    (seed, segment) => {
      const r = prng(seed);
      const files: Buffer[] = [];
      for (let f = 0; f < 700; f++) {
        const kind = f === 250 || f === 600 ? -1 : f % 97;
        // Mostly small files over a few alphabets (upper case and bytes past 0x7f included), empty and 1-2 byte
        // files, and two with more distinct trigrams than a file's gathering buffer (65,536) holds.
        let b: Buffer;
        if (kind === 3) b = Buffer.alloc(Math.floor(r() * 3), 65);
        else if (kind === -1) {
          b = Buffer.alloc(120_000);
          for (let i = 0; i < b.length; i++) b[i] = 1 + Math.floor(r() * 255);
        } else b = randomBytes(r, Math.floor(r() * 300), [20, 60, 200][f % 3] as number);
        files.push(b);
      }
      const idx = segment === 0 ? new TrigramIndex() : new TrigramIndex(true, segment);
      let spills = 0;
      files.forEach((b, f) => {
        idx.add(`/r/${f}`, b, FACTS);
        if (idx.spillDue) {
          idx.spill();
          spills++;
        }
      });
      if (segment > 0) expect(spills).toBeGreaterThan(3);
      idx.freeze();
      const got = idx.frozenParts();
      // The reference: per key, the ids of the files holding it, as delta varints, keys in ascending order.
      const lists = new Map<number, number[]>();
      files.forEach((b, id) => {
        const set = new Set<number>();
        const low = b;
        for (let i = 2; i < low.length; i++)
          set.add(((low[i - 2] as number) << 16) | ((low[i - 1] as number) << 8) | (low[i] as number));
        for (const k of set) {
          const l = lists.get(k);
          if (l === undefined) lists.set(k, [id]);
          else l.push(id);
        }
      });
      const keys = [...lists.keys()].sort((a, b) => a - b);
      const starts: number[] = [];
      const data: number[] = [];
      for (const k of keys) {
        starts.push(data.length);
        let last = -1;
        for (const id of lists.get(k) as number[]) {
          let d = id - last;
          last = id;
          while (d >= 0x80) {
            data.push((d & 0x7f) | 0x80);
            d >>>= 7;
          }
          data.push(d);
        }
      }
      starts.push(data.length);
      expect(got.keys.length).toBe(keys.length);
      expect(Buffer.from(got.keys.buffer).equals(Buffer.from(Uint32Array.from(keys).buffer))).toBe(true);
      expect(Buffer.from(got.starts.buffer).equals(Buffer.from(Uint32Array.from(starts).buffer))).toBe(true);
      expect(Buffer.from(got.data).equals(Buffer.from(data))).toBe(true);
      expect(got.textBytes).toBe(files.reduce((n, b) => n + b.length, 0));
    },
  );

  test("lists of every length merge byte for byte: a trigram in every file of a segment (lists past 64 bytes)", () => {
    // Every file holds "common text" (its lists run the whole segment: hundreds of bytes), and a few random bytes
    // (short lists); ids pass 128, so first deltas re-encoded across segments change width.
    const r = prng(11);
    const files: Buffer[] = [];
    for (let f = 0; f < 3000; f++)
      files.push(Buffer.concat([Buffer.from("common text "), randomBytes(r, 4 + Math.floor(r() * 12), 30)]));
    const whole = new TrigramIndex();
    const spilled = new TrigramIndex(true, 4000);
    let spills = 0;
    files.forEach((b, f) => {
      whole.add(`/r/${f}`, b, FACTS);
      spilled.add(`/r/${f}`, b, FACTS);
      if (spilled.spillDue) {
        spilled.spill();
        spills++;
      }
    });
    expect(spills).toBeGreaterThan(3);
    whole.freeze();
    spilled.freeze();
    const a = whole.frozenParts();
    const b = spilled.frozenParts();
    expect(Buffer.from(b.keys.buffer).equals(Buffer.from(a.keys.buffer))).toBe(true);
    expect(Buffer.from(b.starts.buffer).equals(Buffer.from(a.starts.buffer))).toBe(true);
    expect(Buffer.from(b.data).equals(Buffer.from(a.data))).toBe(true);
    // The longest list is the common trigrams' (a byte per file: 3000 files, ids 1 apart).
    let longest = 0;
    for (let k = 0; k + 1 < b.starts.length; k++)
      longest = Math.max(longest, (b.starts[k + 1] as number) - (b.starts[k] as number));
    expect(longest).toBe(3000);
  });
});
