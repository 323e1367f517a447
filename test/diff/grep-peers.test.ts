// Differential: rglob grep against `grep -rn` (every machine) and `rg -n` (when installed) on a generated
// tree, comparing the set of (path, line) matches for a battery of patterns and flags.
// Documented divergences: none in this battery (the tree is ASCII, LF-only, without binary or ignored files).
import { afterAll, describe, expect, test } from "bun:test";
import { prng, rglob, rglobJson, tempTree } from "../helpers.ts";

const words = ["alpha", "Beta", "gamma", "TODO", "fooBar", "foo_bar", "error", "Error", "x1", "a.c", "abc"];
function makeTree(): Record<string, string> {
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const spec: Record<string, string> = {};
  for (let f = 0; f < 40; f++) {
    const lines: string[] = [];
    const n = 5 + rnd(40);
    for (let l = 0; l < n; l++) {
      const k = rnd(6);
      const parts: string[] = [];
      for (let w = 0; w < k; w++) parts.push(words[rnd(words.length)] as string);
      lines.push(parts.join(rnd(3) === 0 ? "-" : " "));
    }
    spec[`d${f % 5}/sub${f % 3}/file${f}.txt`] = `${lines.join("\n")}\n`;
  }
  // Dense files: a literal the patterns need on most lines, so the searcher decodes them whole instead of line by
  // line (search-file.ts); the second is over 1 MiB, searched window by window.
  for (const [name, count] of [
    ["dense/small.txt", 600],
    ["dense/large.txt", 60_000],
  ] as const) {
    const lines: string[] = [];
    for (let l = 0; l < count; l++) {
      const parts = [words[rnd(words.length)] as string, rnd(4) === 0 ? "ERROR" : rnd(2) ? "Error" : "error"];
      for (let w = rnd(4); w > 0; w--) parts.push(words[rnd(words.length)] as string);
      lines.push(parts.join(rnd(3) === 0 ? "-" : " "));
    }
    spec[name] = `${lines.join("\n")}\n`;
  }
  return spec;
}

const tree = tempTree(makeTree());
afterAll(() => tree.cleanup());

function pairs(text: string, withLine = true): string[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const m = /^(?:\.\/)?(.+?):(\d+):/.exec(l);
      if (withLine) return m ? `${m[1]}:${m[2]}` : l;
      return l.replace(/^\.\//, "");
    })
    .sort();
}

// [rglob flags, grep flags (ERE with -E unless -F), rg flags]
const CASES: Array<[string, string[], string[], string[]]> = [
  ["literal", ["TODO"], ["-E", "TODO"], ["TODO"]],
  ["-i", ["-i", "error"], ["-E", "-i", "error"], ["-i", "error"]],
  ["-w", ["-w", "foo"], ["-E", "-w", "foo"], ["-w", "foo"]],
  ["-w word", ["-w", "alpha"], ["-E", "-w", "alpha"], ["-w", "alpha"]],
  ["-x", ["-x", "gamma"], ["-E", "-x", "gamma"], ["-x", "gamma"]],
  ["-v", ["-v", "a"], ["-E", "-v", "a"], ["-v", "a"]],
  ["-F", ["-F", "a.c"], ["-F", "a.c"], ["-F", "a.c"]],
  ["regex class", ["[A-Z][a-z]+"], ["-E", "[A-Z][a-z]+"], ["[A-Z][a-z]+"]],
  ["anchors", ["^alpha|gamma$"], ["-E", "^alpha|gamma$"], ["^alpha|gamma$"]],
  ["-e -e", ["-e", "Beta", "-e", "x1"], ["-E", "-e", "Beta", "-e", "x1"], ["-e", "Beta", "-e", "x1"]],
  ["-i -w", ["-i", "-w", "error"], ["-E", "-i", "-w", "error"], ["-i", "-w", "error"]],
  ["regex with a literal", ["[a-z]+[ -]Error"], ["-E", "[a-z]+[ -]Error"], ["[a-z]+[ -]Error"]],
];

