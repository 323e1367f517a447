// One relativity rule for paths (issue #20, docs/decisions/0015-one-relativity-rule.md): what rglob prints for
// people and shells (human output, --format {path}) is relative to the current directory (absolute outside
// it) whatever --base says, so it can be passed straight to the next command; JSON `path` is absolute and
// `relative_path` / {rel} are relative to the base.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

let dir = "";
let cleanup = () => {};
beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    "proj/src/a.ts": "export const a = 1;\n",
    "proj/src/lib/b.ts": "export const b = 2;\n",
    "proj/docs/x.md": "export in prose\n",
    "other/c.ts": "export const c = 3;\n",
  }));
});
afterAll(() => cleanup());

const lines = (s: string) => s.split("\n").filter((l) => l !== "");

describe("printed paths can be passed back from the same directory", () => {
  test.each([
    ["find", ["find", "*.ts", "--base", "src"]],
    ["find --format {path}", ["find", "*.ts", "--base", "src", "--format", "{path}"]],
    ["grep -l", ["grep", "-l", "export", "--base", "src"]],
  ] as const)("%s with --base src prints paths under the cwd that exist as printed", (_t, args) => {
    const cwd = join(dir, "proj");
    const run = rglob(args as unknown as string[], { cwd });
    expect(run.code).toBe(0);
    const paths = lines(run.stdout);
    expect(paths.length).toBe(2);
    for (const p of paths) {
      expect(p.startsWith("src/")).toBe(true);
      expect(existsSync(resolve(cwd, p))).toBe(true);
    }
    // Straight back into the next command.
    const again = rglob(["grep", "-l", "export", ...paths], { cwd });
    expect(lines(again.stdout).sort()).toEqual([...paths].sort());
  });

  test("with the same --base, a printed path goes straight back as an operand (grep roots, explain)", () => {
    const cwd = join(dir, "proj");
    const printed = lines(rglob(["find", "*.ts", "--base", "src"], { cwd }).stdout);
    expect(printed).toEqual(["src/a.ts", "src/lib/b.ts"]);
    for (const p of printed) {
      const g = rglob(["grep", "-l", "export", p, "--base", "src"], { cwd });
      expect({ p, code: g.code, out: lines(g.stdout) }).toEqual({ p, code: 0, out: [p] });
      const e = rglob(["explain", p, "--base", "src"], { cwd });
      expect({ p, code: e.code, out: e.stdout.split("\n")[0] }).toEqual({
        p,
        code: 0,
        out: `${p}: included`,
      });
    }
    // A directory printed by tree's parent line works too; a base-relative operand that names nothing here still
    // resolves against the base.
    expect(lines(rglob(["grep", "-l", "export", "src/lib", "--base", "src"], { cwd }).stdout)).toEqual([
      "src/lib/b.ts",
    ]);
    expect(lines(rglob(["grep", "-l", "export", "lib", "--base", "src"], { cwd }).stdout)).toEqual([
      "src/lib/b.ts",
    ]);
  });

  test("a base outside the cwd prints absolute paths", () => {
    const cwd = join(dir, "proj");
    const run = rglob(["find", "*.ts", "--base", "../other"], { cwd });
    expect(lines(run.stdout)).toEqual([join(dir, "other", "c.ts")]);
  });

  test("count and top human rows use the same rule", () => {
    const cwd = join(dir, "proj");
    for (const args of [
      ["count", "--base", "src"],
      ["top", "--base", "src"],
    ]) {
      const run = rglob(args, { cwd });
      const rows = lines(run.stdout).filter((l) => l.includes(".ts"));
      expect(rows.map((l) => l.trim().split(/\s+/).pop()).sort()).toEqual(["src/a.ts", "src/lib/b.ts"]);
    }
  });
});

describe("JSON: path absolute, relative_path and {rel} relative to the base", () => {
  test("relative_path joined to the base is path; {rel} is relative_path", () => {
    const cwd = join(dir, "proj");
    const { json } = rglobJson<{ results: Array<{ path: string; relative_path: string }> }>(
      ["find", "*.ts", "--base", "src", "--json"],
      { cwd },
    );
    expect(json.results.map((r) => r.relative_path)).toEqual(["a.ts", "lib/b.ts"]);
    for (const r of json.results) {
      expect(isAbsolute(r.path)).toBe(true);
      expect(join(cwd, "src", r.relative_path)).toBe(r.path);
    }
    const rel = rglob(["find", "*.ts", "--base", "src", "--format", "{rel}"], { cwd });
    expect(lines(rel.stdout)).toEqual(["a.ts", "lib/b.ts"]);
  });
});
