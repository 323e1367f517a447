// The 4-gram bitsets of large files (#36): candidates() against a brute-force search of each file's bytes, on
// seeded random files of 64 KiB and more whose small alphabet gives them every trigram of a literal but not
// every 4-gram. Never a false negative (present literals, exact and ASCII-caseless, multi-byte UTF-8, a literal
// at the first and the last bytes of a file, one of exactly four bytes); files without a 4-gram of the literal
// are ruled out; literals shorter than four bytes, files changed since indexed and fold traps stay candidates;
// an index made again from its frozen parts (what a persisted index stores) answers the same.
import { describe, expect, test } from "bun:test";
import { QUAD_MIN_BYTES } from "../../../../src/engine/index/quads.ts";
import { TrigramIndex } from "../../../../src/engine/index/trigrams.ts";
import { prng } from "../../../helpers.ts";

const facts = (b: Uint8Array) => ({ size: b.length, mtimeMs: 0, ctimeMs: 0, ino: 0 });
/** Twenty characters: a file of 64 KiB holds each of their trigrams, and about half their 4-grams. */
const CHARS = [..."abcdefgHIJKLMN _.=", "é", "日"];

/** A text of n bytes or a few more, drawn from CHARS (multi-byte ones whole). */
function randomText(r: () => number, n: number): Buffer {
  const chars = CHARS;
  const parts: string[] = [];
  let len = 0;
  while (len < n) {
    const c = chars[Math.floor(r() * chars.length)] as string;
    parts.push(c);
    len += Buffer.byteLength(c);
  }
  return Buffer.from(parts.join(""));
}

const lowerAscii = (b: Uint8Array) => Buffer.from(b.map((x) => (x >= 65 && x <= 90 ? x + 32 : x)));
const flipAscii = (b: Uint8Array) =>
  Buffer.from(b.map((x) => ((x >= 65 && x <= 90) || (x >= 97 && x <= 122) ? x ^ 0x20 : x)));

/** Ids of the files a brute-force search finds the literal in (`lower`: the files ASCII lower-cased). */
function holders(
  files: readonly Buffer[],
  lower: readonly Buffer[],
  lit: Buffer,
  caseless: boolean,
): Set<number> {
  const out = new Set<number>();
  const needle = caseless ? lowerAscii(lit) : lit;
  (caseless ? lower : files).forEach((b, id) => {
    if (b.includes(needle)) out.add(id);
  });
  return out;
}

/** Whether a file holds every 4-gram of a literal (brute force). */
function holdsEveryQuad(b: Buffer, lit: Buffer): boolean {
  for (let i = 0; i + 4 <= lit.length; i++) if (!b.includes(lit.subarray(i, i + 4))) return false;
  return true;
}

function build(seed: number): { idx: TrigramIndex; files: Buffer[] } {
  const r = prng(seed);
  const files: Buffer[] = [];
  const idx = new TrigramIndex();
  for (let f = 0; f < 24; f++) {
    const b = randomText(r, QUAD_MIN_BYTES + Math.floor(r() * QUAD_MIN_BYTES));
    files.push(b);
    idx.add(`/t/f${f}`, b, facts(b));
  }
  idx.freeze();
  return { idx, files };
}

