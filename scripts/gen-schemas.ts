/*! Writes src/generated/schemas.ts from the valibot models (the binary embeds it). `--check` exits 1 when stale. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSchemas, renderSchemasModule } from "../src/contract/schemas.ts";

const target = join(import.meta.dir, "..", "src", "generated", "schemas.ts");
const text = renderSchemasModule(await buildSchemas());
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {}
  if (current !== text) {
    console.error("src/generated/schemas.ts is stale: run `npm run gen`");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
