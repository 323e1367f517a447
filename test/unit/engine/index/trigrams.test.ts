// The trigram index (#24) against a plain search: on seeded random files, every file that holds a literal
// (ASCII case folded) is a candidate, over files with enough distinct trigrams to grow the index's tables
// inside one file (a slot table that grew while a file was added once lost that file's postings), varint
// deltas of every width, and invalidation (by path and below a directory).
import { describe, expect, test } from "bun:test";
import { TrigramIndex } from "../../../../src/engine/index/trigrams.ts";
import { prng } from "../../../helpers.ts";

const FACTS = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };

function randomBytes(r: () => number, n: number, alphabet: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = 32 + Math.floor(r() * alphabet);
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
      expect(cand).not.toBeNull();
      files.forEach((b, i) => {
        const id = idx.idOfPath(i === files.length - 1 ? "/t/last" : `/t/f${i}`);
        if (b.toString("latin1").toLowerCase().includes(lit.toLowerCase())) expect(cand?.[id]).toBe(1);
      });
    }
    const tail = idx.candidates({ literals: ["tail literal qx~"], traps: false });
    expect(tail?.[idx.idOfPath("/t/last")]).toBe(1);
  });

  test("narrows: a file without the literal's trigrams is not a candidate; short literals do not narrow", () => {
    const idx = new TrigramIndex();
    idx.add("/a/x.txt", Buffer.from("hello needle world"), FACTS);
    idx.add("/a/y.txt", Buffer.from("nothing to see"), FACTS);
    idx.add("/b/z.txt", Buffer.from("NEEDLE in caps, \u212a"), FACTS);
    idx.freeze();
    const c = idx.candidates({ literals: ["needle"], traps: false });
    expect([...(c ?? [])]).toEqual([1, 0, 1]);
    expect(idx.candidates({ literals: ["ne"], traps: false })).toBeNull();
    // Unicode case folding: a file holding KELVIN SIGN stays a candidate of a caseless literal with a k.
    expect([...(idx.candidates({ literals: ["kite"], traps: true }) ?? [])]).toEqual([0, 0, 1]);
    idx.invalidate("/a/x.txt");
    expect(idx.idOfPath("/a/x.txt")).toBe(-1);
    idx.invalidateBelow("/b");
    idx.candidates({ literals: ["needle"], traps: false });
    expect(idx.idOfPath("/b/z.txt")).toBe(-1);
    expect(idx.idOfPath("/a/y.txt")).toBe(1);
  });
});
