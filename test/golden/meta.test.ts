// Golden snapshots of tree, top, stats and explain over fixtures/tree, as JSON and as JSONL (normalised:
// the fixture's absolute path and checkout-dependent modification times are replaced). Every output is also
// validated against its generated schema, and every JSONL record against its record model.
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { RECORD_SCHEMAS, SCHEMAS } from "../../src/generated/schemas.ts";
import { FIXTURE, jsonl, rglob } from "../helpers.ts";

const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addKeyword("version");
for (const schema of Object.values(SCHEMAS)) ajv.addSchema(schema as object);

function validate(stem: string, value: unknown): void {
  const fn = ajv.getSchema(`urn:rglob:schema:1.0:${stem}`);
  if (!fn) throw new Error(`no schema ${stem}`);
  if (!fn(value)) throw new Error(`${stem}: ${JSON.stringify(fn.errors)} in ${JSON.stringify(value)}`);
}

/** The schema stem of a JSONL kind of an operation (as gen-schemas recorded it from the record model). */
function recordStem(op: string, kind: string): string {
  const stem = RECORD_SCHEMAS[op]?.[kind];
  if (stem === undefined) throw new Error(`${op} has no record kind ${kind}`);
  return stem;
}

/** Replaces what depends on the checkout: the fixture's absolute path, modification times, modes and owners. */
function normalise(value: unknown): unknown {
  // The ignore files an included path's verdict names (#37) include those above the fixture and the user's
  // global excludes file: this machine's, not the fixture's.
  if (typeof value === "string")
    return value
      .split(FIXTURE)
      .join("<fixture>")
      .replace(/(no ignore rule matches it): .*$/, "$1: <ignore files>");
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "mtime") out[k] = "<mtime>";
      else if (k === "mode" || k === "uid" || k === "gid") out[k] = `<${k}>`;
      // Which fixture file is newest or oldest depends on the order git wrote them.
      else if ((k === "newest" || k === "oldest") && v !== null) out[k] = "<file>";
      else out[k] = normalise(v);
    }
    return out;
  }
  return value;
}

const CASES: Array<[string, string[]]> = [
  ["tree", ["tree"]],
  ["tree", ["tree", "*.py"]],
  ["tree", ["tree", "--hidden", "--no-ignore", "--max-depth", "1"]],
  ["top", ["top"]],
  ["top", ["top", "--dirs", "--hidden", "--no-ignore"]],
  ["top", ["top", "-n", "2"]],
  ["stats", ["stats"]],
  ["stats", ["stats", "--hidden", "--no-ignore", "--limit", "2"]],
  ["explain", ["explain", "ignored.log"]],
  ["explain", ["explain", "src/main.py", "--glob", "*.py"]],
  ["explain", ["explain", "hidden/.secret.py", "--no-hidden", "--max-depth", "1"]],
];

describe("golden: tree, top, stats, explain over fixtures/tree", () => {
  test.each(CASES)("%s %p as JSON", (op, args) => {
    const run = rglob([...args, "--json"], { cwd: FIXTURE });
    const json = JSON.parse(run.stdout);
    // explain exits 0 when it gives an explanation, whatever its verdict (#37).
    expect(run.code).toBe(0);
    validate(`${op}.output`, json);
    expect(normalise(json)).toMatchSnapshot();
  });

  test.each(CASES)("%s %p as JSONL", (op, args) => {
    const run = rglob([...args, "--jsonl"], { cwd: FIXTURE });
    const lines = jsonl(run.stdout);
    expect(run.code).toBe(0);
    expect(lines.filter((l) => l.kind === "summary")).toHaveLength(1);
    expect(lines.at(-1)?.kind).toBe("summary");
    for (const { kind, ...rest } of lines.slice(0, -1)) validate(recordStem(op, String(kind)), rest);
    expect(normalise(lines)).toMatchSnapshot();
  });
});
