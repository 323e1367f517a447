// Issue #22: the ignore flags ripgrep users type (--no-ignore-vcs, --no-ignore-dot, --no-ignore-parent, the
// global excludes switch, --ignore-file, --no-ignore) select the same files as in rg, with ignore files in the
// parents of the search root (.ignore above the repository, .gitignore up to its root). The expected sets are
// written out, so CI (no rg) checks them too; where rg is installed, rg must agree with each.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, skipWhen, tempTree } from "../helpers.ts";

const hasRg = Bun.spawnSync(["rg", "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

const exts = ["txt", "g", "i", "ex", "sg", "si", "pi", "pg", "glob", "extra"];
const t = tempTree({
  "outer/.ignore": "*.pi\n",
  "outer/.gitignore": "*.pg\n",
  "outer/repo/.gitignore": "*.g\n",
  "outer/repo/.ignore": "*.i\n",
  "outer/repo/sub/.gitignore": "*.sg\n",
  "outer/repo/sub/.ignore": "*.si\n",
  "home/.config/git/ignore": "*.glob\n",
  "extra-ignore": "*.extra\n",
});
const repo = join(t.dir, "outer", "repo");
if (Bun.spawnSync(["git", "init", "-q", repo]).exitCode !== 0)
  mkdirSync(join(repo, ".git"), { recursive: true });
mkdirSync(join(repo, ".git", "info"), { recursive: true });
writeFileSync(join(repo, ".git", "info", "exclude"), "*.ex\n");
for (const e of exts) writeFileSync(join(repo, "sub", `x.${e}`), "needle\n");
afterAll(() => t.cleanup());

const cwd = join(repo, "sub");
const env = {
  ...process.env,
  HOME: join(t.dir, "home"),
  XDG_CONFIG_HOME: join(t.dir, "home", ".config"),
  GIT_CONFIG_NOSYSTEM: "1",
  NO_COLOR: "1",
};
const extra = join(t.dir, "extra-ignore");

const cases: Array<[string, string[], string[], string[]]> = [
  ["defaults", [], [], ["txt", "pg", "extra"]],
  [
    "--no-ignore-vcs",
    ["--no-ignore-vcs"],
    ["--no-ignore-vcs"],
    ["txt", "pg", "extra", "g", "ex", "sg", "glob"],
  ],
  ["--no-ignore-dot", ["--no-ignore-dot"], ["--no-ignore-dot"], ["txt", "pg", "extra", "i", "si", "pi"]],
  [
    "--no-ignore-parent",
    ["--no-ignore-parent"],
    ["--no-ignore-parent"],
    ["txt", "pg", "extra", "g", "i", "pi", "ex"],
  ],
  [
    "the global excludes file off",
    ["--no-global-ignore-file"],
    ["--no-ignore-global"],
    ["txt", "pg", "extra", "glob"],
  ],
  [
    "--ignore-file",
    ["--ignore-file", extra, "--no-ignore-dot"],
    ["--ignore-file", extra, "--no-ignore-dot"],
    ["txt", "pg", "i", "si", "pi"],
  ],
  [
    "--no-ignore with --ignore-file",
    ["--no-ignore", "--ignore-file", extra],
    ["--no-ignore", "--ignore-file", extra],
    exts.filter((e) => e !== "extra"),
  ],
];

test.each(cases)("%s selects the files rg selects", (_name, ours, _theirs, kept) => {
  const r = Bun.spawnSync([BIN, "grep", "-l", "needle", ...ours, "--json", "--timeout", "20"], {
    cwd,
    env,
    timeout: 30_000,
    stdout: "pipe",
    stderr: "pipe",
  });
  const json = JSON.parse(r.stdout.toString()) as { results: Array<{ relative_path: string }> };
  const got = json.results.map((x) => x.relative_path).sort();
  const want = kept.map((e) => `x.${e}`).sort();
  expect(got).toEqual(want);
});

// rg itself, with the same flags, selects those files (the list above is rg's answer written down).
for (const [name, , theirs, kept] of cases)
  skipWhen(!hasRg && "rg is not installed")(`${name}: rg selects them`, () => {
    const rg = Bun.spawnSync(["rg", "-l", "needle", ...theirs], {
      cwd,
      env,
      timeout: 30_000,
      stdout: "pipe",
    });
    const rgGot = rg.stdout.toString().split("\n").filter(Boolean).sort();
    expect(rgGot).toEqual(kept.map((e) => `x.${e}`).sort());
  });
