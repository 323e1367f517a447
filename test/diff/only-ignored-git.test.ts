// Listing what the ignore rules leave out, with the rule of each (#37): `find --only-ignored` and
// `grep --only-ignored` over seeded random trees against `git check-ignore -v -n --no-index` over every path of
// the tree: the same paths (grep: the same files, each holding a hit), each with git's FILE:LINE:PATTERN; and the
// same on the library's and the MCP server's key (only_ignored).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rglob, rglobJson } from "../helpers.ts";
import { gitCollapsed, gitVerdicts, isolatedGitHome, randomRepo } from "./git-ignore-trees.ts";

const hasGit = Bun.which("git") !== null;
/** An isolated HOME/XDG so the machine's global excludes and config never take part. */
const env = isolatedGitHome();

interface Listed {
  relative_path: string;
  ignored_by?: string;
  kinds?: string[];
  line_number?: number;
}

// biome-ignore format: the title, with why it may be skipped, stays on its line
describe.if(hasGit)("--only-ignored against git check-ignore -v over every path (skipped without git)", () => {
  let total = 0;
  let folds = 0;
  afterAll(() => expect(total).toBeGreaterThan(50));
  afterAll(() => expect(folds).toBeGreaterThan(5));
  for (const seed of [21, 22, 23, 24, 25, 26]) {
    test(`seed ${seed}`, () => {
      const { dir, paths } = randomRepo(seed, env, "TODO here\n");
      try {
        const git = gitVerdicts(dir, paths, env);
        const want = new Map<string, string>();
        for (const [p, g] of git) if (g?.ignored) want.set(p, `${g.file}:${g.line}:${g.pattern}`);
        total += want.size;
        const found = rglobJson<{ results: Listed[]; skipped: Record<string, number> }>(
          ["find", "--only-ignored", "--expand", "--json"],
          { cwd: dir, env },
        ).json;
        expect(new Map(found.results.map((r) => [r.relative_path, r.ignored_by]))).toEqual(want);
        // The human listing with --format '{rel}<TAB>{ignored_by}': the same pairs, one line each.
        const lines = rglob(["find", "--only-ignored", "--expand", "--format", "{rel}\t{ignored_by}"], {
          cwd: dir,
          env,
        }).stdout;
        const pairs = lines.split("\n").filter((l) => l !== "");
        expect(new Map(pairs.map((l) => l.split("\t") as [string, string]))).toEqual(want);
        // Without --expand, an ignored directory is one record (dir/ and entries_inside), as git ls-files
        // -o -i --directory lists it; with -t f (no directory listed) every ignored file is listed.
        const folded = rglobJson<{ results: Array<Listed & { entries_inside?: number }> }>(
          ["find", "--only-ignored", "--json"],
          { cwd: dir, env },
        ).json.results;
        const shown = folded.map((r) => r.relative_path + (r.entries_inside === undefined ? "" : "/"));
        expect({ seed, shown: shown.sort() }).toEqual({ seed, shown: gitCollapsed(dir, env).sort() });
        for (const r of folded) {
          expect(r.ignored_by).toBe(want.get(r.relative_path) as string);
          if (r.entries_inside === undefined) continue;
          folds++;
          const n = paths.filter((p) => p.startsWith(`${r.relative_path}/`)).length;
          expect({ p: r.relative_path, n: r.entries_inside }).toEqual({ p: r.relative_path, n });
        }
        const filesOnly = rglobJson<{ results: Listed[] }>(["find", "--only-ignored", "-t", "f", "--json"], {
          cwd: dir,
          env,
        }).json.results.map((r) => r.relative_path);
        const ignoredFiles = [...want.keys()].filter((p) => statSync(join(dir, p)).isFile());
        expect(filesOnly.sort()).toEqual(ignoredFiles.sort());
        // grep: the ignored files, each line with its file's rule; nothing from a file git keeps.
        const files = new Set(
          [...want.keys()].filter(
            (p) => statSync(join(dir, p)).isFile() && readFileSync(join(dir, p), "utf8").includes("TODO"),
          ),
        );
        const hits = rglobJson<{ results: Listed[]; total_matches: number; files_with_matches: number }>(
          ["grep", "TODO", "--only-ignored", "--json"],
          { cwd: dir, env },
        ).json;
        expect(new Set(hits.results.map((r) => r.relative_path))).toEqual(files);
        for (const r of hits.results) expect(r.ignored_by).toBe(want.get(r.relative_path) as string);
        expect(hits.total_matches).toBe(files.size);
        expect(hits.files_with_matches).toBe(files.size);
        // -l: the same files, and a match counted in each (its totals said 0 matches in N files).
        const listed = rglobJson<{ results: Listed[]; total_matches: number; matched_lines: number }>(
          ["grep", "TODO", "--only-ignored", "-l", "--json"],
          { cwd: dir, env },
        ).json;
        expect(new Set(listed.results.map((r) => r.relative_path))).toEqual(files);
        expect([listed.total_matches, listed.matched_lines]).toEqual([files.size, files.size]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("--only-ignored on the CLI", () => {
  test("human output lists the entries and says the rule of each once, on stderr; other filters apply", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-only-ignored-"));
    try {
      mkdirSync(join(dir, "build"));
      writeFileSync(join(dir, ".gitignore"), "build/\n*.log\n");
      writeFileSync(join(dir, "build", "out.js"), "TODO built\n");
      writeFileSync(join(dir, "build", "map.txt"), "no hit\n");
      writeFileSync(join(dir, "debug.log"), "TODO logged\n");
      writeFileSync(join(dir, "src.ts"), "TODO kept\n");
      const g = rglob(["grep", "TODO", "--only-ignored"], { cwd: dir });
      expect(g.code).toBe(0);
      expect(g.stdout).toBe("build/out.js:1:TODO built\ndebug.log:1:TODO logged\n");
      expect(g.stderr).toBe(
        "rglob: ignored by .gitignore:1:build/: build/out.js\nrglob: ignored by .gitignore:2:*.log: debug.log\n",
      );
      const f = rglob(["find", "--only-ignored", "-t", "f", "-e", "js"], { cwd: dir });
      expect(f.stdout).toBe("build/out.js\n");
      // Without the flag nothing changes: the ignored entries stay out.
      expect(rglob(["grep", "TODO"], { cwd: dir }).stdout).toBe("src.ts:1:TODO kept\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
