// stats: exact totals, extensions sorted (most files, then bytes, then name), newest/oldest/largest with
// controlled times, totals that stay exact when --limit cuts the listing, paging to the end equal to one
// unpaged run, human output, and bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { FIXTURE, jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

interface Ext {
  extension: string;
  files: number;
  size: number;
}
interface StatsResult {
  results: Ext[];
  truncated: boolean;
  next_cursor: string | null;
  files: number;
  directories: number;
  others: number;
  total_size: number;
  extensions: number;
  newest: { relative_path: string; mtime: string } | null;
  oldest: { relative_path: string; mtime: string } | null;
  largest: { relative_path: string; size: number } | null;
}

let tree: { dir: string; cleanup: () => void };
beforeAll(() => {
  tree = tempTree({
    "a.py": "12345",
    "b.py": "1",
    "c.md": "1234567890",
    "d.tar.gz": "12",
    Makefile: "all:",
    ".env": "X=1",
    "sub/e.txt": "1",
    "sub/f.txt": "22",
    "sub/g.TXT": "333",
    "sub/deeper/h.rs": "fn main(){}",
    "sub/deeper/i.rs": "",
    "sub/deeper/j.rs": "x",
    "k.": "dot",
  });
  const t = (iso: string) => new Date(iso);
  for (const [rel, when] of [
    ["a.py", "2020-01-01T00:00:00Z"],
    ["sub/deeper/h.rs", "2030-01-01T00:00:00Z"],
    ["b.py", "2019-06-01T00:00:00Z"],
  ] as const) {
    utimesSync(join(tree.dir, rel), t(when), t(when));
  }
});
afterAll(() => tree.cleanup());

describe("stats", () => {
  test("totals, extensions, newest, oldest and largest", () => {
    const { json, run } = rglobJson<StatsResult>(["stats", "--no-hidden", "--json"], { cwd: tree.dir });
    expect(run.code).toBe(0);
    expect(json.results).toEqual([
      { extension: ".rs", files: 3, size: 12 },
      { extension: ".py", files: 2, size: 6 },
      { extension: ".txt", files: 2, size: 3 },
      { extension: ".md", files: 1, size: 10 },
      { extension: "", files: 1, size: 4 },
      { extension: ".", files: 1, size: 3 },
      { extension: ".TXT", files: 1, size: 3 },
      { extension: ".gz", files: 1, size: 2 },
    ]);
    expect([json.files, json.directories, json.others, json.total_size, json.extensions]).toEqual([
      12, 2, 0, 43, 8,
    ]);
    expect(json.newest).toMatchObject({
      relative_path: "sub/deeper/h.rs",
      mtime: "2030-01-01T00:00:00.000Z",
    });
    expect(json.oldest).toMatchObject({ relative_path: "b.py", mtime: "2019-06-01T00:00:00.000Z" });
    expect(json.largest).toMatchObject({ relative_path: "sub/deeper/h.rs", size: 11 });
  });

  test("by default (and with --hidden) the dotfile counts, with no extension", () => {
    const { json } = rglobJson<StatsResult>(["stats", "--json"], { cwd: tree.dir });
    expect(rglobJson<StatsResult>(["stats", "--hidden", "--json"], { cwd: tree.dir }).json).toEqual(json);
    expect(json.files).toBe(13);
    expect(json.results.find((r) => r.extension === "")).toEqual({ extension: "", files: 2, size: 7 });
  });

  test("--limit cuts the listing, never the totals", () => {
    const { json } = rglobJson<StatsResult>(["stats", "--no-hidden", "--limit", "2", "--json"], {
      cwd: tree.dir,
    });
    expect(json.results.map((r) => r.extension)).toEqual([".rs", ".py"]);
    expect(json.truncated).toBe(true);
    expect([json.files, json.total_size, json.extensions]).toEqual([12, 43, 8]);
  });

  test.each([1, 2, 3, 5])("paging with --limit %d ends and equals the unpaged listing", (limit) => {
    const all = rglobJson<StatsResult>(["stats", "--json"], { cwd: tree.dir }).json;
    const got: Ext[] = [];
    let cursor: string | null = null;
    let n = 0;
    do {
      const { json }: { json: StatsResult } = rglobJson<StatsResult>(
        ["stats", "--json", "--limit", String(limit), ...(cursor ? ["--cursor", cursor] : [])],
        { cwd: tree.dir },
      );
      got.push(...json.results);
      expect(json.files).toBe(all.files);
      cursor = json.next_cursor;
      if (++n > 50) throw new Error("paging does not end");
    } while (cursor !== null);
    expect(got).toEqual(all.results);
  });

  test("JSONL: one extension record per line, then the summary with the totals", () => {
    const lines = jsonl(rglob(["stats", "--jsonl", "*.py"], { cwd: tree.dir }).stdout);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({ kind: "extension", extension: ".py", files: 2, size: 6 });
    expect(lines[1]).toMatchObject({ kind: "summary", files: 2, directories: 0, total_size: 6 });
  });

  test("human output: totals first, then the extension table", () => {
    const r = rglob(["stats"], { cwd: FIXTURE });
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "files        9",
      "directories  6 (the base not counted)",
      "total size   516 B (516 bytes)",
    ]);
    expect(r.stdout).toContain("largest      182 B  src/utils/helper.py\n");
    expect(r.stdout).toContain(
      [
        "extension    files        size",
        ".py              3       368 B",
        ".txt             3        95 B",
        "(none)           2        21 B",
      ].join("\n"),
    );
  });

  test("nothing selected: zero totals, null picks, exit 1", () => {
    const { json, run } = rglobJson<StatsResult>(["stats", "*.nothing", "--json"], { cwd: FIXTURE });
    expect(run.code).toBe(1);
    expect([json.files, json.total_size, json.newest, json.oldest, json.largest]).toEqual([
      0,
      0,
      null,
      null,
      null,
    ]);
  });

  test.each([
    [["stats", "--min-size", "lots"], "is not a size"],
    [["stats", "--newer-than", "soon"], "neither a duration"],
    [["stats", "--limit", "-3"], "limit"],
    [["stats", "--cursor", "x"], "cursor"],
  ])("%p exits 2", (args, text) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(text);
    expect(r.stderr).not.toContain("    at ");
  });
});
