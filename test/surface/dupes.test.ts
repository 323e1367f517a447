// dupes through the compiled binary: groups with digests, order by wasted bytes, hard links, empty files,
// symlinks (--follow), --min-size, paging, and the human output.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { linkSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIXTURE, jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

interface Dup {
  size: number;
  digest: string;
  relative_paths: string[];
  paths: string[];
  count: number;
  wasted_bytes: number;
}
interface DupResult {
  results: Dup[];
  groups: number;
  duplicate_files: number;
  wasted_bytes: number;
  truncated: boolean;
  next_cursor: string | null;
}

const big = "B".repeat(10_000);
const t = tempTree({
  "small/one.txt": "tiny\n",
  "small/two.txt": "tiny\n",
  "small/three.txt": "tiny\n",
  "big/x.dat": big,
  "big/y.dat": big,
  "near/z.dat": `${"B".repeat(9_999)}C`,
  "empty/a": "",
  "empty/b": "",
  "link/to-x.dat": { symlink: "../big/x.dat" },
  "hard/orig.txt": "hard linked\n",
});
linkSync(join(t.dir, "hard/orig.txt"), join(t.dir, "hard/link.txt"));
afterAll(() => t.cleanup());
const cwd = t.dir;
const sha = (s: string) => `sha256:${createHash("sha256").update(s).digest("hex")}`;

