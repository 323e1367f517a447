// Ignore chains: priority between files, anchoring by prefix, explain's rule and line, parents in explain,
// and repoContext's outer files (parent .gitignore, info/exclude, worktree-style .git files).
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  explainIgnore,
  ignoredEntry,
  ignoreFileOf,
  isIgnored,
  loadIgnoreFile,
  repoContext,
} from "../../../src/engine/ignore.ts";
import { tempTree } from "../../helpers.ts";

const chain = [
  ignoreFileOf("/r/.git/info/exclude", "", "*.secret\n", "repo"),
  ignoreFileOf("/r/.gitignore", "", "*.log\nbuild/\n!keep.secret\n", "repo"),
  ignoreFileOf("/r/sub/.gitignore", "sub/", "!*.log\n/local\n", "repo"),
  ignoreFileOf("/r/sub/.ignore", "sub/", "*.dat\n", "tree"),
];

describe("chains", () => {
  test.each([
    ["a.log", false, true],
    ["sub/a.log", false, false],
    ["sub/deep/a.log", false, false],
    ["x.secret", false, true],
    ["keep.secret", false, false],
    ["sub/local", false, true],
    ["local", false, false],
    ["sub/x/local", false, false],
    ["sub/a.dat", false, true],
    ["a.dat", false, false],
    ["build", true, true],
    ["build", false, false],
  ])("%p (dir %p) → ignored %p", (key, isDir, want) => {
    expect(ignoredEntry(chain, key, key.slice(key.lastIndexOf("/") + 1), isDir)).toBe(want);
    expect(isIgnored(chain, isDir ? `${key}/` : key)).toBe(want);
  });

  test("explain names the file, line and pattern", () => {
    expect(explainIgnore(chain, "sub/a.log")).toEqual({
      ignored: false,
      file: "/r/sub/.gitignore",
      line: 1,
      pattern: "!*.log",
      path: "sub/a.log",
    });
    expect(explainIgnore(chain, "build/")).toMatchObject({ ignored: true, file: "/r/.gitignore", line: 2 });
    expect(explainIgnore(chain, "plain.txt")).toBeNull();
  });

  test("below an ignored directory, explain names the directory's rule (and isIgnored agrees)", () => {
    expect(explainIgnore(chain, "build/x/keep.secret")).toEqual({
      ignored: true,
      file: "/r/.gitignore",
      line: 2,
      pattern: "build/",
      path: "build/",
    });
    expect(isIgnored(chain, "build/x/keep.secret")).toBe(true);
    // The walk's entry-only test does not look at parents: it never enters ignored directories.
    expect(ignoredEntry(chain, "build/x/keep.secret", "keep.secret", false)).toBe(false);
  });
});

describe("files on disk", () => {
  test("loadIgnoreFile returns null for a missing file", () => {
    expect(loadIgnoreFile("/nonexistent/.gitignore", "")).toBeNull();
  });

  test("repoContext: parent .gitignore files and info/exclude, also through a .git file", () => {
    const t = tempTree({
      "main/.git/info/exclude": "*.ex\n",
      "main/.git/worktrees/wt/commondir": "../..\n",
      "wt/.gitignore": "*.top\n",
      "wt/a/.gitignore": "*.mid\n",
      "wt/a/b/file": "",
    });
    try {
      writeFileSync(join(t.dir, "wt", ".git"), `gitdir: ${join(t.dir, "main", ".git", "worktrees", "wt")}\n`);
      mkdirSync(join(t.dir, "wt", "a", "b"), { recursive: true });
      const ctx = repoContext(join(t.dir, "wt", "a", "b"));
      expect(ctx.root).toBe(join(t.dir, "wt"));
      const files = ctx.outer.map((f) => [f.file.slice(t.dir.length), f.prefix]);
      expect(files).toContainEqual(["/main/.git/info/exclude", ""]);
      expect(files).toContainEqual(["/wt/.gitignore", ""]);
      expect(files).toContainEqual(["/wt/a/.gitignore", "a/"]);
      expect(ignoredEntry(ctx.outer, "a/b/x.ex", "x.ex", false)).toBe(true);
      expect(ignoredEntry(ctx.outer, "a/b/x.mid", "x.mid", false)).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  test("outside a repository there are no outer files", () => {
    const t = tempTree({ "x/.gitignore": "*\n", "x/y/z": "" });
    try {
      const ctx = repoContext(join(t.dir, "x", "y"));
      expect(ctx.root).toBeNull();
      expect(ctx.outer.map((f) => f.file)).not.toContain(join(t.dir, "x", ".gitignore"));
    } finally {
      t.cleanup();
    }
  });
});
