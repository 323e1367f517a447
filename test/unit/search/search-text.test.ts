// searchText on decoded texts: line numbers, grep's rules for the last line, context merging, inversion,
// multiline, only-matching and clipping. Table-driven; no files.
import { describe, expect, test } from "bun:test";
import type { LineEvent } from "../../../src/engine/events.ts";
import { compileMatcher } from "../../../src/engine/search/matcher.ts";
import {
  buildMatcher,
  bytesFinder,
  caselessFinder,
  columns,
  searchText,
  type TextOptions,
} from "../../../src/engine/search/search-text.ts";
import { prng } from "../../helpers.ts";
import { MATCHER_OFF, TEXT_UNBOUNDED } from "./defaults.ts";

/** Groups line events as grep's records hold them: each match with the context lines before and after it. */
const grouped = (hits: readonly LineEvent[]) => {
  const out: Array<{ before: number[]; hit: LineEvent; after: number[] }> = [];
  let before: number[] = [];
  for (const h of hits) {
    if (h.kind === "before") before.push(h.line_number);
    else if (h.kind === "after") out.at(-1)?.after.push(h.line_number);
    else {
      out.push({ before, hit: h, after: [] });
      before = [];
    }
  }
  return out;
};

const run = (text: string, pattern: string, extra: object = {}, o: Partial<TextOptions> = {}) =>
  searchText(text, buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: [pattern], ...extra })), {
    ...TEXT_UNBOUNDED,
    ...o,
  });

describe("searchText", () => {
  test.each([
    ["a\nb\na\n", "a", [1, 3]],
    ["a\nb\na", "a", [1, 3]],
    ["", "^", []],
    ["\n", "^$", [1]],
    ["x\n\n", "^$", [2]],
    ["x\n", "$", [1]],
    ["ab\ncd\n", "b$", [1]],
  ])("%p / %p → lines %p", (text, pattern, lines) => {
    expect(run(text, pattern).hits.map((h) => h.line_number)).toEqual(lines);
  });

  test("inverted lines, without the empty tail after the last newline", () => {
    expect(run("a\nb\nc\n", "b", { invert: true }).hits.map((h) => h.content)).toEqual(["a", "c"]);
  });

  test("context merges and never repeats a line", () => {
    const r = run("1\nm\n3\n4\nm\n6\n7\n8\nm\n", "m", {}, { before: 1, after: 1 });
    expect(grouped(r.hits).map((g) => [g.before, g.hit.line_number, g.after])).toEqual([
      [[1], 2, [3]],
      [[4], 5, [6]],
      [[8], 9, []],
    ]);
  });

  test("multiline matches hold every spanned line", () => {
    const r = run("a\nstart\nmid\nend\nz\n", "start\\nmid\\nend", { multiline: true });
    expect(r.hits.map((h) => [h.line_number, h.content])).toEqual([[2, "start\nmid\nend"]]);
  });

  // Found by comparing -U with rg -U on random files: context was dropped, -v returned the matches, and a
  // match starting on a record's last line but reaching past it lost the lines beyond.
  test("multiline records take context, merge groups and never repeat a line", () => {
    const text = "1\n2\nb\nx\n5\n6\nb\nx\n9\n";
    const r = run(text, "b\\nx", { multiline: true }, { before: 1, after: 2 });
    expect(grouped(r.hits).map((g) => [g.hit.line_number, g.before, g.after])).toEqual([
      [3, [2], [5, 6]],
      [7, [], [9]],
    ]);
    expect([r.lines, r.matches]).toEqual([2, 2]);
  });

  test("a multiline match that starts in a record's lines joins it and extends it to the lines it reaches", () => {
    const r = run("a\nend baz bar\nfoo\nx baz y\nq\n", "b[^z]*z", { multiline: true });
    expect(r.hits.map((h) => [h.line_number, h.content, h.submatches.length])).toEqual([
      [2, "end baz bar\nfoo\nx baz y", 2],
    ]);
    expect([r.lines, r.matches]).toEqual([1, 2]); // a record counts as one matching line
  });

  test("multiline invert selects the lines outside every match", () => {
    const r = run("a\nb\nc\nd\ne\n", "b\\nc", { multiline: true, invert: true });
    expect(r.hits.map((h) => h.content)).toEqual(["a", "d", "e"]);
    expect(run("a\nb\nc\n", "b\\nc", { multiline: true, invert: true }, { countOnly: true }).lines).toBe(1);
  });

  test("only-matching gives one hit per match", () => {
    expect(
      run("a1b22\n", "[0-9]+", { onlyMatching: true }).hits.map((h) => [h.content, h.content_offset]),
    ).toEqual([
      ["1", 1],
      ["22", 3],
    ]);
  });

  test("columns count code points and UTF-8 bytes; astral characters are one column", () => {
    const h = run("😀 x\n", "x").hits[0];
    expect(h?.submatches).toEqual([{ start: 2, end: 3, byte_start: 5, byte_end: 6 }]);
  });

  test("max per file and counting", () => {
    expect(run("a\na\na\n", "a", {}, { maxPerFile: 2 }).hits).toHaveLength(2);
    expect(run("aa\na\n", "a", {}, { countOnly: true })).toEqual({
      hits: [],
      lines: 2,
      matches: 3,
      shownUpTo: 0,
    });
  });
});

