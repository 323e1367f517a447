// Ignore semantics against real git: on hand-made tricky trees, on seeded random trees and on a fresh checkout
// of this repository, the files `rglob find` lists by default (hidden entries included) equal `git ls-files -co --exclude-standard`.
// Documented divergences (not differences in the rules): git lists tracked files even when a rule ignores them
// (rglob reads no index), and `.ignore` files are rglob/ripgrep-only (tested against expectations below).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { prng, ROOT, rglobJson } from "../helpers.ts";

let home = "";
let env: Record<string, string> = {};

beforeAll(() => {
  // An isolated HOME/XDG so the machine's global excludes and config never take part.
  home = mkdtempSync(join(tmpdir(), "rglob-home-"));
  env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.invalid",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.invalid",
  };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function git(args: string[], cwd: string): string {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

function gitList(cwd: string, extra: string[] = []): string[] {
  return git(["ls-files", "-co", "--exclude-standard", "-z", ...extra], cwd)
    .split("\0")
    .filter((p) => p !== "")
    .sort();
}

function rglobList(cwd: string, extra: string[] = []): string[] {
  const { json, run } = rglobJson<{ results: Array<{ relative_path: string }>; errors: unknown[] }>(
    ["find", "-t", "f", "-t", "l", "--json", ...extra],
    { cwd, env },
  );
  if (run.code === 2) throw new Error(run.stdout + run.stderr);
  return json.results.map((r) => r.relative_path).sort();
}

/**
 * The dot-name prefixes of some paths ('.a', 'x/.b') that an ignore rule whitelists ('!.a/'), by git's own
 * verdict (check-ignore names the deciding rule): rg, and rglob without --hidden, list those (#22).
 * @param cwd the repository
 * @param paths repository paths
 * @returns the whitelisted prefixes
 */
function whitelistedDots(cwd: string, paths: readonly string[]): Set<string> {
  const prefixes = new Set<string>();
  for (const p of paths) {
    const parts = p.split("/");
    for (let i = 0; i < parts.length; i++)
      if ((parts[i] as string).startsWith(".")) prefixes.add(parts.slice(0, i + 1).join("/"));
  }
  if (prefixes.size === 0) return new Set();
  const r = Bun.spawnSync(["git", "check-ignore", "-v", "-n", "-z", "--no-index", "--stdin"], {
    cwd,
    env: { ...process.env, ...env },
    stdin: Buffer.from([...prefixes].join("\0")),
    stdout: "pipe",
    stderr: "pipe",
  });
  // -z: source, line, pattern, path, each ended by NUL; a path no rule decides has empty fields.
  const f = r.stdout.toString().split("\0");
  const out = new Set<string>();
  for (let i = 0; i + 3 < f.length; i += 4)
    if ((f[i + 2] as string).startsWith("!")) out.add(f[i + 3] as string);
  return out;
}

/** Writes files (path → content); a path ending in '/' is an empty directory, content "->x" a symlink to x. */
function makeRepo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-git-"));
  git(["init", "-q"], dir);
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(dir, rel);
    if (rel.endsWith("/")) {
      mkdirSync(abs, { recursive: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    if (content.startsWith("->")) symlinkSync(content.slice(2), abs);
    else writeFileSync(abs, content);
  }
  return dir;
}

const TRICKY: Array<[string, Record<string, string>, string?]> = [
  [
    "nested .gitignore anchored at its own directory",
    {
      ".gitignore": "/top.txt\nbuild/\n",
      "top.txt": "",
      "a/top.txt": "",
      "a/.gitignore": "/local.txt\nsub/deep.txt\n",
      "a/local.txt": "",
      "a/b/local.txt": "",
      "a/sub/deep.txt": "",
      "a/x/sub/deep.txt": "",
      "build/out.o": "",
      "a/build/out.o": "",
    },
  ],
  [
    "negation, and no re-inclusion below an excluded directory",
    {
      ".gitignore": "*.log\n!keep.log\nlogs/\n!logs/important.log\ntmp/*\n!tmp/keep/\n",
      "a.log": "",
      "keep.log": "",
      "sub/keep.log": "",
      "sub/b.log": "",
      "logs/important.log": "",
      "tmp/x.txt": "",
      "tmp/keep/y.txt": "",
      "tmp/keep/z.log": "",
    },
  ],
  [
    "directory-only patterns do not match files",
    {
      ".gitignore": "cache/\nfoo/\n",
      "cache/a": "",
      "x/cache": "",
      foo: "",
      "y/foo/bar": "",
    },
  ],
  [
    "** leading, middle and trailing",
    {
      ".gitignore": "**/gen\na/**/b.txt\nlib/**\n**/deep/*.tmp\nx**y\n",
      "gen/1": "",
      "p/q/gen/2": "",
      "a/b.txt": "",
      "a/x/y/b.txt": "",
      "b/a/b.txt": "",
      "lib/z": "",
      "lib/sub/z": "",
      "q/lib": "",
      "r/deep/k.tmp": "",
      "r/deep/e/k.tmp": "",
      xay: "",
      "q/xqqy": "",
      "xa/y": "",
    },
  ],
  [
    "patterns with and without slashes",
    {
      ".gitignore": "name\ndir/name2\n/rooted\nmid/*.c\n",
      name: "",
      "d/name": "",
      "dir/name2": "",
      "x/dir/name2": "",
      rooted: "",
      "s/rooted": "",
      "mid/a.c": "",
      "mid/s/a.c": "",
      "z/mid/a.c": "",
    },
  ],
  [
    "escapes, comments, classes and wildcards",
    {
      ".gitignore":
        "\\#hash\n#comment\n\\!bang\n\\*star\nq?.md\n[ab]c.txt\n[!x]y.txt\nr[0-9]\n[[:upper:]]UP\nbr\\[1]\nback\\\\slash\n",
      "#hash": "",
      "#comment": "",
      "!bang": "",
      "*star": "",
      xstar: "",
      "q1.md": "",
      "q12.md": "",
      "ac.txt": "",
      "cc.txt": "",
      "zy.txt": "",
      "xy.txt": "",
      r5: "",
      rx: "",
      AUP: "",
      aUP: "",
      "br[1]": "",
      br1: "",
      "back\\slash": "",
    },
  ],
  [
    "trailing spaces are trimmed unless escaped; CRLF lines",
    {
      ".gitignore": "trail   \nkept\\ \nwin.txt\r\n",
      trail: "",
      "trail ": "",
      "kept ": "",
      kept: "",
      "win.txt": "",
    },
  ],
  [
    ".git/info/exclude, and .gitignore beats it",
    {
      ".git/info/exclude": "*.secret\nexcluded/\n",
      ".gitignore": "!keep.secret\n",
      "a.secret": "",
      "keep.secret": "",
      "excluded/x": "",
    },
  ],
  [
    "a deeper .gitignore overrides a shallower one",
    {
      ".gitignore": "*.gen\n",
      "sub/.gitignore": "!*.gen\nlocal-only\n",
      "a.gen": "",
      "sub/b.gen": "",
      "sub/local-only": "",
      "local-only": "",
    },
  ],
  [
    "whitelisting: ignore everything, re-include directories and one extension",
    {
      ".gitignore": "*\n!*/\n!*.c\n!.gitignore\n",
      "a.c": "",
      "a.h": "",
      "s/b.c": "",
      "s/b.h": "",
      "s/t/c.c": "",
    },
  ],
  [
    "only some top-level entries: /* then !/src",
    {
      ".gitignore": "/*\n!/src\n!/.gitignore\n",
      "src/a": "",
      "lib/b": "",
      top: "",
      "x/src/c": "",
    },
  ],
  [
    "symlinks are entries, not directories: a dir-only rule does not match a link to a directory",
    {
      ".gitignore": "linkdir/\nlinkfile\n",
      "real/x": "",
      linkdir: "->real",
      linkfile: "->real/x",
      other: "->real",
      "d/linkdir": "->../real",
    },
  ],
  [
    "hidden files and directories count like any other (included by default)",
    {
      ".gitignore": ".env\n.cache/\n",
      ".env": "",
      ".envrc": "",
      ".cache/x": "",
      ".config/y": "",
    },
  ],
];

describe("ignore rules equal git's", () => {
  test.each(TRICKY)("%s", (_name, files) => {
    const dir = makeRepo(files);
    try {
      expect(rglobList(dir)).toEqual(gitList(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a parent .gitignore above the walked base, inside the repository", () => {
    const dir = makeRepo({
      ".gitignore": "*.o\nsub/skip/\n/sub/rooted.txt\n",
      "sub/a.o": "",
      "sub/a.c": "",
      "sub/skip/x": "",
      "sub/rooted.txt": "",
      "sub/inner/rooted.txt": "",
      ".git/info/exclude": "*.tmp\n",
      "sub/t.tmp": "",
    });
    try {
      const sub = join(dir, "sub");
      expect(rglobList(sub)).toEqual(gitList(sub));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the global excludes file (core.excludesFile, else XDG git/ignore)", () => {
    const dir = makeRepo({ "a.bak": "", "b.swp": "", "c.txt": "" });
    const xdgIgnore = join(env.XDG_CONFIG_HOME as string, "git", "ignore");
    mkdirSync(dirname(xdgIgnore), { recursive: true });
    writeFileSync(xdgIgnore, "*.bak\n");
    try {
      expect(rglobList(dir)).toEqual(["b.swp", "c.txt"]);
      expect(rglobList(dir)).toEqual(gitList(dir));
      const custom = join(home, "my-excludes");
      writeFileSync(custom, "*.swp\n");
      git(["config", "core.excludesFile", custom], dir);
      expect(rglobList(dir)).toEqual(gitList(dir));
      expect(rglobList(dir)).toEqual(["a.bak", "c.txt"]);
    } finally {
      rmSync(xdgIgnore, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe(".ignore files (rglob/ripgrep only, not git)", () => {
  test.each([
    ["an .ignore rule hides a file git lists", { ".ignore": "*.dat\n", "a.dat": "", "b.txt": "" }, ["b.txt"]],
    [
      ".ignore wins over .gitignore in the same directory",
      { ".gitignore": "*.dat\n", ".ignore": "!keep.dat\n", "a.dat": "", "keep.dat": "" },
      ["keep.dat"],
    ],
    [
      "a nested .ignore is anchored at its directory",
      { "d/.ignore": "/x\n", "d/x": "", "d/e/x": "", x: "" },
      ["d/e/x", "x"],
    ],
  ])("%s", (_name, files, expected) => {
    const dir = makeRepo(files as Record<string, string>);
    try {
      const got = rglobList(dir).filter((p) => !p.endsWith(".ignore") && !p.endsWith(".gitignore"));
      expect(got).toEqual(expected as string[]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const NAMES = [
  "a",
  "b",
  "src",
  "build",
  "lib",
  "x.log",
  "y.txt",
  "Z.TXT",
  ".hid",
  "a b",
  "#h",
  "!n",
  "k[1]",
  "s*",
  "tr ",
];
const EXTS = ["log", "txt", "TXT", "c", "o"];

function randomCase(seed: number): Record<string, string> {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const files: Record<string, string> = {};
  const dirs: string[] = [""];
  for (let i = 0; i < 40; i++) {
    const parent = pick(dirs);
    const depth = parent === "" ? 0 : parent.split("/").length;
    const name =
      r() < 0.5 ? pick(NAMES) : `${pick(["f", "g", "build", "x"])}${Math.floor(r() * 3)}.${pick(EXTS)}`;
    const rel = parent === "" ? name : `${parent}/${name}`;
    if (depth < 4 && r() < 0.35 && !(rel in files)) dirs.push(rel);
    else if (!dirs.includes(rel)) files[rel] = "";
  }
  for (const d of dirs) {
    if (r() < 0.45) continue;
    const lines: string[] = [];
    const n = 1 + Math.floor(r() * 5);
    for (let i = 0; i < n; i++) {
      const lit = pick(NAMES).replace(/[[*\\?!#]/g, "\\$&");
      const base = pick([
        lit,
        `*.${pick(EXTS)}`,
        `${pick(["build", "src", "lib", "a"])}/`,
        `/${lit}`,
        `${pick(["a", "src", "b"])}/**/${pick(["x.log", "*.txt", "y.txt"])}`,
        `**/${pick(["lib", "*.o", "b"])}`,
        `${pick(["src", "build"])}/**`,
        `${pick(["a", "src"])}/*`,
        `f?.${pick(EXTS)}`,
        `[fg]*.c`,
        `[!x]*.log`,
        `${pick(NAMES)}   `,
        "# comment",
        `*${pick(["1", "2"])}.*`,
      ]);
      lines.push(r() < 0.25 ? `!${base}` : base);
    }
    files[d === "" ? ".gitignore" : `${d}/.gitignore`] = `${lines.join("\n")}\n`;
  }
  // Directories must exist even if no file landed in them (an empty dir is in neither list).
  for (const d of dirs)
    if (d !== "" && !Object.keys(files).some((f) => f.startsWith(`${d}/`))) files[`${d}/`] = "";
  return files;
}

let ignoredTotal = 0;

describe("seeded random trees", () => {
  afterAll(() => {
    // The generator must exercise the rules: most trees hide something.
    expect(ignoredTotal).toBeGreaterThan(200);
  });
  const seeds = Array.from({ length: 60 }, (_, i) => 1000 + i);
  test.each(seeds)("seed %d: whole tree and one subdirectory", (seed) => {
    const files = randomCase(seed);
    const dir = makeRepo(files);
    try {
      const all = gitList(dir);
      ignoredTotal += Object.keys(files).filter((f) => !f.endsWith("/")).length - all.length;
      expect({ seed, files: rglobList(dir) }).toEqual({ seed, files: all });
      // With --no-hidden: the same set minus every path with a dot-component, unless an ignore rule whitelists
      // that component (rg lets the whitelist win, #22).
      const white = whitelistedDots(dir, all);
      const visible = all.filter((p) =>
        p.split("/").every((c, i, parts) => !c.startsWith(".") || white.has(parts.slice(0, i + 1).join("/"))),
      );
      expect({ seed, files: rglobList(dir, ["--no-hidden"]) }).toEqual({ seed, files: visible });
      const sub = all.find((p) => p.includes("/") && !p.startsWith(".git"))?.split("/")[0];
      if (sub !== undefined) {
        const at = join(dir, sub);
        expect({ seed, sub, files: rglobList(at) }).toEqual({ seed, sub, files: gitList(at) });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("this repository", () => {
  test("a fresh checkout with node_modules and dist present lists what git lists", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-self-"));
    try {
      git(["clone", "-q", "--no-hardlinks", ROOT, "repo"], dir);
      const repo = join(dir, "repo");
      for (const f of [
        "node_modules/pkg/index.js",
        "node_modules/.bin/tool",
        "dist/rglob",
        "dist/sub/x.map",
        "debug.log",
      ])
        mkdirSync(dirname(join(repo, f)), { recursive: true });
      for (const f of [
        "node_modules/pkg/index.js",
        "node_modules/.bin/tool",
        "dist/rglob",
        "dist/sub/x.map",
        "debug.log",
        ".bench/tree/a",
        "src/new-untracked.ts",
      ]) {
        mkdirSync(dirname(join(repo, f)), { recursive: true });
        writeFileSync(join(repo, f), "");
      }
      // Tracked files that a rule ignores (force-added fixtures) are listed by git only: rglob reads no index.
      const trackedIgnored = new Set(git(["ls-files", "-ci", "--exclude-standard", "-z"], repo).split("\0"));
      const expected = gitList(repo).filter((p) => !trackedIgnored.has(p));
      const got = rglobList(repo);
      expect(got).toEqual(expected);
      expect(got).toContain("src/new-untracked.ts");
      expect(got.some((p) => p.startsWith("node_modules/") || p.startsWith("dist/"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