describe("dupes", () => {
  test("groups come most wasted bytes first, with digest, paths and totals", () => {
    const { json, run } = rglobJson<DupResult>(["dupes", "--json"], { cwd });
    expect(run.code).toBe(0);
    expect(json.results.map((r) => r.relative_paths)).toEqual([
      ["big/x.dat", "big/y.dat"],
      ["small/one.txt", "small/three.txt", "small/two.txt"],
    ]);
    expect(json.results[0]).toMatchObject({ size: 10_000, count: 2, wasted_bytes: 10_000, digest: sha(big) });
    expect(json.results[1]).toMatchObject({ size: 5, count: 3, wasted_bytes: 10, digest: sha("tiny\n") });
    expect(json.results[0]?.paths[0]).toBe(join(cwd, "big/x.dat"));
    expect(json).toMatchObject({ groups: 2, duplicate_files: 3, wasted_bytes: 10_010 });
  });

  test("--include-empty groups empty files; an explicit --min-size wins", () => {
    const withEmpty = rglobJson<DupResult>(["dupes", "--include-empty", "--json"], { cwd }).json;
    expect(withEmpty.results.map((r) => r.relative_paths)).toContainEqual(["empty/a", "empty/b"]);
    const min = rglobJson<DupResult>(["dupes", "--min-size", "1k", "--json"], { cwd }).json;
    expect(min.results.map((r) => r.relative_paths)).toEqual([["big/x.dat", "big/y.dat"]]);
  });

  test("symlinks are not followed unless --follow; a followed link to a copy joins its group", () => {
    const followed = rglobJson<DupResult>(["dupes", "--follow", "--json"], { cwd }).json;
    // The link resolves to the inode of big/x.dat: one file, listed with its paths, wasting nothing more.
    expect(followed.results[0]).toMatchObject({
      relative_paths: ["big/x.dat", "big/y.dat", "link/to-x.dat"],
      count: 3,
      files: 2,
      hard_links: [["big/x.dat", "link/to-x.dat"]],
      wasted_bytes: 10_000,
    });
  });

  test("--limit pages groups; the summary covers the whole query", () => {
    const first = rglobJson<DupResult>(["dupes", "--limit", "1", "--json"], { cwd }).json;
    expect(first.results).toHaveLength(1);
    expect(first).toMatchObject({ truncated: true, groups: 2 });
    const next = rglobJson<DupResult>(["dupes", "--json", "--cursor", first.next_cursor as string], {
      cwd,
    }).json;
    expect(next.results.map((r) => r.relative_paths[0])).toEqual(["small/one.txt"]);
  });

  test("JSONL: duplicate records then one summary", () => {
    const lines = jsonl(rglob(["dupes", "--jsonl"], { cwd }).stdout);
    expect(lines.map((l) => l.kind)).toEqual(["duplicate", "duplicate", "summary"]);
  });

  test("human output: one block per group, a blank line between groups", () => {
    const r = rglob(["dupes"], { cwd });
    expect(r.stdout).toBe(
      [
        `2 files, 10000 bytes each, 10000 bytes wasted, ${sha(big).slice(0, 19)}`,
        "big/x.dat",
        "big/y.dat",
        "",
        `3 files, 5 bytes each, 10 bytes wasted, ${sha("tiny\n").slice(0, 19)}`,
        "small/one.txt",
        "small/three.txt",
        "small/two.txt",
        "",
        // hard/orig.txt and hard/link.txt are one file: no copy, but named.
        "2 groups (5 files, 3 of them extra copies), 10010 bytes wasted; 1 more file has only hard links of itself: hard/link.txt = hard/orig.txt (--include-hard-links lists it as a group)",
        "",
      ].join("\n"),
    );
  });

  // 20 kB: the first member of a class is read once and kept; 600 kB: both files are read side by side.
  test.each([9_000, 299_000])(
    "same size, head and tail: six different middles, each twice, are six groups with their own digests (%p bytes each end)",
    (end) => {
      const spec: Record<string, string> = {};
      const contents: string[] = [];
      for (let k = 0; k < 6; k++) {
        const body = `${"h".repeat(end)}${String(k).repeat(2_000)}${"t".repeat(end)}`;
        contents.push(body);
        spec[`a/${k}.dat`] = body;
        spec[`b/${k}.dat`] = body;
      }
      const m = tempTree(spec);
      try {
        const { json } = rglobJson<DupResult>(["dupes", "--json"], { cwd: m.dir });
        const byPath = json.results.map((r) => [r.relative_paths.join(" "), r.digest]).sort();
        expect(byPath).toEqual(contents.map((c, k) => [`a/${k}.dat b/${k}.dat`, sha(c)]).sort());
      } finally {
        m.cleanup();
      }
    },
  );

  test("no duplicates exits 1", () => {
    expect(rglob(["dupes", "--base", "near"], { cwd }).code).toBe(1);
    expect(rglob(["dupes", "hard/*"], { cwd }).code).toBe(1);
  });

  test("one size with more files than the engine keeps open: three classes and the near copies, each file read", () => {
    // 330 files of 9,000 bytes (beyond the two edge blocks, so each is compared, not only hashed): the second
    // round keeps the first 256 descriptors open for the third and opens the rest again.
    const dir = mkdtempSync(join(tmpdir(), "rglob-dupes-many-"));
    try {
      const cls = [0, 1, 2].map((k) => Buffer.alloc(9_000, 65 + k));
      for (let i = 0; i < 300; i++)
        writeFileSync(join(dir, `f${String(i).padStart(3, "0")}.dat`), cls[i % 3] as Buffer);
      // Same edges as class 0, another middle: a member of no group.
      for (let i = 0; i < 30; i++) {
        const near = Buffer.from(cls[0] as Buffer);
        near[4_500 + i] = 90;
        writeFileSync(join(dir, `near${i}.dat`), near);
      }
      const { json, run } = rglobJson<DupResult & { errors: unknown[] }>(["dupes", "--json", "--base", dir]);
      expect(run.code).toBe(0);
      expect(json.errors).toEqual([]);
      expect(json.results.map((r) => [r.count, r.digest])).toEqual(
        [0, 1, 2].map((k) => [
          100,
          `sha256:${createHash("sha256")
            .update(cls[k] as Buffer)
            .digest("hex")}`,
        ]),
      );
      expect(json.results.flatMap((r) => r.relative_paths).some((p) => p.startsWith("near"))).toBe(false);
      expect(json).toMatchObject({ groups: 3, duplicate_files: 297, bytes_read: expect.any(Number) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("files modified too shortly before they were read are read again once that has passed, and stay", () => {
    // An mtime just ahead of the clock: the run cannot tell a later write from this one until it has passed,
    // so it waits, reads each file again (a large one through the descriptor it kept) and keeps it unchanged.
    const dir = mkdtempSync(join(tmpdir(), "rglob-dupes-racy-"));
    try {
      const ahead = new Date(Date.now() + 400);
      const large = "L".repeat(300_000); // beyond what is kept whole: digested from its descriptor, twice
      for (const [name, data] of [
        ["large-a.dat", large],
        ["large-b.dat", large],
        ["small-a.txt", "tiny\n"],
        ["small-b.txt", "tiny\n"],
      ] as const) {
        writeFileSync(join(dir, name), data);
        utimesSync(join(dir, name), ahead, ahead);
      }
      const { json, run } = rglobJson<DupResult & { errors: unknown[] }>(["dupes", "--json", "--base", dir]);
      expect(run.code).toBe(0);
      expect(json.errors).toEqual([]);
      expect(json.results.map((r) => r.relative_paths)).toEqual([
        ["large-a.dat", "large-b.dat"],
        ["small-a.txt", "small-b.txt"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the fixture's duplicates/a.txt and b.txt are one group", () => {
    const { json } = rglobJson<DupResult>(["dupes", "--json"], { cwd: FIXTURE });
    expect(json.results.map((r) => r.relative_paths)).toEqual([["duplicates/a.txt", "duplicates/b.txt"]]);
    expect(json.results[0]?.digest).toBe(sha("duplicate payload\n"));
  });
});
