// The generated schemas: fresh, valid Draft 2020-12 documents with $id/title/version, and sample records
// from the real binary validate against them.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { buildSchemas, renderSchemasModule } from "../../src/contract/schemas.ts";
import { SCHEMAS } from "../../src/generated/schemas.ts";
import { OPERATIONS } from "../../src/ops/registry.ts";
import { FIXTURE, jsonl, ROOT, rglob, rglobJson } from "../helpers.ts";

function ajv(): Ajv2020 {
  const a = new Ajv2020({ strict: true, allErrors: true });
  a.addKeyword("version");
  return a;
}

describe("generated schemas", () => {
  test("src/generated/schemas.ts is up to date with the models (run `npm run gen`)", async () => {
    const current = readFileSync(join(ROOT, "src", "generated", "schemas.ts"), "utf8");
    expect(current).toBe(renderSchemasModule(await buildSchemas()));
  });

  test("every schema is a valid Draft 2020-12 document with $id, title and version", () => {
    const a = ajv();
    for (const [stem, schema] of Object.entries(SCHEMAS)) {
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.$id).toBe(`urn:rglob:schema:1.0:${stem}`);
      expect(typeof schema.title).toBe("string");
      expect(schema.version).toBe("1.0");
      expect(a.validateSchema(schema)).toBe(true);
      a.compile(schema);
    }
  });

  test("every operation has an input and an output schema, and objects are strict", () => {
    for (const op of OPERATIONS) {
      for (const side of ["input", "output"]) {
        const s = SCHEMAS[`${op.id}.${side}`];
        expect(s).toBeDefined();
        expect(s?.additionalProperties).toBe(false);
      }
    }
  });

  test("`rglob schema --all` lists every public model, and `rglob schema find` is valid", () => {
    const { json } = rglobJson(["schema", "--all"]);
    expect(Object.keys(json).sort()).toEqual(Object.keys(SCHEMAS).sort());
    for (const name of ["ErrorInfo", "Failure", "FileMatch", "CapabilityReport"])
      expect(json[name]).toBeDefined();
    const one = rglobJson(["schema", "find"]).json as { input: object; output: object };
    expect(ajv().validateSchema(one.input)).toBe(true);
    expect(ajv().validateSchema(one.output)).toBe(true);
  });

  test("real records validate: find --json, JSONL records, capabilities and the failure envelope", () => {
    const a = ajv();
    const validate = (stem: string, value: unknown) => {
      const fn = a.getSchema(`urn:rglob:schema:1.0:${stem}`) ?? a.compile(SCHEMAS[stem] as object);
      const ok = fn(value);
      if (!ok) throw new Error(`${stem}: ${JSON.stringify(fn.errors)}`);
    };
    validate("find.output", rglobJson(["find", "--json"], { cwd: FIXTURE }).json);
    const lines = jsonl(rglob(["find", "--jsonl", "--hidden"], { cwd: FIXTURE }).stdout);
    for (const line of lines) {
      const { kind, ...rest } = line;
      if (kind === "file") validate("FileMatch", rest);
    }
    expect(lines.at(-1)?.kind).toBe("summary");
    validate("CapabilityReport", rglobJson(["capabilities"]).json);
    validate("Failure", rglobJson(["describe", "nope"]).json);
  });

  test("a record that breaks the contract is rejected (the validator is not vacuous)", () => {
    const fn = ajv().compile(SCHEMAS.FileMatch as object);
    const rec = { path: "/x", relative_path: "x", size: 1, mtime: "t", kinds: ["f"], entry_type: "file" };
    expect(fn(rec)).toBe(true);
    expect(fn({ ...rec, extra: 1 })).toBe(false);
    expect(fn({ ...rec, size: "1" })).toBe(false);
    expect(fn({ ...rec, entry_type: "link" })).toBe(false);
  });
});
