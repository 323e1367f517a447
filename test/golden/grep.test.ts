// Golden: `grep TODO` over fixtures/tree, as JSON and JSONL, normalised (absolute paths removed, lines sorted)
// and decoded with the strict record models.
import { expect, test } from "bun:test";
import * as v from "valibot";
import { GrepFileSchema, LineMatchSchema, LineSearchResultSchema } from "../../src/ops/grep/schema.ts";
import { FIXTURE, jsonl, rglob } from "../helpers.ts";

const normalise = (text: string) => text.replaceAll(FIXTURE, "<FIXTURE>");

test("grep TODO --json over the fixture tree", () => {
  const r = rglob(["grep", "TODO", "-C", "1", "--json"], { cwd: FIXTURE });
  const json = JSON.parse(r.stdout);
  v.parse(LineSearchResultSchema, json);
  expect(JSON.parse(normalise(r.stdout))).toMatchSnapshot();
});

test("grep TODO --jsonl over the fixture tree", () => {
  const r = rglob(["grep", "TODO", "--jsonl"], { cwd: FIXTURE });
  const rows = jsonl(r.stdout);
  for (const row of rows) {
    const { kind, ...rest } = row;
    if (kind === "match") v.parse(LineMatchSchema, rest);
    if (kind === "file") v.parse(GrepFileSchema, rest);
  }
  expect(normalise(r.stdout).split("\n").filter(Boolean).sort()).toMatchSnapshot();
});
