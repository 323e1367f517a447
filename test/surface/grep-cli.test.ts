// grep's command line keeps grep's habits where they do not clash with the walk's letters: `-n` (line numbers,
// the default) and `-r` (recursion, always on) are accepted, `--no-line-number` hides line numbers; `--limit` has
// no short letter outside `top -n`.
import { afterAll, describe, expect, test } from "bun:test";
import { BIN, FIXTURE, rglob, tempTree } from "../helpers.ts";

test.each([
  [["grep", "-n", "TODO"], "docs/notes.txt:3:TODO: exercise grep context capture.\n"],
  [["grep", "-rn", "TODO", "docs"], "docs/notes.txt:3:TODO: exercise grep context capture.\n"],
  [["grep", "-r", "TODO"], "docs/notes.txt:3:TODO: exercise grep context capture.\n"],
  [["grep", "TODO"], "docs/notes.txt:3:TODO: exercise grep context capture.\n"],
  [["grep", "--no-line-number", "TODO"], "docs/notes.txt:TODO: exercise grep context capture.\n"],
])("%p prints grep-style lines", (args, first) => {
  const r = rglob([...args, "--max-total", "1"], { cwd: FIXTURE });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(first);
});

test("-n is top's N, and not a limit flag of find", () => {
  expect(rglob(["top", "-n", "1"], { cwd: FIXTURE }).stdout.trim().split("\n")).toHaveLength(1);
  const r = rglob(["find", "-n", "1"], { cwd: FIXTURE });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("unknown flag '-n'");
});

test("a mistyped path operand is a NOT_FOUND record, the other roots are still searched", () => {
  const r = rglob(["grep", "TODO", "src/mian.py", "docs", "--json"], { cwd: FIXTURE });
  const json = JSON.parse(r.stdout) as {
    results: Array<{ relative_path: string }>;
    errors: Array<{ code: string; path: string }>;
  };
  expect(json.results.map((m) => m.relative_path)).toEqual(["docs/notes.txt"]);
  expect(json.errors).toEqual([
    expect.objectContaining({ code: "NOT_FOUND", path: `${FIXTURE}/src/mian.py` }),
  ]);
  const alone = rglob(["grep", "TODO", "/no/such/dir"], { cwd: FIXTURE });
  expect(alone.code).toBe(2); // a missing root is an error, as in rg (#22)
  expect(alone.stdout).toBe("");
  expect(alone.stderr).toContain("NOT_FOUND: /no/such/dir");
});

test("operands with glob metacharacters, or without a /, stay glob filters", () => {
  const byName = rglob(["grep", "-l", "TODO", "helper.py"], { cwd: FIXTURE });
  expect(byName.stdout).toBe("src/utils/helper.py\n");
  const byGlob = rglob(["grep", "-l", "TODO", "src/**/*.py"], { cwd: FIXTURE });
  expect(byGlob.stdout).toBe("src/utils/helper.py\n");
  expect(rglob(["grep", "-l", "TODO", "nothing-*.md"], { cwd: FIXTURE }).code).toBe(1);
});

test("a file named as an operand is searched whatever the globs say (they filter the walk), as rg does", () => {
  const t = tempTree({ "top.txt": "hit\n", "d/a.md": "hit\n", "d/b.txt": "hit\n" });
  try {
    // A -g glob, or a mistyped second operand taken as a glob, once hid top.txt: nothing found, exit 1.
    expect(rglob(["grep", "hit", "top.txt", "-g", "*.md"], { cwd: t.dir }).stdout).toBe("1:hit\n");
    expect(rglob(["grep", "hit", "nope.txt", "top.txt"], { cwd: t.dir }).stdout).toBe("top.txt:1:hit\n");
    // In a walked directory the glob still selects.
    const walked = rglob(["grep", "hit", "top.txt", "d", "-g", "*.md"], { cwd: t.dir });
    expect(walked.stdout).toBe("top.txt:1:hit\nd/a.md:1:hit\n");
  } finally {
    t.cleanup();
  }
});

