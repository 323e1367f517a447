// Differential: rglob grep against its own regex semantics, the JavaScript RegExp applied to each line alone (the
// file decoded as rglob decodes it: UTF-8 with U+FFFD for an invalid byte, a CR before LF dropped, the empty tail
// after a final LF not a line). Seeded random patterns of escapes (\x41 \u0041 \u{41} \cI \011 \uFFFD \k<n> \1 \/
// \- …) over random lines of the characters they stand for, invalid bytes and lone CRs: the literal prefilter once
// required the escape's spelling ("41", "<n>", "11") or EF BF BD for U+FFFD and skipped files or lines that match;
// several -e patterns shared their groups (`-e '(a)' -e '(b)\1'` matched "b"); a CR that ends the file was part of
// the line on one path and not on another. Each case runs the plain search (the prefilter and the byte path), -c,
// and -C 1 (the whole-text path), and a file over 1 MiB (read by window). Patterns are read as rg reads them
// (#21, #22): in the oracle `.` is `[^\n]` (it matches a lone CR, U+2028 and U+2029, as rg's), and a pattern that
// repeats a group holding a back-reference is refused (REGEX), so such a case is not compared.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { prng, rglob, tempTree } from "../helpers.ts";

const t = tempTree({ "f.txt": "" });
afterAll(() => t.cleanup());

const ATOMS = [
  "\\x41",
  "\\u0041",
  "\\u{41}",
  "\\x09",
  "\\t",
  "\\cI",
  "\\011",
  "\\11",
  "\\0",
  "\\uFFFD",
  "\\u00e9",
  "\\u00E9",
  "\\uD83D\\uDE00",
  "\\u{1F600}",
  "\\/",
  "\\-",
  "\\.",
  "\\d",
  "\\b",
  "\\B",
  "\\p{L}",
  "\\x3c",
  "\\x7e",
  "\\v",
  "\\f",
  "\\r",
  "\\s",
  "\\w",
  "[\\x41]",
  "(?:\\x41)",
  "(?<n>A)\\k<n>",
  "(A)\\1",
  "(\\x41)\\1",
  "(k)\\k<n>",
  "$",
  "^",
  "A",
  "4",
  "1",
  "é",
  "😀",
  "\ufffd",
  "<n>",
  "k",
  "u",
  "~",
  ".",
];
const QUANTIFIERS = ["", "", "", "", "?", "+", "*", "{2}", "{0,1}"];
/** Line pieces (as bytes): what the atoms stand for, their spellings, an invalid byte, a lone CR. */
const PIECES: Buffer[] = [
  "A",
  "AA",
  "41",
  "\t",
  "11",
  "é",
  "😀",
  "\ufffd",
  "<n>",
  "k<n>",
  "kk",
  "u",
  "~",
  "-",
  "/",
  ".",
  "1",
  "4",
  " ",
  "x",
  "\x01",
  "\x0b",
  "\x0c",
  "\r",
].map((s) => Buffer.from(s));
PIECES.push(Buffer.from([0xff]), Buffer.from([0xe9]), Buffer.from([0xef, 0xbf]));

/** A regex compiled as rglob compiles it: with 'u' when every pattern allows it. */
/** Writes each `.` outside a class and not escaped as `[^\n]`: rg's `.` stops only at LF. */
function rgDot(p: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === "\\") {
      out += c + (p[i + 1] ?? "");
      i++;
    } else if (inClass) {
      inClass = c !== "]";
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else out += c === "." ? "[^\\n]" : c;
  }
  return out;
}

/**
 * Whether rglob refuses patterns (ADR 0020): one repeats a group (`)` then + * or {n}), which runs on the
 * linear-time engine, and one holds what that engine lacks (a back-reference, or a legacy octal such as \\11).
 */
function refused(patterns: readonly string[]): boolean {
  return patterns.some((p) => /\)(?:[+*]|\{\d)/.test(p)) && patterns.some((p) => /\\(?:[1-9]|k<)/.test(p));
}

function compile(patterns: readonly string[]): RegExp[] | null {
  if (refused(patterns)) return null;
  const make = (flags: string) => {
    try {
      return patterns.map((p) => new RegExp(rgDot(p), flags));
    } catch {
      return null;
    }
  };
  return make("u") ?? make("");
}

/** The lines of a file as rglob sees them. */
function linesOf(bytes: Buffer): string[] {
  const text = bytes.toString("utf8").replace(/\r\n/g, "\n");
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return text === "" ? [] : lines;
}

/** Matches of one regex in a line, as rglob counts them (an empty match steps one unit on). */
function matchCount(re: RegExp, line: string): number {
  const g = new RegExp(re.source, `${re.flags}g`);
  let n = 0;
  let prevEnd = -1;
  for (let m = g.exec(line); m !== null; m = g.exec(line)) {
    // An empty match where the previous match ended is not one, as in rg (#39).
    if (m[0].length > 0 || m.index !== prevEnd) n++;
    prevEnd = m.index + m[0].length;
    if (m[0].length === 0) {
      if (g.lastIndex >= line.length) break;
      // Over a whole surrogate pair with 'u' (an index inside one is moved back to its start).
      g.lastIndex =
        m.index + (g.unicode && /^[\ud800-\udbff][\udc00-\udfff]/.test(line.slice(m.index)) ? 2 : 1);
    }
  }
  return n;
}

interface Outcome {
  lines: number[];
  matched_lines: number;
}

function oracle(res: RegExp[], lines: readonly string[]): Outcome {
  const out: number[] = [];
  lines.forEach((l, i) => {
    if (res.some((re) => re.test(l))) out.push(i + 1);
  });
  return { lines: out, matched_lines: out.length };
}

