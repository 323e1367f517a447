// top: largest files first with ties by path, ranks, the default of 10, --dirs with cumulative sizes, exact
// totals, paging to the end equal to one unpaged run, human output with full paths, and bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FIXTURE, jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

interface Ranked {
  relative_path: string;
  size: number;
  rank: number;
  files?: number;
}
interface TopResult {
  results: Ranked[];
  truncated: boolean;
  truncated_reason: string | null;
  next_cursor: string | null;
  total_files: number;
  total_size: number;
  total_ranked: number;
}

function pages(args: string[], cwd: string, limit: number): Ranked[] {
  const out: Ranked[] = [];
  let cursor: string | null = null;
  let n = 0;
  do {
    const { json }: { json: TopResult } = rglobJson<TopResult>(
      ["top", ...args, "--json", "--limit", String(limit), ...(cursor ? ["--cursor", cursor] : [])],
      { cwd },
    );
    out.push(...json.results);
    cursor = json.next_cursor;
    if (++n > 200) throw new Error("paging does not end");
  } while (cursor !== null);
  return out;
}

let tree: { dir: string; cleanup: () => void };
beforeAll(() => {
  // 14 files: sizes with ties, spread over nested directories.
  const spec: Record<string, string> = {};
  const sizes = [5, 300, 40, 40, 40, 1000, 7, 300, 12, 0, 64, 64, 2, 999];
  const dirs = ["", "a/", "a/b/", "c/", "c/d/e/"];
  sizes.forEach((s, i) => {
    spec[`${dirs[i % dirs.length]}f${String(i).padStart(2, "0")}.dat`] = "x".repeat(s);
  });
  tree = tempTree(spec);
});
afterAll(() => tree.cleanup());

describe("top: files", () => {
  test("largest first, ties by path, ranks from 1", () => {
    const { json } = rglobJson<TopResult>(["top", "--json"], { cwd: FIXTURE });
    expect(json.results.map((r) => [r.rank, r.relative_path, r.size])).toEqual([
      [1, "src/utils/helper.py", 182],
      [2, "src/main.py", 160],
      [3, "docs/notes.txt", 59],
      [4, "binary.bin", 32],
      [5, "hidden/.secret.py", 26],
      [6, ".gitignore", 21],
      [7, "duplicates/a.txt", 18],
      [8, "duplicates/b.txt", 18],
      [9, "unreadable/.keep", 0],
    ]);
    expect(json.truncated).toBe(false);
    expect([json.total_files, json.total_size, json.total_ranked]).toEqual([9, 516, 9]);
  });

  test("returns 10 by default, with a cursor to the next ranks and exact totals", () => {
    const { json } = rglobJson<TopResult>(["top", "--json"], { cwd: tree.dir });
    expect(json.results).toHaveLength(10);
    expect(json.truncated).toBe(true);
    expect(json.truncated_reason).toBe("limit");
    expect(typeof json.next_cursor).toBe("string");
    expect(json.total_files).toBe(14);
    expect(json.total_ranked).toBe(14);
    const sizes = json.results.map((r) => r.size);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
  });

  test.each([1, 2, 3, 7])("paging with --limit %d ends and equals the unpaged ranking", (limit) => {
    const all = rglobJson<TopResult>(["top", "--json", "--limit", "1000"], { cwd: tree.dir }).json.results;
    expect(all).toHaveLength(14);
    expect(all.map((r) => r.rank)).toEqual(all.map((_, i) => i + 1));
    expect(pages([], tree.dir, limit)).toEqual(all);
  });

  test("-n is the limit; globs and predicates select as in find", () => {
    const { json } = rglobJson<TopResult>(["top", "-n", "1", "*.txt", "--json"], { cwd: FIXTURE });
    expect(json.results.map((r) => r.relative_path)).toEqual(["docs/notes.txt"]);
    expect(json.total_files).toBe(3);
  });

  test("human output: rank, size and full paths", () => {
    const r = rglob(["top", "-n", "3"], { cwd: FIXTURE });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "   1       182 B  src/utils/helper.py",
        "   2       160 B  src/main.py",
        "   3        59 B  docs/notes.txt",
        "",
      ].join("\n"),
    );
  });
});

describe("top --dirs", () => {
  test("directories by the cumulative size of the files below them", () => {
    const { json } = rglobJson<TopResult>(["top", "--dirs", "--json", "--hidden", "--no-ignore"], {
      cwd: FIXTURE,
    });
    expect(json.results.map((r) => [r.relative_path, r.size, r.files])).toEqual([
      ["src", 342, 2],
      ["src/utils", 182, 1],
      ["docs", 59, 1],
      ["duplicates", 36, 2],
      ["hidden", 26, 1],
      ["ignored", 13, 1],
      ["unreadable", 0, 1],
    ]);
  });

  test("--max-depth bounds the listed directories, not the files counted", () => {
    const { json } = rglobJson<TopResult>(["top", "--dirs", "--max-depth", "1", "--json"], { cwd: FIXTURE });
    expect(json.results.map((r) => [r.relative_path, r.size])).toEqual([
      ["src", 342],
      ["docs", 59],
      ["duplicates", 36],
      ["hidden", 26],
      ["unreadable", 0],
    ]);
  });

  test.each([1, 2, 4])("paging with --limit %d equals the unpaged ranking", (limit) => {
    const all = rglobJson<TopResult>(["top", "--dirs", "--json", "--limit", "1000"], { cwd: tree.dir }).json
      .results;
    expect(all.map((r) => r.relative_path).sort()).toEqual(["a", "a/b", "c", "c/d", "c/d/e"]);
    expect(pages(["--dirs"], tree.dir, limit)).toEqual(all);
  });

  test("JSONL kind is directory; human output ends directories with '/'", () => {
    const lines = jsonl(rglob(["top", "--dirs", "--jsonl"], { cwd: FIXTURE }).stdout);
    expect(lines[0]?.kind).toBe("directory");
    expect(rglob(["top", "--dirs", "-n", "1"], { cwd: FIXTURE }).stdout).toBe(
      "   1       342 B  src/  (2 files)\n",
    );
  });
});

describe("top: bad input", () => {
  test.each([
    [["top", "--limit", "0"], "limit"],
    [["top", "-n", "x"], "not a number"],
    [["top", "--type", "d"], "only f, x and e"],
    [["top", "--cursor", "garbage"], "cursor"],
  ])("%p exits 2", (args, text) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(text);
    expect(r.stderr).not.toContain("    at ");
  });

  test("a cursor of another query is rejected", () => {
    const { json } = rglobJson<TopResult>(["top", "-n", "1", "--json"], { cwd: FIXTURE });
    const r = rglob(["top", "--dirs", "--cursor", json.next_cursor as string], { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("different query");
  });
});
