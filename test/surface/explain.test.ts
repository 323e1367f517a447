// explain: the reasons it gives (ignore file/line/pattern, hidden, exclude, depth, symlink, predicates), its
// human output, bad input, and that it agrees with find: for every entry of a tree and several queries,
// `explain` says included exactly when `find` (same options, with and without --no-hidden) lists it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BIN, FIXTURE, ROOT, rglob, rglobJson, tempTree } from "../helpers.ts";

interface Reason {
  stage: string;
  detail: string;
  file?: string;
  line?: number;
  pattern?: string;
}
interface Explanation {
  path: string;
  relative_path: string;
  included: boolean;
  reasons: Reason[];
}

function explain(path: string, args: string[], cwd: string): Explanation {
  const { json, run } = rglobJson<{ results: Explanation[]; included: boolean }>(
    ["explain", path, ...args, "--json"],
    { cwd },
  );
  expect(json.results).toHaveLength(1);
  const rec = json.results[0] as Explanation;
  expect(json.included).toBe(rec.included);
  // An explanation was given, whatever its verdict: exit 0, as grep's found (#37).
  expect(run.code).toBe(0);
  return rec;
}

/** Every file and directory below dir (hidden and ignored ones too), as POSIX relative paths. */
function allEntries(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
    if (d.name === ".git") continue;
    const r = rel === "" ? d.name : `${rel}/${d.name}`;
    out.push(r);
    if (d.isDirectory()) out.push(...allEntries(dir, r));
  }
  return out;
}

function findSet(args: string[], cwd: string): Set<string> {
  const { json } = rglobJson<{ results: Array<{ relative_path: string }> }>(["find", ...args, "--json"], {
    cwd,
  });
  return new Set(json.results.map((r) => r.relative_path));
}

describe("explain names the stage, file, line and pattern", () => {
  test("an ignored file: the .gitignore, its line and pattern", () => {
    const r = explain("ignored.log", [], FIXTURE);
    expect(r.included).toBe(false);
    expect(r.relative_path).toBe("ignored.log");
    expect(r.reasons).toEqual([
      {
        stage: "ignore",
        detail: "ignored by .gitignore:1: ignored.log",
        file: join(FIXTURE, ".gitignore"),
        line: 1,
        pattern: "ignored.log",
      },
    ]);
  });

  test("a file below an ignored directory names the directory's rule", () => {
    const r = explain("ignored/skipped.txt", [], FIXTURE);
    expect(r.reasons).toMatchObject([{ stage: "ignore", line: 2, pattern: "ignored/" }]);
    expect(r.reasons[0]?.detail).toContain("'ignored'");
  });

  test.each([
    ["hidden/.secret.py", ["--no-hidden"], "hidden", "hidden"],
    ["unreadable/.keep", ["--no-hidden"], "hidden", "--no-hidden"],
    ["src/utils/helper.py", ["--max-depth", "1"], "depth", "too deep"],
    ["src", ["--min-depth", "2"], "depth", "too shallow"],
    ["docs/notes.txt", ["-E", "docs"], "exclude", "--exclude 'docs'"],
    ["src/main.py", ["--glob", "*.txt"], "patterns", "'*.txt'"],
    ["docs", ["-t", "f"], "types", "--type f"],
    ["src/main.py", ["--min-size", "1K"], "size", "below min_size"],
    ["src/main.py", ["--max-size", "10"], "size", "above max_size"],
    ["src/main.py", ["--older-than", "2000-01-01"], "time", "older_than"],
    ["src/main.py", ["--perm", "777"], "perm", "--perm 777"],
    [".", [], "root", "the base itself"],
  ])("%s with %p: %s", (path, args, stage, text) => {
    const r = explain(path, args, FIXTURE);
    expect(r.included).toBe(false);
    const reason = r.reasons.find((x) => x.stage === stage);
    expect(reason?.detail).toContain(text);
  });

  test("an included file says what let it in", () => {
    const r = explain("src/main.py", ["--glob", "*.py"], FIXTURE);
    expect(r.included).toBe(true);
    expect(r.reasons.map((x) => x.stage)).toEqual(["patterns", "selected"]);
    // No ignore rule matches it (#37: said with the files consulted, in the verdict's last reason).
    expect(r.reasons[1]?.detail).toMatch(
      /^listed by find with these options; no ignore rule matches it: none of the \d+ rules of /,
    );
  });

  test("several reasons are all given, in walk order", () => {
    const r = explain("hidden/.secret.py", ["--no-hidden", "--glob", "*.txt", "--max-depth", "1"], FIXTURE);
    expect(r.reasons.map((x) => x.stage)).toEqual(["hidden", "depth", "patterns"]);
  });

  test("a path outside the base, and one outside the given roots", () => {
    const out = explain(join(ROOT, "package.json"), [], FIXTURE);
    expect(out.reasons).toMatchObject([{ stage: "outside_base" }]);
    const roots = explain("docs/notes.txt", ["--path", "src"], FIXTURE);
    expect(roots.reasons).toMatchObject([{ stage: "root", detail: expect.stringContaining("src") }]);
  });
});