function ours(patterns: readonly string[], extra: readonly string[]): Outcome {
  const args = ["grep", ...patterns.flatMap((p) => ["-e", p]), "f.txt", "--json", "-j0", ...extra];
  const run = rglob(args, { cwd: t.dir });
  if (run.code === 2) throw new Error(`rglob failed: ${run.stdout}${run.stderr}`);
  const json = JSON.parse(run.stdout) as {
    results: Array<{ line_number: number }>;
    matched_lines: number;
  };
  return { lines: json.results.map((r) => r.line_number), matched_lines: json.matched_lines };
}

function randomPattern(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  let p = "";
  const atoms = 1 + Math.floor(rand() * 3);
  for (let k = 0; k < atoms; k++) {
    const a = pick(ATOMS);
    // A quantifier applies to one atom: not after an anchor or a group and its back-reference.
    p += a + (/[()^$]/.test(a) ? "" : pick(QUANTIFIERS));
  }
  return p;
}

function randomFile(rand: () => number, padding: number): Buffer {
  const parts: Buffer[] = [];
  const lineCount = 4 + Math.floor(rand() * 12);
  for (let k = 0; k < lineCount; k++) {
    const n = Math.floor(rand() * 5);
    for (let j = 0; j < n; j++) parts.push(PIECES[Math.floor(rand() * PIECES.length)] as Buffer);
    parts.push(Buffer.from(rand() < 0.25 ? "\r\n" : "\n"));
    // Lines that match nothing, to take a file over the size read by window.
    if (padding > 0 && k === 1) parts.push(Buffer.from(`${"z".repeat(99)}\n`.repeat(padding)));
  }
  const end = rand();
  // The last line: ended, unended, or ended by a lone CR.
  if (end < 0.3) parts.push(PIECES[Math.floor(rand() * PIECES.length)] as Buffer);
  else if (end < 0.5) parts.push(Buffer.from("A\r"));
  return Buffer.concat(parts);
}

describe("patterns with escapes agree with the JavaScript RegExp on each line", () => {
  const check = (seed: number, cases: number, patternCount: number, padding: number) => {
    const rand = prng(seed);
    let compared = 0;
    for (let c = 0; c < cases; c++) {
      const patterns = Array.from({ length: patternCount }, () => randomPattern(rand));
      const res = compile(patterns);
      if (res === null) continue;
      const bytes = randomFile(rand, padding);
      writeFileSync(join(t.dir, "f.txt"), bytes);
      const lines = linesOf(bytes);
      const want = oracle(res, lines);
      const variant = Math.floor(rand() * 3);
      const extra = variant === 0 ? [] : variant === 1 ? ["-C", "1"] : ["-c"];
      const got = ours(patterns, extra);
      const file = JSON.stringify(bytes.toString("latin1").slice(0, 400));
      if (variant === 2) {
        expect({ patterns, file, matched: got.matched_lines }).toEqual({
          patterns,
          file,
          matched: want.matched_lines,
        });
      } else {
        expect({ patterns, extra, file, lines: got.lines }).toEqual({
          patterns,
          extra,
          file,
          lines: want.lines,
        });
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(cases / 2);
  };

  test("one pattern", () => check(1, 100, 1, 0));
  test("several -e patterns (groups, back-references and names of their own)", () => check(2, 60, 2, 0));
  test("one pattern, a file read by window", () => check(3, 12, 1, 11000));

  test("matches counted per match, as the regex finds them", () => {
    const rand = prng(4);
    for (let c = 0; c < 40; c++) {
      const pattern = randomPattern(rand);
      const res = compile([pattern]);
      if (res === null) continue;
      const bytes = randomFile(rand, 0);
      writeFileSync(join(t.dir, "f.txt"), bytes);
      const want = linesOf(bytes).reduce((n, l) => n + matchCount(res[0] as RegExp, l), 0);
      const run = rglob(["grep", "-e", pattern, "f.txt", "--json"], { cwd: t.dir });
      const got = (JSON.parse(run.stdout) as { total_matches: number }).total_matches;
      expect({ pattern, got }).toEqual({ pattern, got: want });
    }
  });
});

describe("the reported cases", () => {
  test.each([
    ["A\n", "\\x41", 1],
    ["A\n", "\\u0041", 1],
    ["A\n", "\\u{41}", 1],
    ["\t\n", "\\x09", 1],
    ["\t\n", "\\cI", 1],
    ["\t\n", "\\011", 1],
    ["aa\n", "(?<n>a)\\k<n>", 1],
    ["ab\xffcd\n", "\\uFFFD", 1],
    ["ab\xffcd\n", "\ufffd", 1],
    ["ab\ncd\r", "d\\r", 1],
    ["ab\ncd\r", "cd$", 0],
  ])("%p %p", (content, pattern, count) => {
    writeFileSync(join(t.dir, "f.txt"), Buffer.from(content, "latin1"));
    for (const extra of [[], ["-C", "1"]]) {
      const got = ours([pattern], extra);
      expect({ extra, matched: got.matched_lines }).toEqual({ extra, matched: count });
    }
  });

  test("-e '(a)' -e '(b)\\1': each pattern's back-reference is to its own group", () => {
    writeFileSync(join(t.dir, "f.txt"), "b\nbb\nab\n");
    expect(ours(["(a)", "(b)\\1"], []).lines).toEqual([2, 3]);
    const o = rglob(["grep", "-o", "-e", "(a)", "-e", "(b)\\1", "f.txt"], { cwd: t.dir });
    expect(o.stdout).toBe("2:bb\n3:a\n");
    // A group name in two patterns is renamed in the second.
    writeFileSync(join(t.dir, "f.txt"), "ab\naa\nbb\n");
    expect(ours(["(?<n>a)\\k<n>", "(?<n>b)\\k<n>"], []).lines).toEqual([2, 3]);
  });
});