describe("grep agrees with grep -rn", () => {
  test.each(CASES)("%s", (_name, ours, theirs) => {
    const a = rglob(["grep", ...ours, "--no-ignore"], { cwd: tree.dir });
    const b = Bun.spawnSync(["grep", "-rn", ...theirs, "."], { cwd: tree.dir, stdout: "pipe" });
    expect(pairs(a.stdout)).toEqual(pairs(b.stdout.toString()));
  });

  test.each([
    ["-l", ["-l", "TODO"], ["-rl", "-E", "TODO"]],
    ["-c", ["-c", "alpha"], ["-rc", "-E", "alpha"]],
  ])("%s", (_name, ours, theirs) => {
    const a = rglob(["grep", ...(ours as string[]), "--no-ignore"], { cwd: tree.dir });
    const b = Bun.spawnSync(["grep", ...(theirs as string[]), "."], { cwd: tree.dir, stdout: "pipe" });
    // grep -c lists every file (with 0); rglob lists files with a count > 0, as rg does.
    const theirsList = pairs(b.stdout.toString(), false).filter((l) => !l.endsWith(":0"));
    expect(pairs(a.stdout, false)).toEqual(theirsList);
  });
});

const hasRg = Bun.spawnSync(["sh", "-c", "command -v rg"]).exitCode === 0;
describe("grep agrees with rg -n", () => {
  if (!hasRg) {
    test.skip("rg is not installed: the rg differential tests are skipped", () => {});
    return;
  }
  test.each(CASES)("%s", (_name, ours, _theirs, rg) => {
    const a = rglob(["grep", ...ours, "--no-ignore"], { cwd: tree.dir });
    const b = Bun.spawnSync(["rg", "-n", "--no-ignore", "--no-heading", "--with-filename", ...rg, "."], {
      cwd: tree.dir,
      stdout: "pipe",
    });
    expect(pairs(a.stdout)).toEqual(pairs(b.stdout.toString()));
  });
});

// One exact literal is counted on the bytes, without decoding its lines (search-text.ts searchBytes): the counts,
// the totals and the columns must stay those of the decoded text on non-ASCII, CRLF and invalid UTF-8 lines.
describe("one exact literal on mixed bytes agrees with grep -c and grep -o", () => {
  const utf8 = (s: string) => Buffer.from(s, "utf8");
  const mixed = Buffer.concat([
    utf8("naïve café café\n🙂 café and café\r\nno match here\ncafécafé\ncaf\nCAFÉ\n"),
    Buffer.from([0xe2, 0x63, 0x61, 0x66, 0xc3, 0xa9, 0xff]),
    utf8("café\n\r\ncafé\r\n"),
  ]);
  const big = utf8(`${"filler line without it\n".repeat(4000)}x café café\n${"aaaa aaa\n".repeat(3)}`);
  const t = tempTree({ "mixed.txt": mixed, "big.txt": big, "plain.txt": "aaaa aaa\nab\n" });
  afterAll(() => t.cleanup());
  const env = { ...process.env, LC_ALL: "C" };

  test.each(["café", "aa"])("%s: -c per file and the total of matches", (lit) => {
    const a = rglob(["grep", "-F", "-c", lit, "--no-ignore"], { cwd: t.dir });
    const b = Bun.spawnSync(["grep", "-rcF", lit, "."], { cwd: t.dir, stdout: "pipe", env });
    const theirs = pairs(b.stdout.toString(), false).filter((l) => !l.endsWith(":0"));
    expect(pairs(a.stdout, false)).toEqual(theirs);
    const o = Bun.spawnSync(["grep", "-roF", lit, "."], { cwd: t.dir, stdout: "pipe", env });
    const occurrences = o.stdout.toString().split("\n").filter(Boolean).length;
    const j = rglobJson<{ total_matches: number }>(["grep", "-F", "-c", lit, "--no-ignore", "--json"], {
      cwd: t.dir,
    }).json;
    expect(j.total_matches).toBe(occurrences);
  });

  test("every submatch's character and byte columns hold the literal", () => {
    const { json } = rglobJson<{
      results: Array<{ content: string; submatches: Array<Record<string, number>> }>;
    }>(["grep", "-F", "café", "--no-ignore", "--json"], { cwd: t.dir });
    let subs = 0;
    for (const r of json.results) {
      const cps = Array.from(r.content);
      const bytes = Buffer.from(r.content, "utf8");
      for (const s of r.submatches) {
        expect(cps.slice(s.start, s.end).join("")).toBe("café");
        expect(bytes.subarray(s.byte_start, s.byte_end).toString("utf8")).toBe("café");
        subs++;
      }
    }
    expect(subs).toBe(11);
  });
});