describe("a line's first match taken from the whole-text scan", () => {
  // searchText reuses the whole-text match as the line's first span when the pattern has no lookaround of its
  // own; the spans must be those of matching the line alone.
  test.each([["[a-z]+r"], ["\\s+"], ["x?"], ["^b"], ["a$"], ["\\bbe"], ["(a|ab)(c|bcd)?"], ["[^z]+"]])(
    "%s",
    (pattern) => {
      const rand = prng(pattern.length * 31);
      // A CR or U+2028 inside a line is a line end for the whole-text scan ('m'), not for the line.
      const words = ["alpha", "beta", "a", "ab bcd", "", " x ", "bar", "é", "a\rb", "xa\u2028b", "be\r"];
      for (const extra of [
        {},
        { ignoreCase: true },
        { wordRegexp: true },
        { lineRegexp: true },
        { onlyMatching: true },
      ]) {
        const matcher = buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: [pattern], ...extra }));
        // Not with an anchor: `^b` holds after the CR of "a\rb" in the whole text.
        const anchored = pattern.startsWith("^") || pattern.endsWith("$") || "lineRegexp" in extra;
        expect(matcher.firstFromText).toBe(!anchored);
        const reference = { ...matcher, firstFromText: false };
        for (let round = 0; round < 100; round++) {
          const lines = Array.from(
            { length: Math.floor(rand() * 12) },
            () => words[Math.floor(rand() * words.length)],
          );
          const text = lines.join("\n") + (rand() < 0.5 ? "\n" : "");
          expect(searchText(text, matcher, TEXT_UNBOUNDED)).toEqual(
            searchText(text, reference, TEXT_UNBOUNDED),
          );
        }
      }
    },
  );

  test("a pattern with a lookaround of its own matches each line alone", () => {
    expect(buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: ["(?<=\\s)b"] })).firstFromText).toBe(
      false,
    );
    // At a line's start the whole text has a newline before it; the line alone has nothing.
    expect(run("a\nb\n", "(?<=\\s)b").hits).toEqual([]);
  });

  test("anchors hold at a line's ends only, not next to a CR or U+2028 inside it", () => {
    // The whole-text scan ('m') sees a line end at a CR or U+2028; a line (which ends at LF) goes on.
    expect(run("a\rb\n", "^b").hits).toEqual([]);
    expect(run("a\rb\n", "a$").hits).toEqual([]);
    expect(run("a\u2028b\n", "^b").hits).toEqual([]);
    expect(run("a\rb\n", "a", { lineRegexp: true }).hits).toEqual([]);
    expect(run("x\na\rb\na\n", "a$").hits.map((h) => h.line_number)).toEqual([3]);
  });
});

describe("an ASCII text numbered through its bytes", () => {
  // search-file and search-large pass a newline counter over the bytes when the text is ASCII without CRLF;
  // the hits must be those of numbering the text itself.
  test.each([
    ["regex", { patterns: ["[a-z]+r"] }, {}],
    ["ignore case, word", { patterns: ["beta"], ignoreCase: true, wordRegexp: true }, {}],
    ["invert", { patterns: ["a"], invert: true }, {}],
    ["context", { patterns: ["gamma"] }, { before: 2, after: 1 }],
    ["only matching", { patterns: ["[ab]+"], onlyMatching: true }, {}],
  ] as const)("%s", (_name, m, o) => {
    const rand = prng(77);
    const words = ["alpha", "beta", "Beta", "gamma", "", "x y", "bar"];
    for (let round = 0; round < 200; round++) {
      const lines = Array.from(
        { length: Math.floor(rand() * 30) },
        () => words[Math.floor(rand() * words.length)],
      );
      const text = lines.join("\n") + (rand() < 0.5 ? "\n" : "");
      const bytes = Buffer.from(text);
      const newlines = (from: number, to: number) => {
        let n = 0;
        for (let i = bytes.indexOf(10, from); i >= 0 && i < to; i = bytes.indexOf(10, i + 1)) n++;
        return n;
      };
      const matcher = buildMatcher(compileMatcher({ ...MATCHER_OFF, ...m }));
      const shape = { ...TEXT_UNBOUNDED, ...o };
      expect(searchText(text, matcher, shape, undefined, newlines)).toEqual(searchText(text, matcher, shape));
    }
  });
});

describe("fixed strings", () => {
  // `-F -e -` was a REGEX failure: the literal was escaped as `\-`, which 'u' mode refuses outside a class.
  test("every printable ASCII character is a literal that matches itself, with -i, -w and -x too", () => {
    for (let c = 0x21; c < 0x7f; c++) {
      const ch = String.fromCharCode(c);
      for (const extra of [{}, { ignoreCase: true }, { wordRegexp: true }, { lineRegexp: true }]) {
        const m = buildMatcher(
          compileMatcher({ ...MATCHER_OFF, patterns: [ch], fixedStrings: true, ...extra }),
        );
        expect([
          ch,
          extra,
          searchText(`\n${ch}\n`, m, TEXT_UNBOUNDED).hits.map((h) => h.line_number),
        ]).toEqual([ch, extra, [2]]);
      }
    }
  });
});