describe("explain: human output and bad input", () => {
  test("prints the ignore rule relative to the current directory", () => {
    const r = rglob(["explain", "fixtures/tree/ignored.log"], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "fixtures/tree/ignored.log: not included\n  ignored by fixtures/tree/.gitignore:1: ignored.log\n",
    );
    const inc = rglob(["explain", "src/main.py"], { cwd: FIXTURE });
    // The repository's own .gitignore, above the fixture, applies too: named by its absolute path.
    expect(inc.stdout).toMatch(
      /^src\/main\.py: included\n {2}listed by find with these options; no ignore rule matches it: none of the \d+ rules of .*\.gitignore \(\d+\), \.gitignore \(2\)\n$/,
    );
  });

  test.each([
    [["explain"], "explain needs a path"],
    [["explain", "src", "--max-size", "huge"], "is not a size"],
    [["explain", "--under", "no/such/dir"], "NOT_FOUND"],
  ])("%p exits 2 (%s)", (args, text) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(text);
    expect(r.stderr).not.toContain("    at ");
  });

  test("a path that does not exist is explained: not there, and the rule that would leave it out (#37)", () => {
    const { json, run } = rglobJson<{
      results: Array<{
        relative_path: string;
        exists?: boolean;
        reasons: Array<{ stage: string; line?: number }>;
      }>;
      errors: unknown[];
    }>(["explain", "nope.txt", "ignored/deeper/x.py", "--json"], { cwd: FIXTURE });
    expect(run.code).toBe(0);
    expect(json.errors).toEqual([]);
    expect(json.results.map((r) => [r.relative_path, r.exists, r.reasons.map((x) => x.stage)])).toEqual([
      ["nope.txt", false, ["missing"]],
      ["ignored/deeper/x.py", false, ["ignore", "missing"]],
    ]);
    // A broken link's target: the link's explanation says what the rules make of where it leads.
    const t = tempTree({
      ".gitignore": "# runs\noutput/\n",
      "output/seamount/README": "x\n",
      "cases/seamount/init.nc": { symlink: "../../output/seamount/init.nc" },
    });
    try {
      const link = rglob(["explain", "cases/seamount/init.nc", "output/seamount/init.nc"], { cwd: t.dir });
      expect(link.code).toBe(0);
      expect(link.stdout).toContain(
        "its real path output/seamount/init.nc does not exist and would not be included: its directory 'output' is ignored by .gitignore:2: output/",
      );
      expect(link.stdout).toContain(
        "output/seamount/init.nc: not included, it does not exist\n  its directory 'output' is ignored by .gitignore:2: output/\n  it does not exist\n",
      );
    } finally {
      t.cleanup();
    }
    const human = rglob(["explain", "ignored/deeper/x.py"], { cwd: FIXTURE });
    expect(human.stdout).toBe(
      "ignored/deeper/x.py: not included, it does not exist\n  its directory 'ignored' is ignored by .gitignore:2: ignored/\n  it does not exist ('ignored/deeper' is not there)\n",
    );
  });
});

