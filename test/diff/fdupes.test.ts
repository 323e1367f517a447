// Differential: dupes finds the same groups as `fdupes -r` on a generated tree with duplicates, near
// duplicates (same size, different last byte; same head and tail, different middle), hard links, symlinks
// and empty files. Groups are compared as sets of inodes against fdupes' default (one path per inode, which
// one may differ), and path by path against fdupes -H (every path; rglob lists every path of a group too). Skips loudly when fdupes is not installed.
import { afterAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rglobJson } from "../helpers.ts";

const fdupes = Bun.which("fdupes");
if (!fdupes) console.warn("SKIP test/diff/fdupes.test.ts: fdupes is not installed (apt-get install fdupes)");

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

function makeTree(): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-fdupes-"));
  const put = (rel: string, data: Buffer | string) => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), data);
  };
  for (let g = 0; g < 12; g++) {
    const size = [1, 10, 100, 4095, 4096, 8191, 8192, 8193, 20_000, 100_000, 1_500_000, 3_000_000][
      g
    ] as number;
    const data = bytes(size, g + 1);
    const copies = 2 + (g % 3);
    for (let c = 0; c < copies; c++) put(`g${g}/copy${c}.dat`, data);
    // Same size, different last byte.
    const last = Buffer.from(data);
    last[size - 1] = ((last[size - 1] as number) + 1) & 255;
    put(`near/last-${g}.dat`, last);
    // Same head and tail, different middle (only possible beyond two edge blocks).
    if (size > 8192) {
      const mid = Buffer.from(data);
      const at = size >> 1;
      mid[at] = ((mid[at] as number) + 1) & 255;
      put(`near/middle-${g}.dat`, mid);
    }
  }
  for (let u = 0; u < 30; u++) put(`unique/u${u}.txt`, `unique ${u}\n`);
  put("links/original.txt", "linked content\n");
  linkSync(join(dir, "links/original.txt"), join(dir, "links/hardlink.txt"));
  put("links/copy.txt", "linked content\n");
  linkSync(join(dir, "unique/u1.txt"), join(dir, "links/only-a-hardlink.txt"));
  symlinkSync(join(dir, "g0/copy0.dat"), join(dir, "links/symlink.dat"));
  for (let e = 0; e < 3; e++) put(`empty/e${e}`, "");
  put(".hidden/copy.dat", bytes(100, 3));
  return dir;
}

const dir = fdupes ? makeTree() : "";
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function inodeSets(groups: string[][]): string[] {
  return groups.map((g) => [...new Set(g.map((p) => String(statSync(p).ino)))].sort().join(",")).sort();
}

function pathSets(groups: string[][]): string[] {
  return groups.map((g) => [...g].sort().join("\n")).sort();
}

function fdupesGroups(args: string[]): string[][] {
  const r = Bun.spawnSync([fdupes as string, ...args, dir], { stdout: "pipe", stderr: "pipe" });
  return r.stdout
    .toString()
    .split("\n\n")
    .map((block) => block.split("\n").filter(Boolean))
    .filter((g) => g.length > 0);
}

function rglobGroups(args: string[]): string[][] {
  const { json } = rglobJson<{ results: Array<{ paths: string[] }> }>([
    "dupes",
    "--hidden",
    "--no-ignore",
    "--base",
    dir,
    "--json",
    ...args,
  ]);
  return json.results.map((r) => r.paths);
}

describe.skipIf(!fdupes)("dupes vs fdupes -r (skipped without fdupes)", () => {
  test("same groups without empty files (fdupes -rn)", () => {
    const ours = rglobGroups([]);
    expect(ours.length).toBeGreaterThan(10);
    expect(inodeSets(ours)).toEqual(inodeSets(fdupesGroups(["-r", "-n", "-q"])));
  });

  test("same groups with empty files (fdupes -r, rglob --include-empty)", () => {
    expect(inodeSets(rglobGroups(["--include-empty"]))).toEqual(inodeSets(fdupesGroups(["-r", "-q"])));
  });

  // fdupes lists one path per inode (which one may differ); -H lists every path and the files with hard links
  // only. rglob lists every path of a group, and those files with --include-hard-links: compared path by path.
  test("every path of each group, as fdupes -rH lists them (files with hard links only left out)", () => {
    const twoInodes = fdupesGroups(["-r", "-n", "-q", "-H"]).filter(
      (g) => new Set(g.map((p) => statSync(p).ino)).size > 1,
    );
    expect(pathSets(rglobGroups([]))).toEqual(pathSets(twoInodes));
  });

  test("--include-hard-links: the groups of fdupes -rH, files with hard links only included", () => {
    const ours = rglobGroups(["--include-hard-links"]);
    expect(ours.some((g) => g.some((p) => p.endsWith("only-a-hardlink.txt")))).toBe(true);
    expect(pathSets(ours)).toEqual(pathSets(fdupesGroups(["-r", "-n", "-q", "-H"])));
  });

  test("near duplicates and hard links never form a group on their own", () => {
    const all = rglobGroups([]).flat();
    expect(all.some((p) => p.includes("/near/"))).toBe(false);
    expect(all.some((p) => p.endsWith("only-a-hardlink.txt") || p.endsWith("unique/u1.txt"))).toBe(false);
    expect(all.some((p) => p.endsWith("symlink.dat"))).toBe(false);
  });
});
