// Where the command runs from must not change what it finds: the same command gives the same records, errors and
// counts whether the tree is the current directory, lies below it, straddles it (a base above it) or lies
// elsewhere. Records carry absolute paths, so they compare as they are.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rglob, type TreeSpec, tempTree } from "../helpers.ts";

describe("the current directory does not change results", () => {
  let tree: { dir: string; cleanup: () => void };
  let elsewhere: string;
  beforeAll(() => {
    const spec: TreeSpec = {
      ".gitignore": "*.log\n",
      "sub/.gitignore": "skip/\n",
      "sub/skip/x.txt": "TODO ignored\n",
      "sub/deep/er/a.txt": "TODO one\nplain\n// TODO two\n",
      "sub/deep/er/copy.txt": "TODO one\nplain\n// TODO two\n",
      "sub/b.log": "TODO ignored too\n",
      "top.txt": "TODO one\nplain\n// TODO two\n",
      "other/c.ts": "// TODO three\nconst x = 1;\n",
      "other/gone": { symlink: "nowhere" },
    };
    tree = tempTree(spec);
    elsewhere = mkdtempSync(join(tmpdir(), "rglob-cwd-"));
  });
  afterAll(() => {
    tree.cleanup();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  const commands: ReadonlyArray<readonly string[]> = [
    ["grep", "TODO", "--json"],
    ["grep", "-c", "TODO", "--json"],
    ["find", "--jsonl", "-L"],
    ["count", "--json", "--by", "ext"],
    ["dupes", "--json"],
    ["stats", "--json"],
  ];
  for (const args of commands) {
    test(`rglob ${args.join(" ")}`, () => {
      const runs = [
        { cwd: tree.dir, base: "." },
        { cwd: join(tree.dir, "sub", "deep"), base: "../.." },
        { cwd: join(tree.dir, "sub"), base: tree.dir },
        { cwd: elsewhere, base: tree.dir },
        { cwd: dirname(tree.dir), base: tree.dir },
      ].map(({ cwd, base }) => rglob([...args, "--base", base], { cwd }));
      const first = runs[0] as (typeof runs)[number];
      expect(first.code).toBe(0);
      // stats names only its newest, oldest and largest file (mtimes tie here; with hidden files included by
      // default, which one wins is not this test's business).
      if (args[0] === "stats") expect(first.stdout).toContain(`"path":"${tree.dir}/`);
      else expect(first.stdout).toContain(join(tree.dir, "sub", "deep", "er", "a.txt"));
      // The dangling link, followed with -L, is listed as a link under its absolute path.
      if (args[0] === "find") expect(first.stdout).toContain(`"path":"${join(tree.dir, "other", "gone")}"`);
      for (const r of runs.slice(1))
        expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          code: first.code,
          stdout: first.stdout,
          stderr: first.stderr,
        });
    });
  }
});
