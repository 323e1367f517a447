// Files by their line ends in one call (#37, ADR 0048): `--saved-as crlf|lf|mixed|none` / `saved_as`, AND'd with
// the encodings, on random trees of files whose lines end in LF, CR LF, a lone CR (no line end) or nothing, saved
// as UTF-8, UTF-8 with a BOM, UTF-16 (either order, with and without a BOM), Latin-1 or binary, compared with a
// classifier written here and with `git ls-files --eol` where git says the same thing; and grep's note for a
// pattern that names a CR, which a CR LF line end never holds there. The compiled binary, the library and the
// MCP server.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchAll } from "../../src/agent/index.ts";
import { jsonl, prng, rglob, rglobJson, skipWhen } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** The line ends a file's lines are given: LF, CR LF, a lone CR (which ends no line) or none (the last line). */
const ENDS = ["\n", "\r\n", "\r", ""] as const;
/** The encodings a file is saved in, each with how its text becomes bytes. */
const ENCODINGS: Readonly<Record<string, (text: string) => Uint8Array>> = {
  ascii: (t) => Buffer.from(t),
  utf8: (t) => Buffer.from(`é ${t}`),
  utf8bom: (t) => Buffer.from(`\ufeff${t}`),
  utf16le: (t) => Buffer.from(`ab${t}`, "utf16le"),
  utf16lebom: (t) => Buffer.from(`\ufeff${t}`, "utf16le"),
  utf16be: (t) => Buffer.from(`ab${t}`, "utf16le").swap16(),
  latin1: (t) => Buffer.from(`é ${t}`, "latin1"),
  binary: (t) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x0d, 0x0a]), Buffer.from(t)]),
};

/** This test's classifier: the line ends of a text, in git's words (a line ends at LF; CR before it or not). */
function classify(text: string): string {
  let crlf = false;
  let lf = false;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text[i - 1] === "\r") crlf = true;
    else lf = true;
  }
  return crlf ? (lf ? "mixed" : "crlf") : lf ? "lf" : "none";
}

interface Made {
  readonly kind: string;
  /** The line-end word the file should get; null for a binary file (it has none). */
  readonly eol: string | null;
  /** Whether git ls-files --eol should say the same: a text file of bytes with no lone CR (git: -text). */
  readonly gitComparable: boolean;
}

/** A random tree of files of every encoding and line-end mix, and an ignored CR LF file. */
function eolTree(seed: number): { base: string; want: Map<string, Made> } {
  const rnd = prng(seed);
  const base = mkdtempSync(join(tmpdir(), "rglob-eol-"));
  made.push(base);
  for (const d of ["src", "docs/old"]) mkdirSync(join(base, d), { recursive: true });
  const want = new Map<string, Made>();
  const kinds = Object.keys(ENCODINGS);
  for (let i = 0; i < 36; i++) {
    const kind = kinds[i % kinds.length] as string;
    // Each file takes its line ends from a random subset of ENDS, so that every mix comes up.
    const pool = ENDS.filter(() => rnd() < 0.6);
    const ends = pool.length > 0 ? pool : ["\n"];
    const lines = Math.floor(rnd() * 6);
    let text = "";
    for (let l = 0; l < lines; l++) text += `line ${l} of ${kind}${ends[Math.floor(rnd() * ends.length)]}`;
    const rel = `${["", "src/", "docs/old/"][i % 3]}f${i}-${kind}.txt`;
    const bytes = (ENCODINGS[kind] as (t: string) => Uint8Array)(text);
    writeFileSync(join(base, rel), bytes);
    const loneCr = /\r(?!\n)/.test(text);
    want.set(rel, {
      kind,
      eol: kind === "binary" ? null : classify(text),
      gitComparable: !loneCr && ["ascii", "utf8", "utf8bom", "latin1"].includes(kind),
    });
  }
  // Empty: no line end at all (git's none too).
  writeFileSync(join(base, "empty.txt"), "");
  want.set("empty.txt", { kind: "ascii", eol: "none", gitComparable: true });
  // A CR LF split across the 64 KiB reads: the CR the last byte of one, the LF the first of the next.
  writeFileSync(join(base, "docs/split.txt"), `${"a".repeat(64 * 1024 - 1)}\r\nb\r\n`);
  want.set("docs/split.txt", { kind: "ascii", eol: "crlf", gitComparable: true });
  // The same in UTF-16: the reads stay on unit boundaries.
  writeFileSync(
    join(base, "docs/split16.txt"),
    Buffer.from(`\ufeff${"a".repeat(32 * 1024 - 2)}\r\nb\n`, "utf16le"),
  );
  want.set("docs/split16.txt", { kind: "utf16lebom", eol: "mixed", gitComparable: false });
  // Ignored: never selected.
  writeFileSync(join(base, ".gitignore"), "*.log\n");
  want.set(".gitignore", { kind: "ascii", eol: "lf", gitComparable: true });
  writeFileSync(join(base, "build.log"), "a\r\nb\r\n");
  return { base, want };
}

