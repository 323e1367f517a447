// dupes and hard links (#37): every path of a group is listed, the paths that are one file (same device and
// inode, as stat(2) says) are marked in `hard_links`, wasted bytes count distinct files, and a file whose only
// identical paths are its own hard links is counted (hard_link_only_files) or listed (--include-hard-links).
// The same answer on every surface: human, --json, --jsonl, the library and MCP find_duplicates. Real trees
// with real hard links (link(2)), random ones checked against stat.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findDuplicates } from "../../src/agent/index.ts";
import { BIN, jsonl, prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

interface Dup {
  size: number;
  digest: string;
  paths: string[];
  relative_paths: string[];
  count: number;
  files: number;
  hard_links: string[][];
  wasted_bytes: number;
}
interface DupResult {
  results: Dup[];
  groups: number;
  duplicate_files: number;
  wasted_bytes: number;
  hard_link_only_files: number;
  errors: unknown[];
}

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>, links: Array<[string, string]>): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-dupes-links-"));
  made.push(dir);
  for (const [rel, data] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), data);
  }
  for (const [from, to] of links) {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    linkSync(join(dir, from), join(dir, to));
  }
  return dir;
}

// The trial's shape: LICENSE and crates/ledger/LICENSE one file, services/api/LICENSE a copy; a file with
// hard links only (notes/a, notes/b); two files each with two paths, all four identical (a group of 4 paths).
const license = "MIT License\n".repeat(50);
const base = tree(
  {
    LICENSE: license,
    "services/api/LICENSE": license,
    "notes/a": "only linked\n",
    "x/one": "pair of pairs\n",
    "y/two": "pair of pairs\n",
    "unique.txt": "alone\n",
  },
  [
    ["LICENSE", "crates/ledger/LICENSE"],
    ["notes/a", "notes/b"],
    ["x/one", "x/one-again"],
    ["y/two", "z/two-again"],
  ],
);