describe("4-gram bitsets of large files", () => {
  test.each([1, 2, 3])(
    "never a false negative, and files lacking a 4-gram are ruled out (seed %i)",
    (seed) => {
      const { idx, files } = build(seed);
      const again = TrigramIndex.fromParts(
        files.map((_, i) => `/t/f${i}`),
        idx.frozenParts(),
        files.map((b) => b.length),
        0,
      );
      const lower = files.map(lowerAscii);
      const r = prng(seed + 100);
      let ruledOut = 0;
      let lacking = 0;
      for (let q = 0; q < 160; q++) {
        const src = files[Math.floor(r() * files.length)] as Buffer;
        const len = 4 + Math.floor(r() * 9);
        // From a file's first byte, up to its last, or anywhere; one in two made of random characters (absent).
        const pick = q % 3;
        const at = pick === 0 ? 0 : pick === 1 ? src.length - len : Math.floor(r() * (src.length - len));
        const lit = q % 2 === 1 ? randomText(r, len) : Buffer.from(src.subarray(at, at + len));
        if (Buffer.from(lit.toString("utf8")).equals(lit)) {
          for (const caseless of [false, true]) {
            const shown = caseless && q % 4 === 1 ? flipAscii(lit) : lit;
            const text = shown.toString("utf8");
            const want = holders(files, lower, shown, caseless);
            for (const index of [idx, again]) {
              const got = index.candidates({ literals: [text], traps: false, ignoreCase: caseless });
              if (caseless && shown.some((x) => x >= 0x80)) {
                expect(got).toBeNull();
                continue;
              }
              expect(got).not.toBeNull();
              for (const id of want) expect(got?.[id]).toBe(1);
              // The files that lack a 4-gram of the literal, and how many of them are ruled out.
              if (!caseless && index === idx) {
                files.forEach((b, id) => {
                  if (holdsEveryQuad(b, shown)) return;
                  lacking++;
                  if (got?.[id] === 0) ruledOut++;
                });
              }
            }
          }
        }
      }
      // Every trigram of the alphabet is in every file: only the 4-grams rule files out, and they do (a hash
      // collision keeps a file: on these seeds about three in ten of those lacking a 4-gram).
      expect(lacking).toBeGreaterThan(500);
      expect(ruledOut / lacking).toBeGreaterThan(0.6);
    },
  );

  test("a file with every trigram of a literal but not the literal is ruled out; short literals, changed files and fold traps stay", () => {
    // `traverseFast`'s trigrams, each apart from the next: no 4-gram of it is in the file.
    const lit = "traverseFast";
    const pieces: string[] = [];
    for (let i = 0; i + 3 <= lit.length; i++) pieces.push(lit.slice(i, i + 3));
    const filler = Buffer.from(`${pieces.join("|")}\n`.repeat(Math.ceil((QUAD_MIN_BYTES * 2) / 40)));
    const trap = Buffer.concat([filler, Buffer.from("\u212a")]);
    const holder = Buffer.concat([filler, Buffer.from(lit)]);
    const idx = new TrigramIndex();
    for (const [name, b] of [
      ["filler", filler],
      ["trap", trap],
      ["holder", holder],
      ["changed", filler],
    ] as const)
      idx.add(`/t/${name}`, b, facts(b));
    idx.freeze();
    const id = (n: string) => idx.idOfPath(`/t/${n}`);
    const changed = id("changed");
    idx.invalidate("/t/changed");
    const exact = idx.candidates({ literals: [lit], traps: false, ignoreCase: false });
    expect([...(exact ?? [])]).toEqual([0, 0, 1, 1]);
    const caseless = idx.candidates({ literals: ["TRAVERSEFAST"], traps: true, ignoreCase: true });
    // The trap file stays when Unicode folding could match (K or ſ for a k or s of the literal).
    expect(caseless?.[id("trap")]).toBe(1);
    expect(caseless?.[id("filler")]).toBe(0);
    expect(caseless?.[id("holder")]).toBe(1);
    expect(caseless?.[changed]).toBe(1);
    // Three bytes: the trigram lists alone, which every file passes.
    expect([...(idx.candidates({ literals: ["tra"], traps: false, ignoreCase: false }) ?? [])]).toEqual([
      1, 1, 1, 1,
    ]);
    // Two literals: a file is a candidate when it may hold either.
    const either = idx.candidates({ literals: [lit, "nowhere"], traps: false, ignoreCase: false });
    expect(either?.[id("filler")]).toBe(0);
    expect(either?.[id("holder")]).toBe(1);
  });
});