/** The files whose expected line ends a test keeps, sorted. */
function pick(want: Map<string, Made>, keep: (m: Made) => boolean): string[] {
  return [...want]
    .filter(([, m]) => keep(m))
    .map(([p]) => p)
    .sort();
}

/** The queries compared, each with what it keeps. */
const QUERIES: ReadonlyArray<readonly [string, (m: Made) => boolean]> = [
  ["crlf", (m) => m.eol === "crlf"],
  ["lf", (m) => m.eol === "lf"],
  ["mixed", (m) => m.eol === "mixed"],
  ["none", (m) => m.eol === "none"],
  ["crlf,mixed", (m) => m.eol === "crlf" || m.eol === "mixed"],
  ["!lf", (m) => m.eol !== null && m.eol !== "lf"],
  // The two kinds AND'd: UTF-16 files (either order) with CR LF somewhere.
  ["utf-16,crlf,mixed", (m) => m.kind.startsWith("utf16") && (m.eol === "crlf" || m.eol === "mixed")],
  ["latin-1,!crlf", (m) => m.kind === "latin1" && m.eol !== "crlf"],
];

describe("--saved-as line ends against the test's own classifier, on random trees", () => {
  for (const seed of [11, 12, 13]) {
    test(`seed ${seed}: find (human, --json, --jsonl, walk workers), --format {eol}, grep and explain agree`, () => {
      const { base, want } = eolTree(seed);
      for (const [value, keep] of QUERIES) {
        const expected = pick(want, keep);
        const human = rglob(["find", "--saved-as", value], { cwd: base });
        expect(human.stderr).toBe("");
        expect(human.code).toBe(expected.length > 0 ? 0 : 1);
        // Human find: each path with what was asked, the encoding first when asked too.
        const lines = human.stdout.split("\n").filter(Boolean).sort();
        expect(lines.map((l) => l.replace(/: .*$/, ""))).toEqual(expected);
        for (const l of lines) expect(l.endsWith(`${want.get(l.replace(/: .*$/, ""))?.eol}`)).toBe(true);
        const { json } = rglobJson<{
          results: Array<{ relative_path: string; eol: string; encoding?: string }>;
        }>(["find", "--saved-as", value, "--json"], { cwd: base });
        expect(json.results.map((r) => [r.relative_path, r.eol]).sort()).toEqual(
          expected.map((p) => [p, want.get(p)?.eol ?? ""]),
        );
        // A record carries encoding only when an encoding was asked for.
        expect(json.results.every((r) => (r.encoding !== undefined) === /utf|latin/.test(value))).toBe(true);
        const split = rglob(["find", "--saved-as", value, "--json"], {
          cwd: base,
          env: { RGLOB_WALK_SPLIT: "3" },
        });
        expect(JSON.parse(split.stdout).results).toEqual(json.results);
        const stream = jsonl(rglob(["find", "--saved-as", value, "--jsonl"], { cwd: base }).stdout);
        expect(stream.filter((r) => r.kind === "file").map((r) => r.eol)).toEqual(
          json.results.map((r) => r.eol),
        );
      }
      // {eol} without --saved-as: every file's word, empty for a binary one.
      const fmt = rglob(["find", "-t", "f", "--format", "{rel}|{eol}"], { cwd: base });
      const said = new Map(
        fmt.stdout
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split("|") as [string, string]),
      );
      for (const [p, m] of want) expect([p, said.get(p)]).toEqual([p, m.eol ?? ""]);
      // grep reads the same files (each of them holds a letter).
      const crlf = pick(want, (m) => m.eol === "crlf" || m.eol === "mixed");
      const grepped = rglob(["grep", "-l", "--saved-as", "crlf,mixed", "[a-z]"], { cwd: base });
      expect(grepped.stdout.split("\n").filter(Boolean).sort()).toEqual(crlf);
      // explain over the whole tree: included exactly where find selects.
      const explained = rglobJson<{ results: Array<{ relative_path: string; included: boolean }> }>(
        ["explain", "--under", ".", "--saved-as", "crlf,mixed", "--json"],
        { cwd: base },
      ).json;
      expect(
        explained.results
          .filter((r) => r.included)
          .map((r) => r.relative_path)
          .sort(),
      ).toEqual(crlf);
    });
  }
});