// The agreement test: explain must give the same verdict as find, entry by entry, for several queries.
const QUERIES: string[][] = [
  [],
  ["--no-ignore"],
  ["-t", "f"],
  ["-t", "d"],
  ["--glob", "*.py"],
  ["--glob", "**/deep/*"],
  ["--max-depth", "0"],
  ["--max-depth", "1"],
  ["--min-depth", "2", "--max-depth", "3"],
  ["-E", "src"],
  ["--min-size", "20"],
  ["--path", "src"],
];

function agree(dir: string, queries: string[][], hidden: boolean): void {
  const entries = allEntries(dir);
  for (const q of queries) {
    const args = hidden ? ["--hidden", ...q] : ["--no-hidden", ...q];
    const listed = findSet(args, dir);
    for (const rel of entries) {
      const r = explain(rel, args, dir);
      if (r.included !== listed.has(rel)) {
        throw new Error(
          `explain ${rel} ${args.join(" ")}: included=${r.included}, find lists it: ${listed.has(rel)}; reasons ${JSON.stringify(r.reasons)}`,
        );
      }
    }
  }
}

describe("explain agrees with find", () => {
  test("--max-depth 0: nothing below a directory root, a single-file root at depth 0", () => {
    const t = tempTree({ "top.txt": "", "a/mid.txt": "" });
    try {
      expect(findSet(["--max-depth", "0"], t.dir).size).toBe(0);
      expect(explain("top.txt", ["--max-depth", "0"], t.dir)).toMatchObject({
        included: false,
        reasons: [{ stage: "depth", detail: expect.stringContaining("too deep") }],
      });
      expect(findSet(["--path", "top.txt", "--max-depth", "0"], t.dir)).toEqual(new Set(["top.txt"]));
      expect(explain("top.txt", ["--path", "top.txt", "--max-depth", "0"], t.dir).included).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  test("on fixtures/tree, with --hidden", () => {
    agree(FIXTURE, QUERIES, true);
  });

  test("on fixtures/tree, with --no-hidden", () => {
    agree(FIXTURE, [[], ["-t", "f"], ["--max-depth", "1"]], false);
  });

  let tree: { dir: string; cleanup: () => void };
  beforeAll(() => {
    tree = tempTree({
      ".gitignore": "*.log\n/build/\n!keep.log\n",
      "a.log": "x",
      "keep.log": "keep",
      "build/out.txt": "out",
      "src/.gitignore": "gen/\n*.tmp\n!important.tmp\n",
      "src/.ignore": "secret.txt\n",
      "src/main.py": "print(1)\n",
      "src/x.tmp": "t",
      "src/important.tmp": "i",
      "src/secret.txt": "s",
      "src/gen/code.py": "g",
      "src/build/kept.txt": "anchored /build/ does not apply here",
      "src/deep/deeper/.gitignore": "!*.log\nnote.md\n",
      "src/deep/deeper/trace.log": "re-included by a deeper negation",
      "src/deep/deeper/note.md": "n",
      "src/deep/deeper/ok.md": "ok",
      ".hidden/inside.txt": "h",
      "docs/readme.md": "r",
    });
    // A repository root, so that .git/info/exclude applies; the symlink is not followed by default.
    mkdirSync(join(tree.dir, ".git", "info"), { recursive: true });
    writeFileSync(join(tree.dir, ".git", "info", "exclude"), "docs/readme.md\n");
    symlinkSync(join(tree.dir, "src"), join(tree.dir, "link"));
  });
  afterAll(() => tree.cleanup());

  test("on a temp repository with nested .gitignore, .ignore and .git/info/exclude", () => {
    agree(tree.dir, [[], ["--no-ignore"], ["-t", "f"], ["--glob", "*.log"], ["--max-depth", "2"]], true);
  });

  test("names the nested rule that decides", () => {
    expect(explain("src/gen/code.py", ["--hidden"], tree.dir).reasons[0]).toMatchObject({
      stage: "ignore",
      file: join(tree.dir, "src", ".gitignore"),
      line: 1,
      pattern: "gen/",
    });
    expect(explain("src/secret.txt", [], tree.dir).reasons[0]).toMatchObject({
      stage: "ignore",
      file: join(tree.dir, "src", ".ignore"),
      line: 1,
    });
    expect(explain("docs/readme.md", [], tree.dir).reasons[0]).toMatchObject({
      stage: "ignore",
      file: join(tree.dir, ".git", "info", "exclude"),
      line: 1,
      pattern: "docs/readme.md",
    });
    const kept = explain("keep.log", [], tree.dir);
    expect(kept.included).toBe(true);
    expect(kept.reasons[0]).toMatchObject({ stage: "ignore", line: 3, pattern: "!keep.log" });
    expect(explain("link/main.py", [], tree.dir).reasons[0]?.stage).toBe("symlink");
    expect(relative(tree.dir, explain("link", [], tree.dir).path)).toBe("link");
  });

  test("with globs anchored by './' and globs ending in '/' (directories only)", () => {
    const t = tempTree({
      "a.txt": "",
      "sub/a.txt": "",
      "f.md": "",
      "build/out.o": "",
      "src/build": "a file named build",
      "src/x/y.c": "",
      lnk: { symlink: "src/x" },
    });
    try {
      agree(
        t.dir,
        [
          ["--glob", "./a.txt"],
          ["--glob", "./*.txt"],
          ["--glob", "f.md/"],
          ["--glob", "*/"],
          ["--glob", "build/"],
          ["--glob", "src/*/"],
          ["-L", "--glob", "*/"],
          ["-E", "./a.txt"],
          ["-E", "build/"],
          ["-L", "-E", "lnk/"],
        ],
        true,
      );
      expect(explain("sub/a.txt", ["--glob", "./a.txt"], t.dir).included).toBe(false);
      expect(explain("f.md", ["--glob", "f.md/"], t.dir).reasons[0]?.detail).toContain("directories only");
      expect(explain("src/build", ["-E", "build/"], t.dir).included).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  test("with symlinks: not followed, followed, loops and links that leave the base", () => {
    const links = tempTree({ "a/b/f.txt": "f", "a/c.txt": "c" });
    const outside = tempTree({ "x.txt": "x" });
    try {
      symlinkSync("..", join(links.dir, "a", "b", "up"));
      symlinkSync(join(links.dir, "a"), join(links.dir, "lnk"));
      symlinkSync(outside.dir, join(links.dir, "out"));
      // Links that lead nowhere (a missing target, a path through a file) and a loop of two links.
      symlinkSync("nowhere", join(links.dir, "dangling"));
      symlinkSync("c.txt/x", join(links.dir, "a", "through-file"));
      symlinkSync("loop2", join(links.dir, "loop1"));
      symlinkSync("loop1", join(links.dir, "loop2"));
      const through = ["lnk/b/f.txt", "lnk/c.txt", "a/b/up/b", "a/b/up/b/f.txt", "lnk/b/up", "out/x.txt"];
      const entries = [...allEntries(links.dir), ...through];
      const queries = [[], ["-L"], ["-L", "--strict-base"], ["-L", "--max-depth", "3"], ["-L", "-t", "l"]];
      for (const q of queries) {
        const listed = findSet(["--hidden", ...q], links.dir);
        for (const rel of entries) {
          const r = explain(rel, ["--hidden", ...q], links.dir);
          if (r.included !== listed.has(rel)) {
            throw new Error(
              `explain ${rel} ${q.join(" ")}: included=${r.included}; ${JSON.stringify(r.reasons)}`,
            );
          }
        }
      }
      expect(explain("a/b/up/b/f.txt", ["-L"], links.dir).reasons[0]?.detail).toContain("loop");
      // #37: a link out of the base is listed as a link, not followed; what is below it is outside_base.
      expect(explain("out", ["-L", "--strict-base"], links.dir).included).toBe(true);
      expect(explain("out/x.txt", ["-L", "--strict-base"], links.dir).reasons[0]?.stage).toBe("outside_base");
      expect(explain("dangling", ["-L", "--strict-base", "-t", "l"], links.dir).included).toBe(true);
      // A loop of links under -L is a link that leads nowhere (#37): listed as a link, as find -L -t l lists it.
      const loop = explain("loop1", ["-L", "-t", "l"], links.dir);
      expect(loop.included).toBe(true);
      expect(loop.reasons[0]?.detail).toBe(
        "it is the symlink loop1 -> loop2, broken: the links loop; listed as a link",
      );
    } finally {
      links.cleanup();
      outside.cleanup();
    }
  });

  const hasSetpriv = existsSync("/usr/bin/setpriv") || existsSync("/bin/setpriv");
  test.skipIf(!hasSetpriv)(
    "a directory the user cannot search: unreadable, as the walk reports it (run as nobody; skipped without setpriv)",
    () => {
      const t = tempTree({ "locked/secret.txt": "s", "open.txt": "o" });
      try {
        chmodSync(t.dir, 0o755);
        chmodSync(join(t.dir, "locked"), 0o000);
        const asNobody = (args: string[]) => {
          const r = Bun.spawnSync(
            [
              "setpriv",
              "--reuid=65534",
              "--regid=65534",
              "--clear-groups",
              BIN,
              ...args,
              "--base",
              t.dir,
              "--json",
            ],
            { stdout: "pipe", stderr: "pipe", env: { ...process.env, HOME: "/nonexistent" } },
          );
          return JSON.parse(r.stdout.toString()) as {
            results: Explanation[];
            errors: Array<{ code: string }>;
          };
        };
        const found = asNobody(["find"]);
        expect(found.results.map((r) => (r as unknown as { relative_path: string }).relative_path)).toEqual([
          "locked",
          "open.txt",
        ]);
        expect(found.errors.map((e) => e.code)).toEqual(["PERM"]);
        const r = asNobody(["explain", "locked/secret.txt"]).results[0] as Explanation;
        expect(r.included).toBe(false);
        expect(r.reasons).toMatchObject([
          { stage: "unreadable", detail: expect.stringContaining("permission denied") },
        ]);
      } finally {
        chmodSync(join(t.dir, "locked"), 0o755);
        t.cleanup();
      }
    },
  );

  test("names the global excludes file (core.excludesFile, else $XDG_CONFIG_HOME/git/ignore)", () => {
    const t = tempTree({ "repo/a.bak": "b", "repo/a.txt": "t", "home/xdg/git/ignore": "# global\n*.bak\n" });
    try {
      mkdirSync(join(t.dir, "repo", ".git"));
      const env = { HOME: join(t.dir, "home"), XDG_CONFIG_HOME: join(t.dir, "home", "xdg") };
      const { json } = rglobJson<{ results: Explanation[] }>(["explain", "a.bak", "--json"], {
        cwd: join(t.dir, "repo"),
        env,
      });
      expect(json.results[0]?.reasons).toMatchObject([
        { stage: "ignore", file: join(t.dir, "home", "xdg", "git", "ignore"), line: 2, pattern: "*.bak" },
      ]);
      const found = rglobJson<{ results: Array<{ relative_path: string }> }>(["find", "--json"], {
        cwd: join(t.dir, "repo"),
        env,
      }).json.results.map((r) => r.relative_path);
      expect(found).toEqual(["a.txt"]);
    } finally {
      t.cleanup();
    }
  });
});
