/*! Engine: the WebAssembly kernel of bytes.ts, assembled from a few named instructions (no binary blob). It
 * runs when the code is bundled or transpiled: bytes.ts imports it as a Bun macro, so the binary and the built
 * library hold only its output, and a process does not pay for assembling it (about 3 ms of cold JavaScript).
 * No I/O. */
// --- A minimal WebAssembly assembler: just what the kernel below needs. ---

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

const I32 = 0x7f;
const V128 = 0x7b;
const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const tee = (i: number) => [0x22, ...uleb(i)];
const i32 = (n: number) => [0x41, ...sleb(n)];
const ADD = [0x6a];
const SUB = [0x6b];
const AND = [0x71];
const SHL = [0x74];
const CTZ = [0x68];
const STORE32 = [0x36, 2, 0];
const IF = [0x04, 0x40];
const EQ = [0x46];
const NE = [0x47];
const EQZ = [0x45];
const OR = [0x72];
const GT_S = [0x4a];
const GE_S = [0x4e];
const RETURN = [0x0f];
const GT_U = [0x4b];
const GE_U = [0x4f];
const LOAD8_U = [0x2d, 0, 0];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const V_LOAD = (offset: number) => simd(0x00, 4, ...uleb(offset));
const V_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
const I8X16_SPLAT = simd(0x0f);
const I8X16_EQ = simd(0x23);
const I8X16_SUB = simd(0x71);
const I16X8_EXTADD_PAIRWISE_I8X16_U = simd(0x7d);
const I32X4_EXTADD_PAIRWISE_I16X8_U = simd(0x7f);
const I32X4_ADD = simd(0xae);
const I32X4_LANE = (lane: number) => simd(0x1b, lane);
const I8X16_BITMASK = simd(0x64);
const V128_AND = simd(0x4e);
const V128_OR = simd(0x50);

// Both kernels take p (local 0) and end (local 1) first.
const P = 0;
const END_ = 1;
/** local += n */
const add = (local: number, n: number) => [...get(local), ...i32(n), ...ADD, ...set(local)];
/** Leaves the block `depth` levels out when fewer than `step` bytes are left at p. */
const breakIfPast = (step: number, depth: number) => [
  ...get(P),
  ...i32(step),
  ...ADD,
  ...get(END_),
  ...GT_U,
  ...brIf(depth),
];
/** Runs `body` for every byte left in [p, end), p advancing by one (inside it: 0 the loop, 1 its block). */
const eachByte = (body: number[]) => [
  ...BLOCK,
  ...LOOP,
  ...get(P),
  ...get(END_),
  ...GE_U,
  ...brIf(1),
  ...body,
  ...add(P, 1),
  ...br(0),
  ...END,
  ...END,
];
/** Runs `body` for each set bit of the local `mask`, lowest first (inside it: 0 the loop, 1 its block). */
const eachSetBit = (mask: number, body: number[]) => [
  ...BLOCK,
  ...LOOP,
  ...get(mask),
  ...EQZ,
  ...brIf(1),
  ...body,
  ...[...get(mask), ...get(mask), ...i32(1), ...SUB, ...AND, ...set(mask)],
  ...br(0),
  ...END,
  ...END,
];
/** 1 when the byte at p is a newline, else 0. */
const BYTE_IS_NEWLINE = [...get(P), ...LOAD8_U, ...i32(10), ...EQ];

/**
 * newlines(p, end) → the count of 0x0A bytes in memory[p, end).
 * Locals: 0 p, 1 end (params); 2 rounds, 3 total (i32); 4 acc, 5 nl, 6 sums (v128).
 * 64 bytes per round: each i8x16.eq gives -1 per newline lane, subtracted into 8-bit counters; after 63
 * rounds (at most 252 per lane) the counters are widened and added into four 32-bit sums.
 */
