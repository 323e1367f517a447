// tree's fold_depth (#37): each directory at that depth stands for what the query selects below it
// (entries_inside, and size: their bytes, as `tree -L N --du` sums them), walked and counted, not listed. Checked
// on random trees against find's records of the same query, paged with cursors, in the human tree, the library,
// and as the MCP tree's default (an overview two levels deep that says how to go deeper).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tree as treeAll } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A random tree: nested directories, files of random sizes, a symlink, an empty directory at the fold. */
function randomTree(seed: number): string {
  const rnd = prng(seed);
  const dir = mkdtempSync(join(tmpdir(), "rglob-fold-"));
  made.push(dir);
  const dirs = [""];
  for (let i = 0; i < 40; i++) {
    const parent = dirs[Math.floor(rnd() * dirs.length)] as string;
    const d = parent === "" ? `d${i}` : `${parent}/d${i}`;
    mkdirSync(join(dir, d));
    dirs.push(d);
  }
  for (let i = 0; i < 150; i++) {
    const d = dirs[Math.floor(rnd() * dirs.length)] as string;
    writeFileSync(join(dir, d, `f${i}.${rnd() < 0.5 ? "ts" : "md"}`), "x".repeat(Math.floor(rnd() * 3000)));
  }
  mkdirSync(join(dir, "zz-empty", "inner"), { recursive: true });
  symlinkSync("../d0", join(dir, dirs[1] as string, "up"));
  return dir;
}

type Entry = {
  relative_path: string;
  depth: number;
  size: number | null;
  entry_type: string;
  matched: boolean;
  entries_inside?: number;
};
type Found = { relative_path: string; size: number; entry_type: string };

/** What find selects below a directory: how many entries, and the bytes of those that are not directories. */
function below(found: readonly Found[], rel: string): [number, number] {
  const under = found.filter((f) => f.relative_path.startsWith(`${rel}/`));
  return [under.length, under.filter((f) => f.entry_type !== "dir").reduce((n, f) => n + f.size, 0)];
}

describe.each([
  [1, 1, []],
  [2, 2, []],
  [3, 3, ["*.ts"]],
  [4, 1, ["--type", "f", "--min-size", "1000"]],
] as const)("seed %i, fold_depth %i, %j", (seed, fold, query) => {
  const dir = randomTree(seed);
  const args = ["--base", dir, ...query];
  const found = rglobJson<{ results: Found[] }>(["find", ...args, "--json"]).json.results;
  const full = rglobJson<{ results: Entry[] }>(["tree", ...args, "--fold-depth", String(fold), "--json"]).json
    .results;

  test("each directory at the fold holds find's count and bytes below it; nothing deeper is listed", () => {
    expect(full.length).toBeGreaterThan(0);
    expect(Math.max(...full.map((e) => e.depth))).toBeLessThanOrEqual(fold);
    let folded = 0;
    for (const e of full) {
      if (e.entry_type === "dir" && e.depth === fold) {
        const [n, bytes] = below(found, e.relative_path);
        // A directory at the fold with nothing selected below it is listed as it is when it is selected itself.
        if (e.entries_inside === undefined) expect(n).toBe(0);
        else {
          folded++;
          expect([e.entries_inside, e.size]).toEqual([n, bytes]);
        }
      } else expect(e.entries_inside).toBeUndefined();
    }
    expect(folded).toBeGreaterThan(0);
    // Every entry find selects down to the fold is in the tree, and so is every one it selects below the fold,
    // counted in exactly one directory at the fold.
    const listed = new Set(full.filter((e) => e.matched).map((e) => e.relative_path));
    const shallow = found.filter((f) => f.relative_path.split("/").length <= fold);
    for (const f of shallow) expect(listed.has(f.relative_path)).toBe(true);
    const deep = found.filter((f) => f.relative_path.split("/").length > fold).length;
    expect(full.reduce((n, e) => n + (e.entries_inside ?? 0), 0)).toBe(deep);
  });

  test("pages joined by their cursors are the whole answer", () => {
    const pages: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: { results: Entry[]; next_cursor: string | null } = rglobJson<{
        results: Entry[];
        next_cursor: string | null;
      }>([
        "tree",
        ...args,
        "--fold-depth",
        String(fold),
        "--limit",
        "4",
        "--json",
        ...(cursor === null ? [] : ["--cursor", cursor]),
      ]).json;
      pages.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pages).toEqual(full);
  });

  test("the library gives the same records", async () => {
    const patterns = query[0]?.startsWith("*") ? [query[0]] : [];
    if (patterns.length === 0 && query.length > 0) return; // the predicates' spellings differ: the CLI covers them
    const lib = await treeAll({ base: dir, patterns, fold_depth: fold, strict_base: false });
    expect(lib.results).toEqual(full as unknown as typeof lib.results);
  });
});

test("the human tree shows what a folded directory holds, and the footer how to list it", () => {
  const dir = mkdtempSync(join(tmpdir(), "rglob-fold-human-"));
  made.push(dir);
  mkdirSync(join(dir, "src", "lib", "deep"), { recursive: true });
  writeFileSync(join(dir, "src", "lib", "a.ts"), "12345");
  writeFileSync(join(dir, "src", "lib", "deep", "b.ts"), "123");
  writeFileSync(join(dir, "src", "main.ts"), "1");
  writeFileSync(join(dir, "README.md"), "hello");
  const r = rglob(["tree", "--fold-depth", "2"], { cwd: dir });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(
    [
      ".",
      "├── README.md",
      "└── src",
      "    ├── lib [3 entries, 8 bytes below]",
      "    └── main.ts",
      "",
      "2 directories, 2 files; 1 folded (--fold-depth: counted, not listed; --fold-depth 0 lists them)",
      "",
    ].join("\n"),
  );
  // Without the flag the CLI lists everything, as tree(1).
  expect(rglob(["tree"], { cwd: dir }).stdout).toContain("b.ts");
});

test("MCP: the tree's default is the overview, and its text says how to go deeper", async () => {
  const dir = randomTree(9);
  const s = await startMcp(["--root", dir]);
  try {
    const res = (await s.client.callTool({ name: "rglob", arguments: { op: "tree" } })) as unknown as {
      content: Array<{ text: string }>;
      structuredContent: { results: Entry[] };
    };
    const cli = rglobJson<{ results: Entry[] }>(["tree", "--base", dir, "--fold-depth", "2", "--json"]).json
      .results;
    expect(res.structuredContent.results).toEqual(cli);
    const text = res.content[0]?.text ?? "";
    expect(text).toMatch(
      /\d+ directories folded at fold_depth: .*base=that directory, or a larger fold_depth \(0 folds nothing\)/,
    );
    const one = cli.find((e) => e.entries_inside !== undefined) as Entry;
    const name = one.relative_path.split("/").pop();
    expect(text).toContain(
      `  ${name}/  [${one.entries_inside} ${one.entries_inside === 1 ? "entry" : "entries"}, ${one.size} bytes below]`,
    );
    // fold_depth 0 folds nothing: the whole tree (within the limit).
    const all = (await s.client.callTool({
      name: "rglob",
      arguments: { op: "tree", fold_depth: 0, limit: 1000 },
    })) as unknown as { structuredContent: { results: Entry[] } };
    expect(all.structuredContent.results.some((e) => e.depth > 2)).toBe(true);
    expect(all.structuredContent.results.every((e) => e.entries_inside === undefined)).toBe(true);
  } finally {
    await s.close();
  }
});
