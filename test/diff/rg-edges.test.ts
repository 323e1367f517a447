// Differential: rg's and fd's behaviour at the edges (#39). Each row runs the compiled binary on a temp tree and
// asserts its output and exit code literally, then runs the peer (rg 13, fd 8.6, or grep where rg 13 is the odd
// one out) with the arguments a person would type on the same tree and compares: the exact output, or its lines
// as a set where the peer prints in parallel order. A row whose peer is not installed says so and keeps its
// literal assertions, so it cannot pass vacuously.
// Deliberate differences (docs/decisions/0027-rg-and-fd-habits.md): rg 13 prints nothing for `-v -f EMPTY`
// (grep and rg 14 print every line; so does rglob), `--limit 0` stays the summary alone (fd's `--max-results 0`
// is no limit), and rglob prints line numbers by default (rg's rows pass -n).
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { rglob, skipWhen, tempTree } from "../helpers.ts";

const RG = Bun.which("rg");
const FD = Bun.which("fd") ?? Bun.which("fdfind");
const GREP = Bun.which("grep");

const t = tempTree({
  "a.txt": "alpha\nbeta foo\ngamma\ndelta foo bar\neps\n",
  "b.txt": "a\n",
  "m.txt": "one\ntwo\nthree\n",
  "empty.pats": "",
  "pf/a2.txt": "beta foo\n",
  "links/d/f.txt": "x here\n",
  "links/sym1": { symlink: "d" },
  "links/top.txt": "x top\n",
});
afterAll(() => t.cleanup());

type Tool = "rg" | "fd" | "grep";
const BINS: Record<Tool, string | null> = { rg: RG, fd: FD, grep: GREP };

interface Row {
  readonly what: string;
  /** rglob's arguments. */
  readonly args: readonly string[];
  /** rglob's exact stdout and exit code. */
  readonly stdout: string;
  readonly code: number;
  /** The peer and its arguments; "lines" compares the output as a set of lines (parallel order). */
  readonly peer: readonly [Tool, readonly string[], "exact" | "lines"];
  /** The directory under the tree to run in. */
  readonly cwd?: string;
  readonly stdin?: string;
}

const A_STAR =
  "1:<a>l<>p<>h<a>\n2:<>b<>e<>t<a> <>f<>o<>o<>\n3:<>g<a>m<>m<a>\n4:<>d<>e<>l<>t<a> <>f<>o<>o<> <>b<a>r<>\n5:<>e<>p<>s<>\n";
// biome-ignore lint/suspicious/noTemplateCurlyInString: rg's replacement syntax, not a template
const ZERO_F = "${0}f";
const EVERY_LINE = "1-alpha\n2:beta foo\n3-gamma\n4:delta foo bar\n5-eps\n";

