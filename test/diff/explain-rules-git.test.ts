// The per-rule view of the ignore files (#37): `rglob explain --rules` over seeded random repositories against
// `git check-ignore -v -n --no-index` over every path of the tree. Every pattern line of every ignore file git
// reads (nested .gitignore files, .git/info/exclude, the global excludes file; not those inside an ignored
// directory, which git never reads; no comment, no blank line) is one record, and the paths it decides (--expand)
// are exactly those git names it for; `--only unused` keeps those git names for no path. Then the same records
// from the CLI, the library and the MCP tool, and the human lines.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { explain } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "../surface/mcp-helpers.ts";
import { gitVerdicts, randomRepo } from "./git-ignore-trees.ts";

let home = "";
let env: Record<string, string> = {};
const hasGit = Bun.which("git") !== null;

beforeAll(() => {
  // An isolated HOME/XDG: the global excludes file is the one each test writes, the machine's never takes part.
  home = mkdtempSync(join(tmpdir(), "rglob-rules-home-"));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1" };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

interface RuleRec {
  path: string;
  relative_path: string;
  line: number;
  pattern: string;
  decides: number;
  decided?: string[];
}

const OUTER = ["*.o", "", "# outer comment", "!z.o", "lib", "nothing-here", "doc.md", "/b0", "**/keep"];

/** The pattern lines of an ignore file: 1-based line numbers of the lines that are neither blank nor comments. */
function patternLines(file: string): number[] {
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.flatMap((l, i) => (l === "" || l.startsWith("#") ? [] : [i + 1]));
}

describe.if(hasGit)(
  "explain --rules against git check-ignore -v over every path (skipped without git)",
  () => {
    const totals = { rules: 0, unused: 0, decided: 0, unread: 0 };
    afterAll(() => {
      // The trees met every case: rules that decide nothing and some that decide, ignore files never read.
      expect(totals.unused).toBeGreaterThan(10);
      expect(totals.decided).toBeGreaterThan(100);
      expect(totals.unread).toBeGreaterThan(3);
    });
    for (const seed of [51, 52, 53, 54, 55, 56, 57, 58]) {
      test(`seed ${seed}`, () => {
        const { dir, paths } = randomRepo(seed, env);
        try {
          const r = prng(seed * 7);
          const pick = () =>
            Array.from({ length: 2 + Math.floor(r() * 4) }, () => OUTER[Math.floor(r() * OUTER.length)]);
          // Outer files: info/exclude and the global excludes file (XDG's git/ignore), blank lines and comments in.
          writeFileSync(join(dir, ".git/info/exclude"), `# git's template comment\n${pick().join("\n")}\n`);
          mkdirSync(join(home, ".config/git"), { recursive: true });
          const global = join(home, ".config/git/ignore");
          writeFileSync(global, `${pick().join("\n")}\n\n`);
          // Blank lines and comments between the rules of the tree's files, and a rule that matches nothing.
          for (const p of paths.filter((q) => q.endsWith(".gitignore"))) {
            const text = readFileSync(join(dir, p), "utf8").split("\n");
            text.splice(1, 0, "", "# a comment", "never-*-matched");
            writeFileSync(join(dir, p), text.join("\n"));
          }
          const git = gitVerdicts(dir, paths, env);
          // git's paths per rule (absolute file, line).
          const want = new Map<string, string[]>();
          for (const p of paths) {
            const g = git.get(p);
            if (g == null) continue;
            const key = `${resolve(dir, g.file)}:${g.line}`;
            want.set(key, [...(want.get(key) ?? []), p]);
          }
          // The files git reads: the outer two, and each .gitignore with no ignored directory above it.
          const ignoredDir = (p: string) => git.get(p)?.ignored === true;
          const read = paths.filter((p) => {
            if (!p.endsWith(".gitignore")) return false;
            const parts = p.split("/").slice(0, -1);
            return !parts.some((_, i) => ignoredDir(parts.slice(0, i + 1).join("/")));
          });
          totals.unread += paths.filter((p) => p.endsWith(".gitignore")).length - read.length;
          const files = [global, join(dir, ".git/info/exclude"), ...read.map((p) => join(dir, p))];
          const lines = files.flatMap((f) => patternLines(f).map((n) => `${f}:${n}`));
          const { json, run } = rglobJson<{ results: RuleRec[]; explained: number }>(
            ["explain", "--rules", "--expand", "--json"],
            { cwd: dir, env },
          );
          expect(run.code).toBe(0);
          expect(json.explained).toBe(paths.length);
          const ours = json.results.map((x) => `${x.path}:${x.line}`);
          expect({ seed, rules: [...ours].sort() }).toEqual({ seed, rules: [...lines].sort() });
          for (const x of json.results) {
            const key = `${x.path}:${x.line}`;
            const got = (x.decided ?? []).map((p) => p.replace(/\/$/, ""));
            expect({ seed, key, pattern: x.pattern, got: got.sort() }).toEqual({
              seed,
              key,
              pattern: x.pattern,
              got: (want.get(key) ?? []).sort(),
            });
            expect(x.decides).toBe(got.length);
            // A directory is said with its trailing '/'.
            for (const p of x.decided ?? [])
              expect(`${p}: ${p.endsWith("/")}`).toBe(`${p}: ${lstatSync(join(dir, p)).isDirectory()}`);
            totals.rules++;
            totals.decided += x.decides;
          }
          // Every rule git names is one of ours.
          for (const key of want.keys())
            expect({ seed, key, listed: ours.includes(key) }).toEqual({ seed, key, listed: true });
          // --only unused: the rules git names for no path, in the same order; without --expand no path list.
          const unused = rglobJson<{ results: RuleRec[] }>(
            ["explain", "--rules", "--only", "unused", "--json"],
            {
              cwd: dir,
              env,
            },
          ).json.results;
          expect(unused.map((x) => `${x.path}:${x.line}`)).toEqual(
            json.results.filter((x) => !want.has(`${x.path}:${x.line}`)).map((x) => `${x.path}:${x.line}`),
          );
          expect(unused.every((x) => x.decides === 0 && x.decided === undefined)).toBe(true);
          totals.unused += unused.length;
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  },
);

// find's {ignored_by} when the ignore rules do not filter (#37: `find -u --format '{rel} {ignored_by}'` printed it
// empty): each entry listed by -u or --no-ignore gets the rule git names for it, an entry git does not ignore none.
describe.if(hasGit)("find -u --format {ignored_by} against git check-ignore -v (skipped without git)", () => {
  for (const seed of [61, 62, 63, 64]) {
    test(`seed ${seed}`, () => {
      const { dir, paths } = randomRepo(seed, env);
      try {
        const git = gitVerdicts(dir, paths, env);
        const want = paths
          .map((p) => {
            const g = git.get(p);
            return `${p}\t${g?.ignored ? `${g.file}:${g.line}:${g.pattern}` : ""}`;
          })
          .sort();
        let ignored = 0;
        for (const flag of ["-u", "--no-ignore"]) {
          const r = rglob(["find", flag, "--format", "{rel}\t{ignored_by}"], { cwd: dir, env });
          expect(r.code).toBe(0);
          const got = r.stdout.split("\n").filter(Boolean).sort();
          expect({ seed, flag, got }).toEqual({ seed, flag, got: want });
          ignored = got.filter((l) => !l.endsWith("\t")).length;
        }
        expect(ignored).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

// A walk whose root lies in an ignored directory (#36: `--base build/sub` under `build/`): the walk lists what is
// below its root, and {ignored_by} gives each entry the rule of that directory, as git check-ignore -v names it
// for every path below (it was empty). Ignored directories and a directory below each, as --base and as a path
// operand.
describe.if(hasGit)(
  "find -u --format {ignored_by} with a root inside an ignored directory (skipped without git)",
  () => {
    let roots = 0;
    afterAll(() => expect(roots).toBeGreaterThan(10));
    for (const seed of [61, 62, 63, 64, 65, 66, 67, 68]) {
      test(`seed ${seed}`, () => {
        const { dir, paths } = randomRepo(seed, env);
        try {
          const git = gitVerdicts(dir, paths, env);
          const isDir = (p: string) => lstatSync(join(dir, p)).isDirectory();
          // Ignored directories that hold something, the deepest first, and a directory below each when there is one.
          const ignoredDirs = paths.filter(
            (p) => isDir(p) && git.get(p)?.ignored && paths.some((q) => q.startsWith(`${p}/`)),
          );
          const inside = ignoredDirs
            .sort((a, b) => b.split("/").length - a.split("/").length)
            .slice(0, 2)
            .flatMap((p) => [p, ...paths.filter((q) => q.startsWith(`${p}/`) && isDir(q)).slice(0, 1)]);
          for (const root of new Set(inside)) {
            roots++;
            const below = paths.filter((p) => p.startsWith(`${root}/`));
            // git names the file from the repository's top; find prints it relative to its base, absolute above it.
            const rule = (p: string, base: string) => {
              const g = git.get(p);
              if (!g?.ignored) return "";
              const file =
                base === "" || g.file.startsWith("/")
                  ? g.file
                  : g.file.startsWith(`${base}/`)
                    ? g.file.slice(base.length + 1)
                    : join(dir, g.file);
              return `${file}:${g.line}:${g.pattern}`;
            };
            const based = rglob(["find", "-u", "--base", root, "--format", "{rel}\t{ignored_by}"], {
              cwd: dir,
              env,
            });
            const want = below.map((p) => `${p.slice(root.length + 1)}\t${rule(p, root)}`).sort();
            expect({ seed, root, got: based.stdout.split("\n").filter(Boolean).sort() }).toEqual({
              seed,
              root,
              got: want,
            });
            expect(want.every((l) => !l.endsWith("\t"))).toBe(true);
            const operand = rglob(["find", "-u", "--path", root, "--format", "{rel}\t{ignored_by}"], {
              cwd: dir,
              env,
            });
            const wantOp = below.map((p) => `${p}\t${rule(p, "")}`).sort();
            expect({ seed, root, got: operand.stdout.split("\n").filter(Boolean).sort() }).toEqual({
              seed,
              root,
              got: wantOp,
            });
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  },
);

describe("explain --rules on every surface", () => {
  const t = tempTree({
    ".gitignore": "*.log\n\n# build output\n!keep.log\nbuild/\n*.tmp\n",
    "a.log": "",
    "keep.log": "",
    "build/.gitignore": "never-read\n",
    "build/x/y.o": "",
    "lib/.gitignore": "q.txt\n*.never\n",
    "lib/q.txt": "",
  });
  afterAll(() => t.cleanup());

  test("CLI: FILE:LINE: PATTERN with what each decides; --only unused; exit 1 when none is unused", () => {
    const all = rglob(["explain", "--rules"], { cwd: t.dir, env: { HOME: t.dir, XDG_CONFIG_HOME: t.dir } });
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(
      [
        ".gitignore:1: *.log  (decides 1 path)",
        ".gitignore:4: !keep.log  (decides 1 path)",
        ".gitignore:5: build/  (decides 4 paths)",
        ".gitignore:6: *.tmp  (decides nothing)",
        "lib/.gitignore:1: q.txt  (decides 1 path)",
        "lib/.gitignore:2: *.never  (decides nothing)",
        "",
      ].join("\n"),
    );
    const unused = rglob(["explain", "--rules", "--only", "unused"], { cwd: t.dir });
    expect(unused.stdout).toBe(
      ".gitignore:6: *.tmp  (decides nothing)\nlib/.gitignore:2: *.never  (decides nothing)\n",
    );
    const expanded = rglob(["explain", "--rules", "--expand", "--base", ".."], { cwd: join(t.dir, "lib") });
    // Paths relative to the current directory when under it, else absolute, as every human output.
    const d = t.dir;
    expect(expanded.stdout).toContain(
      `${d}/.gitignore:5: build/  (decides 4 paths)\n  ${d}/build/\n  ${d}/build/.gitignore\n  ${d}/build/x/\n  ${d}/build/x/y.o\n`,
    );
    expect(expanded.stdout).toContain(".gitignore:1: q.txt  (decides 1 path)\n  q.txt\n");
    const none = tempTree({ ".gitignore": "*.log\n", "a.log": "" });
    try {
      const r = rglob(["explain", "--rules", "--only", "unused"], { cwd: none.dir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("every ignore rule read decides at least one");
    } finally {
      none.cleanup();
    }
  });

  test("bad combinations are usage errors that say what to do", () => {
    const withPath = rglob(["explain", "--rules", "a.log"], { cwd: t.dir });
    expect(withPath.code).toBe(2);
    expect(withPath.stderr).toContain("it takes no PATH or --under");
    expect(withPath.stderr).not.toContain("    at ");
    const unusedAlone = rglob(["explain", "a.log", "--only", "unused"], { cwd: t.dir });
    expect(unusedAlone.code).toBe(2);
    expect(unusedAlone.stderr).toContain("--rules --only unused");
    // -u turns every ignore file off: nothing to list, said rather than an empty answer.
    const off = rglob(["explain", "--rules", "-u"], { cwd: t.dir });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain("-u/--no-ignore (respect_gitignore false) turns them off");
    const otherOnly = rglob(["explain", "--rules", "--only", "ignored"], { cwd: t.dir });
    expect(otherOnly.code).toBe(2);
    expect(otherOnly.stderr).toContain("only takes 'unused'");
  });

  test("the library and the MCP tool give the CLI's records; the MCP text says each rule", async () => {
    const cli = rglobJson<{ results: RuleRec[] }>(["explain", "--rules", "--expand", "--json"], {
      cwd: t.dir,
    }).json.results;
    expect(cli.map((x) => [x.relative_path, x.line, x.decides])).toEqual([
      [".gitignore", 1, 1],
      [".gitignore", 4, 1],
      [".gitignore", 5, 4],
      [".gitignore", 6, 0],
      ["lib/.gitignore", 1, 1],
      ["lib/.gitignore", 2, 0],
    ]);
    const lib = await explain({ base: t.dir, rules: true, expand: true });
    expect(lib.results).toEqual(cli as never);
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", rules: true, only: "unused" },
      })) as CallToolResult;
      expect(res.isError ?? false).toBe(false);
      const recs = (res.structuredContent as { results: RuleRec[] }).results;
      expect(recs).toEqual(cli.filter((x) => x.decides === 0).map(({ decided: _, ...x }) => x));
      const text = (res.content[0] as { text: string }).text;
      expect(text).toContain("\n.gitignore:6: *.tmp  (decides nothing)\n");
      expect(text).toContain("\nlib/.gitignore:2: *.never  (decides nothing)");
    } finally {
      await s.close();
    }
  });
});