function newlinesBody(): number[] {
  const [ROUNDS, TOTAL, ACC, NL, SUMS] = [2, 3, 4, 5, 6];
  const lanes = [0, 16, 32, 48].flatMap((o) => [
    ...get(P),
    ...V_LOAD(o),
    ...get(NL),
    ...I8X16_EQ,
    ...I8X16_SUB,
  ]);
  const code = [
    ...i32(10),
    ...I8X16_SPLAT,
    ...set(NL),
    ...V_ZERO,
    ...set(SUMS),
    ...BLOCK,
    ...LOOP,
    ...breakIfPast(64, 1),
    ...V_ZERO,
    ...set(ACC),
    ...i32(63),
    ...set(ROUNDS),
    ...BLOCK,
    ...LOOP,
    ...get(ACC),
    ...lanes,
    ...set(ACC),
    ...add(P, 64),
    // if (--rounds === 0) break; if (p + 64 > end) break; else continue
    ...get(ROUNDS),
    ...i32(1),
    ...SUB,
    ...tee(ROUNDS),
    ...EQZ,
    ...brIf(1),
    ...breakIfPast(64, 1),
    ...br(0),
    ...END,
    ...END,
    ...get(SUMS),
    ...get(ACC),
    ...I16X8_EXTADD_PAIRWISE_I8X16_U,
    ...I32X4_EXTADD_PAIRWISE_I16X8_U,
    ...I32X4_ADD,
    ...set(SUMS),
    ...br(0),
    ...END,
    ...END,
    ...eachByte([...get(TOTAL), ...BYTE_IS_NEWLINE, ...ADD, ...set(TOTAL)]),
    ...get(TOTAL),
    ...[0, 1, 2, 3].flatMap((l) => [...get(SUMS), ...I32X4_LANE(l), ...ADD]),
    ...END,
  ];
  const locals = vec([
    [2, I32],
    [3, V128],
  ]);
  return [...locals, ...code];
}

/**
 * lineEnds(p, end, out, max) → n: stores the offsets of the first n (at most max) 0x0A bytes of memory[p, end)
 * as i32 at memory[out..]. Locals: 0 p, 1 end, 2 out, 3 max (params); 4 n, 5 mask (i32); 6 nl (v128).
 * 16 bytes at a time: i8x16.bitmask of the newline lanes, then one store per set bit (lowest first).
 */
function lineEndsBody(): number[] {
  const [OUT, MAX, N, MASK, NL] = [2, 3, 4, 5, 6];
  // Stores p + offset as the n-th end, then n++; leaves n === max on the stack for the caller's br_if.
  const store = (offset: number[]) => [
    ...get(OUT),
    ...get(N),
    ...i32(2),
    ...SHL,
    ...ADD,
    ...get(P),
    ...offset,
    ...ADD,
    ...STORE32,
    ...get(N),
    ...i32(1),
    ...ADD,
    ...tee(N),
    ...get(MAX),
    ...EQ,
  ];
  const code = [
    ...i32(10),
    ...I8X16_SPLAT,
    ...set(NL),
    ...BLOCK, // $done
    ...BLOCK, // $tail
    ...LOOP, // $blocks
    ...breakIfPast(16, 1), // → $tail
    ...get(P),
    ...V_LOAD(0),
    ...get(NL),
    ...I8X16_EQ,
    ...I8X16_BITMASK,
    ...set(MASK),
    // inside eachSetBit's body: 0 its loop, 1 its block, 2 $blocks, 3 $tail, 4 $done
    ...eachSetBit(MASK, [...store([...get(MASK), ...CTZ]), ...brIf(4)]),
    ...add(P, 16),
    ...br(0),
    ...END,
    ...END,
    // inside eachByte's body: 0 the if, 1 the loop, 2 its block, 3 $done
    ...eachByte([...BYTE_IS_NEWLINE, ...IF, ...store(i32(0)), ...brIf(3), ...END]),
    ...END,
    ...get(N),
    ...END,
  ];
  const locals = vec([
    [2, I32],
    [1, V128],
  ]);
  return [...locals, ...code];
}

/**
 * findCaseless(p, end, nd, len) → the first offset c in [p, end - len] where memory[c, c + len) equals the needle
 * with ASCII letters in any case, or -1. The needle is at memory[nd, nd + len) in lowercase and its fold masks
 * (0x20 for a letter, else 0) at memory[nd + len, nd + 2 len): a byte b matches needle byte n with mask m when
 * (b | m) === n. 16 candidate starts at a time are tested on their first and last bytes (i8x16), then each
 * survivor byte by byte. Locals: 0 p, 1 end, 2 nd, 3 len (params); 4 last, 5 mask, 6 c, 7 k (i32);
 * 8 first, 9 firstFold, 10 lastByte, 11 lastFold (v128).
 */
