// explain's verdict (issues #20 and #21 item 21): every reason that applies is listed, not only the first; the
// exit code is grep's (0 an explanation given, whatever its verdict; 1 --only kept none; 2 error, #37); and
// explain never contradicts find, also when the walk starts inside an ignored directory (find lists what is below
// its base; explain must say so).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rglob, rglobJson } from "../helpers.ts";

const hasGit = Bun.spawnSync(["git", "--version"]).exitCode === 0;
// Without git the tree is marked a repository by a bare .git directory (rglob reads no git data): the verdicts
// asserted here are rglob's own, not git's, so they run either way.

let repo = "";
const env = { GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent-home", XDG_CONFIG_HOME: "/nonexistent-home" };

const FILES: Record<string, string> = {
  ".gitignore": "build/\n*.log\n!keep.log\n",
  ".hid/z.log": "hidden, ignored\n",
  ".hid/deep/a.txt": "hidden\n",
  "build/x.txt": "below an ignored directory\n",
  "build/sub/y.txt": "deeper\n",
  "build/sub/.gitignore": "*.tmp\n",
  "build/sub/t.tmp": "ignored by a rule inside the ignored directory\n",
  "build/sub/keep.log": "re-included\n",
  "build/sub/drop.log": "ignored\n",
  "src/a.ts": "code\n",
  "src/deep/er/b.ts": "deep\n",
  ".hg/store": "vcs\n",
};

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "rglob-explain-"));
  if (hasGit) Bun.spawnSync(["git", "init", "-q"], { cwd: repo, env: { ...process.env, ...env } });
  else mkdirSync(join(repo, ".git"));
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), content);
  }
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

interface Explained {
  results: Array<{ included: boolean; reasons: Array<{ stage: string; detail: string }> }>;
  included: boolean;
}

function explain(args: string[], cwd = repo) {
  const run = rglob(["explain", ...args], { cwd, env });
  const json = rglobJson<Explained>(["explain", ...args, "--json"], { cwd, env });
  return { run, json: json.json, jsonCode: json.run.code };
}

describe("explain lists every reason", () => {
  test("hidden and ignored and too deep: three reasons, exit 1", () => {
    const { run, json, jsonCode } = explain([".hid/z.log", "--no-hidden", "--max-depth", "1"]);
    const stages = json.results[0]?.reasons.map((r) => r.stage);
    expect(stages).toEqual(["hidden", "ignore", "depth"]);
    expect(json.included).toBe(false);
    // An explanation was given: exit 0 whatever the verdict (#37); --only turns it into a test of the verdict.
    expect(run.code).toBe(0);
    expect(jsonCode).toBe(0);
    expect(
      rglob(["explain", ".hid/z.log", "--no-hidden", "--only", "included"], { cwd: repo, env }).code,
    ).toBe(1);
    expect(run.stdout).toContain("not included");
    expect(run.stdout.split("\n").filter((l) => l.startsWith("  ")).length).toBe(3);
  });

  test("excluded and ignored and a failing glob", () => {
    const { json } = explain(["src/a.ts", "--exclude", "src/", "--no-ignore", "-t", "d"]);
    expect(json.results[0]?.reasons.map((r) => r.stage)).toEqual(["exclude", "types"]);
  });

  test("a VCS directory (.hg) is named as such", () => {
    const { json, run } = explain([".hg/store"]);
    expect(json.results[0]?.reasons.map((r) => r.stage)).toEqual(["git_dir"]);
    expect(run.code).toBe(0);
  });

  test("included: exit 0; with the hidden default a dot directory is no reason", () => {
    const { json, run } = explain([".hid/deep/a.txt"]);
    expect(json.included).toBe(true);
    expect(run.code).toBe(0);
  });

  test("a path that does not exist is explained, exit 0, as git check-ignore answers for it (#37)", () => {
    const { json, run } = explain(["nope.txt"]);
    expect(run.code).toBe(0);
    expect(json.results[0]).toMatchObject({ included: false, exists: false });
    expect(json.results[0]?.reasons.map((r) => r.stage)).toEqual(["missing"]);
  });
});

describe("explain never contradicts find (#21 item 21)", () => {
  /** Every file under a directory, relative to it (from the file list above). */
  const filesUnder = (prefix: string) =>
    Object.keys(FILES)
      .filter((p) => p.startsWith(prefix))
      .map((p) => p.slice(prefix.length));

  const cases: ReadonlyArray<readonly [string, string, string[]]> = [
    ["cwd inside the ignored directory", "build", []],
    ["cwd deeper inside it", "build/sub", []],
    ["--base inside it", "", ["--base", "build"]],
    ["--base inside a hidden directory, --no-hidden", "", ["--base", ".hid", "--no-hidden"]],
    ["the repository root", "", []],
    ["the root with --no-hidden", "", ["--no-hidden"]],
  ];
  test.each(cases)("%s", (_title, sub, flags) => {
    const cwd = join(repo, sub);
    const listed = new Set(
      rglobJson<{ results: Array<{ path: string }> }>(["find", "-t", "f", "--json", ...flags], {
        cwd,
        env,
      }).json.results.map((r) => r.path),
    );
    const base = flags[0] === "--base" ? join(cwd, flags[1] as string) : cwd;
    const prefix = base === repo ? "" : `${base.slice(repo.length + 1)}/`;
    const files = filesUnder(prefix);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const abs = join(base, f);
      const { run, json } = explain([abs, ...flags], cwd);
      expect({ f, included: json.included }).toEqual({ f, included: listed.has(abs) });
      expect({ f, code: run.code }).toEqual({ f, code: 0 });
      // --only included is the verdict as an exit code (#37).
      const only = rglob(["explain", abs, ...flags, "--only", "included"], { cwd, env });
      expect({ f, code: only.code }).toEqual({ f, code: listed.has(abs) ? 0 : 1 });
    }
    if (sub === "build") {
      // find lists what is below an ignored base, and what the rules inside it do not ignore.
      expect(listed.has(join(base, "x.txt"))).toBe(true);
      expect(listed.has(join(base, "sub/keep.log"))).toBe(true);
      expect(listed.has(join(base, "sub/t.tmp"))).toBe(false);
    }
  });
});
