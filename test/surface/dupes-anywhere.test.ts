// dupes --anywhere (#37): "our .scss/.js files (not ignored) that have an identical copy anywhere, ignored places and
// other names included" in one call. The query selects the files asked about; their copies are looked for under the
// whole base, ignored and hidden entries and every name included. Checked against md5sum over every file of random
// trees, on the CLI, the library and the MCP server.
import { afterAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findDuplicates } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson, skipWhen } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const hasMd5 = Bun.spawnSync(["md5sum", "--version"]).exitCode === 0;

/** A random tree with ignored and hidden places, copies under other names, and hard links. */
function tree(seed: number): string {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const base = mkdtempSync(join(tmpdir(), "rglob-dupes-anywhere-"));
  made.push(base);
  expect(Bun.spawnSync(["git", "init", "-q", base]).exitCode).toBe(0);
  writeFileSync(join(base, ".gitignore"), "vendor/\n*.log\n");
  const dirs = ["src", "src/styles", "vendor", "vendor/lib", ".cache", "other"];
  for (const d of dirs) mkdirSync(join(base, d), { recursive: true });
  const contents = Array.from({ length: 6 }, (_, i) => `body ${i}\n${"x".repeat(i % 3)}`);
  const names = ["a.scss", "b.js", "c.twig", "d.txt", "e.log", "f.css", "g.js"];
  const all: string[] = [];
  for (let i = 0; i < 24; i++) {
    const rel = `${pick(dirs)}/${i}-${pick(names)}`;
    writeFileSync(join(base, rel), pick(contents));
    all.push(rel);
  }
  for (let i = 0; i < 3; i++)
    linkSync(join(base, pick(all)), join(base, `${pick(dirs)}/h${i}-${pick(names)}`));
  return base;
}

/** md5sum of every file under base (but .git), as groups of relative paths with more than one distinct file. */
function md5Groups(base: string): Map<string, string[]> {
  const list = Bun.spawnSync(
    ["find", ".", "-path", "./.git", "-prune", "-o", "-type", "f", "-size", "+0", "-print"],
    {
      cwd: base,
    },
  )
    .stdout.toString()
    .split("\n")
    .filter(Boolean)
    .map((p) => p.slice(2));
  const out = Bun.spawnSync(["md5sum", ...list], { cwd: base }).stdout.toString();
  const by = new Map<string, string[]>();
  for (const line of out.split("\n").filter(Boolean)) {
    const [sum, rel] = [line.slice(0, 32), line.slice(34)];
    by.set(sum, [...(by.get(sum) ?? []), rel]);
  }
  const inodes = (rels: string[]) =>
    new Set(
      Bun.spawnSync(["stat", "-c", "%d:%i", ...rels], { cwd: base })
        .stdout.toString()
        .split("\n")
        .filter(Boolean),
    ).size;
  for (const [k, v] of by) if (inodes(v) < 2) by.delete(k);
  return by;
}

type Group = { relative_paths: string[]; selected?: string[] };

describe("dupes --anywhere", () => {
  for (const seed of [1, 2, 3]) {
    skipWhen(!hasMd5 && "md5sum missing")(
      `seed ${seed}: the groups holding a selected file, against md5sum`,
      () => {
        const base = tree(seed);
        const selected = rglob([
          "find",
          "-t",
          "f",
          "-e",
          "scss",
          "-e",
          "js",
          "-e",
          "twig",
          "--base",
          base,
          "--format",
          "{rel}",
        ])
          .stdout.split("\n")
          .filter(Boolean);
        const want = [...md5Groups(base).values()]
          .filter((g) => g.some((p) => selected.includes(p)))
          .map((g) => ({ paths: [...g].sort(), selected: g.filter((p) => selected.includes(p)).sort() }))
          .sort((a, b) => (a.paths[0] as string).localeCompare(b.paths[0] as string));
        const { json, run } = rglobJson<{ results: Group[]; groups: number }>([
          "dupes",
          "-e",
          "scss",
          "-e",
          "js",
          "-e",
          "twig",
          "--anywhere",
          "--base",
          base,
          "--json",
        ]);
        expect(run.code).toBe(want.length > 0 ? 0 : 1);
        const got = json.results
          .map((g) => ({ paths: [...g.relative_paths].sort(), selected: [...(g.selected ?? [])].sort() }))
          .sort((a, b) => (a.paths[0] as string).localeCompare(b.paths[0] as string));
        expect(got).toEqual(want);
        expect(json.groups).toBe(want.length);
        // Without --anywhere the ignored and other-named copies are not compared: fewer or smaller groups.
        const plain = rglobJson<{ results: Group[] }>([
          "dupes",
          "-e",
          "scss",
          "-e",
          "js",
          "-e",
          "twig",
          "--base",
          base,
          "--json",
        ]).json;
        expect(plain.results.every((g) => g.selected === undefined)).toBe(true);
        expect(plain.results.flatMap((g) => g.relative_paths).length).toBeLessThanOrEqual(
          got.flatMap((g) => g.paths).length,
        );
      },
    );
  }

  test("human output marks the copies the query did not select; library and MCP give the same groups", async () => {
    const base = mkdtempSync(join(tmpdir(), "rglob-dupes-anywhere-"));
    made.push(base);
    expect(Bun.spawnSync(["git", "init", "-q", base]).exitCode).toBe(0);
    writeFileSync(join(base, ".gitignore"), "vendor/\n");
    mkdirSync(join(base, "vendor"));
    mkdirSync(join(base, "src"));
    writeFileSync(join(base, "src/app.scss"), "body { color: red }\n");
    writeFileSync(join(base, "vendor/copy.scss"), "body { color: red }\n");
    writeFileSync(join(base, "notes.txt"), "body { color: red }\n");
    writeFileSync(join(base, "x.txt"), "same\n");
    writeFileSync(join(base, "y.txt"), "same\n");
    const human = rglob(["dupes", "-e", "scss", "--anywhere", "--base", base], { cwd: base });
    expect(human.stdout).toBe(
      "3 files, 20 bytes each, 40 bytes wasted, sha256:" +
        human.stdout.slice(48, 60) +
        "\nnotes.txt  (not selected)\nsrc/app.scss\nvendor/copy.scss  (not selected)\n\n1 group (3 files, 2 of them extra copies), 40 bytes wasted\n",
    );
    const lib = await findDuplicates({ base, extensions: ["scss"], anywhere: true });
    expect(lib.results.map((g) => [g.relative_paths, g.selected])).toEqual([
      [["notes.txt", "src/app.scss", "vendor/copy.scss"], ["src/app.scss"]],
    ]);
    const s = await startMcp(["--root", base]);
    try {
      const r = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "dupes", extensions: ["scss"], anywhere: true },
      })) as unknown as { structuredContent: { results: Group[] } };
      expect(r.structuredContent.results.map((g) => [g.relative_paths, g.selected])).toEqual([
        [["notes.txt", "src/app.scss", "vendor/copy.scss"], ["src/app.scss"]],
      ]);
    } finally {
      await s.close();
    }
  });
});