describe("dupes with hard links", () => {
  test("--json: every path, hard links marked, wasted bytes per distinct file, hard-link-only files counted", () => {
    const { json, run } = rglobJson<DupResult>(["dupes", "--json", "--base", base]);
    expect(run.code).toBe(0);
    expect(
      json.results.map((r) => [r.relative_paths, r.count, r.files, r.hard_links, r.wasted_bytes]),
    ).toEqual([
      [
        ["LICENSE", "crates/ledger/LICENSE", "services/api/LICENSE"],
        3,
        2,
        [["LICENSE", "crates/ledger/LICENSE"]],
        license.length,
      ],
      [
        ["x/one", "x/one-again", "y/two", "z/two-again"],
        4,
        2,
        [
          ["x/one", "x/one-again"],
          ["y/two", "z/two-again"],
        ],
        14,
      ],
    ]);
    expect(json.results[0]?.paths).toEqual(json.results[0]?.relative_paths.map((p) => join(base, p)));
    expect(json).toMatchObject({
      groups: 2,
      duplicate_files: 2,
      wasted_bytes: license.length + 14,
      hard_link_only_files: 1,
    });
  });

  test("human output: a `hard links: a = b` line per file of several paths, and the hard-link-only file named", () => {
    const r = rglob(["dupes"], { cwd: base });
    const digest = (i: number) =>
      (rglobJson<DupResult>(["dupes", "--json", "--base", base]).json.results[i]?.digest ?? "").slice(0, 19);
    expect(r.stdout).toBe(
      [
        `3 paths, 2 files, ${license.length} bytes each, ${license.length} bytes wasted, ${digest(0)}`,
        "LICENSE",
        "crates/ledger/LICENSE",
        "services/api/LICENSE",
        "hard links: LICENSE = crates/ledger/LICENSE",
        "",
        `4 paths, 2 files, 14 bytes each, 14 bytes wasted, ${digest(1)}`,
        "x/one",
        "x/one-again",
        "y/two",
        "z/two-again",
        "hard links: x/one = x/one-again",
        "hard links: y/two = z/two-again",
        "",
        `2 groups (4 files, 2 of them extra copies), ${license.length + 14} bytes wasted; 1 more file has only hard links of itself: notes/a = notes/b (--include-hard-links lists it as a group)`,
        "",
      ].join("\n"),
    );
    expect(r.code).toBe(0);
  });

  test("--include-hard-links lists a file with hard links only as a group of one file, after the others", () => {
    const { json } = rglobJson<DupResult>(["dupes", "--include-hard-links", "--json", "--base", base]);
    expect(json.results).toHaveLength(3);
    expect(json.results[2]).toMatchObject({
      relative_paths: ["notes/a", "notes/b"],
      count: 2,
      files: 1,
      hard_links: [["notes/a", "notes/b"]],
      wasted_bytes: 0,
    });
    expect(json).toMatchObject({ groups: 3, duplicate_files: 2, hard_link_only_files: 1 });
    // Alone, such a file is no duplicate (exit 1) unless listed (exit 0).
    expect(rglob(["dupes", "--base", join(base, "notes")]).code).toBe(1);
    const listed = rglob(["dupes", "--include-hard-links", "--base", join(base, "notes")], { cwd: base });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("notes/a\nnotes/b\nhard links: notes/a = notes/b\n");
    expect(listed.stdout).toEndWith("1 group (1 file, 0 of them extra copies), 0 bytes wasted\n");
  });

  test("--jsonl, the library and MCP find_duplicates give the same records; the MCP text marks hard links", async () => {
    const cli = rglobJson<DupResult>(["dupes", "--include-hard-links", "--json", "--base", base]).json;
    const lines = jsonl(rglob(["dupes", "--include-hard-links", "--jsonl", "--base", base]).stdout);
    expect(lines.filter((l) => l.kind === "duplicate").map(({ kind: _k, ...r }) => r)).toEqual(
      cli.results as unknown as Record<string, unknown>[],
    );
    expect(lines.at(-1)).toMatchObject({ kind: "summary", hard_link_only_files: 1, groups: 3 });
    const lib = (await findDuplicates({ base, include_hard_links: true })) as unknown as DupResult;
    expect(lib.results).toEqual(cli.results);
    expect(lib.hard_link_only_files).toBe(1);
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "find_duplicates",
        arguments: { include_hard_links: true },
      })) as unknown as { content: Array<{ text: string }>; structuredContent: DupResult };
      expect(res.structuredContent.results).toEqual(cli.results);
      expect(res.structuredContent.hard_link_only_files).toBe(1);
      const text = res.content[0]?.text ?? "";
      expect(text).toContain(
        "3 paths, 2 files of 600 bytes (600 bytes wasted, sha256:" + cli.results[0]?.digest.slice(7),
      );
      expect(text).toContain("  hard links: LICENSE = crates/ledger/LICENSE\n");
      expect(text).toContain("  hard links: notes/a = notes/b");
    } finally {
      await s.close();
    }
  });
});

/** A random tree of files with a few contents, copies and hard links; returns its directory. */
function randomTree(seed: number): string {
  const rnd = prng(seed);
  const dir = mkdtempSync(join(tmpdir(), "rglob-dupes-random-"));
  made.push(dir);
  const paths: string[] = [];
  for (let i = 0; i < 40; i++) {
    const rel = `d${Math.floor(rnd() * 4)}/f${i}`;
    mkdirSync(join(dir, dirname(rel)), { recursive: true });
    // Few contents (so copies are common), of sizes on both sides of the 4 KiB edge blocks.
    const k = Math.floor(rnd() * 12);
    writeFileSync(join(dir, rel), String(k).repeat(k % 3 === 0 ? 9_000 + k : 10 + k));
    paths.push(rel);
  }
  for (let i = 0; i < 25; i++) {
    const from = paths[Math.floor(rnd() * paths.length)] as string;
    const to = `h${Math.floor(rnd() * 3)}/l${i}`;
    mkdirSync(join(dir, dirname(to)), { recursive: true });
    linkSync(join(dir, from), join(dir, to));
    paths.push(to);
  }
  return dir;
}

