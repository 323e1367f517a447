// Golden output of find over fixtures/tree: JSONL lines sorted and JSON, with the absolute prefix and mtimes
// normalised (git checkouts do not keep them), and so are the mode and owner (the umask and the user of the
// checkout decide them; test/surface/find-stat-fields.test.ts checks them against stat), each line decoded with
// the strict FileMatch model.
import { expect, test } from "bun:test";
import * as v from "valibot";
import { FileMatchSchema } from "../../src/contract/records.ts";
import { FIXTURE, jsonl, rglob, rglobJson } from "../helpers.ts";

function normalise(text: string): string {
  return text
    .replaceAll(FIXTURE, "<FIXTURE>")
    .replace(/"mtime":"[^"]*"/g, '"mtime":"<MTIME>"')
    .replace(/"mode":"[0-7]+","uid":\d+,"gid":\d+/g, '"mode":"<MODE>","uid":"<UID>","gid":"<GID>"')
    .replace(
      /"size":\d+,"mtime":"<MTIME>","kinds":\["d"\]/g,
      '"size":"<DIRSIZE>","mtime":"<MTIME>","kinds":["d"]',
    );
}

test("find --jsonl over fixtures/tree (sorted lines)", () => {
  const r = rglob(["find", "--jsonl", "--hidden"], { cwd: FIXTURE });
  expect(r.code).toBe(0);
  for (const line of jsonl(r.stdout)) {
    if (line.kind === "file") {
      const { kind: _k, ...rec } = line;
      v.parse(FileMatchSchema, rec);
    }
  }
  const lines = normalise(r.stdout).split("\n").filter(Boolean).sort();
  expect(lines).toMatchSnapshot();
});

test("find --json over fixtures/tree", () => {
  const { json, run } = rglobJson(["find", "-t", "f", "--json"], { cwd: FIXTURE });
  expect(run.code).toBe(0);
  expect(JSON.parse(normalise(JSON.stringify(json)))).toMatchSnapshot();
});
