// Golden snapshots of count, lcount and tsize on fixtures/tree: JSONL lines sorted, the fixture path
// replaced by <FIXTURE>; every record decodes with its strict model.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ErrorInfoSchema } from "../../src/contract/errors.ts";
import { CountFileSchema } from "../../src/ops/count/schema.ts";
import { FileSizeSchema } from "../../src/ops/tsize/schema.ts";
import { FIXTURE, rglob } from "../helpers.ts";

function golden(args: string[], model: v.GenericSchema): string[] {
  const r = rglob([...args, "--jsonl"], { cwd: FIXTURE });
  const lines = r.stdout.split("\n").filter(Boolean);
  for (const line of lines) {
    const { kind, ...rest } = JSON.parse(line) as { kind: string };
    if (kind === "file") v.parse(model, rest);
    else if (kind === "error") v.parse(ErrorInfoSchema, rest);
  }
  // The cursor token encodes a fingerprint of the whole input model: keep it out of the snapshot.
  return lines
    .map((l) =>
      l.replaceAll(FIXTURE, "<FIXTURE>").replace(/"next_cursor":"[^"]+"/, '"next_cursor":"<CURSOR>"'),
    )
    .sort();
}

describe("golden: fixtures/tree", () => {
  test("count", () => {
    expect(golden(["count"], CountFileSchema)).toMatchSnapshot();
  });
  test("count --by language", () => {
    expect(golden(["count", "--by", "language", "--limit", "1"], CountFileSchema)).toMatchSnapshot();
  });
  test("lcount *.py", () => {
    expect(golden(["lcount", "*.py"], CountFileSchema)).toMatchSnapshot();
  });
  test("tsize *", () => {
    expect(golden(["tsize", "*", "--unit", "kb"], FileSizeSchema)).toMatchSnapshot();
  });
});
