// Counts that treat a symlink as what it is (#37), against find(1) on seeded random trees with links to files,
// to directories, broken links and links that loop: tree's footer and its `directories`, `files` and `symlinks`
// are find's -type d, -type f and -type l (find -L's under -L, where a followed link counts as what it leads
// to, and a link in a loop, an error to find, is a link), and under -L total_files_searched is find -L's -type f
// (a link that leads nowhere is no file examined).
// Against tree(1) 2.x the sum agrees too: it counts the root, and a link by what it points at.
import { afterAll, describe, expect } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prng, rglob, rglobJson, skipWhen, tempTree } from "../helpers.ts";

const SEED = Number(process.env.RGLOB_LINKS_SEED ?? 37);
const hasFind = spawnSync("find", ["--version"]).status === 0;

/** A random tree: directories and files, links to files and directories (never an ancestor), broken links and
 * a pair of links that loop. Returns its directory. */
function randomTree(seed: number): { dir: string; cleanup: () => void } {
  const t = tempTree({ "targets/t.txt": "t\n", "targets/sub/u.txt": "u\n" });
  const rnd = prng(seed);
  const dirs = [""];
  const files: string[] = ["targets/t.txt"];
  for (let i = 0; i < 12; i++) {
    const parent = dirs[Math.floor(rnd() * dirs.length)] as string;
    const name = join(parent, `d${i}`);
    mkdirSync(join(t.dir, name), { recursive: true });
    dirs.push(name);
  }
  for (let i = 0; i < 25; i++) {
    const name = join(dirs[Math.floor(rnd() * dirs.length)] as string, `f${i}.txt`);
    writeFileSync(join(t.dir, name), `${i}\n`);
    files.push(name);
  }
  for (let i = 0; i < 10; i++) {
    const at = join(t.dir, dirs[Math.floor(rnd() * dirs.length)] as string, `l${i}`);
    const kind = Math.floor(rnd() * 4);
    // Absolute targets: a link means the same wherever it sits.
    if (kind === 0) symlinkSync(join(t.dir, files[Math.floor(rnd() * files.length)] as string), at);
    else if (kind === 1) symlinkSync(join(t.dir, "targets"), at);
    else if (kind === 2) symlinkSync(join(t.dir, `missing${i}`), at);
    else symlinkSync(join(t.dir, "targets", "sub"), at);
  }
  symlinkSync("loop-b", join(t.dir, "loop-a"));
  symlinkSync("loop-a", join(t.dir, "loop-b"));
  return t;
}

/** find's counts below DIR: directories (the root left out), files, symlinks. Under -L, find reports a link in a
 * loop as an error ("Too many levels of symbolic links") where rglob lists it as a link that leads nowhere
 * (documented: `-t l` lists loops too): those count as links here. */
function findCounts(dir: string, follow: boolean): { d: number; f: number; l: number } {
  const run = (type: string) =>
    spawnSync("find", [...(follow ? ["-L"] : []), ".", "-mindepth", "1", "-type", type], {
      cwd: dir,
      encoding: "utf8",
    });
  const n = (type: string) => run(type).stdout.split("\n").filter(Boolean).length;
  const l = run("l");
  const loops = (l.stderr.match(/Too many levels of symbolic links/g) ?? []).length;
  return { d: n("d"), f: n("f"), l: l.stdout.split("\n").filter(Boolean).length + loops };
}

const trees = [0, 1, 2, 3].map((i) => ({ seed: SEED + i, ...randomTree(SEED + i) }));
afterAll(() => {
  for (const t of trees) t.cleanup();
});

const needsFind = skipWhen(!hasFind && "find(1) is not installed");

describe.each([false, true])("follow symlinks: %p", (follow) => {
  const L = follow ? ["-L"] : [];
  for (const { seed, dir } of trees)
    needsFind(`seed ${seed}: tree's footer and counts are find's -type d, f and l`, () => {
      const want = findCounts(dir, follow);
      const json = rglobJson<{ directories: number; files: number; symlinks: number }>(
        ["tree", ...L, "--json"],
        {
          cwd: dir,
        },
      ).json;
      expect({ d: json.directories, f: json.files, l: json.symlinks }).toEqual(want);
      const footer = rglob(["tree", ...L], { cwd: dir })
        .stdout.trimEnd()
        .split("\n")
        .at(-1);
      const links = want.l === 0 ? "" : `, ${want.l} symlink${want.l === 1 ? "" : "s"}`;
      expect(footer).toBe(
        `${want.d} director${want.d === 1 ? "y" : "ies"}, ${want.f} file${want.f === 1 ? "" : "s"}${links}`,
      );
    });
});

for (const { seed, dir } of trees)
  needsFind(
    `seed ${seed}: under -L total_files_searched is find -L's -type f, with and without walk workers`,
    () => {
      const want = findCounts(dir, true).f;
      for (const split of ["0", "3"]) {
        for (const args of [
          ["find", "-L", "--json"],
          ["grep", "-L", "-c", ".", "--json"],
        ]) {
          const r = rglobJson<{ total_files_searched: number }>(args, {
            cwd: dir,
            env: { RGLOB_WALK_SPLIT: split },
          });
          expect(`${args[0]} split ${split}: ${r.json.total_files_searched}`).toBe(
            `${args[0]} split ${split}: ${want}`,
          );
        }
      }
    },
  );
