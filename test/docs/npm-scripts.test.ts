// Every npm script runs files that exist: `npm run bench` once named a scripts/bench.ts that was never there.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { ROOT } from "../helpers.ts";

test("each package.json script names only files that exist", () => {
  const missing: string[] = [];
  let named = 0;
  for (const [name, command] of Object.entries(pkg.scripts)) {
    for (const file of command.match(/\bscripts\/[\w.-]+\.ts\b/g) ?? []) {
      named++;
      if (!existsSync(join(ROOT, file))) missing.push(`${name}: ${file}`);
    }
  }
  expect(named).toBeGreaterThan(5);
  expect(missing).toEqual([]);
});