const ROWS: Row[] = [
  // 1. --passthru: with -o, and against -A/-B/-C (the later flag wins).
  {
    what: "--passthru -o prints the passthru lines",
    args: ["grep", "--passthru", "-o", "foo", "a.txt"],
    stdout: "1-alpha\n2:foo\n3-gamma\n4:foo\n5-eps\n",
    code: 0,
    peer: ["rg", ["-n", "--passthru", "-o", "foo", "a.txt"], "exact"],
  },
  {
    what: "-o -C1 prints context lines, as rg",
    args: ["grep", "-o", "-C1", "foo", "a.txt"],
    stdout: "1-alpha\n2:foo\n3-gamma\n4:foo\n5-eps\n",
    code: 0,
    peer: ["rg", ["-n", "-o", "-C1", "foo", "a.txt"], "exact"],
  },
  {
    what: "--passthru -A1: -A1 wins",
    args: ["grep", "--passthru", "-A1", "foo", "a.txt"],
    stdout: "2:beta foo\n3-gamma\n4:delta foo bar\n5-eps\n",
    code: 0,
    peer: ["rg", ["-n", "--passthru", "-A1", "foo", "a.txt"], "exact"],
  },
  {
    what: "-A1 --passthru: --passthru wins",
    args: ["grep", "-A1", "--passthru", "foo", "a.txt"],
    stdout: EVERY_LINE,
    code: 0,
    peer: ["rg", ["-n", "-A1", "--passthru", "foo", "a.txt"], "exact"],
  },
  {
    what: "-A1 --passthru -B1: -B1 wins over --passthru, which dropped -A1",
    args: ["grep", "-A1", "--passthru", "-B1", "foo", "a.txt"],
    stdout: "1-alpha\n2:beta foo\n3-gamma\n4:delta foo bar\n",
    code: 0,
    peer: ["rg", ["-n", "-A1", "--passthru", "-B1", "foo", "a.txt"], "exact"],
  },
  // 2. --replace: an empty match right after a match is not one; multiline matches are replaced.
  {
    what: "--replace '$0f' in braces with .* (no empty match after the match)",
    args: ["grep", "--replace", ZERO_F, ".*", "b.txt"],
    stdout: "1:af\n",
    code: 0,
    peer: ["rg", ["-n", "--replace", ZERO_F, ".*", "b.txt"], "exact"],
  },
  {
    what: "--replace '<$0>' with a* (empty matches between, none after a match)",
    args: ["grep", "--replace", "<$0>", "a*", "a.txt"],
    stdout: A_STAR,
    code: 0,
    peer: ["rg", ["-n", "--replace", "<$0>", "a*", "a.txt"], "exact"],
  },
  {
    what: "--count-matches counts the same matches",
    args: ["grep", "--count-matches", "a*", "a.txt"],
    stdout: "32\n",
    code: 0,
    peer: ["rg", ["--count-matches", "a*", "a.txt"], "exact"],
  },
  {
    what: "-U --replace on a match across lines",
    args: ["grep", "-U", "--replace", "<$0>", "(?s)o.t", "m.txt"],
    stdout: "2:tw<o\n3:t>hree\n",
    code: 0,
    peer: ["rg", ["-n", "-U", "--replace", "<$0>", "(?s)o.t", "m.txt"], "exact"],
  },
  {
    what: "-U --replace with a group, the line break replaced",
    args: ["grep", "-U", "--replace", "[$1]", "o\\n(t)", "m.txt"],
    stdout: "2:tw[t]hree\n",
    code: 0,
    peer: ["rg", ["-n", "-U", "--replace", "[$1]", "o\\n(t)", "m.txt"], "exact"],
  },
  {
    what: "-U --replace with a line break in the pattern itself",
    args: ["grep", "-U", "--replace", "<$0>", "o\nt", "m.txt"],
    stdout: "2:tw<o\n3:t>hree\n",
    code: 0,
    peer: ["rg", ["-n", "-U", "--replace", "<$0>", "o\nt", "m.txt"], "exact"],
  },
  // 3. --vimgrep: -N and --no-column; a multiline match's first line only, each match on its own line.
  {
    what: "--vimgrep -N leaves the line number out",
    args: ["grep", "--vimgrep", "-N", "foo", "a.txt"],
    stdout: "a.txt:6:beta foo\na.txt:7:delta foo bar\n",
    code: 0,
    peer: ["rg", ["--vimgrep", "-N", "foo", "a.txt"], "exact"],
  },
  {
    what: "--vimgrep --no-column leaves the column out",
    args: ["grep", "--vimgrep", "--no-column", "foo", "a.txt"],
    stdout: "a.txt:2:beta foo\na.txt:4:delta foo bar\n",
    code: 0,
    peer: ["rg", ["--vimgrep", "--no-column", "foo", "a.txt"], "exact"],
  },
  {
    what: "--vimgrep -U gives each match on the line it starts on",
    args: ["grep", "--vimgrep", "-U", "o\\nt|e", "m.txt"],
    stdout: "m.txt:1:3:one\nm.txt:2:3:two\nm.txt:3:4:three\nm.txt:3:5:three\n",
    code: 0,
    peer: ["rg", ["--vimgrep", "-U", "o\\nt|e", "m.txt"], "exact"],
  },
  {
    what: "--vimgrep -U -N --no-column",
    args: ["grep", "--vimgrep", "-U", "-N", "--no-column", "o\\nt", "m.txt"],
    stdout: "m.txt:two\n",
    code: 0,
    peer: ["rg", ["--vimgrep", "-U", "-N", "--no-column", "o\\nt", "m.txt"], "exact"],
  },
  // 4. Exit codes and pattern files.
  {
    what: "--count --include-zero with no match exits 1",
    args: ["grep", "--count", "--include-zero", "zzz", "a.txt"],
    stdout: "0\n",
    code: 1,
    peer: ["rg", ["--count", "--include-zero", "zzz", "a.txt"], "exact"],
  },
  {
    what: "--count --include-zero with a match exits 0",
    args: ["grep", "--count", "--include-zero", "foo", "a.txt", "b.txt"],
    stdout: "a.txt:2\nb.txt:0\n",
    code: 0,
    peer: ["rg", ["--count", "--include-zero", "foo", "a.txt", "b.txt"], "lines"],
  },
  {
    what: "-f EMPTY matches nothing",
    args: ["grep", "-f", "empty.pats", "a.txt"],
    stdout: "",
    code: 1,
    peer: ["rg", ["-f", "empty.pats", "a.txt"], "exact"],
  },
  {
    what: "-v -f EMPTY prints every line (as grep; rg 13 prints none)",
    args: ["grep", "-v", "-f", "empty.pats", "a.txt"],
    stdout: "1:alpha\n2:beta foo\n3:gamma\n4:delta foo bar\n5:eps\n",
    code: 0,
    peer: ["grep", ["-n", "-v", "-f", "empty.pats", "a.txt"], "exact"],
  },
  {
    what: "-f - reads the patterns from stdin and searches the current directory",
    args: ["grep", "-f", "-"],
    stdin: "foo\n",
    cwd: "pf",
    stdout: "a2.txt:1:beta foo\n",
    code: 0,
    peer: ["rg", ["-n", "-f", "-"], "exact"],
  },
  // 5. Symlink operands are followed in any order.
  {
    what: "a symlink operand after ./",
    args: ["grep", "x", "./", "sym1"],
    cwd: "links",
    stdout: "d/f.txt:1:x here\ntop.txt:1:x top\nsym1/f.txt:1:x here\n",
    code: 0,
    peer: ["rg", ["-n", "x", "./", "sym1"], "lines"],
  },
  {
    what: "a symlink operand after . and before d",
    args: ["grep", "x", ".", "sym1", "d"],
    cwd: "links",
    stdout: "d/f.txt:1:x here\ntop.txt:1:x top\nsym1/f.txt:1:x here\nd/f.txt:1:x here\n",
    code: 0,
    peer: ["rg", ["-n", "x", ".", "sym1", "d"], "lines"],
  },
  {
    what: "a symlink operand before ./",
    args: ["grep", "x", "sym1", "./"],
    cwd: "links",
    stdout: "sym1/f.txt:1:x here\nd/f.txt:1:x here\ntop.txt:1:x top\n",
    code: 0,
    peer: ["rg", ["-n", "x", "sym1", "./"], "lines"],
  },
  // 6. fd's --max-results=0 is no limit.
  {
    what: "find --max-results=0 lists everything",
    args: ["find", "--max-results=0"],
    cwd: "links",
    stdout: "d\nd/f.txt\nsym1 -> d (directory)\ntop.txt\n",
    code: 0,
    peer: ["fd", ["--max-results=0"], "lines"],
  },
];