// Context (-A/-B) on seeded trees of short files (matches at first and last lines, adjacent matches, empty lines,
// a missing final newline): the human lines, the JSONL match and context records and the JSON result's
// before/after give exactly the lines `grep -rn -A -B` prints.
describe("context agrees with grep -rn -A -B, in human output, JSONL and JSON", () => {
  const trees = [3, 8, 13, 21, 34, 55].map((seed) => {
    const rand = prng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
    const spec: Record<string, string> = {};
    for (let f = 0; f < 4; f++) {
      const lines = Array.from({ length: Math.floor(rand() * 25) }, () =>
        pick(["hit", "miss", "foo", "", "a hit"]),
      );
      spec[`f${f}.txt`] = lines.join("\n") + (lines.length > 0 && rand() < 0.8 ? "\n" : "");
    }
    return { seed, tree: tempTree(spec) };
  });
  afterAll(() => {
    for (const t of trees) t.tree.cleanup();
  });
  const grepLines = (dir: string, a: number, b: number) =>
    Bun.spawnSync(["grep", "-rn", "-A", String(a), "-B", String(b), "hit", "."], { cwd: dir, stdout: "pipe" })
      .stdout.toString()
      .split("\n")
      .filter((l) => l !== "" && l !== "--")
      .map((l) => l.replace(/^\.\//, ""))
      .sort();
  type Line = { kind: string; relative_path: string; line_number: number; content: string };
  const shown = (l: Pick<Line, "relative_path" | "line_number" | "content">, sep: string) =>
    `${l.relative_path}${sep}${l.line_number}${sep}${l.content}`;

  test.each(
    trees.flatMap(
      ({ seed }) =>
        [
          [seed, 1, 1],
          [seed, 0, 2],
          [seed, 3, 0],
        ] as const,
    ),
  )("seed %d, -A %d -B %d", (seed, a, b) => {
    const dir = (trees.find((t) => t.seed === seed) as (typeof trees)[number]).tree.dir;
    const want = grepLines(dir, a, b);
    const args = ["grep", "-A", String(a), "-B", String(b), "hit"];
    const human = rglob(args, { cwd: dir })
      .stdout.split("\n")
      .filter((l) => l !== "" && l !== "--");
    expect(human.sort()).toEqual(want);
    const stream = rglob([...args, "--jsonl"], { cwd: dir })
      .stdout.split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l.kind === "match" || l.kind === "context")
      .map((l) => shown(l, l.kind === "match" ? ":" : "-"));
    expect(stream.sort()).toEqual(want);
    type Match = Line & { before: Line[]; after: Line[] };
    const doc = rglobJson<{ results: Match[] }>([...args, "--json"], { cwd: dir }).json;
    const nested = doc.results.flatMap((m) => [
      ...m.before.map((c) => shown({ ...c, relative_path: m.relative_path }, "-")),
      shown(m, ":"),
      ...m.after.map((c) => shown({ ...c, relative_path: m.relative_path }, "-")),
    ]);
    expect(nested.sort()).toEqual(want);
  });
});