const git = Bun.which("git");

describe("--saved-as line ends against git ls-files --eol", () => {
  skipWhen(git === null && "git is not installed")(
    "text files of bytes without a lone CR: rglob's word is git's i/ word",
    () => {
      for (const seed of [21, 22]) {
        const { base, want } = eolTree(seed);
        const run = (args: string[]) => Bun.spawnSync(["git", ...args], { cwd: base, stdout: "pipe" });
        run(["init", "-q"]);
        run(["add", "-A"]);
        const gitSays = new Map<string, string>();
        for (const line of run(["ls-files", "--eol"]).stdout.toString().split("\n").filter(Boolean)) {
          const [info, path] = line.split("\t") as [string, string];
          gitSays.set(path, (info.match(/^i\/(\S*)/)?.[1] ?? "") as string);
        }
        const formatted = rglob(["find", "-t", "f", "--format", "{rel}|{eol}"], { cwd: base }).stdout;
        const ours = new Map(
          formatted
            .split("\n")
            .filter(Boolean)
            .map((l) => l.split("|") as [string, string]),
        );
        const compared = pick(want, (m) => m.gitComparable);
        expect(compared.length).toBeGreaterThan(5);
        for (const p of compared) expect([p, ours.get(p)]).toEqual([p, gitSays.get(p)]);
        // Documented divergences: git calls a file with a lone CR, or a UTF-16 one, "-text" (binary); rglob
        // judges UTF-16 on its decoded text and reads a lone CR as no line end, as its grep does.
        const nul = pick(want, (m) => m.kind.startsWith("utf16") || m.kind === "binary").filter((p) =>
          readFileSync(join(base, p)).includes(0),
        );
        expect(nul.length).toBeGreaterThan(3);
        for (const p of nul) expect([p, gitSays.get(p)]).toEqual([p, "-text"]);
      }
    },
  );
});

describe("--saved-as line ends: what a user is told", () => {
  const { base, want } = eolTree(31);
  const binary = pick(want, (m) => m.eol === null)[0] as string;
  const lf = pick(want, (m) => m.eol === "lf")[0] as string;
  const crlf = pick(want, (m) => m.eol === "crlf")[0] as string;

  test("explain says why: binary, its line ends; and why a file is selected", () => {
    type Out = { results: Array<{ included: boolean; reasons: Array<{ stage: string; detail: string }> }> };
    const why = (p: string, v: string) =>
      rglobJson<Out>(["explain", p, "--saved-as", v, "--json"], { cwd: base }).json.results[0];
    expect(why(binary, "crlf")?.reasons).toEqual([
      {
        stage: "encoding",
        detail:
          "it is binary (a NUL byte in its first 8 KiB), not text: --saved-as crlf names line ends, which only text files have",
      },
    ]);
    expect(why(lf, "crlf,mixed")?.reasons).toEqual([
      { stage: "encoding", detail: "its line ends are lf, not selected by --saved-as crlf,mixed" },
    ]);
    expect(why(crlf, "crlf")?.included).toBe(true);
    expect(why(crlf, "crlf")?.reasons[0]?.detail).toMatch(
      /^saved as \S+, line ends crlf \(--saved-as crlf\)$/,
    );
  });

  test("a word it does not know names the line-end words; -0 prints the paths alone", () => {
    const bad = rglob(["find", "--saved-as", "cr-lf"], { cwd: base });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("the line ends crlf, lf, mixed and none");
    const nul = rglob(["find", "--saved-as", "crlf", "-0"], { cwd: base });
    expect(nul.stdout.split("\0").filter(Boolean).sort()).toEqual(pick(want, (m) => m.eol === "crlf"));
  });

  test("the library and the MCP server select the same files; the MCP text names each one's line ends", async () => {
    const expected = pick(want, (m) => m.eol === "crlf" || m.eol === "mixed");
    const lib = await searchAll({ base, saved_as: ["crlf", "mixed"], limit: 1000 });
    expect(lib.results.map((r) => [r.relative_path, r.eol ?? ""]).sort()).toEqual(
      expected.map((p) => [p, want.get(p)?.eol ?? ""]),
    );
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", saved_as: ["crlf,mixed"], limit: 1000 },
      })) as unknown as {
        structuredContent: { results: Array<{ relative_path: string; eol: string }> };
        content: Array<{ text: string }>;
      };
      expect(res.structuredContent.results.map((r) => [r.relative_path, r.eol]).sort()).toEqual(
        expected.map((p) => [p, want.get(p)?.eol ?? ""]),
      );
      const text = res.content[0]?.text ?? "";
      for (const p of expected) expect(text).toContain(`${p}  line ends ${want.get(p)?.eol}`);
      expect(text).not.toContain(binary);
    } finally {
      await s.close();
    }
  });
});

