// tree: the drawing (├── └── │), depth limits, ancestors of filtered matches, records with full relative
// paths, paging to the end equal to one unpaged run, and bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, FIXTURE, jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

interface TreeEntry {
  path: string;
  relative_path: string;
  depth: number;
  kinds: string[];
  size: number | null;
  matched: boolean;
}

function pages(args: string[], cwd: string, limit: number): { recs: TreeEntry[]; count: number } {
  const recs: TreeEntry[] = [];
  let cursor: string | null = null;
  let count = 0;
  do {
    const lines = jsonl(
      rglob(["tree", ...args, "--jsonl", "--limit", String(limit), ...(cursor ? ["--cursor", cursor] : [])], {
        cwd,
      }).stdout,
    );
    const summary = lines.at(-1) as { next_cursor: string | null; kind: string };
    expect(summary.kind).toBe("summary");
    for (const l of lines.slice(0, -1)) {
      const { kind, ...rest } = l;
      expect(kind).toBe("entry");
      recs.push(rest as unknown as TreeEntry);
    }
    cursor = summary.next_cursor;
    if (++count > 100) throw new Error("paging does not end");
  } while (cursor !== null);
  return { recs, count };
}

describe("tree: human output", () => {
  test("draws the fixture tree like tree(1), with counts", () => {
    const r = rglob(["tree"], { cwd: FIXTURE });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        ".",
        "├── .gitignore",
        "├── binary.bin",
        "├── docs",
        "│   └── notes.txt",
        "├── duplicates",
        "│   ├── a.txt",
        "│   └── b.txt",
        "├── hidden",
        "│   └── .secret.py",
        "├── src",
        "│   ├── main.py",
        "│   └── utils",
        "│       └── helper.py",
        "└── unreadable",
        "    └── .keep",
        "",
        "6 directories, 9 files",
        "",
      ].join("\n"),
    );
  });

  test("--max-depth 1 keeps the first level", () => {
    const r = rglob(["tree", "--max-depth", "1"], { cwd: FIXTURE });
    expect(r.stdout.split("\n").slice(1, 8)).toEqual([
      "├── .gitignore",
      "├── binary.bin",
      "├── docs",
      "├── duplicates",
      "├── hidden",
      "├── src",
      "└── unreadable",
    ]);
    expect(r.stdout).toContain("5 directories, 2 files");
  });

  test("a glob shows only the matches and the directories above them", () => {
    const r = rglob(["tree", "*.py", "--base", "fixtures/tree"]);
    expect(r.stdout).toBe(
      [
        "fixtures/tree",
        "├── hidden",
        "│   └── .secret.py",
        "└── src",
        "    ├── main.py",
        "    └── utils",
        "        └── helper.py",
        "",
        "3 directories, 3 files",
        "",
      ].join("\n"),
    );
  });

  test("nothing selected exits 1", () => {
    expect(rglob(["tree", "*.nothing"], { cwd: FIXTURE }).code).toBe(1);
  });
});