/** Runs a peer in a directory of the tree. */
function peer(
  bin: string,
  args: readonly string[],
  cwd: string,
  stdin?: string,
): { code: number; stdout: string } {
  const r = Bun.spawnSync([bin, ...args], {
    cwd,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString() };
}

/** Output lines without a leading "./" (or fd's trailing "/" on a directory), and without find's " -> target" of a
 * symlink (fd prints the path alone: ADR 0027). */
const lines = (s: string) =>
  s
    .split("\n")
    .filter(Boolean)
    .map((l) =>
      l
        .replace(/^\.\//, "")
        .replace(/\/$/, "")
        .replace(/ -> .*$/, ""),
    );

describe("rg and fd edges (#39)", () => {
  for (const row of ROWS) {
    test(row.what, () => {
      const cwd = join(t.dir, row.cwd ?? "");
      const mine = rglob(row.args, { cwd, ...(row.stdin !== undefined ? { stdin: row.stdin } : {}) });
      expect({ stdout: mine.stdout, code: mine.code, stderr: mine.stderr }).toEqual({
        stdout: row.stdout,
        code: row.code,
        stderr: "",
      });
    });
    // The peer gives the same output (the test above holds that rglob's is the literal one).
    const [tool, args, compare] = row.peer;
    const bin = BINS[tool];
    skipWhen(bin === null && `${tool} is not installed`)(`${row.what}: as ${tool}`, () => {
      const cwd = join(t.dir, row.cwd ?? "");
      const theirs = peer(bin as string, args, cwd, row.stdin);
      expect(theirs.code).toBe(row.code);
      if (compare === "exact") expect(lines(theirs.stdout)).toEqual(lines(row.stdout));
      else expect(lines(theirs.stdout).sort()).toEqual(lines(row.stdout).sort());
    });
  }

  test("--max-results N is --limit N; --limit 0 stays the summary alone", () => {
    const cwd = join(t.dir, "links");
    expect(rglob(["find", "--max-results", "1"], { cwd })).toMatchObject({ stdout: "d\n", code: 0 });
    expect(rglob(["find", "--max-results=0", "--limit", "1"], { cwd })).toMatchObject({
      stdout: "d\n",
      code: 0,
    });
    expect(rglob(["find", "--limit", "1", "--max-results=0"], { cwd }).stdout).toBe(
      "d\nd/f.txt\nsym1 -> d (directory)\ntop.txt\n",
    );
    expect(rglob(["find", "--limit", "0"], { cwd })).toMatchObject({ stdout: "", code: 0 });
    const bad = rglob(["find", "--max-results", "x"], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-results: 'x' is not a whole number");
  });

  skipWhen(FD === null && "fd is not installed")("--max-results 1 gives one line, as fd's", () => {
    const cwd = join(t.dir, "links");
    expect(lines(peer(FD as string, ["--max-results", "1"], cwd).stdout)).toHaveLength(1);
    expect(lines(rglob(["find", "--max-results", "1"], { cwd }).stdout)).toHaveLength(1);
  });

  test("-o with context in JSON: the line's first match carries the before-context, its last the after", () => {
    const run = rglob(["grep", "--json", "-o", "-C1", "o", "a.txt"], { cwd: t.dir });
    const results = (JSON.parse(run.stdout) as { results: Array<Record<string, unknown>> }).results;
    expect(results.map((r) => [r.line_number, r.content])).toEqual([
      [2, "o"],
      [2, "o"],
      [4, "o"],
      [4, "o"],
    ]);
    const ctx = (r: Record<string, unknown>, k: string) =>
      (r[k] as Array<{ line_number: number }>).map((c) => c.line_number);
    expect(results.map((r) => [ctx(r, "before"), ctx(r, "after")])).toEqual([
      [[1], []],
      [[], [3]],
      [[], []],
      [[], [5]],
    ]);
  });
});
