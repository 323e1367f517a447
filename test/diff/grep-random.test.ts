// Differential: rglob grep's exact output against GNU grep's on seeded random one-file cases, for the shapes that
// random comparisons found wrong before: -m with context (the last match's context stopped before the next
// match), -o with -m (counted matches, not lines), -F literals full of regex syntax (`-` was a REGEX failure) and
// a subset of extended regexes with -i -w -x -v -c. grep is on every machine; LC_ALL=C, LF-only ASCII text.
// Documented divergences: rglob -c prints nothing for a count of 0 (as rg), so grep's "0" is dropped; after a -m
// stop, a line of the trailing context that is selected too is printed as a match (`N:`) as rg prints it, where
// grep prints it as context (`N-`): the -m cases compare line numbers and text, not that separator.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { prng, rglob, tempTree } from "../helpers.ts";

const t = tempTree({ "f.txt": "" });
afterAll(() => t.cleanup());

type Case = { lines: string[]; args: string[]; pattern: string; more?: string[] };

/** Runs one case through both tools (grep -E with `extended`) and returns [rglob's stdout, grep's stdout]. */
function both(c: Case, extended = false): [string, string] {
  writeFileSync(join(t.dir, "f.txt"), `${c.lines.join("\n")}\n`);
  const patterns = [c.pattern, ...(c.more ?? [])].flatMap((p) => ["-e", p]);
  const ours = rglob(["grep", ...c.args, ...patterns, "f.txt"], { cwd: t.dir }).stdout;
  const theirs = Bun.spawnSync(["grep", "-n", ...(extended ? ["-E"] : []), ...c.args, ...patterns, "f.txt"], {
    cwd: t.dir,
    env: { ...process.env, LC_ALL: "C" },
  }).stdout.toString();
  return [ours, theirs.replace(/^0\n$/, "")];
}

function cases(
  seed: number,
  n: number,
  make: (pick: <T>(xs: readonly T[]) => T, rand: () => number) => Case,
) {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  return Array.from({ length: n }, () => make(pick, rand));
}

describe("random cases agree with GNU grep", () => {
  const words = ["foo", "bar", "x", "foo bar", "", "baz", "a1b2", "x-y"];
  const line = (pick: <T>(xs: readonly T[]) => T, rand: () => number) =>
    Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(words)).join(pick([" ", "", "-"]));
  const lines = (pick: <T>(xs: readonly T[]) => T, rand: () => number) =>
    Array.from({ length: 3 + Math.floor(rand() * 20) }, () => line(pick, rand));

  test("-m with -A/-B/-C and -v", () => {
    for (const c of cases(11, 60, (pick, rand) => ({
      lines: lines(pick, rand),
      args: [
        "-m",
        String(1 + Math.floor(rand() * 4)),
        pick(["-A", "-B", "-C"]),
        String(1 + Math.floor(rand() * 3)),
        ...(rand() < 0.2 ? ["-v"] : []),
      ],
      pattern: pick(["foo", "bar", "^$", "ba"]),
    }))) {
      const [ours, theirs] = both(c);
      const neutral = (s: string) => s.replace(/^(\d+)[:-]/gm, "$1|");
      expect({ ...c, out: neutral(ours) }).toEqual({ ...c, out: neutral(theirs) });
      // Outside that trailing context the separators agree: every line up to the last match's.
      const upTo = (s: string) =>
        s.split("\n").slice(0, s.split("\n").findLastIndex((l) => /^\d+:/.test(l)) + 1);
      const lastMatch = (s: string) => upTo(s).filter((l) => /^\d+:/.test(l)).length;
      expect(lastMatch(ours)).toBeGreaterThanOrEqual(lastMatch(theirs));
    }
  });

  test("-o with -m, -i and -w", () => {
    for (const c of cases(12, 60, (pick, rand) => ({
      lines: lines(pick, rand),
      args: [
        "-o",
        ...(rand() < 0.6 ? ["-m", String(1 + Math.floor(rand() * 3))] : []),
        ...(rand() < 0.3 ? ["-i"] : []),
        ...(rand() < 0.3 ? ["-w"] : []),
      ],
      pattern: pick(["foo", "o", "[0-9]+", "[a-z]+", "b?a"]),
    }))) {
      const [ours, theirs] = both(c, true);
      expect({ ...c, out: ours }).toEqual({ ...c, out: theirs });
    }
  });

  test("-F literals made of regex syntax", () => {
    const syntax = ["a.b", "a*b", "(x)", "[y]", "a+b", "$1", "^z", "\\d", "a|b", "-", "x-y", "?", "{2}"];
    for (const c of cases(13, 60, (pick, rand) => ({
      lines: Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
        Array.from({ length: Math.floor(rand() * 4) }, () => pick(syntax)).join(pick(["", " ", "_"])),
      ),
      args: [
        "-F",
        ...(rand() < 0.3 ? ["-w"] : []),
        ...(rand() < 0.3 ? ["-x"] : []),
        ...(rand() < 0.3 ? ["-i"] : []),
      ],
      pattern: pick(syntax),
    }))) {
      const [ours, theirs] = both(c);
      expect({ ...c, out: ours }).toEqual({ ...c, out: theirs });
    }
  });

  test("extended regexes with -i, -w, -x, -v and -c", () => {
    const atoms = ["a", "b", "ab", ".", "[a-c]", "[^a]", "x", "(a|b)", "[0-9]", " ", "-", "\\."];
    const quantifiers = ["", "", "*", "+", "?", "{2}", "{1,2}"];
    for (const c of cases(14, 60, (pick, rand) => {
      let pattern = "";
      for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) pattern += pick(atoms) + pick(quantifiers);
      return {
        lines: Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
          Array.from({ length: Math.floor(rand() * 8) }, () =>
            pick(["a", "b", "c", "x", "1", " ", "-", "."]),
          ).join(""),
        ),
        args: ["-i", "-w", "-x", "-v", "-c"].filter(() => rand() < 0.3),
        pattern: `${rand() < 0.2 ? "^" : ""}${pattern}${rand() < 0.2 ? "$" : ""}`,
      };
    })) {
      const [ours, theirs] = both(c, true);
      expect({ ...c, out: ours }).toEqual({ ...c, out: theirs });
    }
  });

  test("several -e patterns with back-references, each to its own groups", () => {
    // The patterns are one alternation: a back-reference of the second once named the first's group, so
    // `-e '(a)' -e '(b)\1'` matched a lone "b".
    const patterns = ["(a)", "(b)\\1", "(a)(b)\\2", "(a|b)\\1", "b", "(ab)\\1", "(x)?(a)\\2", "((a)b)\\2"];
    for (const c of cases(15, 60, (pick, rand) => ({
      lines: Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
        Array.from({ length: Math.floor(rand() * 6) }, () => pick(["a", "b", "x", " "])).join(""),
      ),
      // (Not -o: grep takes the longest of the patterns matching at a place, a JavaScript alternation the first.)
      args: pick([[], [], ["-c"], ["-v"], ["-v", "-c"]]),
      pattern: pick(patterns),
      more: Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(patterns)),
    }))) {
      const [ours, theirs] = both(c, true);
      expect({ ...c, out: ours }).toEqual({ ...c, out: theirs });
    }
  });
});