function findCaselessBody(): number[] {
  const [ND, LEN, LAST, MASK, C, K, F, FM, L, LM] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const splatAt = (addr: number[], local: number) => [...addr, ...LOAD8_U, ...I8X16_SPLAT, ...set(local)];
  // Returns c from the function when memory[c, c + len) matches the needle (inside: 0 its loop, 1 its block).
  const returnIfMatch = [
    ...i32(0),
    ...set(K),
    ...BLOCK,
    ...LOOP,
    ...get(K),
    ...get(LEN),
    ...GE_S,
    ...IF,
    ...get(C),
    ...RETURN,
    ...END,
    ...[...get(C), ...get(K), ...ADD, ...LOAD8_U],
    ...[...get(ND), ...get(LEN), ...ADD, ...get(K), ...ADD, ...LOAD8_U],
    ...OR,
    ...[...get(ND), ...get(K), ...ADD, ...LOAD8_U],
    ...NE,
    ...brIf(1),
    ...add(K, 1),
    ...br(0),
    ...END,
    ...END,
  ];
  const code = [
    ...[...get(END_), ...get(LEN), ...SUB, ...set(LAST)],
    ...splatAt(get(ND), F),
    ...splatAt([...get(ND), ...get(LEN), ...ADD], FM),
    ...splatAt([...get(ND), ...get(LEN), ...ADD, ...i32(1), ...SUB], L),
    ...splatAt([...get(ND), ...get(LEN), ...ADD, ...get(LEN), ...ADD, ...i32(1), ...SUB], LM),
    ...BLOCK, // $fail
    ...BLOCK, // $tail
    ...LOOP, // $blocks
    ...[...get(P), ...i32(15), ...ADD, ...get(LAST), ...GT_S, ...brIf(1)], // → $tail
    ...[...get(P), ...V_LOAD(0), ...get(FM), ...V128_OR, ...get(F), ...I8X16_EQ],
    ...[...get(P), ...get(LEN), ...ADD, ...i32(1), ...SUB, ...V_LOAD(0)],
    ...[...get(LM), ...V128_OR, ...get(L), ...I8X16_EQ],
    ...V128_AND,
    ...I8X16_BITMASK,
    ...set(MASK),
    ...eachSetBit(MASK, [...get(P), ...get(MASK), ...CTZ, ...ADD, ...set(C), ...returnIfMatch]),
    ...add(P, 16),
    ...br(0),
    ...END,
    ...END,
    // the last starts one at a time
    ...LOOP, // $t
    ...[...get(P), ...get(LAST), ...GT_S, ...brIf(1)], // → $fail
    ...[...get(P), ...set(C)],
    ...returnIfMatch,
    ...add(P, 1),
    ...br(0),
    ...END,
    ...END,
    ...i32(-1),
    ...END,
  ];
  const locals = vec([
    [4, I32],
    [4, V128],
  ]);
  return [...locals, ...code];
}

/**
 * Assembles the kernel module.
 * @returns the module bytes
 */
export function kernelBytes(): Uint8Array {
  const bodies = [newlinesBody(), lineEndsBody(), findCaselessBody()];
  const i32s = (n: number) => vec(new Array<number[]>(n).fill([I32]));
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(
      1,
      vec([
        [0x60, ...i32s(2), ...i32s(1)],
        [0x60, ...i32s(4), ...i32s(1)],
      ]),
    ),
    ...section(2, vec([[...name("m"), ...name("mem"), 0x02, 0x00, ...uleb(1)]])),
    ...section(3, vec([[0], [1], [1]])),
    ...section(
      7,
      vec([
        [...name("newlines"), 0x00, 0x00],
        [...name("lineEnds"), 0x00, 0x01],
        [...name("findCaseless"), 0x00, 0x02],
      ]),
    ),
    ...section(10, vec(bodies.map((b) => [...uleb(b.length), ...b]))),
  ]);
}

/**
 * Returns the kernel module as base64 (what a macro can inline).
 * @returns the module bytes in base64
 */
export function kernelBase64(): string {
  return Buffer.from(kernelBytes()).toString("base64");
}
