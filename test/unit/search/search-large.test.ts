// searchLarge (a file searched window by window) against searchText on the whole text: on seeded random files
// read through windows of a few hundred bytes, every mode gives the same records. Over-long lines (longer
// than the window) are found with their true line number and columns, from the slice of their first match.
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createByteBuffer } from "../../../src/engine/bytes.ts";
import { compileMatcher, type MatcherOptions } from "../../../src/engine/search/matcher.ts";
import { drain, searchLarge } from "../../../src/engine/search/search-large.ts";
import {
  buildMatcher,
  bytesFinder,
  searchText,
  type TextOptions,
} from "../../../src/engine/search/search-text.ts";
import { prng } from "../../helpers.ts";
import { MATCHER_OFF, TEXT_UNBOUNDED } from "./defaults.ts";

const dir = mkdtempSync(join(tmpdir(), "rglob-large-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function windowed(
  text: string,
  window: number,
  m: Partial<MatcherOptions> & { patterns: string[] },
  o: TextOptions,
  byteLiterals = false,
  maxWindow = window,
) {
  const path = join(dir, `f${fileNo++}`);
  writeFileSync(path, text);
  const fd = openSync(path, "r");
  try {
    const matcher = buildMatcher(compileMatcher({ ...MATCHER_OFF, ...m }));
    const lits = matcher.spec.literals?.map((l) => Buffer.from(l));
    const finder = byteLiterals && lits ? (v: Buffer) => bytesFinder(v, lits) : null;
    return drain(
      searchLarge(fd, createByteBuffer(window), 0, matcher, o, finder, {
        initial: window,
        max: maxWindow,
      }),
    );
  } finally {
    closeSync(fd);
  }
}

const WORDS = ["alpha", "beta", "gamma", "needle", "Needle", "x", "", "née", "😀"];
function randomText(rand: (n: number) => number): string {
  const lines: string[] = [];
  const count = 20 + rand(120);
  for (let i = 0; i < count; i++) {
    const n = rand(4);
    const parts: string[] = [];
    for (let k = 0; k < n; k++) parts.push(WORDS[rand(WORDS.length)] as string);
    lines.push(parts.join(" "));
  }
  const text = lines.join(rand(5) === 0 ? "\r\n" : "\n");
  return rand(3) === 0 ? text : `${text}\n`;
}

const modes: Array<[string, Partial<MatcherOptions> & { patterns: string[] }, Partial<TextOptions>]> = [
  ["literal", { patterns: ["needle"] }, {}],
  ["regex", { patterns: ["^[a-z]+ (beta|gamma)$"] }, {}],
  ["ignore case", { patterns: ["needle"], ignoreCase: true }, {}],
  ["invert", { patterns: ["a"], invert: true }, {}],
  ["context 2", { patterns: ["needle"] }, { before: 2, after: 2 }],
  ["before 3", { patterns: ["gamma"] }, { before: 3 }],
  ["after 3, invert", { patterns: ["a"], invert: true }, { after: 3 }],
  ["only matching", { patterns: ["[a-z]+a\\b"], onlyMatching: true }, {}],
  ["max per file", { patterns: ["e"] }, { maxPerFile: 5 }],
  ["count only", { patterns: ["e"] }, { countOnly: true }],
  ["first only", { patterns: ["gamma"] }, { firstOnly: true }],
  ["empty lines", { patterns: ["^$"] }, { before: 1, after: 1 }],
];

describe("searchLarge equals searchText on the whole file", () => {
  for (const [name, m, o] of modes) {
    test(name, () => {
      const next = prng(name.length * 7919);
      const rand = (n: number) => Math.floor(next() * n);
      for (let round = 0; round < 40; round++) {
        const text = randomText(rand);
        const shape = { ...TEXT_UNBOUNDED, ...o };
        const whole = searchText(
          text.replace(/\r\n/g, "\n"),
          buildMatcher(compileMatcher({ ...MATCHER_OFF, ...m })),
          shape,
        );
        const window = 256 + rand(512);
        const got = windowed(text, window, m, shape);
        expect({ lines: got.lines, matches: got.matches, hits: got.hits }).toEqual({
          lines: whole.lines,
          matches: whole.matches,
          hits: whole.hits,
        });
        // Reading stops once the file's verdict is known.
        if (!o.firstOnly && o.maxPerFile === undefined) expect(got.bytes).toBe(Buffer.byteLength(text));
        if (!m.invert && !m.ignoreCase && !o.before && !o.after && m.patterns[0] === "needle") {
          const bytes = windowed(text, window, m, shape, true);
          expect(bytes.hits).toEqual(whole.hits);
        }
      }
    });
  }
});

describe("over-long lines", () => {
  const long = `${"a".repeat(5000)}é${"b".repeat(3000)}needle${"c".repeat(2000)}`;
  const text = `first\n${long}\nneedle after\n`;

  test("found at its true line and columns, clipped, and the lines after it still numbered", () => {
    const r = windowed(text, 512, { patterns: ["needle"] }, { ...TEXT_UNBOUNDED, maxColumns: 40 });
    expect(r.hits.map((h) => h.line_number)).toEqual([2, 3]);
    const hit = r.hits[0];
    expect(hit?.clipped).toBe(true);
    expect(hit?.content).toContain("needle");
    expect(hit?.content.length).toBeLessThanOrEqual(40);
    expect(hit?.submatches).toEqual([{ start: 8001, end: 8007, byte_start: 8002, byte_end: 8008 }]);
    expect(r.bytes).toBe(Buffer.byteLength(text));
  });

  test("invert selects an over-long line without a match, and -o gives the match itself", () => {
    const inv = windowed(
      `${"z".repeat(4000)}\nneedle\n`,
      512,
      { patterns: ["needle"], invert: true },
      TEXT_UNBOUNDED,
    );
    expect(inv.hits.map((h) => [h.line_number, h.clipped])).toEqual([[1, true]]);
    const only = windowed(text, 512, { patterns: ["needle"], onlyMatching: true }, TEXT_UNBOUNDED);
    expect(only.hits.map((h) => [h.line_number, h.content, h.content_offset])).toEqual([
      [2, "needle", 8001],
      [3, "needle", 0],
    ]);
  });

  // Only the slice of the first match used to be searched: -o gave the matches of that slice (5.6 of 6 million
  // on an 18 MB line) and total_matches counted only those.
  test("every match of an over-long line is counted once, and -o gives each, as on the whole line", () => {
    const rand = prng(99);
    const words = ["needle", "née", "😀", "x", "needles", "aneedle"];
    for (let round = 0; round < 40; round++) {
      const line = Array.from(
        { length: 200 + Math.floor(rand() * 400) },
        () => words[Math.floor(rand() * words.length)],
      ).join(" ");
      const text = `first\n${line}\nneedle after\n`;
      for (const pattern of ["needle", "n[a-zé]+", "😀 x"]) {
        const m = { patterns: [pattern] };
        const whole = searchText(
          text,
          buildMatcher(compileMatcher({ ...MATCHER_OFF, ...m })),
          TEXT_UNBOUNDED,
        );
        const got = windowed(text, 512, m, TEXT_UNBOUNDED);
        expect([pattern, got.lines, got.matches]).toEqual([pattern, whole.lines, whole.matches]);
        const o = { ...m, onlyMatching: true };
        const wholeO = searchText(
          text,
          buildMatcher(compileMatcher({ ...MATCHER_OFF, ...o })),
          TEXT_UNBOUNDED,
        );
        const gotO = windowed(text, 512, o, TEXT_UNBOUNDED);
        expect(gotO.hits).toEqual(wholeO.hits);
      }
    }
  });

  test("an over-long last line without a newline, and a match that straddles two slices", () => {
    const straddle = `${"q".repeat(383)}needle${"q".repeat(2000)}`;
    const r = windowed(straddle, 512, { patterns: ["needle"] }, TEXT_UNBOUNDED);
    expect(r.hits.map((h) => h.submatches[0]?.start)).toEqual([383]);
    expect(r.lines).toBe(1);
  });
});

describe("the window grows for a long line", () => {
  for (const [name, m, o] of modes) {
    test(`equals searchText with long lines: ${name}`, () => {
      const next = prng(name.length * 104729);
      const rand = (n: number) => Math.floor(next() * n);
      for (let round = 0; round < 20; round++) {
        // Lines of up to 2,100 bytes through a 256-byte window that may grow to 16 KiB (room for a line and
        // its context).
        const text = randomText(rand)
          .split("\n")
          .map((l) => (rand(6) === 0 ? `${l}${"z".repeat(300 + rand(1700))}${rand(2) ? " needle" : ""}` : l))
          .join("\n");
        const shape = { ...TEXT_UNBOUNDED, ...o };
        const whole = searchText(
          text.replace(/\r\n/g, "\n"),
          buildMatcher(compileMatcher({ ...MATCHER_OFF, ...m })),
          shape,
        );
        const got = windowed(text, 256, m, shape, false, 16384);
        expect({ lines: got.lines, matches: got.matches, hits: got.hits }).toEqual({
          lines: whole.lines,
          matches: whole.matches,
          hits: whole.hits,
        });
      }
    });
  }

  test("a line longer than the first window but within the largest is found whole, as in the whole text", () => {
    const long = `${"a".repeat(3000)}needle${"b".repeat(1500)}`;
    const text = `first\n${long}\nneedle after\n${long}\n`;
    const whole = searchText(text, buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: ["needle"] })), {
      ...TEXT_UNBOUNDED,
      before: 1,
    });
    for (const bytes of [false, true]) {
      const shape = { ...TEXT_UNBOUNDED, before: bytes ? 0 : 1 };
      const r = windowed(text, 512, { patterns: ["needle"] }, shape, bytes, 8192);
      const found = r.hits.filter((h) => h.kind === "match");
      expect(found.map((h) => [h.line_number, h.clipped, h.content.length])).toEqual([
        [2, false, long.length],
        [3, false, 12],
        [4, false, long.length],
      ]);
      if (!bytes) expect(r.hits).toEqual(whole.hits);
      expect(r.bytes).toBe(Buffer.byteLength(text));
    }
  });
});