test("human lines keep every byte: names and text beyond ASCII, long line numbers, a line longer than the buffer", () => {
  // Lines are written in pieces into a byte buffer (the name, the number's digits, the text): a 7-digit line
  // number, multi-byte characters in names and text, and a 300 KB line must come out exactly.
  const long = `${"é".repeat(150_000)} needle ${"ü".repeat(10)}`;
  const t = tempTree({
    "naïve ✓.txt": `${"\n".repeat(1_234_566)}a needle in 🧵 thread\n`,
    "long.txt": `x\n${long}\n`,
    "z.txt": "needle at the start\nno\nneedle again\n",
  });
  try {
    const r = rglob(["grep", "needle"], { cwd: t.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `long.txt:2:${long}\nnaïve ✓.txt:1234567:a needle in 🧵 thread\nz.txt:1:needle at the start\nz.txt:3:needle again\n`,
    );
    const files = rglob(["find", "-t", "f", "-0"], { cwd: t.dir });
    expect(files.stdout).toBe("long.txt\0naïve ✓.txt\0z.txt\0");
  } finally {
    t.cleanup();
  }
});

// grep -E is "extended regex"; rglob's -E is --exclude (as in fd). The likely mistake parses, so it is caught:
// the pattern then names an existing path while excludes are given.
test("grep -E 'a|b' PATH is a usage error that says what -E is here", () => {
  const r = rglob(["grep", "-E", "TODO|FIXME", "docs"], { cwd: FIXTURE });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain("-E is --exclude");
  expect(r.stderr).toContain("rglob grep 'TODO|FIXME' docs");
  // -E as an exclude with a pattern first, or the pattern by -e, is left alone.
  expect(rglob(["grep", "-E", "src", "TODO"], { cwd: FIXTURE }).stdout).toContain("docs/notes.txt:3:");
  expect(rglob(["grep", "-E", "src", "-e", "docs"], { cwd: FIXTURE }).code).not.toBe(2);
});

test("-q prints nothing and answers with the exit code, stopping at the first match", () => {
  const yes = rglob(["grep", "-q", "TODO"], { cwd: FIXTURE });
  expect([yes.code, yes.stdout]).toEqual([0, ""]);
  const no = rglob(["grep", "-q", "zzz-not-there"], { cwd: FIXTURE });
  expect([no.code, no.stdout]).toEqual([1, ""]);
  expect(rglob(["grep", "-q", "TODO", "--json"], { cwd: FIXTURE }).code).toBe(2);
  // It stops at the first match: the files examined are fewer than a full search's.
  const stats = (args: string[]) => {
    const r = rglob(["grep", ...args, "--stats"], { cwd: FIXTURE });
    return Number(/(\d+) files searched/.exec(r.stderr)?.[1]);
  };
  expect(stats(["-q", "e"])).toBeLessThan(stats(["e"]));
});

// grep reads stdin, as rg does, only when it is a pipe (FIFO) or a file and no path is given (#22): the socket a
// Node or Bun parent gives its child as stdin, left open and silent, does not make it wait.
test("an open, silent stdin socket does not make grep wait", async () => {
  const proc = Bun.spawn([BIN, "grep", "-l", "TODO"], {
    cwd: FIXTURE,
    stdin: "pipe", // left open and never written
    stdout: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const code = await proc.exited;
  expect(code).toBe(0);
  expect(await new Response(proc.stdout).text()).toContain("docs/notes.txt");
  proc.stdin.end();
});

// Plain human lines are written by the search as it finds them (the events' lines, Sink.lines), not through records; any bound on the output (here --max-output-bytes) takes the record route. The two must agree byte for
// byte, with the exit code and the messages.
describe("grep's plain lines written by the search", () => {
  const big = Buffer.concat(
    Array.from({ length: 40_000 }, (_, i) =>
      Buffer.from(i % 997 === 0 ? `${"x".repeat(i % 50)} needle ${i}\n` : `filler line ${i}\n`),
    ),
  );
  const t = tempTree({
    "a.txt": "one needle\ntwo\nneedle needle three\n",
    "crlf.txt": "needle with crlf\r\nplain\r\nlast needle\r",
    "bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("needle after a BOM\n")]),
    "bad.txt": Buffer.concat([
      Buffer.from("needle "),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(" bytes\nneedle ok\n"),
    ]),
    "ünï/ção.txt": "needle in a name beyond ASCII\n",
    "bin.dat": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
    "large/big.log": big,
    "large/long.txt": `${"y".repeat(200_000)} needle ${"z".repeat(100_000)}\nneedle\n`,
    "none.txt": "nothing here\n",
  });
  afterAll(() => t.cleanup());
  const run = (args: string[]) => {
    const r = Bun.spawnSync([BIN, "grep", ...args], { cwd: t.dir, env: { ...process.env, NO_COLOR: "1" } });
    return { code: r.exitCode, out: Buffer.from(r.stdout).toString("hex"), err: r.stderr.toString() };
  };
  for (const args of [
    ["needle"],
    ["-F", "needle"],
    ["--no-line-number", "needle"],
    ["--no-with-filename", "needle"],
    ["needle", "a.txt"],
    ["needle", "large"],
    ["-m", "2", "needle"],
    ["--max-per-file", "1", "needle"],
    ["-w", "needle"],
    ["nee+dle [0-9]+"],
    ["-i", "NEEDLE"],
    ["-v", "needle", "a.txt", "crlf.txt", "bad.txt"],
    ["(needle|filler line 1)$"],
    ["--encoding", "latin1", "needle"],
    ["nothing-matches-this"],
  ]) {
    test(`grep ${args.join(" ")}`, () => {
      const direct = run(args);
      expect(direct).toEqual(run([...args, "--max-output-bytes", "100000000000"]));
    });
  }
  test("the lines are all there: a large file's windows, CRLF, a BOM, bytes that are not UTF-8", () => {
    const lines = Buffer.from(run(["needle"]).out, "hex")
      .toString()
      .split("\n");
    for (const want of [
      "crlf.txt:1:needle with crlf",
      "crlf.txt:3:last needle\r",
      "bom.txt:1:needle after a BOM",
      "bad.txt:1:needle \ufffd\ufffd bytes",
      "large/big.log:39881:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx needle 39880",
      "large/long.txt:2:needle",
      "ünï/ção.txt:1:needle in a name beyond ASCII",
    ])
      expect({ want, found: lines.includes(want) }).toEqual({ want, found: true });
    expect(lines.filter((l) => l.startsWith("large/big.log:"))).toHaveLength(41);
    expect(lines.filter((l) => l.startsWith("large/long.txt:1:")).map((l) => l.length)).toEqual([300_025]);
  });
});