describe("random trees: groups and hard links against stat(2) and the contents", () => {
  for (const seed of [1, 2, 3, 4]) {
    test(`seed ${seed}`, () => {
      const dir = randomTree(seed);
      const { json } = rglobJson<DupResult>(["dupes", "--include-hard-links", "--json", "--base", dir]);
      expect(json.errors).toEqual([]);
      // Expected, from the disk: paths by content; within each, paths by inode.
      const all = jsonl(rglob(["find", "-t", "f", "--base", dir, "--jsonl"]).stdout)
        .filter((r) => r.kind === "file")
        .map((r) => r.relative_path as string);
      const byContent = new Map<string, string[]>();
      for (const rel of all) {
        const key = createHash("sha256")
          .update(readFileSync(join(dir, rel)))
          .digest("hex");
        byContent.set(key, [...(byContent.get(key) ?? []), rel]);
      }
      const inode = (rel: string) => String(statSync(join(dir, rel)).ino);
      const want = [...byContent.values()]
        .filter((g) => g.length > 1)
        .map((g) => {
          const sets = new Map<string, string[]>();
          for (const rel of g) sets.set(inode(rel), [...(sets.get(inode(rel)) ?? []), rel]);
          return {
            paths: [...g].sort(),
            files: sets.size,
            hard_links: [...sets.values()].filter((s) => s.length > 1).map((s) => [...s].sort()),
          };
        })
        .sort((a, b) => (a.paths[0] as string).localeCompare(b.paths[0] as string));
      const got = json.results
        .map((r) => ({
          paths: [...r.relative_paths].sort(),
          files: r.files,
          hard_links: r.hard_links.map((s) => [...s].sort()),
        }))
        .sort((a, b) => (a.paths[0] as string).localeCompare(b.paths[0] as string));
      const norm = (xs: typeof want) =>
        xs.map((x) => ({
          ...x,
          hard_links: [...x.hard_links].sort((a, b) => (a[0] as string).localeCompare(b[0] as string)),
        }));
      expect(norm(got)).toEqual(norm(want));
      for (const r of json.results) {
        expect(r.count).toBe(r.paths.length);
        expect(r.wasted_bytes).toBe(r.size * (r.files - 1));
      }
      expect(json.hard_link_only_files).toBe(json.results.filter((r) => r.files === 1).length);
      expect(json.wasted_bytes).toBe(json.results.reduce((n, r) => n + r.wasted_bytes, 0));
    });
  }
});

describe("names that are not valid UTF-8", () => {
  test("hard_links holds the lossy relative paths (as relative_paths); human output writes the raw bytes", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-dupes-raw-"));
    made.push(dir);
    const raw = Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.from([0xe9]), Buffer.from(".txt")]);
    writeFileSync(raw, "same\n");
    linkSync(raw, join(dir, "link.txt"));
    writeFileSync(join(dir, "copy.txt"), "same\n");
    const { json } = rglobJson<DupResult>(["dupes", "--json", "--base", dir]);
    expect(json.results[0]?.relative_paths).toEqual(["caf\ufffd.txt", "copy.txt", "link.txt"]);
    expect(json.results[0]?.hard_links).toEqual([["caf\ufffd.txt", "link.txt"]]);
    const human = Bun.spawnSync([BIN, "dupes"], { cwd: dir }).stdout;
    const line = Buffer.concat([
      Buffer.from("hard links: caf"),
      Buffer.from([0xe9]),
      Buffer.from(".txt = link.txt\n"),
    ]);
    expect(Buffer.from(human).includes(line)).toBe(true);
  });
});
