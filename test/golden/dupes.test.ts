// Golden snapshot of dupes on fixtures/tree: duplicates/a.txt and duplicates/b.txt are one group with a
// sha256 digest; every record decodes with the strict Duplicate model.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { DuplicateSchema } from "../../src/ops/dupes/schema.ts";
import { FIXTURE, rglob } from "../helpers.ts";

describe("golden: fixtures/tree", () => {
  test("dupes", () => {
    const r = rglob(["dupes", "--jsonl"], { cwd: FIXTURE });
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n").filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as { kind: string });
    const dups = records.filter((x) => x.kind === "duplicate");
    expect(dups).toHaveLength(1);
    const { kind: _kind, ...dup } = dups[0] as { kind: string };
    const parsed = v.parse(DuplicateSchema, dup);
    expect(parsed.relative_paths).toEqual(["duplicates/a.txt", "duplicates/b.txt"]);
    expect(parsed.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(lines.map((l) => l.replaceAll(FIXTURE, "<FIXTURE>")).sort()).toMatchSnapshot();
  });
});
