// The ignore matcher's guards and name buckets (#23) decide exactly what testing every rule's RegExp decides:
// on seeded random rule sets (negation, anchoring, `**`, classes, `?`, trailing '/', escaped characters) and
// random paths, the guarded lastMatch names the same rule as the plain loop over all rules. Agreement with git
// itself is test/diff/ignore-guards.test.ts.
import { describe, expect, test } from "bun:test";
import { type CompiledRules, compileRules, guardOf, lastMatch } from "../../../src/engine/ignore-rules.ts";
import { prng } from "../../helpers.ts";
import { randomName, randomRules } from "../../ignore-random.ts";

/** The reference: every rule, newest first, its RegExp on the name (or the relative path when anchored). */
function plainLastMatch(c: CompiledRules, rel: string, isDir: boolean): number {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  for (let i = c.rules.length - 1; i >= 0; i--) {
    const r = c.rules[i];
    if (r === undefined || r.regex === null || (r.dirOnly && !isDir)) continue;
    if (r.regex.test(r.anchored ? rel : name)) return i;
  }
  return -1;
}

describe("guardOf reads a pattern's literal parts", () => {
  test.each([
    ["*.js", false, { namePrefix: "", nameSuffix: ".js", nameMin: 3, nameMax: -1, relPrefix: "" }],
    ["foo*", false, { namePrefix: "foo", nameSuffix: "", nameMin: 3, nameMax: -1 }],
    ["[Bb]uild", false, { namePrefix: "", nameSuffix: "uild", nameMin: 5, nameMax: 5 }],
    ["*.py[cod]", false, { namePrefix: "", nameSuffix: "", nameInner: ".py", nameMin: 4 }],
    ["a/**", true, { namePrefix: "", nameSuffix: "", nameMin: 0, nameMax: -1, relPrefix: "a/" }],
    ["**/node_modules", true, { namePrefix: "node_modules", nameMax: 12, relPrefix: "" }],
    ["packages/*/LICENSE", true, { namePrefix: "LICENSE", nameMax: 7, relPrefix: "packages/" }],
    ["docs/api", true, { namePrefix: "api", relPrefix: "docs/api", relExact: "docs/api" }],
    ["\\*x\\?", false, { namePrefix: "*x?", nameMax: 3 }],
    ["a\\/b", true, { namePrefix: "", nameMin: 0, nameMax: -1, relPrefix: "" }],
  ])("%p (anchored %p)", (text, anchored, want) => {
    expect(guardOf(text, anchored)).toMatchObject(want);
  });
});

describe("guarded and plain matching name the same rule", () => {
  let decided = 0;
  const seeds = Array.from({ length: 300 }, (_, i) => i + 1);
  test.each(seeds)("seed %d", (seed) => {
    const r = prng(seed);
    const lines = randomRules(r, 1 + Math.floor(r() * 10));
    const c = compileRules(lines.join("\n"));
    for (let i = 0; i < 150; i++) {
      const depth = 1 + Math.floor(r() * 4);
      const rel = Array.from({ length: depth }, () => randomName(r)).join("/");
      const isDir = r() < 0.4;
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      const want = plainLastMatch(c, rel, isDir);
      if (want >= 0) decided++;
      expect({ lines, rel, isDir, rule: lastMatch(c, rel, name, isDir) }).toEqual({
        lines,
        rel,
        isDir,
        rule: want,
      });
    }
  });
  test("the generator makes rules decide often", () => {
    // 300 seeds × 150 paths: a fifth of the paths or more must meet a matching rule for the test to mean much.
    expect(decided).toBeGreaterThan(9000);
  });
});
