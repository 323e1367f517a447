// Issue #36 (rg and fd parity, docs/decisions/0059-nested-repository-ignore-files.md): a repository nested in the
// walked tree (a `.git` directory, a worktree's `.git` file, a `gitdir:` file with no commondir) has its own
// info/exclude, which applies below its root, and the outer repository's .gitignore and info/exclude end at its
// root (`.ignore` files go on), as rg 13 and fd 8.6 read them and git sees it from inside. Trees made with real git;
// the expected lists are written out, so a machine without rg checks them too; where rg is installed it must agree
// with each, but for the one divergence below. The persisted index's replayed walk takes an edit of the nested
// exclude file at the next call.
import { afterAll, expect } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, skipWhen } from "../helpers.ts";

const has = (cmd: string) =>
  Bun.spawnSync([cmd, "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
const hasGit = has("git");
const hasRg = has("rg");
const gitTest = skipWhen(!hasGit && "git is not installed");

const outer = realpathSync(mkdtempSync(join(tmpdir(), "rglob-nested-repo-")));
const top = join(outer, "top");
const home = join(outer, "home");
/** git's config and excludes looked for in the test's own home; served calls off (a cold run, or the index). */
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  GIT_CONFIG_NOSYSTEM: "1",
  NO_COLOR: "1",
  RGLOB_CACHE_DIR: join(outer, "cache"),
  RGLOB_SERVE: "0",
};
afterAll(() => rmSync(outer, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): void {
  const r = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    env,
    stdout: "ignore",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

function put(rel: string, text = "nestedneedle\n"): void {
  mkdirSync(join(top, rel, ".."), { recursive: true });
  writeFileSync(join(top, rel), text);
}

/** Puts every file's mtime an hour back: a file modified in the last moments is not indexed (racy stats). */
function ageTree(root: string): void {
  const past = new Date(Date.now() - 3600_000);
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, e.name);
    if (e.isDirectory()) ageTree(p);
    else if (e.isFile()) utimesSync(p, past, past);
  }
}

if (hasGit) {
  mkdirSync(join(home, ".config"), { recursive: true });
  mkdirSync(top);
  git(top, "init", "-q", ".");
  put(".gitignore", "p.txt\n*.tmp\nign/\n");
  put(".ignore", "*.pi\n");
  for (const f of ["a0.txt", "p.txt", "x.tmp", "sub/a.log"]) put(f);
  // A: a nested repository with an exclude file, a negation in it, and a repository B nested in it.
  mkdirSync(join(top, "A"));
  git(join(top, "A"), "init", "-q", ".");
  put("A/.git/info/exclude", "*.log\n!keep.log\n");
  for (const f of ["a.log", "keep.log", "deep/a.log", "b.txt", "p.txt", "x.tmp", "z.pi"]) put(`A/${f}`);
  mkdirSync(join(top, "A", "B"));
  git(join(top, "A", "B"), "init", "-q", ".");
  put("A/B/a.log");
  // W: a worktree of a repository outside the tree (`.git` is a file; the exclude file is in its common dir).
  const src = join(outer, "src");
  mkdirSync(src);
  git(src, "init", "-q", ".");
  git(src, "commit", "-q", "--allow-empty", "-m", "first");
  writeFileSync(join(src, ".git", "info", "exclude"), "w.log\n");
  git(src, "worktree", "add", "-q", join(top, "W"));
  for (const f of ["w.log", "w.txt"]) put(`W/${f}`);
  // S: a `.git` file naming a git directory elsewhere, with no commondir file (a submodule's kind).
  git(top, "init", "-q", `--separate-git-dir=${join(outer, "subgit")}`, "S");
  writeFileSync(join(outer, "subgit", "info", "exclude"), "s.log\n");
  for (const f of ["s.log", "s.txt"]) put(`S/${f}`);
  // N: a nested repository inside an ignored directory.
  mkdirSync(join(top, "ign", "N"), { recursive: true });
  git(join(top, "ign", "N"), "init", "-q", ".");
  put("ign/N/.git/info/exclude", "n.log\n");
  for (const f of ["n.log", "n.txt"]) put(`ign/N/${f}`);
  ageTree(top);
}

function ours(args: readonly string[], cwd = top): string[] {
  const r = Bun.spawnSync([BIN, ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  expect(r.exitCode).toBeLessThan(2);
  return r.stdout.toString().split("\n").filter(Boolean).sort();
}

/** rg's list, without `./` and without S, where rg 13 differs: the ignore crate reads a `.git` file's exclude
 * only through a commondir file, and git, in S, ignores s.log. */
function rgList(args: readonly string[], cwd = top): string[] {
  const r = Bun.spawnSync(["rg", "-l", "nestedneedle", ...args], { cwd, env, stdout: "pipe" });
  return r.stdout
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((p) => p.replace(/^\.\//, ""))
    .filter((p) => !p.startsWith("S/") && !p.includes("/.git/") && !p.startsWith(".git/"))
    .sort();
}

const DEFAULTS = [
  "A/B/a.log",
  "A/b.txt",
  "A/keep.log",
  "A/p.txt",
  "A/x.tmp",
  "S/s.txt",
  "W/w.txt",
  "a0.txt",
  "sub/a.log",
];
const NO_VCS = [
  "A/B/a.log",
  "A/a.log",
  "A/b.txt",
  "A/deep/a.log",
  "A/keep.log",
  "A/p.txt",
  "A/x.tmp",
  "S/s.log",
  "S/s.txt",
  "W/w.log",
  "W/w.txt",
  "a0.txt",
  "ign/N/n.log",
  "ign/N/n.txt",
  "p.txt",
  "sub/a.log",
  "x.tmp",
];
/** [title, our flags, rg's flags, cwd below top, the files listed]. */
const CASES: ReadonlyArray<readonly [string, string[], string[], string, string[]]> = [
  ["defaults", [], [], "", DEFAULTS],
  ["hidden off", ["--no-hidden"], [], "", DEFAULTS],
  ["--no-ignore-vcs", ["--no-ignore-vcs"], ["--no-ignore-vcs"], "", NO_VCS],
  ["-u (rg -uu)", ["-u"], ["-uu"], "", [...NO_VCS, "A/z.pi"].sort()],
  ["a root inside an ignored directory", ["ign"], ["ign"], "", ["ign/N/n.txt"]],
  ["from inside the nested repository", [], [], "A", ["B/a.log", "b.txt", "keep.log", "p.txt", "x.tmp"]],
];

for (const [title, flags, theirs, cwd, expected] of CASES) {
  gitTest(
    `grep, ${title}: a nested repository's info/exclude applies below it, the outer .gitignore ends there`,
    () => {
      const dir = join(top, cwd);
      expect(ours(["grep", "-l", "nestedneedle", ...flags], dir)).toEqual(expected);
      // find lists the same files, its ignore files aside (no other file here is out of the lists).
      if (!flags.some((f) => !f.startsWith("-"))) {
        const files = ours(["find", "-t", "f", ...flags], dir).filter((p) => !/(^|\/)\.[^/]*$/.test(p));
        expect(files).toEqual(expected);
      }
      if (hasRg) expect(rgList(theirs, dir)).toEqual(expected.filter((p) => !p.startsWith("S/")));
    },
  );
}

gitTest(
  "explain names the nested repository's exclude rule, and no rule of the outer .gitignore inside it",
  () => {
    const r = Bun.spawnSync(
      [BIN, "explain", "A/a.log", "A/keep.log", "A/p.txt", "A/B/a.log", "W/w.log", "S/s.log"],
      { cwd: top, env, stdout: "pipe" },
    );
    const text = r.stdout.toString();
    const block = (p: string) =>
      text
        .slice(text.indexOf(`${p}:`))
        .split("\n")
        .slice(0, 2)
        .join("\n");
    expect(block("A/a.log")).toBe("A/a.log: not included\n  ignored by A/.git/info/exclude:1: *.log");
    expect(block("A/keep.log")).toStartWith("A/keep.log: included");
    expect(text).toContain("re-included by A/.git/info/exclude:2: !keep.log");
    expect(block("A/p.txt")).toStartWith("A/p.txt: included");
    expect(block("A/B/a.log")).toStartWith("A/B/a.log: included");
    expect(block("W/w.log")).toBe(
      `W/w.log: not included\n  ignored by ${join(outer, "src", ".git", "info", "exclude")}:1: w.log`,
    );
    expect(block("S/s.log")).toBe(
      `S/s.log: not included\n  ignored by ${join(outer, "subgit", "info", "exclude")}:1: s.log`,
    );
  },
);

gitTest("the persisted index's walk takes an edit of a nested exclude file at the next call", () => {
  const status = () =>
    (
      JSON.parse(
        Bun.spawnSync([BIN, "index", "--status", "--json"], {
          cwd: top,
          env,
          stdout: "pipe",
        }).stdout.toString(),
      ) as { results: Array<{ walk: string }> }
    ).results[0]?.walk;
  const indexed = () => {
    const r = Bun.spawnSync([BIN, "grep", "-l", "nestedneedle", "--json"], { cwd: top, env, stdout: "pipe" });
    const o = JSON.parse(r.stdout.toString()) as {
      source?: string;
      results: Array<{ relative_path: string }>;
    };
    return { source: o.source, files: o.results.map((x) => x.relative_path).sort() };
  };
  expect(Bun.spawnSync([BIN, "index"], { cwd: top, env, stdout: "ignore", stderr: "ignore" }).exitCode).toBe(
    0,
  );
  expect(status()).toBe("fresh");
  expect(indexed()).toEqual({ source: "index", files: DEFAULTS });
  writeFileSync(join(top, "A", ".git", "info", "exclude"), "*.txt\n");
  expect(status()).toBe("stale");
  const after = [
    "A/B/a.log",
    "A/a.log",
    "A/deep/a.log",
    "A/keep.log",
    "A/x.tmp",
    "S/s.txt",
    "W/w.txt",
    "a0.txt",
    "sub/a.log",
  ];
  expect(indexed()).toEqual({ source: "index", files: after });
  expect(ours(["grep", "-l", "nestedneedle"])).toEqual(after);
  writeFileSync(join(top, "A", ".git", "info", "exclude"), "*.log\n!keep.log\n");
  expect(indexed().files).toEqual(DEFAULTS);
});
