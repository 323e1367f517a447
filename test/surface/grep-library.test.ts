// The library and the CLI give identical grep records (one dispatcher, one contract), in the calling thread
// (threads: 0, the path plain Node falls back to) and with workers.
import { expect, test } from "bun:test";
import { grepAll } from "../../src/agent/index.ts";
import { FIXTURE, rglobJson, type TreeSpec, tempTree } from "../helpers.ts";

test.each([0, 2])("grepAll (threads %p) equals the CLI's --json results", async (threads) => {
  const lib = await grepAll({ pattern: "TODO", base: FIXTURE, context: 1, threads });
  const { json } = rglobJson<{ results: unknown[] }>(["grep", "TODO", "-C", "1", "--json"], { cwd: FIXTURE });
  expect(lib.results).toEqual(json.results as typeof lib.results);
  expect(lib.total_matches).toBe(2);
});

test("grepAll reports a bad regex as a REGEX error in the result", async () => {
  const r = await grepAll({ pattern: "(", base: FIXTURE });
  expect(r.errors.map((e) => e.code)).toEqual(["REGEX"]);
});

test("searches in one process reuse their workers: each gets its own results, after an early stop or a deadline", async () => {
  // Workers outlive a search (pool.ts): a search that stopped at its limit leaves jobs behind, which the next
  // search must never see, and one stopped by its deadline leaves a worker stuck in a regex, which must not
  // hold the next one up.
  const spec: TreeSpec = {};
  for (let d = 0; d < 6; d++)
    for (let f = 0; f < 60; f++)
      spec[`d${d}/f${f}.txt`] =
        `alpha ${d}/${f}\n${f % 7 === 0 ? "beta here\n" : "none\n"}${"a".repeat(40)}!\n`;
  const t = tempTree(spec);
  try {
    const lines = (r: { results: ReadonlyArray<{ relative_path: string; line_number?: number }> }) =>
      r.results.map((m) => `${m.relative_path}:${m.line_number}`);
    const alpha = lines(await grepAll({ pattern: "alpha", base: t.dir, threads: 0 }));
    const beta = lines(await grepAll({ pattern: "beta", base: t.dir, threads: 0 }));
    expect(alpha).toHaveLength(360);
    expect(beta).toHaveLength(54);
    for (let round = 0; round < 3; round++) {
      const early = await grepAll({ pattern: "alpha", base: t.dir, threads: 2, limit: 3 });
      expect(lines(early)).toEqual(alpha.slice(0, 3));
      expect(lines(await grepAll({ pattern: "beta", base: t.dir, threads: 2 }))).toEqual(beta);
      expect(lines(await grepAll({ pattern: "alpha", base: t.dir, threads: 2 }))).toEqual(alpha);
    }
    // Nine nested stars on a long run of a's never end (polynomial backtracking, never cut short): the deadline
    // stops the search and terminates its workers.
    const stuck = await grepAll({
      pattern: "a*a*a*a*a*a*a*a*a*[b!]!",
      base: t.dir,
      threads: 2,
      timeout_seconds: 1,
    });
    expect(stuck.truncated_reason).toBe("timeout");
    expect(lines(await grepAll({ pattern: "beta", base: t.dir, threads: 2 }))).toEqual(beta);
  } finally {
    t.cleanup();
  }
}, 30_000);