describe("tree: records", () => {
  test("ancestor directories have matched=false; files carry size, directories null", () => {
    const { json } = rglobJson<{ results: TreeEntry[]; directories: number; files: number }>(
      ["tree", "*.py", "--json"],
      { cwd: FIXTURE },
    );
    expect(json.results.map((r) => [r.relative_path, r.depth, r.matched, r.size])).toEqual([
      ["hidden", 1, false, null],
      ["hidden/.secret.py", 2, true, 26],
      ["src", 1, false, null],
      ["src/main.py", 2, true, 160],
      ["src/utils", 2, false, null],
      ["src/utils/helper.py", 3, true, 182],
    ]);
    expect([json.directories, json.files]).toEqual([3, 3]);
  });

  test("roots given with --path keep paths relative to the base", () => {
    const { json } = rglobJson<{ results: TreeEntry[] }>(["tree", "--path", "src", "--json"], {
      cwd: FIXTURE,
    });
    expect(json.results.map((r) => r.relative_path)).toEqual([
      "src/main.py",
      "src/utils",
      "src/utils/helper.py",
    ]);
  });

  test.each([1, 2, 3, 5])("paging with --limit %d ends and equals the unpaged tree", (limit) => {
    const all = rglobJson<{ results: TreeEntry[] }>(["tree", "--json"], { cwd: FIXTURE }).json.results;
    expect(pages([], FIXTURE, limit).recs).toEqual(all);
    const filtered = rglobJson<{ results: TreeEntry[] }>(["tree", "*.py", "--json"], { cwd: FIXTURE }).json
      .results;
    expect(pages(["*.py"], FIXTURE, limit).recs).toEqual(filtered);
  });

  let deep: { dir: string; cleanup: () => void };
  beforeAll(() => {
    deep = tempTree({
      "a/b/c/d.txt": "1",
      "a/b/e.md": "2",
      "a/f/g.txt": "3",
      "h.txt": "4",
      "z/y/x.txt": "5",
    });
  });
  afterAll(() => deep.cleanup());

  test("paging a filtered deep tree re-emits no ancestor and loses none", () => {
    const all = rglobJson<{ results: TreeEntry[] }>(["tree", "*.txt", "--json"], { cwd: deep.dir }).json
      .results;
    expect(all.map((r) => r.relative_path)).toEqual([
      "a",
      "a/b",
      "a/b/c",
      "a/b/c/d.txt",
      "a/f",
      "a/f/g.txt",
      "h.txt",
      "z",
      "z/y",
      "z/y/x.txt",
    ]);
    for (const limit of [1, 2, 4]) expect(pages(["*.txt"], deep.dir, limit).recs).toEqual(all);
  });
});

describe("tree: bad input", () => {
  test.each([
    [["tree", "--max-depth", "-1"], "max_depth"],
    [["tree", "--type", "q"], "not one of"],
    [["tree", "[oops"], "bad glob"],
    [["tree", "--base", "no/such/dir"], "NOT_FOUND"],
  ])("%p exits 2", (args, text) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(text);
    expect(r.stderr).not.toContain("    at ");
  });
});

// #21 item 6: each entry rebuilt the path of every shown ancestor, so a chain of directories took time cubic in
// its depth (500/1000/2000 levels: 0.3/2.3/16.5 s). A 2000-deep chain now takes a fraction of that CPU time. The
// guard is the child's CPU time (user + system), which a busy machine does not stretch as it stretches the wall
// clock: at load 23 on two cores the walk took 14 s of wall clock and 3.6 s of CPU.
describe("tree: a deep chain", () => {
  const deep = tempTree({});
  // rm -rf removes a deep chain relative to each directory; a path-based removal is quadratic in it.
  afterAll(() => {
    Bun.spawnSync(["rm", "-rf", deep.dir]);
    deep.cleanup();
  }, 60_000);
  test("2000 nested directories: every level once, in order, and the leaf, within a generous CPU budget", () => {
    // Built one level at a time from inside the previous one (the whole path nears PATH_MAX).
    let dir = deep.dir;
    for (let i = 0; i < 2000; i++) {
      dir = join(dir, "d");
      mkdirSync(dir);
    }
    writeFileSync(join(dir, "leaf.txt"), "x");
    const res = Bun.spawnSync([BIN, "tree", "--jsonl", "--base", deep.dir], {
      stdout: "pipe",
      stderr: "pipe",
      timeout: 150_000, // only against a hang: the budget below is what is checked
    });
    expect(res.signalCode ?? null).toBeNull();
    // The budget: the cubic walk of the ancestors took 16.5 s of CPU here; the walk takes well under 10 s.
    const cpu = res.resourceUsage.cpuTime;
    expect(Number(cpu.user + cpu.system) / 1e6).toBeLessThan(10);
    const recs = jsonl(res.stdout.toString()).filter((r) => r.kind === "entry");
    expect(recs.length).toBe(2001);
    expect(recs.map((r) => r.depth)).toEqual(Array.from({ length: 2001 }, (_, i) => i + 1));
    expect(String(recs[2000]?.relative_path)).toBe(`${"d/".repeat(2000)}leaf.txt`);
  }, 180_000);
});