describe("exact literals: matched with indexOf, as the regex would match them", () => {
  const WORDS = ["ab", "abc", "b", "bca", "ca", "é", "ñ", "😀", "x", " "];
  const cases: Array<[string, string[], boolean]> = [
    ["one literal", ["ab"], false],
    ["overlapping alternatives", ["ab", "abc", "bca"], false],
    ["a prefix listed first", ["a", "ab"], false],
    ["non-ASCII", ["é", "ñx"], false],
    ["fixed strings with regex syntax", ["a.b", "(c)"], true],
  ];
  test.each(cases)("%s", (_name, patterns, fixedStrings) => {
    const spec = compileMatcher({ ...MATCHER_OFF, patterns, fixedStrings });
    expect(spec.exact).toEqual(patterns);
    const exact = buildMatcher(spec);
    const regex = buildMatcher({ ...spec, exact: null });
    const next = prng(patterns.join().length);
    for (let round = 0; round < 500; round++) {
      let line = "";
      const n = Math.floor(next() * 12);
      for (let k = 0; k < n; k++) line += WORDS[Math.floor(next() * WORDS.length)];
      if (fixedStrings && next() < 0.3) line += patterns[0];
      expect(exact.spans(line)).toEqual(regex.spans(line));
    }
  });

  test.each([
    [{ patterns: ["a.c"] }],
    [{ patterns: ["abc"], ignoreCase: true }],
    [{ patterns: ["abc"], wordRegexp: true }],
    [{ patterns: ["abc"], lineRegexp: true }],
    [{ patterns: ["abc"], multiline: true }],
    [{ patterns: [""], fixedStrings: true }],
    [{ patterns: ["😀"] }],
  ])("not exact: %p", (m) => {
    expect(compileMatcher({ ...MATCHER_OFF, ...m }).exact).toBeNull();
  });
});

describe("columns", () => {
  // A 1 MB line with a million matches took over a minute when every column counted its whole prefix; the
  // converter now goes on from the last index, and must still agree with counting the prefix.
  test("code point and byte columns equal counting the prefix, for indices in any order", () => {
    const rand = prng(4242);
    const units = ["a", "é", "€", "😀", "\ud83d", "\ude00", "z", "ß"];
    for (let round = 0; round < 2000; round++) {
      let line = "";
      for (let n = Math.floor(rand() * 12); n > 0; n--) line += units[Math.floor(rand() * units.length)];
      const col = columns(line);
      for (let q = 0; q < 6; q++) {
        const i = Math.floor(rand() * (line.length + 1));
        let cp = 0;
        for (let k = 0; k < i; k++) {
          const c = line.charCodeAt(k);
          if (c < 0xdc00 || c > 0xdfff) cp++;
        }
        expect([line, i, col.cp(i), col.bytes(i)]).toEqual([
          line,
          i,
          cp,
          Buffer.byteLength(line.slice(0, i), "utf8"),
        ]);
      }
    }
  });

  test("a long line with a match at every character is converted in one pass", () => {
    // Counting each prefix again takes ~10^12 steps here (hours): the test would hit the runner's timeout.
    const line = `é${"z".repeat(2_000_000)}`;
    const col = columns(line);
    let wrong = 0;
    for (let i = 1; i <= line.length; i++) if (col.bytes(i) !== i + 1 || col.cp(i) !== i) wrong++;
    expect(wrong).toBe(0);
  });
});

describe("a long line with a match at every character costs linear time", () => {
  // Each case rescanned the rest of the line per match (minutes for these lines): a regression would hit the
  // runner's timeout.
  const line = "z".repeat(2_000_000);
  test("exact literals, one of which never occurs", () => {
    const m = buildMatcher(compileMatcher({ ...MATCHER_OFF, patterns: ["z", "q"], fixedStrings: true }));
    expect(m.spans(line).length).toBe(line.length);
  });
  test("multiline matches joining one record", () => {
    const r = run(`${line}\n`, "z", { multiline: true }, { countOnly: true });
    expect([r.lines, r.matches]).toEqual([1, line.length]);
  });
});

describe("literal finders answer queries in any order", () => {
  // search-file.ts probes a finder for density from the start, then searches with the same finder from the start.
  const text = "xx abc yy ABC zz abc Def def";
  const buf = Buffer.from(text, "latin1");
  const expected = (re: RegExp, from: number) => {
    re.lastIndex = from;
    return re.exec(text)?.index ?? -1;
  };
  const queries = [20, 0, 5, 30, 3, 27, 4, 0, 17, 16];
  test("bytesFinder", () => {
    const find = bytesFinder(buf, [Buffer.from("abc"), Buffer.from("def")]);
    for (const q of queries) expect([q, find(q)]).toEqual([q, expected(/abc|def/g, q)]);
  });
  test("caselessFinder", () => {
    const find = caselessFinder(buf, /abc|def/gi);
    for (const q of queries) expect([q, find(q)]).toEqual([q, expected(/abc|def/gi, q)]);
  });
});
