// The codemap cannot lie: every path docs/architecture.md names exists, and every directory under src/ is named.
// Paths are tokens starting with src/, scripts/, test/, fixtures/, docs/ or .ci/ (anywhere, code blocks too);
// a bare file name in backticks (`help.ts`) must exist below the nearest directory named before it in its list item. `<op>` stands
// for any operation id, `*` for any characters.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { OPERATIONS } from "../../src/ops/registry.ts";
import { ROOT } from "../helpers.ts";

const TEXT = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
const PATH_TOKEN = /(?<![\w./<>-])(?:src|scripts|test|fixtures|docs|\.ci)\/[\w.<>*/-]*/g;
const BARE_FILE = /`([\w.-]+\.(?:ts|md|json|toml|txt))`/g;

/** Returns true when the path (with `<op>` and `*` wildcards) names at least one existing entry. */
function exists(rel: string): boolean {
  const clean = rel.replace(/\/$/, "");
  if (clean.includes("<op>")) return OPERATIONS.some((op) => exists(clean.replaceAll("<op>", op.id)));
  if (clean.includes("*"))
    return [...new Bun.Glob(clean).scanSync({ cwd: ROOT, onlyFiles: false })].length > 0;
  return existsSync(join(ROOT, clean));
}

function findBelow(dir: string, name: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === name) return true;
    if (entry.isDirectory() && entry.name !== "node_modules" && findBelow(join(dir, entry.name), name))
      return true;
  }
  return false;
}

function pathTokens(line: string): string[] {
  return [...line.matchAll(PATH_TOKEN)].map((m) => m[0].replace(/[.,:;]+$/, ""));
}

describe("docs/architecture.md", () => {
  test("names paths at all (the extraction works)", () => {
    expect(pathTokens(TEXT).length).toBeGreaterThan(10);
  });

  test("every path it names exists", () => {
    const missing = [...new Set(pathTokens(TEXT))].filter((p) => !exists(p));
    expect(missing).toEqual([]);
  });

  test("every bare file name exists below the directory its line names", () => {
    const missing: string[] = [];
    // A unit is a list item with its continuation lines, or any other line.
    const units = TEXT.split(/\n(?! {2})/);
    for (const unit of units) {
      const dirs = [...unit.matchAll(PATH_TOKEN)]
        .map((m) => ({ at: m.index, path: m[0].replace(/[.,:;]+$/, "") }))
        .filter((d) => existsSync(join(ROOT, d.path)) && statSync(join(ROOT, d.path)).isDirectory());
      for (const m of unit.matchAll(BARE_FILE)) {
        const name = m[1] as string;
        // The nearest directory named before the file name, else the first one of the item.
        const dir = dirs.filter((d) => d.at < m.index).at(-1)?.path ?? dirs[0]?.path;
        if (!findBelow(join(ROOT, dir ?? "."), name)) missing.push(`${name} (below ${dir ?? "the root"})`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every directory under src/ is in the codemap", () => {
    const named = new Set(pathTokens(TEXT).map((p) => p.replace(/\/$/, "")));
    const dirs = readdirSync(join(ROOT, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}`);
    expect(dirs.filter((d) => ![...named].some((n) => n === d || n.startsWith(`${d}/`)))).toEqual([]);
  });
});
