// Differential: count's lines against `wc -l` on a generated tree and on real files (this repository's
// sources and an installed package). Documented divergence: wc -l counts newline bytes only, count also
// counts a last line that has no newline, so the expected value is wc -l plus one for such files.
// Binary files (a NUL in the first 8 KiB) are skipped by count and left out of the comparison.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { jsonl, ROOT, rglob, type TreeSpec, tempTree } from "../helpers.ts";

function wcLines(paths: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < paths.length; i += 500) {
    const chunk = paths.slice(i, i + 500);
    const r = Bun.spawnSync(["wc", "-l", ...chunk], { stdout: "pipe" });
    for (const line of r.stdout.toString().split("\n")) {
      const m = /^\s*(\d+) (.+)$/.exec(line);
      if (m && m[2] !== "total") out.set(m[2] as string, Number(m[1]));
    }
  }
  return out;
}

function compare(base: string, extra: string[] = []): number {
  const r = rglob(["count", "--no-ignore", "--hidden", "--base", base, "--jsonl", ...extra]);
  const files = jsonl(r.stdout).filter((l) => l.kind === "file") as Array<{ path: string; lines: number }>;
  const wc = wcLines(files.map((f) => f.path));
  const mismatches: string[] = [];
  for (const f of files) {
    const data = readFileSync(f.path);
    const unterminated = data.length > 0 && data[data.length - 1] !== 0x0a ? 1 : 0;
    const expected = (wc.get(f.path) ?? -1) + unterminated;
    if (f.lines !== expected) mismatches.push(`${f.path}: count ${f.lines}, wc -l (+1) ${expected}`);
  }
  expect(mismatches).toEqual([]);
  return files.length;
}

function generated(): TreeSpec {
  const spec: TreeSpec = {};
  const pieces = [
    "",
    "\n",
    "\n\n",
    "x",
    "x\n",
    "  \t\n",
    "// c\n",
    "/* a\nb */\n",
    "\r\n",
    "long".repeat(5000),
  ];
  let seed = 7;
  for (let f = 0; f < 200; f++) {
    let text = "";
    const parts = (f * 37) % 60;
    for (let p = 0; p < parts; p++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      text += pieces[seed % pieces.length];
    }
    spec[`d${f % 7}/sub${f % 3}/f${f}.${["ts", "py", "txt", "sql", "md"][f % 5]}`] = text;
  }
  // Bigger than the read buffer, with lines across chunk boundaries.
  spec["big/large.js"] = "const a = 1;\n// comment\n\n".repeat(40_000);
  spec["big/one-long-line.txt"] = "y".repeat(700_000);
  return spec;
}

describe("count lines vs wc -l", () => {
  const tree = tempTree(generated());
  afterAll(() => tree.cleanup());

  test("a generated tree (blank, comment, CRLF, long lines, files larger than the buffer)", () => {
    expect(compare(tree.dir)).toBe(202);
  });

  test("real files: this repository's src and test directories", () => {
    expect(compare(ROOT, ["--path", "src", "--path", "test"])).toBeGreaterThan(20);
  });

  const pkg = join(ROOT, "node_modules", "valibot");
  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(!existsSync(pkg))("real files: an installed package (node_modules/valibot) (skipped without node_modules/valibot)", () => {
    expect(compare(pkg)).toBeGreaterThan(3);
  });
});
