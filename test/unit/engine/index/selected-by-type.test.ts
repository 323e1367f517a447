// The selections a restarted server makes of the walk written with its index (#36): a plan whose selection reads
// only the entries' types (grep's, count's and find's defaults, types such as f, d, l) is decided from the walk's
// type codes (selectedByType), and must give the very places a decoded entry each gives (selectedPlaces); a plan
// that reads names or stats is not decided so. A real tree with every kind of entry: files, directories, links to
// a file and to a directory, a broken link, hidden entries, deep ones, walked with and without following links,
// held as the walk in memory and as the walk read from a file (its relative paths and type codes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { WalkOptionsSchema } from "../../../../src/contract/walk-options.ts";
import {
  PlainWalk,
  type RecordedWalk,
  recordWalk,
  selectedByType,
  selectedPlaces,
  selectsByType,
} from "../../../../src/engine/index/recorded-walk.ts";
import { compileWalk } from "../../../../src/engine/plan.ts";
import { quietContext } from "../../../../src/engine/run.ts";
import { selectingAll, type WalkPlan } from "../../../../src/engine/walk.ts";

let root: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "rglob-bytype-")));
  mkdirSync(join(root, "src", "deep", "er"), { recursive: true });
  mkdirSync(join(root, ".hid"));
  writeFileSync(join(root, "a.ts"), "a\n");
  writeFileSync(join(root, "src", "b.js"), "b\n");
  writeFileSync(join(root, "src", "deep", "er", "c.ts"), "c\n");
  writeFileSync(join(root, ".hid", "d.ts"), "d\n");
  writeFileSync(join(root, ".e"), "e\n");
  symlinkSync(join(root, "a.ts"), join(root, "to-file"));
  symlinkSync(join(root, "src", "deep"), join(root, "to-dir"));
  symlinkSync(join(root, "nowhere"), join(root, "broken"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function planOf(input: Record<string, unknown>, filesOnly: boolean): WalkPlan {
  return compileWalk(v.parse(WalkOptionsSchema, { base: root, ...input }), { filesOnly, cwd: root }).plan;
}

/** The walk of a plan with nothing selected out, in memory and as a walk read from a file holds it. */
function walksOf(plan: WalkPlan): RecordedWalk[] {
  const rec = recordWalk(selectingAll(plan), quietContext());
  const rels = Array.from({ length: rec.entries }, (_, i) => rec.relOf(i));
  const plain = new PlainWalk(rec.ops, rec.args, rec.payloads, rels, rec.typeCodes(), root, () => "");
  return [rec, plain];
}

/** The places a server's set-up takes: by type codes when the plan allows, else a decoded entry each. */
async function asSetUp(rec: RecordedWalk, plan: WalkPlan): Promise<Int32Array> {
  const byType = selectsByType(plan) ? await selectedByType(rec, plan, async () => true) : null;
  return byType ?? selectedPlaces(rec, plan);
}

const cases: Array<{ input: Record<string, unknown>; filesOnly: boolean; byType: boolean }> = [
  { input: {}, filesOnly: true, byType: true },
  { input: {}, filesOnly: false, byType: true },
  { input: { hidden: true }, filesOnly: true, byType: true },
  { input: { hidden: true, follow_symlinks: true }, filesOnly: true, byType: true },
  { input: { hidden: true, follow_symlinks: true }, filesOnly: false, byType: true },
  { input: { types: ["l"] }, filesOnly: false, byType: true },
  { input: { types: ["d"], follow_symlinks: true }, filesOnly: false, byType: true },
  { input: { types: ["f", "l"] }, filesOnly: false, byType: true },
  { input: { min_depth: 1 }, filesOnly: false, byType: true },
  { input: { min_depth: 2 }, filesOnly: false, byType: false },
  { input: { patterns: ["*.ts"] }, filesOnly: true, byType: false },
  { input: { extensions: ["js"] }, filesOnly: false, byType: false },
  { input: { file_types: ["ts"] }, filesOnly: true, byType: false },
  { input: { types: ["x"] }, filesOnly: false, byType: false },
  { input: { min_size: "1" }, filesOnly: true, byType: false },
];

describe("selections decided from the walk's type codes", () => {
  for (const { input, filesOnly, byType } of cases) {
    test(`${JSON.stringify(input)}, ${filesOnly ? "files only" : "every entry"}: the places of a decoded entry each`, async () => {
      const plan = planOf(input, filesOnly);
      expect(selectsByType(plan)).toBe(byType);
      for (const rec of walksOf(plan)) {
        const decoded = selectedPlaces(rec, plan);
        expect(Array.from(await asSetUp(rec, plan))).toEqual(Array.from(decoded));
      }
    });
  }

  test("the default plans select something of each kind they take (the tree is not trivial)", () => {
    const files = planOf({ hidden: true, follow_symlinks: true }, true);
    const [rec] = walksOf(files);
    expect(selectedPlaces(rec as RecordedWalk, files).length).toBeGreaterThanOrEqual(5);
  });
});
