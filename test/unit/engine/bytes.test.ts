// The read buffer's newline counter: the WebAssembly SIMD kernel against a plain byte loop on seeded random
// buffers (every length and offset mix, runs long enough to flush its 8-bit lane counters), and the fallback
// without WebAssembly the same way; growing keeps the bytes, shrinking gives the memory back.
// A buffer given back is reused by the next one made in the thread (a new WebAssembly memory costs a full GC).
import { describe, expect, test } from "bun:test";
import { createByteBuffer, MAX_ENDS, MAX_NEEDLE, releaseByteBuffer } from "../../../src/engine/bytes.ts";
import { prng } from "../../helpers.ts";

function byteLoop(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (b[i] === 10) n++;
  return n;
}

/** Fills the store with random bytes, newlines 1 in `density` of them; returns the bytes and a random range. */
function randomBytes(
  store: ReturnType<typeof createByteBuffer>,
  rand: (n: number) => number,
  size: number,
  density: number,
) {
  const b = store.grow(size, 0);
  for (let i = 0; i < size; i++) b[i] = rand(density) === 0 ? 10 : rand(256);
  const from = rand(size + 1);
  return { b, from, to: from + rand(size - from + 1) };
}

describe.each([
  ["WebAssembly kernel", false],
  ["fallback", true],
])("newlines: %s", (_name, plain) => {
  test("equals a byte loop on random buffers and ranges", () => {
    const next = prng(plain ? 7 : 11);
    const rand = (n: number) => Math.floor(next() * n);
    const store = createByteBuffer(1024, plain);
    for (let round = 0; round < 300; round++) {
      // Sizes from a few bytes to 64 KiB (more than 63 rounds of 64 bytes: the lane counters are flushed).
      const size = 1 + rand(round % 10 === 0 ? 65536 : 2048);
      const { b, from, to } = randomBytes(store, rand, size, [2, 5, 60, 1000][rand(4)] as number);
      expect(store.newlines(from, to)).toBe(byteLoop(b, from, to));
    }
  });

  test("every byte a newline, and none", () => {
    const store = createByteBuffer(100_000, plain);
    store.bytes.fill(10, 0, 100_000);
    expect(store.newlines(0, 100_000)).toBe(100_000);
    expect(store.newlines(3, 99_999)).toBe(99_996);
    store.bytes.fill(0x61, 0, 100_000);
    expect(store.newlines(0, 100_000)).toBe(0);
    expect(store.newlines(5, 5)).toBe(0);
  });

  test("lineEnds finds every newline in order, MAX_ENDS at a time", () => {
    const next = prng(plain ? 17 : 19);
    const rand = (n: number) => Math.floor(next() * n);
    const store = createByteBuffer(1024, plain);
    for (let round = 0; round < 200; round++) {
      const size = 1 + rand(round % 10 === 0 ? 200_000 : 3000);
      const { b, from, to } = randomBytes(store, rand, size, [1, 3, 40, 500][rand(4)] as number);
      const want: number[] = [];
      for (let i = from; i < to; i++) if (b[i] === 10) want.push(i);
      // Calls resume after the last offset given, as a caller that has taken a batch does.
      const got: number[] = [];
      for (let at = from; ; ) {
        const n = store.lineEnds(at, to);
        for (let k = 0; k < n; k++) got.push(store.ends[k] as number);
        expect(n).toBeLessThanOrEqual(MAX_ENDS);
        if (n < MAX_ENDS) break;
        at = (store.ends[n - 1] as number) + 1;
      }
      expect(got).toEqual(want);
    }
  });

  test("findCaseless finds the first occurrence, ASCII letters in any case, as a case-insensitive regex", () => {
    const next = prng(plain ? 23 : 29);
    const rand = (n: number) => Math.floor(next() * n);
    // Bytes that differ only in bit 0x20 but are not letters ('@' and '`', '[' and '{') must not match each other.
    const ALPHABET = "aAbBzZ@`[{09 -_\né";
    const store = createByteBuffer(1024, plain);
    for (let round = 0; round < 400; round++) {
      const needle = Array.from({ length: 1 + rand(round % 20 === 0 ? 40 : 5) }, () =>
        ALPHABET.charAt(rand(ALPHABET.length - 1)),
      ).join("");
      expect(store.setNeedle(needle)).toBe(true);
      const size = rand(round % 10 === 0 ? 5000 : 300);
      const text = Array.from({ length: size }, () =>
        rand(50) === 0 ? needle.toUpperCase() : ALPHABET.charAt(rand(ALPHABET.length)),
      ).join("");
      const b = store.grow(Buffer.byteLength(text) + 1, 0);
      const len = b.write(text, 0, "utf8");
      const from = rand(len + 1);
      const to = from + rand(len - from + 1);
      const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const m = new RegExp(escaped, "gi");
      m.lastIndex = from;
      const hay = b.toString("latin1", 0, to);
      const hit = m.exec(hay);
      expect(store.findCaseless(from, to)).toBe(hit === null ? -1 : hit.index);
    }
  });

  test("setNeedle refuses what findCaseless cannot search; the needle survives growing", () => {
    const store = createByteBuffer(16, plain);
    expect(store.setNeedle("")).toBe(false);
    expect(store.setNeedle("é")).toBe(false);
    expect(store.setNeedle("x".repeat(MAX_NEEDLE + 1))).toBe(false);
    expect(store.setNeedle("NeedLE")).toBe(true);
    const big = store.grow(1 << 20, 0);
    big.fill(0x2e, 0, 700_000);
    big.write("xx needle yy", 600_000, "latin1");
    expect(store.findCaseless(0, 700_000)).toBe(600_003);
    expect(store.findCaseless(600_004, 700_000)).toBe(-1);
  });

  test("grow keeps the bytes it is asked to keep; shrink gives a smaller buffer", () => {
    const store = createByteBuffer(16, plain);
    store.bytes.write("a\nb\nc", 0, "latin1");
    const grown = store.grow(1 << 20, 5);
    expect(grown.length).toBeGreaterThanOrEqual(1 << 20);
    expect(grown.toString("latin1", 0, 5)).toBe("a\nb\nc");
    expect(store.newlines(0, 5)).toBe(2);
    store.shrink(4096);
    expect(store.bytes.length).toBeLessThan(1 << 20);
    expect(store.bytes.length).toBeGreaterThanOrEqual(4096);
  });
});

describe("releaseByteBuffer", () => {
  test("a buffer given back is taken by the next one made, without its needle; a large one is not kept", () => {
    const a = createByteBuffer(1024);
    a.setNeedle("needle");
    releaseByteBuffer(a);
    const b = createByteBuffer(200_000);
    expect(b).toBe(a);
    expect(b.bytes.length).toBeGreaterThanOrEqual(200_000);
    expect(() => b.findCaseless(0, 10)).toThrow("findCaseless before setNeedle");
    b.bytes.write("x\nNEEDLE\ny", 0, "latin1");
    expect(b.newlines(0, 10)).toBe(2);
    b.setNeedle("needle");
    expect(b.findCaseless(0, 10)).toBe(2);
    // Made while it is in use: another buffer.
    const c = createByteBuffer(1024);
    expect(c).not.toBe(b);
    releaseByteBuffer(b);
    releaseByteBuffer(b); // twice: kept once
    expect(createByteBuffer(16)).toBe(b);
    expect(createByteBuffer(16)).not.toBe(b);
    // Grown past 16 MiB for a large file: not kept (a WebAssembly memory cannot shrink).
    c.grow(17 * 1024 * 1024, 0);
    releaseByteBuffer(c);
    expect(createByteBuffer(16)).not.toBe(c);
  });
});
