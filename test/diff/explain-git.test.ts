// Ignore verdicts in bulk (#37): `rglob explain --all` over seeded random trees against
// `git check-ignore -v -n --no-index` over every path of the tree: the same paths ignored, each by the same file,
// line and pattern; `--only ignored` lists exactly those; several paths in one call give the same verdicts.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rglob, rglobJson } from "../helpers.ts";
import { gitCollapsed, gitVerdicts, isolatedGitHome, randomRepo } from "./git-ignore-trees.ts";

const hasGit = Bun.which("git") !== null;
/** An isolated HOME/XDG so the machine's global excludes and config never take part. */
const env = isolatedGitHome();

interface Reason {
  stage: string;
  detail: string;
  file?: string;
  line?: number;
  pattern?: string;
}
interface Explained {
  relative_path: string;
  included: boolean;
  reasons: Reason[];
}

describe.if(hasGit)("explain --all against git check-ignore -v over every path (skipped without git)", () => {
  let ignoredTotal = 0;
  afterAll(() => expect(ignoredTotal).toBeGreaterThan(50));
  for (const seed of [11, 12, 13, 14, 15, 16, 17, 18]) {
    test(`seed ${seed}`, () => {
      const { dir, paths } = randomRepo(seed, env);
      try {
        const git = gitVerdicts(dir, paths, env);
        const { json } = rglobJson<{ results: Explained[]; explained: number }>(
          ["explain", "--all", "--expand", "--json", "--limit", "100000"],
          { cwd: dir, env },
        );
        expect(json.results.map((r) => r.relative_path).sort()).toEqual([...paths].sort());
        expect(json.explained).toBe(paths.length);
        const ours = new Map(json.results.map((r) => [r.relative_path, r]));
        const ignored: string[] = [];
        for (const p of paths) {
          const g = git.get(p) ?? null;
          const r = ours.get(p) as Explained;
          const rule = r.reasons.find((x) => x.stage === "ignore");
          const mine =
            rule === undefined
              ? null
              : {
                  ignored: !r.included,
                  file: (rule.file as string).slice(dir.length + 1),
                  line: rule.line,
                  pattern: rule.pattern,
                };
          // git names a re-including rule with its '!'; ours names the rule's pattern in the record.
          const want = g === null ? null : { ...g, pattern: g.pattern.replace(/^!/, "") };
          if (mine !== null) mine.pattern = (mine.pattern as string).replace(/^!/, "");
          expect({ seed, p, verdict: mine }).toEqual({ seed, p, verdict: want });
          if (g?.ignored) ignored.push(p);
        }
        ignoredTotal += ignored.length;
        // --only ignored: exactly the paths git ignores, each with its rule.
        const only = rglobJson<{ results: Explained[] }>(
          ["explain", "--all", "--expand", "--only", "ignored", "--json", "--limit", "100000"],
          { cwd: dir, env },
        ).json.results;
        expect(only.map((r) => r.relative_path).sort()).toEqual(ignored.sort());
        // Several paths in one call: the same verdicts as one by one.
        const some = paths.filter((_, i) => i % 5 === 0);
        const many = rglobJson<{ results: Explained[] }>(["explain", ...some, "--json"], {
          cwd: dir,
          env,
        }).json.results;
        expect(many.map((r) => r.relative_path)).toEqual(some);
        for (const r of many.slice(0, 3)) {
          const one = rglobJson<{ results: Explained[] }>(["explain", r.relative_path, "--json"], {
            cwd: dir,
            env,
          }).json.results[0];
          expect(one).toEqual(r);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

// A path that does not exist has a verdict (#37: a broken link's target under an ignored output/ was NOT_FOUND):
// names absent from existing directories, and paths below directories absent too, against git check-ignore -v
// --no-index on the same paths (which takes each missing component but the last for a directory, as ours does).
// biome-ignore format: the title, with why it may be skipped, stays on its line
describe.if(hasGit)("explain of paths that do not exist against git check-ignore -v --no-index (skipped without git)", () => {
  let ignoredTotal = 0;
  afterAll(() => expect(ignoredTotal).toBeGreaterThan(20));
  for (const seed of [41, 42, 43, 44, 45, 46]) {
    test(`seed ${seed}`, () => {
      const { dir, paths } = randomRepo(seed, env);
      try {
        const there = new Set(paths);
        const dirs = ["", ...paths.filter((p) => !p.includes(".") && paths.some((q) => q.startsWith(`${p}/`)))];
        const absent: string[] = [];
        for (const d of dirs)
          for (const name of ["x.log", "keep1", "z.o", "y.txt", "build/out.o", "lib/q/doc.md", "a"]) {
            const p = d === "" ? name : `${d}/${name}`;
            if (!there.has(p) && !paths.some((q) => q.startsWith(`${p}/`)) && !absent.includes(p)) absent.push(p);
          }
        // Only the paths whose first missing component is below existing directories (a file on the way is ENOTDIR).
        const asked = absent.filter((p) => !p.split("/").some((_, i, a) => there.has(a.slice(0, i + 1).join("/")) && i < a.length - 1 && !dirs.includes(a.slice(0, i + 1).join("/"))));
        const git = gitVerdicts(dir, asked, env);
        const { json, run } = rglobJson<{ results: Array<Explained & { exists?: boolean }> }>(
          ["explain", ...asked, "--json"],
          { cwd: dir, env },
        );
        expect(run.code).toBe(0);
        expect(json.results.map((r) => r.relative_path)).toEqual(asked);
        for (const r of json.results) {
          expect({ p: r.relative_path, exists: r.exists, included: r.included }).toEqual({
            p: r.relative_path,
            exists: false,
            included: false,
          });
          const rule = r.reasons.find((x) => x.stage === "ignore");
          const mine =
            rule === undefined
              ? null
              : { file: (rule.file as string).slice(dir.length + 1), line: rule.line, pattern: rule.pattern };
          const g = git.get(r.relative_path) ?? null;
          // A re-including rule that decides is no reason to leave the path out: ours keeps it as a note.
          const want = g === null || !g.ignored ? null : { file: g.file, line: g.line, pattern: g.pattern };
          const ours = mine !== null && rule?.detail.startsWith("re-included") ? null : mine;
          expect({ seed, p: r.relative_path, verdict: ours }).toEqual({ seed, p: r.relative_path, verdict: want });
          if (want !== null) ignoredTotal++;
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

// biome-ignore format: the title, with why it may be skipped, stays on its line
describe.if(hasGit)("explain --all --only ignored against git ls-files -o -i --directory (skipped without git)", () => {
  let dirsTotal = 0;
  afterAll(() => expect(dirsTotal).toBeGreaterThan(10));
  for (const seed of [21, 22, 23, 24, 25, 26, 27, 28, 29, 30]) {
    test(`seed ${seed}`, () => {
      const { dir, paths } = randomRepo(seed, env, "x\n");
      try {
        const git = gitVerdicts(dir, paths, env);
        const { json } = rglobJson<{ results: Array<Explained & { entries_inside?: number }> }>(
          ["explain", "--all", "--only", "ignored", "--json", "--limit", "100000"],
          { cwd: dir, env },
        );
        // An ignored directory is one record `dir/`, as git lists it; the files of other directories one each.
        const ours = json.results.map((r) => r.relative_path + (r.entries_inside === undefined ? "" : "/"));
        expect({ seed, ours: ours.sort() }).toEqual({ seed, ours: gitCollapsed(dir, env).sort() });
        for (const r of json.results) {
          // Its rule is git's verdict on the directory itself; entries_inside counts every path below it.
          const g = git.get(r.relative_path);
          const rule = r.reasons.find((x) => x.stage === "ignore") as Reason;
          expect({
            p: r.relative_path,
            file: (rule.file as string).slice(dir.length + 1),
            line: rule.line,
          }).toEqual({ p: r.relative_path, file: g?.file ?? "", line: g?.line ?? 0 });
          if (r.entries_inside !== undefined) {
            dirsTotal++;
            const inside = paths.filter((p) => p.startsWith(`${r.relative_path}/`)).length;
            expect({ p: r.relative_path, n: r.entries_inside }).toEqual({ p: r.relative_path, n: inside });
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("bulk explain on the CLI", () => {
  test("exit codes: 0 an explanation given (any verdict, a path not there too), 1 --only kept none", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-explain-bulk-"));
    try {
      writeFileSync(join(dir, ".gitignore"), "*.log\n");
      writeFileSync(join(dir, "a.txt"), "");
      writeFileSync(join(dir, "b.log"), "");
      expect(rglob(["explain", "a.txt"], { cwd: dir }).code).toBe(0);
      expect(rglob(["explain", "a.txt", "b.log"], { cwd: dir }).code).toBe(0);
      // --only makes it a test of the verdict, as git check-ignore's exit code (#37).
      expect(rglob(["explain", "b.log", "--only", "ignored"], { cwd: dir }).code).toBe(0);
      expect(rglob(["explain", "a.txt", "--only", "ignored"], { cwd: dir }).code).toBe(1);
      expect(rglob(["explain", "a.txt", "b.log", "--only", "not-included"], { cwd: dir }).code).toBe(0);
      expect(rglob(["explain", "a.txt", "--only", "included"], { cwd: dir }).code).toBe(0);
      expect(rglob(["explain", "b.log", "--only", "included"], { cwd: dir }).code).toBe(1);
      // A path that is not there has a verdict too, as git check-ignore gives one (#37): exit as for one that is.
      const missing = rglob(["explain", "a.txt", "nope", "--json"], { cwd: dir });
      expect(missing.code).toBe(0);
      const json = JSON.parse(missing.stdout) as { results: Explained[]; errors: Array<{ code: string }> };
      expect(json.results.map((r) => r.relative_path)).toEqual(["a.txt", "nope"]);
      expect(json.errors).toEqual([]);
      expect(rglob(["explain", "gone.log", "--only", "ignored"], { cwd: dir }).code).toBe(0);
      expect(rglob(["explain", "gone.txt", "--only", "ignored"], { cwd: dir }).code).toBe(1);
      const human = rglob(["explain", "--all", "--only", "ignored"], { cwd: dir });
      expect(human.stdout).toBe("b.log: not included\n  ignored by .gitignore:1: *.log\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
