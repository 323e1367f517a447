// The library and the CLI give identical grep records (one dispatcher, one contract), in the calling thread
// (threads: 0, the path plain Node falls back to) and with workers.
import { expect, test } from "bun:test";
import { grepAll } from "../../src/agent/index.ts";
import { FIXTURE, rglobJson } from "../helpers.ts";

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