describe("grep with a pattern that names a CR: never a silent empty answer", () => {
  const base = mkdtempSync(join(tmpdir(), "rglob-eol-grep-"));
  made.push(base);
  writeFileSync(join(base, "w.txt"), "a\r\nb\r\n");
  writeFileSync(join(base, "m.txt"), "a\nb\r\n");
  writeFileSync(join(base, "u.txt"), "a\nb\n");
  const NOTE = "names a CR: a CR LF line end is read as LF";

  test("\\r$, -F CR and -U \\r\\n find nothing in CR LF files, and the note says why and what answers it", () => {
    for (const args of [["\\r$"], ["-F", "\r"], ["-U", "\\r\\n"], ["b\\x0d"], ["-e", "x", "-e", "\\r"]]) {
      const r = rglob(["grep", ...args, "."], { cwd: base });
      expect([args, r.code, r.stdout]).toEqual([args, 1, ""]);
      expect(r.stderr).toContain(NOTE);
      expect(r.stderr).toContain("rglob find --saved-as crlf,mixed");
      // What the note names answers the question.
      const asked = rglob(["find", "--saved-as", "crlf,mixed"], { cwd: base });
      expect(asked.stdout.split("\n").filter(Boolean).sort()).toEqual(["m.txt: mixed", "w.txt: crlf"]);
    }
  });

  test("a CR that ends no line is found, with the note; a pattern with no CR, or one left out by [^\\r\\n], has none", () => {
    writeFileSync(join(base, "lone.txt"), "a\rb\n");
    try {
      const r = rglob(["grep", "-l", "\\r", "."], { cwd: base });
      expect([r.code, r.stdout]).toEqual([0, "lone.txt\n"]);
      expect(r.stderr).toContain(NOTE);
      for (const args of [["a$"], ["[^\\r\\n]b"], ["a\\\\r"], ["-F", "\\r"]]) {
        const quiet = rglob(["grep", ...args, "."], { cwd: base });
        expect([args, quiet.stderr.includes(NOTE)]).toEqual([args, false]);
      }
      // $ sees a CR LF file as an LF one: a$ finds the first line of every file.
      expect(rglob(["grep", "-c", "a$", "w.txt"], { cwd: base }).stdout).toBe("1\n");
    } finally {
      rmSync(join(base, "lone.txt"));
    }
  });

  test("over MCP the text carries the note with saved_as", async () => {
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "\\r$" },
      })) as unknown as { structuredContent: { results: unknown[] }; content: Array<{ text: string }> };
      expect(res.structuredContent.results).toEqual([]);
      const text = res.content[0]?.text ?? "";
      expect(text).toContain(NOTE);
      expect(text).toContain('op find with saved_as: ["crlf", "mixed"]');
    } finally {
      await s.close();
    }
  });
});
