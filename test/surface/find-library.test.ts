// find through the library: records read their stats lazily but behave as plain objects (keys, spread,
// deep equality, JSON), and equal the compiled binary's JSON records.
import { expect, test } from "bun:test";
import { searchAll } from "../../src/agent/index.ts";
import { FIXTURE, rglobJson } from "../helpers.ts";

test("library records are plain and equal the CLI's", async () => {
  const lib = await searchAll({ base: FIXTURE, types: ["f"] });
  const cli = rglobJson<{ results: unknown[] }>(["find", "-t", "f", "--json", "--base", FIXTURE]).json;
  expect(JSON.parse(JSON.stringify(lib.results))).toEqual(cli.results);
  const first = lib.results[0];
  expect(Object.keys(first ?? {})).toEqual([
    "path",
    "relative_path",
    "size",
    "mtime",
    "kinds",
    "mode",
    "uid",
    "gid",
    "entry_type",
  ]);
  expect({ ...first }).toEqual(cli.results[0] as object);
});