describe("hits go out window by window", () => {
  test("a file with a hit in every window gives them before its end, with the bytes read", () => {
    const line = `${"x".repeat(90)} needle\n`; // 98 bytes
    const text = line.repeat(200);
    const path = join(dir, `f${fileNo++}`);
    writeFileSync(path, text);
    const fd = openSync(path, "r");
    try {
      const matcher = buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: ["needle"] }));
      const steps = searchLarge(fd, createByteBuffer(1024), 0, matcher, TEXT_UNBOUNDED, null, {
        initial: 1024,
        max: 1024,
      });
      const chunks: Array<{ bytes: number; lines: number[] }> = [];
      let r = steps.next();
      for (; !r.done; r = steps.next()) {
        chunks.push({ bytes: r.value.bytes, lines: r.value.hits.map((h) => h.line_number) });
      }
      // Ten whole lines fit in a 1 KiB window: about twenty chunks, each of the lines of one window.
      expect(chunks.length).toBeGreaterThan(15);
      for (const c of chunks) expect(c.lines.length).toBeLessThanOrEqual(11);
      const all = [...chunks.flatMap((c) => c.lines), ...r.value.hits.map((h) => h.line_number)];
      expect(all).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(chunks.reduce((n, c) => n + c.bytes, 0) + r.value.bytes).toBe(text.length);
      expect(r.value.lines).toBe(200);
    } finally {
      closeSync(fd);
    }
  });
});
