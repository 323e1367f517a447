// find through the compiled binary on real temp trees: kinds, predicates, symlinks, FIFOs, unreadable
// directories, non-UTF-8 names, ordering, output forms, streaming, budgets and cursors.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, FIXTURE, jsonl, randomWalkTree, rglob, rglobJson, tempTree } from "../helpers.ts";

interface Result {
  results: Array<{
    path: string;
    path_bytes?: string;
    relative_path: string;
    size: number;
    mtime: string;
    kinds: string[];
  }>;
  errors: Array<{ code: string; message: string; path: string | null }>;
  truncated: boolean;
  truncated_reason: string | null;
  next_cursor: string | null;
}

function find(args: string[], cwd: string): Result {
  const { json, run } = rglobJson<Result>(["find", ...args, "--json"], { cwd });
  // Exit 2 with error records is a run that went on past per-path errors (as rg and fd exit); without any, a failure.
  if (run.code === 2 && !(json?.errors?.length > 0)) throw new Error(run.stdout + run.stderr);
  return json;
}
const rels = (r: Result) => r.results.map((x) => x.relative_path);

function sh(cmd: string[], cwd: string): boolean {
  return Bun.spawnSync(cmd, { cwd, stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

describe("kinds (--type, OR'd)", () => {
  const t = tempTree({
    "file.txt": "hello",
    "empty.txt": "",
    "run.sh": "#!/bin/sh\n",
    "dir/inner.txt": "x",
    emptydir: null,
    link: { symlink: "file.txt" },
  });
  chmodSync(join(t.dir, "run.sh"), 0o755);
  sh(["mkfifo", "fifo"], t.dir);
  const haveSocket = sh(["python3", "-c", "import socket;socket.socket(socket.AF_UNIX).bind('sock')"], t.dir);
  test.each([
    [
      ["-t", "f"],
      ["dir/inner.txt", "empty.txt", "file.txt", "run.sh"],
    ],
    [
      ["-t", "d"],
      ["dir", "emptydir"],
    ],
    [["-t", "l"], ["link"]],
    [["-t", "x"], ["run.sh"]],
    [
      ["-t", "e"],
      ["empty.txt", "emptydir"],
    ],
    [["-t", "p"], ["fifo"]],
    // x is a condition on top of the kinds, as fd combines them (#22): executable files, not every link.
    [["-t", "x", "-t", "l"], ["run.sh"]],
    [["--type=d,l"], ["dir", "emptydir", "link"]],
  ])("%p", (args, want) => {
    expect(rels(find(args, t.dir))).toEqual(want);
  });
  test.skipIf(!haveSocket)("-t s lists a socket (skipped without a Unix socket)", () => {
    expect(rels(find(["-t", "s"], t.dir))).toEqual(["sock"]);
  });
  test("an empty directory's kinds say 'e', whatever the query (it was listed by -t e without it)", () => {
    const kindsBy = (args: string[]) =>
      Object.fromEntries(find(args, t.dir).results.map((r) => [r.relative_path, r.kinds.join("")]));
    for (const args of [["-t", "e"], ["-t", "d"], []]) {
      const got = kindsBy(args);
      expect([args, got.emptydir]).toEqual([args, "de"]);
      if ("dir" in got) expect([args, got.dir]).toEqual([args, "d"]);
    }
    const tree = rglobJson<{ results: Array<{ relative_path: string; kinds: string[] }> }>(
      ["tree", "--json"],
      {
        cwd: t.dir,
      },
    ).json.results;
    expect(tree.find((r) => r.relative_path === "emptydir")?.kinds).toEqual(["d", "e"]);
  });
  test("a FIFO is listed with its kind and never opened (the walk does not hang)", () => {
    // A predicate that reads stats (a size bound would leave it out: sizes select regular files only).
    const r = find(["fifo", "--newer-than", "100y"], t.dir);
    expect(r.results).toEqual([expect.objectContaining({ relative_path: "fifo", kinds: ["p"] })]);
  });
});

describe("predicates on a temp tree", () => {
  const t = tempTree({
    "small.txt": "a",
    "big.bin": "x".repeat(5000),
    "old.txt": "o",
    "ref.txt": "r",
    "new.txt": "n",
    "a/b/c/deep.txt": "d",
    ".hidden/h.txt": "h",
    "skip/inner.txt": "s",
    "keep/skip.txt": "k",
  });
  utimesSync(join(t.dir, "old.txt"), new Date("2020-01-01T00:00:00Z"), new Date("2020-01-01T00:00:00Z"));
  utimesSync(join(t.dir, "ref.txt"), new Date("2024-01-01T00:00:00Z"), new Date("2024-01-01T00:00:00Z"));
  chmodSync(join(t.dir, "small.txt"), 0o600);
  test.each([
    [["-t", "f", "--min-size", "1k"], ["big.bin"]],
    [["-t", "f", "--min-size", "+4KiB", "--max-size", "5000"], ["big.bin"]],
    [
      ["-t", "f", "--max-size", "-1", "-d", "1"],
      ["new.txt", "old.txt", "ref.txt", "small.txt"],
    ],
    [["-t", "f", "--older-than", "2021-01-01"], ["old.txt"]],
    [
      ["-t", "f", "--newer-than", "2019-06-01", "--older-than", "2024-06-01T00:00:00Z"],
      ["old.txt", "ref.txt"],
    ],
    [
      ["-t", "f", "--newer-than-file", "ref.txt", "-d", "1"],
      ["big.bin", "new.txt", "small.txt"],
    ],
    [["-t", "f", "--perm", "600"], ["small.txt"]],
    [
      ["-t", "f", "--perm", "/044", "-d", "1"],
      ["big.bin", "new.txt", "old.txt", "ref.txt"],
    ],
    [["-t", "f", "--uid", "0", "-d", "1", "*.bin"], ["big.bin"]],
    [["-t", "f", "--uid", "4242"], []],
    [["-t", "f", "--gid", "0", "deep.txt"], ["a/b/c/deep.txt"]],
    [
      ["--max-depth", "2", "-t", "d"],
      [".hidden", "a", "a/b", "keep", "skip"],
    ],
    [
      ["--min-depth", "3"],
      ["a/b/c", "a/b/c/deep.txt"],
    ],
    [["-H", "h.txt"], [".hidden/h.txt"]],
    [["h.txt"], [".hidden/h.txt"]],
    [["--no-hidden", "h.txt"], []],
    [
      ["-E", "skip", "-t", "f", "*.txt", "-d", "2"],
      [".hidden/h.txt", "keep/skip.txt", "new.txt", "old.txt", "ref.txt", "small.txt"],
    ],
    [["-E", "skip/", "*skip*"], ["keep/skip.txt"]],
    [["a/**/*.txt"], ["a/b/c/deep.txt"]],
    [["*/*.txt"], [".hidden/h.txt", "keep/skip.txt", "skip/inner.txt"]],
  ])("%p", (args, want) => {
    expect(rels(find(args, t.dir))).toEqual(want);
  });
  test("--exclude prunes: nothing below an excluded directory is examined", () => {
    const all = rglobJson<{ total_files_searched: number }>(["find", "--json"], { cwd: t.dir }).json;
    const pruned = rglobJson<{ total_files_searched: number }>(["find", "-E", "a", "--json"], {
      cwd: t.dir,
    }).json;
    // Files only (directories are not counted): deep.txt is the one file below a.
    expect(all.total_files_searched - pruned.total_files_searched).toBe(1);
    expect(
      rglobJson<{ skipped: { excluded: number } }>(["find", "-E", "a", "--json"], { cwd: t.dir }).json.skipped
        .excluded,
    ).toBe(1); // a, pruned once
  });
  test.each([
    [["--min-depth", "3", "--max-depth", "1"], "min_depth"],
    [["--newer-than-file", "nope.txt"], "newer_than_file"],
    [["--uid", "-1"], "uid"],
  ])("bad %p exits 2", (args, msg) => {
    const r = rglob(["find", ...args], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
  });
});

describe("--max-depth 0", () => {
  const t = tempTree({ "top.txt": "hi\n", "a/mid.txt": "hi\n", "a/b/deep.txt": "hi\n" });
  afterAll(() => t.cleanup());
  test("lists nothing below the base (fd --max-depth 0), with and without walk workers", () => {
    for (const split of ["0", "3"]) {
      const env = { RGLOB_WALK_SPLIT: split };
      const r = rglob(["find", "--max-depth", "0"], { cwd: t.dir, env });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
      const { json } = rglobJson<Result & { total_files_searched: number }>(
        ["find", "--max-depth", "0", "--json"],
        { cwd: t.dir, env },
      );
      expect(json.results).toEqual([]);
      expect(json.total_files_searched).toBe(0);
      for (const args of [["tree"], ["stats"], ["count"], ["grep", "hi"]]) {
        const run = rglob([...args, "--max-depth", "0", "--json"], { cwd: t.dir, env });
        expect(run.code).toBe(1);
        expect(JSON.parse(run.stdout)).toMatchObject({ total_files_searched: 0, errors: [] });
      }
    }
    expect(rels(find(["--max-depth", "1"], t.dir))).toEqual(["a", "top.txt"]);
  });
  test("a root that is a single file is at depth 0 and still searched", () => {
    expect(rels(find(["--path", "top.txt", "--max-depth", "0"], t.dir))).toEqual(["top.txt"]);
    const g = rglob(["grep", "-l", "hi", "top.txt", "a", "--max-depth", "0"], { cwd: t.dir });
    expect({ code: g.code, stdout: g.stdout }).toEqual({ code: 0, stdout: "top.txt\n" });
  });
});

describe("impossible dates are refused, not rolled over", () => {
  const t = tempTree({ "leap.txt": "x" });
  utimesSync(join(t.dir, "leap.txt"), new Date("2024-02-29T12:00:00Z"), new Date("2024-02-29T12:00:00Z"));
  afterAll(() => t.cleanup());
  test.each([
    ["--newer-than", "2024-02-30"],
    ["--newer-than", "2024-04-31"],
    ["--older-than", "2023-02-29"],
    ["--newer-than", "2024-02-28T25:00"],
    ["--older-than", "2024-02-28T12:60"],
  ])("%s %s is BAD_PREDICATE (exit 2) naming the value", (flag, value) => {
    for (const op of ["find", "explain leap.txt"]) {
      const r = rglob([...op.split(" "), flag, value], { cwd: t.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("BAD_PREDICATE");
      expect(r.stderr).toContain(`'${value}'`);
    }
  });
  test("the real leap day and the day before it still work", () => {
    expect(rels(find(["--newer-than", "2024-02-29"], t.dir))).toEqual(["leap.txt"]);
    expect(rels(find(["--older-than", "2024-02-29T12:00:01Z"], t.dir))).toEqual(["leap.txt"]);
  });
});

describe("case sensitivity", () => {
  test("describe lists --case-insensitive as the negation of --case-sensitive", () => {
    const { json } = rglobJson<{ flags: Array<{ name: string; negations: string[] }> }>(["describe", "find"]);
    expect(json.flags.find((f) => f.name === "--case-sensitive")?.negations).toEqual(["--case-insensitive"]);
  });

  const t = tempTree({ "A.TXT": "", "b.txt": "" });
  test.each([
    [["*.txt", "--case-sensitive"], ["b.txt"]],
    [
      ["*.txt", "--no-case-sensitive"],
      ["A.TXT", "b.txt"],
    ],
    [
      ["*.txt", "--case-insensitive"],
      ["A.TXT", "b.txt"],
    ],
    [["*.txt", "-s"], ["b.txt"]],
  ])("%p", (args, want) => {
    expect(rels(find(args, t.dir))).toEqual(want);
  });
});

describe("glob forms: './', a trailing '/', POSIX classes, error messages", () => {
  const t = tempTree({
    "a.txt": "",
    "sub/a.txt": "",
    "sub/b.txt": "",
    "f.md": "",
    "build/out.o": "",
    "src/build": "a file named build",
    "src/x/y.c": "",
    "src/z.c": "",
    lnk: { symlink: "src/x" },
  });
  test.each([
    // './' holds a '/': anchored at the base like '/a.txt', not a basename glob.
    [["./a.txt"], ["a.txt"]],
    [["./*.txt"], ["a.txt"]],
    [["/a.txt"], ["a.txt"]],
    [
      ["-t", "f", "-E", "./a.txt"],
      ["build/out.o", "f.md", "src/build", "src/x/y.c", "src/z.c", "sub/a.txt", "sub/b.txt"],
    ],
    // A trailing '/': directories only, the rest classified as without it.
    [["f.md/"], []],
    [["*/"], ["build", "src", "src/x", "sub"]],
    [["build/"], ["build"]],
    [["build"], ["build", "src/build"]],
    [["src/*/"], ["src/x"]],
    [
      ["-L", "*/"],
      ["build", "lnk", "src", "src/x", "sub"],
    ],
    [["-E", "build/", "-t", "f", "*build*"], ["src/build"]],
    [
      ["-E", "*/", "-t", "f"],
      ["a.txt", "f.md"],
    ],
  ])("%p", (args, want) => {
    expect(rels(find(args, t.dir))).toEqual(want);
  });

  test("POSIX classes in brackets select as GNU find -name does (ASCII)", () => {
    const c = tempTree({ a: "", b: "", "1": "", ":]": "", "a]": "", _: "" });
    try {
      expect(rels(find(["[[:alpha:]]"], c.dir))).toEqual(["a", "b"]);
      expect(rels(find(["[![:digit:]]"], c.dir))).toEqual(["_", "a", "b"]);
      expect(rels(find(["[[:digit:]_]"], c.dir))).toEqual(["1", "_"]);
    } finally {
      c.cleanup();
    }
  });

  test.each([
    ["[[:foo:]]", "rglob: BAD_PREDICATE: bad glob '[[:foo:]]': unknown character class '[:foo:]'"],
    ["{a,b", "rglob: BAD_PREDICATE: bad glob '{a,b': unclosed '{'\n"],
    ["x\\", "rglob: BAD_PREDICATE: bad glob 'x\\': trailing backslash\n"],
  ])("bad glob %p exits 2 with one clear message", (glob, message) => {
    const r = rglob(["find", glob], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toStartWith(message);
  });
});

describe("symlinks", () => {
  test("a loop under --follow is reported once per cycle and the walk goes on", () => {
    const t = tempTree({ "d/file.txt": "x", "d/loop": { symlink: ".." }, "z.txt": "z" });
    try {
      const r = find(["-L", "-t", "f"], t.dir);
      expect(rels(r)).toEqual(["d/file.txt", "z.txt"]);
      expect(r.errors.map((e) => e.message)).toEqual([expect.stringContaining("loop")]);
    } finally {
      t.cleanup();
    }
  });
  test("a chain of links is followed to its target with -L, listed as links without", () => {
    const t = tempTree({ "real/f.txt": "x", l1: { symlink: "real" }, l2: { symlink: "l1" } });
    try {
      expect(rels(find(["-t", "l"], t.dir))).toEqual(["l1", "l2"]);
      expect(rels(find(["-L", "-t", "f"], t.dir))).toEqual(["l1/f.txt", "l2/f.txt", "real/f.txt"]);
      const r = find(["-L", "l2"], t.dir);
      expect(r.results[0]?.kinds).toEqual(["d", "l"]);
    } finally {
      t.cleanup();
    }
  });
  test("a dangling link is listed as a link, with -L too (as fd -L and find -L list it), and is no error", () => {
    // "through-file" leads through a regular file (ENOTDIR): it leads nowhere as well.
    const t = tempTree({
      dangling: { symlink: "nowhere" },
      "ok.txt": "",
      "through-file": { symlink: "ok.txt/x" },
    });
    try {
      expect(rels(find([], t.dir))).toEqual(["dangling", "ok.txt", "through-file"]);
      for (const split of ["0", "3"]) {
        for (const q of [["-L"], ["-L", "--strict-base"]]) {
          const { json, run } = rglobJson<Result>(["find", ...q, "--json"], {
            cwd: t.dir,
            env: { RGLOB_WALK_SPLIT: split },
          });
          expect(run.code).toBe(0);
          expect(json.errors).toEqual([]);
          expect(json.results.map((x) => [x.relative_path, x.kinds])).toEqual([
            ["dangling", ["l"]],
            ["ok.txt", ["f", "e"]],
            ["through-file", ["l"]],
          ]);
        }
      }
      expect(rels(find(["-L", "-t", "l"], t.dir))).toEqual(["dangling", "through-file"]);
      expect(rels(find(["-L", "-t", "f"], t.dir))).toEqual(["ok.txt"]);
      // A size bound selects files only (#22): a link that leads nowhere has no file size to compare.
      expect(rels(find(["-L", "--max-size", "1000"], t.dir))).toEqual(["ok.txt"]);
    } finally {
      t.cleanup();
    }
  });
  test("a symlink loop (a -> b -> a) under -L is a link that leads nowhere: listed, no error (#37)", () => {
    // GNU find -L reports each as "Too many levels of symbolic links" (exit 1), fd -L leaves them out; here they
    // are broken links, as --link broken and link_target_exists say, so -L -t l lists them (ADR 0027).
    const t = tempTree({ a: { symlink: "b" }, b: { symlink: "a" }, "ok.txt": "" });
    try {
      const r = find(["-L"], t.dir);
      expect(rels(r)).toEqual(["a", "b", "ok.txt"]);
      expect(r.errors).toEqual([]);
      expect(rels(find(["-L", "-t", "l"], t.dir))).toEqual(["a", "b"]);
      expect(rels(find(["-t", "l"], t.dir))).toEqual(["a", "b"]);
    } finally {
      t.cleanup();
    }
  });
  test("strict_base: a link out of the base is a link record (link_escapes), not followed (#37)", () => {
    const outside = tempTree({ "secret.txt": "s" });
    const t = tempTree({ "in.txt": "", out: { symlink: outside.dir } });
    try {
      const r = find(["-L", "--strict-base"], t.dir);
      expect(rels(r)).toEqual(["in.txt", "out"]);
      expect(r.errors).toEqual([]);
      expect(rels(find(["-L"], t.dir))).toEqual(["in.txt", "out", "out/secret.txt"]);
    } finally {
      t.cleanup();
      outside.cleanup();
    }
  });
});

describe("problem entries", () => {
  const setpriv = Bun.which("setpriv");
  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(!setpriv)("an unreadable directory is a PERM record and the walk goes on (skipped without setpriv)", () => {
    const t = tempTree({ "a/locked/x.txt": "", "b.txt": "", "c/d.txt": "" });
    chmodSync(t.dir, 0o755);
    chmodSync(join(t.dir, "a"), 0o755);
    chmodSync(join(t.dir, "a", "locked"), 0o000);
    try {
      const res = Bun.spawnSync(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", BIN, "find", "-t", "f", "--json"],
        { cwd: t.dir, env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe" },
      );
      const r = JSON.parse(res.stdout.toString()) as Result;
      expect(rels(r)).toEqual(["b.txt", "c/d.txt"]);
      expect(r.errors).toEqual([expect.objectContaining({ code: "PERM", path: join(t.dir, "a", "locked") })]);
      expect(res.exitCode).toBe(2); // an error occurred, as rg and fd exit (#22)
    } finally {
      chmodSync(join(t.dir, "a", "locked"), 0o755);
      t.cleanup();
    }
  });
  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(!setpriv)("an entry listed but not statable is a PERM record, not a size 0 from 1970 (skipped without setpriv)", () => {
    // A directory with read but no search permission: its names can be listed, their stats not read.
    const t = tempTree({ "noexec/d.txt": "data", "ok.txt": "ok" });
    chmodSync(t.dir, 0o755);
    chmodSync(join(t.dir, "noexec"), 0o644);
    const asNobody = (args: string[]) =>
      Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", BIN, ...args], {
        cwd: t.dir,
        env: { ...process.env, NO_COLOR: "1", HOME: "/nonexistent" },
        stdout: "pipe",
        stderr: "pipe",
      });
    const locked = join(t.dir, "noexec", "d.txt");
    try {
      for (const args of [["find", "-t", "f"], ["find", "-t", "f", "--sort", "mtime"], ["top"], ["stats"]]) {
        const res = asNobody([...args, "--json"]);
        const r = JSON.parse(res.stdout.toString()) as {
          results: Array<{ relative_path?: string; path?: string }>;
          errors: Result["errors"];
        };
        expect([args, r.errors]).toEqual([args, [expect.objectContaining({ code: "PERM", path: locked })]]);
        const listed = JSON.stringify(r.results);
        expect([args, listed.includes("d.txt")]).toEqual([args, false]);
      }
      // The paths-only listing needs no stats: it names the entry, as find(1) does.
      expect(asNobody(["find", "-t", "f"]).stdout.toString()).toBe("noexec/d.txt\nok.txt\n");
    } finally {
      chmodSync(join(t.dir, "noexec"), 0o755);
      t.cleanup();
    }
  });
  test("a non-UTF-8 name is found, with path_bytes, and a directory so named is walked (#21)", () => {
    const t = tempTree({ "a.txt": "", "z/z.txt": "" });
    try {
      const bad = Buffer.concat([
        Buffer.from(`${t.dir}/bad-`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(".txt"),
      ]);
      writeFileSync(bad, "x");
      const dir = Buffer.concat([Buffer.from(`${t.dir}/dir-`), Buffer.from([0xc3])]);
      mkdirSync(dir);
      writeFileSync(Buffer.concat([dir, Buffer.from("/in.txt")]), "");
      const r = find(["-t", "f"], t.dir);
      expect(rels(r)).toEqual(["a.txt", "bad-\ufffd\ufffd.txt", "dir-\ufffd/in.txt", "z/z.txt"]);
      expect(r.errors).toEqual([]);
      expect(
        r.results.map((x) => (x.path_bytes ? Buffer.from(x.path_bytes, "base64").toString("hex") : null)),
      ).toEqual([
        null,
        bad.toString("hex"),
        Buffer.concat([dir, Buffer.from("/in.txt")]).toString("hex"),
        null,
      ]);
    } finally {
      t.cleanup();
    }
  });
  test("a valid UTF-8 name holding U+FFFD and a non-UTF-8 one of the same look are both found and searched (#21)", () => {
    const t = tempTree({ "a\ufffd.txt": "needle\n" });
    try {
      writeFileSync(
        Buffer.concat([Buffer.from(`${t.dir}/a`), Buffer.from([0xff]), Buffer.from(".txt")]),
        "needle\n",
      );
      const r = find(["-t", "f"], t.dir);
      // A byte that is not valid UTF-8 sorts after every character (U+FFFD included).
      expect(rels(r)).toEqual(["a\ufffd.txt", "a\ufffd.txt"]);
      expect(r.results.map((x) => x.path_bytes !== undefined)).toEqual([false, true]);
      expect(r.errors).toEqual([]);
      const g = JSON.parse(rglob(["grep", "-l", "needle", "--json"], { cwd: t.dir }).stdout) as {
        results: Array<{ relative_path: string; path_bytes?: string }>;
      };
      expect(g.results.map((x) => [x.relative_path, x.path_bytes !== undefined])).toEqual([
        ["a\ufffd.txt", false],
        ["a\ufffd.txt", true],
      ]);
    } finally {
      t.cleanup();
    }
  });
});

describe("order and output forms", () => {
  const t = tempTree({ "b.txt": "bb", "a/z.txt": "zzzz", "a/y.txt": "y", "c.txt": "ccc", "B.txt": "" });
  utimesSync(join(t.dir, "c.txt"), new Date(1_000_000), new Date(1_000_000));
  test.each([
    [[], ["B.txt", "a/y.txt", "a/z.txt", "b.txt", "c.txt"]],
    [
      ["--sort", "path", "--reverse"],
      ["c.txt", "b.txt", "a/z.txt", "a/y.txt", "B.txt"],
    ],
    [
      ["--sort", "size"],
      ["B.txt", "a/y.txt", "b.txt", "c.txt", "a/z.txt"],
    ],
    [
      ["--sort", "size", "-r"],
      ["a/z.txt", "c.txt", "b.txt", "a/y.txt", "B.txt"],
    ],
    [
      ["--sort", "name"],
      ["B.txt", "b.txt", "c.txt", "a/y.txt", "a/z.txt"],
    ],
    [
      ["--sort", "mtime", "-t", "f", "-d", "1"],
      ["c.txt", "B.txt", "b.txt"],
    ],
  ])("-t f %p", (args, want) => {
    const got = rels(find(["-t", "f", ...args], t.dir));
    if (args.includes("mtime")) expect(got[0]).toBe(want[0] as string);
    else expect(got).toEqual(want);
  });
  test("--reverse turns the sort key around but not the ties: equal sizes, times and names stay in path order", () => {
    const ties = tempTree({ "b.txt": "xx", "a.txt": "yy", "c/a.txt": "zz", "d.txt": "w" });
    try {
      for (const f of ["b.txt", "a.txt", "c/a.txt"])
        utimesSync(join(ties.dir, f), new Date(5_000_000), new Date(5_000_000));
      utimesSync(join(ties.dir, "d.txt"), new Date(1_000_000), new Date(1_000_000));
      expect(rels(find(["-t", "f", "--sort", "size", "-r"], ties.dir))).toEqual([
        "a.txt",
        "b.txt",
        "c/a.txt",
        "d.txt",
      ]);
      expect(rels(find(["-t", "f", "--sort", "mtime", "-r"], ties.dir))).toEqual([
        "a.txt",
        "b.txt",
        "c/a.txt",
        "d.txt",
      ]);
      expect(rels(find(["-t", "f", "--sort", "name", "-r"], ties.dir))).toEqual([
        "d.txt",
        "b.txt",
        "a.txt",
        "c/a.txt",
      ]);
    } finally {
      ties.cleanup();
    }
  });
  test("siblings come in code point order, an astral character after every BMP one (UTF-16 order differs)", () => {
    // U+1F600 is stored as the surrogates D83D DE00, which UTF-16 order puts before U+FF5E; code point order
    // puts it last. A directory without astral names is sorted natively, one with them by a comparator.
    const u = tempTree({
      "\u{1F600}.txt": "",
      "\uFF5E.txt": "",
      "a.txt": "",
      "Z.txt": "",
      "plain/\uFF5E.txt": "",
      "plain/a.txt": "",
      "\u{1F600}/\u{10000}.txt": "",
      "\u{1F600}/\uE000.txt": "",
    });
    expect(rels(find([], u.dir))).toEqual([
      "Z.txt",
      "a.txt",
      "plain",
      "plain/a.txt",
      "plain/\uFF5E.txt",
      "\uFF5E.txt",
      "\u{1F600}",
      "\u{1F600}/\uE000.txt",
      "\u{1F600}/\u{10000}.txt",
      "\u{1F600}.txt",
    ]);
    u.cleanup();
  });
  test("-0 separates with NUL; human paths are relative to cwd", () => {
    const r = rglob(["find", "-t", "f", "-0", "*.txt", "-d", "1"], { cwd: t.dir });
    expect(r.stdout).toBe("B.txt\0b.txt\0c.txt\0");
    const sub = rglob(["find", "--base", t.dir, "y.txt"], { cwd: join(t.dir, "a") });
    expect(sub.stdout).toBe("y.txt\n");
  });
  test("a name that begins with two dots is inside the current directory: shown relative, as fd and grep do", () => {
    const dots = tempTree({ "..foo": "", "...": "", "..dir/t.txt": "TODO\n" });
    try {
      expect(rglob(["find", "-H"], { cwd: dots.dir }).stdout).toBe("...\n..dir\n..dir/t.txt\n..foo\n");
      expect(rglob(["grep", "-H", "TODO"], { cwd: dots.dir }).stdout).toBe("..dir/t.txt:1:TODO\n");
      // From a subdirectory, a path above it is still shown absolute.
      const up = rglob(["find", "-H", "--base", dots.dir, "..foo"], { cwd: join(dots.dir, "..dir") });
      expect(up.stdout).toBe(`${join(dots.dir, "..foo")}\n`);
    } finally {
      dots.cleanup();
    }
  });
  test("--format templates", () => {
    const r = rglob(["find", "-t", "f", "a/*", "--format", "{rel}\\t{name}\\t{size}\\t{kinds}"], {
      cwd: t.dir,
    });
    expect(r.stdout).toBe("a/y.txt\ty.txt\t1\tf\na/z.txt\tz.txt\t4\tf\n");
  });
  test("--jsonl streams records then one summary", () => {
    const lines = jsonl(rglob(["find", "-t", "f", "--jsonl"], { cwd: t.dir }).stdout);
    expect(lines.map((l) => l.kind)).toEqual(["file", "file", "file", "file", "file", "summary"]);
  });
});

describe("budgets and cursors", () => {
  const spec: Record<string, string> = {};
  for (let i = 0; i < 30; i++)
    spec[`d${i % 4}/f${String(i).padStart(2, "0")}.txt`] = "x".repeat((i * 7) % 11);
  const t = tempTree(spec);
  const full = (extra: string[]) => rels(find(["-t", "f", ...extra], t.dir));

  test.each([
    [[]],
    [["--sort", "size"]],
    [["--sort", "size", "-r"]],
    [["--sort", "name", "-r"]],
    [["--sort", "mtime"]],
  ])("paging %p to the end yields exactly the unpaged list", (extra) => {
    const want = full(extra);
    const got: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page++) {
      const r = find(["-t", "f", ...extra, "--limit", "7", ...(cursor ? ["--cursor", cursor] : [])], t.dir);
      got.push(...rels(r));
      cursor = r.next_cursor;
      if (!r.truncated) break;
      expect(r.truncated_reason).toBe("limit");
    }
    expect(got).toEqual(want);
    expect(new Set(got).size).toBe(got.length);
  });
  test("a sorted page resumes correctly even when its last file vanished in between", () => {
    const own = tempTree(
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, "x".repeat(i % 5)])),
    );
    try {
      const want = rels(find(["-t", "f", "--sort", "size"], own.dir));
      const first = find(["-t", "f", "--sort", "size", "--limit", "5"], own.dir);
      const last = rels(first).at(-1) as string;
      rmSync(join(own.dir, last));
      const rest = find(["-t", "f", "--sort", "size", "--cursor", first.next_cursor as string], own.dir);
      expect([...rels(first), ...rels(rest)]).toEqual(want);
    } finally {
      own.cleanup();
    }
  });
  test("look-ahead: a limit equal to the count is not truncated", () => {
    const r = find(["-t", "f", "--limit", "30"], t.dir);
    expect(r.truncated).toBe(false);
    expect(r.next_cursor).toBeNull();
  });
  test("--max-output-bytes truncates with a cursor that resumes", () => {
    const r = find(["-t", "f", "--max-output-bytes", "800"], t.dir);
    expect(r.truncated_reason).toBe("max_output_bytes");
    const rest = find(["-t", "f", "--cursor", r.next_cursor as string], t.dir);
    expect([...rels(r), ...rels(rest)]).toEqual(full([]));
  });
  test.each([
    ["from another query", () => find(["-t", "d", "--limit", "1"], t.dir).next_cursor as string],
    ["mangled", () => "bm90IGEgY3Vyc29y"],
    ["garbage", () => "%%%"],
  ])("a cursor %s is BAD_PREDICATE, exit 2", (_n, make) => {
    const { json, run } = rglobJson<{ error: { code: string } }>(
      ["find", "-t", "f", "--cursor", make(), "--json"],
      {
        cwd: t.dir,
      },
    );
    expect(run.code).toBe(2);
    expect(json.error.code).toBe("BAD_PREDICATE");
  });
});

describe("streaming and timeouts on a large tree", () => {
  const big = tempTree({});
  for (let d = 0; d < 200; d++) {
    mkdirSync(join(big.dir, `d${d}`));
    for (let f = 0; f < 150; f++) writeFileSync(join(big.dir, `d${d}`, `f${f}`), "");
  }
  test("the first JSONL line arrives while the walk still runs", async () => {
    // stdout is a FIFO we read by hand: the kernel buffer (64 KiB) is far smaller than the output (MBs), so a
    // streaming walk blocks early in the first directories. A file created in the LAST directory after the
    // first line was read shows up in the output only if that directory had not been walked yet.
    const fifoDir = mkdtempSync(join(tmpdir(), "rglob-fifo-"));
    const fifo = join(fifoDir, "out");
    expect(sh(["mkfifo", fifo], fifoDir)).toBe(true);
    const p = Bun.spawn(["sh", "-c", 'exec "$0" find --jsonl > "$1"', BIN, fifo], { cwd: big.dir });
    const fd = openSync(fifo, "r");
    try {
      const buf = Buffer.alloc(1 << 16);
      let text = "";
      while (!text.includes("\n")) {
        const n = readSync(fd, buf);
        if (n === 0) break;
        text += buf.toString("utf8", 0, n);
      }
      expect(JSON.parse(text.slice(0, text.indexOf("\n"))).kind).toBe("file");
      writeFileSync(join(big.dir, "d99", "zzz-late.txt"), "");
      for (;;) {
        const n = readSync(fd, buf);
        if (n === 0) break;
        text += buf.toString("utf8", 0, n);
      }
      const lines = jsonl(text);
      expect(lines.at(-1)?.kind).toBe("summary");
      expect(lines.some((l) => l.relative_path === "d99/zzz-late.txt")).toBe(true);
    } finally {
      closeSync(fd);
      await p.exited;
      rmSync(fifoDir, { recursive: true, force: true });
    }
  });
  test("entries that vanish after their directory was listed are NOT_FOUND records; the walk goes on", () => {
    // One directory of 20k files; stdout is a FIFO, so the walk blocks on output early inside that listing.
    // Deleting the files then makes the stats the size predicate needs fail for entries already listed.
    const one = tempTree({});
    const fifoDir = mkdtempSync(join(tmpdir(), "rglob-fifo-"));
    try {
      const files = Array.from({ length: 20_000 }, (_, i) => join(one.dir, `f${String(i).padStart(5, "0")}`));
      for (const f of files) writeFileSync(f, "");
      writeFileSync(join(one.dir, "zz-kept"), "");
      const fifo = join(fifoDir, "out");
      expect(sh(["mkfifo", fifo], fifoDir)).toBe(true);
      Bun.spawn(["sh", "-c", 'exec "$0" find --jsonl --min-size 0 > "$1"', BIN, fifo], { cwd: one.dir });
      const fd = openSync(fifo, "r");
      const buf = Buffer.alloc(1 << 16);
      let text = "";
      try {
        const n = readSync(fd, buf);
        text += buf.toString("utf8", 0, n);
        for (const f of files) rmSync(f, { force: true });
        for (;;) {
          const m = readSync(fd, buf);
          if (m === 0) break;
          text += buf.toString("utf8", 0, m);
        }
      } finally {
        closeSync(fd);
      }
      const lines = jsonl(text);
      const errors = lines.filter((l) => l.kind === "error");
      expect(errors.length).toBeGreaterThan(1000);
      expect(errors.every((e) => e.code === "NOT_FOUND")).toBe(true);
      expect(lines.some((l) => l.relative_path === "zz-kept")).toBe(true);
      expect(lines.at(-1)?.kind).toBe("summary");
    } finally {
      one.cleanup();
      rmSync(fifoDir, { recursive: true, force: true });
    }
  }, 50_000);
  test("--timeout stops with reason timeout and a TIMEOUT error record", () => {
    // 30,000 entries, each stat'ed (-L): the walk's floor is far above 10 ms (a babel checkout's 27,000 files
    // take about 280 ms), so the deadline always comes first and the test asserts it every time.
    const r = find(["--timeout", "0.01", "-L"], big.dir);
    expect(r.truncated).toBe(true);
    expect(r.truncated_reason).toBe("timeout");
    expect(r.errors.map((e) => e.code)).toContain("TIMEOUT");
  });
});

test("the fixture tree: ignored entries are skipped by default, hidden ones only with --no-hidden", () => {
  expect(rels(find(["-t", "f"], FIXTURE))).toEqual([
    ".gitignore",
    "binary.bin",
    "docs/notes.txt",
    "duplicates/a.txt",
    "duplicates/b.txt",
    "hidden/.secret.py",
    "src/main.py",
    "src/utils/helper.py",
    "unreadable/.keep",
  ]);
  expect(rels(find(["-t", "f", "--no-hidden"], FIXTURE))).toEqual([
    "binary.bin",
    "docs/notes.txt",
    "duplicates/a.txt",
    "duplicates/b.txt",
    "src/main.py",
    "src/utils/helper.py",
  ]);
  expect(rels(find(["-t", "f", "--no-ignore", "-H", "*.log"], FIXTURE))).toEqual(["ignored.log"]);
});

test("an explicit root inside an ignored directory is still searched", () => {
  const t = tempTree({ ".gitignore": "gen/\n", "gen/a.txt": "", "gen/sub/b.txt": "" });
  try {
    sh(["git", "init", "-q"], t.dir);
    expect(rels(find(["-t", "f"], t.dir))).toEqual([".gitignore"]);
    expect(rels(find(["-t", "f", "--base", "gen"], t.dir))).toEqual(["a.txt", "sub/b.txt"]);
  } finally {
    rmSync(t.dir, { recursive: true, force: true });
  }
});

// The human listing is written from the walk's entries, without records (the events' entry, Sink.entry); with a --format template
// it goes through the records. `--format '{}'` writes the same line, so the two routes must agree byte for byte.
// JSON and JSONL are written from entries too, and through records when max_output_bytes must measure them.
describe("listings written from walk entries (human, JSON and JSONL)", () => {
  const tree = randomWalkTree(23, {
    dirs: 30,
    maxDepth: 5,
    files: 120,
    names: ["a", "src", "build", ".hidden", "x y", "é", "tmp", "keep", "lib"],
    content: (rnd) => "x".repeat(Math.floor(rnd() * 40)),
    ignoreFiles(spec, d, rnd, pick) {
      if (rnd() < 0.3)
        spec[d === "" ? ".gitignore" : `${d}/.gitignore`] =
          `${pick(["*.log", "build/", "/a*", "*.tmp", "!keep*"])}\n`;
    },
    after(dir, some, pick) {
      writeFileSync(
        Buffer.concat([Buffer.from(`${join(dir, pick(some))}/bad-`), Buffer.from([0xff, 0xfe])]),
        "",
      );
    },
  });
  afterAll(() => rmSync(tree, { recursive: true, force: true }));
  const run = (args: string[], cwd: string) => {
    const r = Bun.spawnSync([BIN, "find", ...args], { cwd, env: { ...process.env, NO_COLOR: "1" } });
    return { code: r.exitCode, out: Buffer.from(r.stdout).toString("hex"), err: r.stderr.toString() };
  };
  const sub = readdirSync(tree).find((n) => statSync(join(tree, n)).isDirectory() && n !== ".git") as string;
  const cases: Array<[string[], string]> = [
    [[], tree],
    [["-t", "f"], tree],
    [["-0", "-H"], tree],
    [["-a", "--no-ignore"], tree],
    [["--limit", "7"], tree],
    [["-L", "-t", "f"], tree],
    [["*.txt", "-d", "3"], tree],
    [["--base", ".."], join(tree, sub)],
    [["-t", "f", "--max-output-bytes", "400"], tree],
    [["-1"], tree],
  ];
  for (const [args, cwd] of cases) {
    test(`find ${args.join(" ")}${cwd === tree ? "" : " (from a subdirectory)"}`, () => {
      const direct = run(args, cwd);
      expect(direct.out.length).toBeGreaterThan(0);
      // The default listing shows a symlink as `path -> target` (not with -0), as `{} -> {target}` would.
      // The target text exactly as written, then ` (directory)` when its chain ends at a directory (#37: ls -lF's
      // `/` after the text was read as part of it).
      const viaRecords = run([...args, "--format", "{}\u0001{target}\u0001{target_type}"], cwd);
      const sep = args.includes("-0") ? "\0" : "\n";
      const lines = Buffer.from(viaRecords.out, "hex").toString("latin1").split(sep);
      const joined = lines
        .map((l) => {
          const [p, target, end] = l.split("\u0001");
          if (target === undefined || target === "" || sep === "\0") return p;
          return `${p} -> ${target}${end === "d" ? " (directory)" : ""}`;
        })
        .join(sep);
      expect(direct).toEqual({ ...viaRecords, out: Buffer.from(joined, "latin1").toString("hex") });
    });
  }
  test("find --limit 5 --cursor (the second page)", () => {
    const first = rglobJson<Result>(["find", "--limit", "5", "--json"], { cwd: tree }).json;
    const args = ["--limit", "5", "--cursor", first.next_cursor as string];
    const direct = run(args, tree);
    expect(direct.out.length).toBeGreaterThan(0);
    expect(direct).toEqual(run([...args, "--format", "{}"], tree));
  });
  // JSONL lines are written from the entries too; an output-size bound (even one nothing reaches) makes the
  // dispatcher measure records, so the record route writes the same lines.
  const jsonlCases: Array<[string[], string]> = [
    [[], tree],
    [["-t", "f", "-a"], tree],
    [["-u"], tree],
    [["-L"], tree],
    [["--limit", "9"], tree],
    [["-t", "e"], tree],
    [["--base", ".."], join(tree, sub)],
  ];
  for (const [args, cwd] of jsonlCases)
    for (const format of ["--jsonl", "--json"]) {
      test(`find ${format} ${args.join(" ")}${cwd === tree ? "" : " (from a subdirectory)"}`, () => {
        const direct = run([...args, format], cwd);
        const text = Buffer.from(direct.out, "hex").toString("utf8");
        if (format === "--jsonl") expect(text.trim().split("\n").length).toBeGreaterThan(2);
        else expect((JSON.parse(text) as Result).results.length).toBeGreaterThan(1);
        expect(direct).toEqual(run([...args, format, "--max-output-bytes", "100000000000"], cwd));
      });
    }
  test("find --jsonl and --json write a name that is not UTF-8 as its wire record (path_bytes)", () => {
    const text = (format: string) => Buffer.from(run([format, "-u"], tree).out, "hex").toString("utf8");
    const lines = text("--jsonl").trim().split("\n");
    const json = JSON.parse(text("--json")) as { results: Array<Record<string, unknown>> };
    for (const records of [lines.map((l) => JSON.parse(l) as Record<string, unknown>), json.results]) {
      const bad = records.filter((r) => "path_bytes" in r);
      expect(bad.length).toBe(1);
      expect(Buffer.from(bad[0]?.path_bytes as string, "base64").subarray(-6)).toEqual(
        Buffer.concat([Buffer.from("bad-"), Buffer.from([0xff, 0xfe])]),
      );
    }
  });
});
