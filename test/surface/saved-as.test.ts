// Files by the encoding they are saved in, in one call (#37): `--saved-as` / `saved_as` on every walking
// operation, on random trees holding files in each encoding, binary and empty files, an ignored Latin-1 file and a
// symlink to one, compared with a detector written here (byte order marks, WHATWG's strict UTF-8 decoder, and a
// plain rule for UTF-16 text of Latin characters), on the compiled binary, the library and the MCP server.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchAll } from "../../src/agent/index.ts";
import { jsonl, prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** The head the encoding is named from, and the NUL sniff (ADR 0041). */
const HEAD = 64 * 1024;
const SNIFF = 8192;

/** Whether every 16-bit unit of the bytes, in that order, is a tab, a line end or a printable Latin-1 character. */
function latinUtf16(b: Uint8Array, le: boolean): boolean {
  if (b.length < 4 || b.length % 2 !== 0) return false;
  for (let i = 0; i < b.length; i += 2) {
    const hi = b[le ? i + 1 : i] as number;
    const lo = b[le ? i : i + 1] as number;
    if (hi !== 0) return false;
    if (!(lo === 9 || lo === 10 || lo === 13 || (lo >= 0x20 && lo < 0x7f) || lo >= 0xa0)) return false;
  }
  return true;
}

/** This test's own detector: the name a file's head should get. */
function detect(all: Uint8Array): string {
  const b = all.subarray(0, HEAD);
  if (b[0] === 0xff && b[1] === 0xfe) return "utf-16le+bom";
  if (b[0] === 0xfe && b[1] === 0xff) return "utf-16be+bom";
  if (b.subarray(0, SNIFF).includes(0)) {
    const block = b.subarray(0, SNIFF);
    if (latinUtf16(block, true)) return "utf-16le";
    if (latinUtf16(block, false)) return "utf-16be";
    return "binary";
  }
  try {
    // stream: a character cut at the head's end is the rest of a file not read, not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(b, { stream: all.length > HEAD });
  } catch {
    return "windows-1252";
  }
  return b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? "utf-8+bom" : "utf-8";
}

const WORDS = ["Zürich", "café", "naïve", "plain", "text", "Ångström", "über", "line"];

/** One file's bytes in an encoding (the kind), with some random text. */
function bytesOf(kind: string, rnd: () => number): Uint8Array {
  const text = `${Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ")}\n`;
  const ascii = text.normalize("NFD").replace(/[^\x20-\x7e\n]/g, "");
  switch (kind) {
    case "ascii":
      return Buffer.from(ascii);
    case "utf8":
      return Buffer.from(`é ${text}`);
    case "utf8bom":
      return Buffer.from(`\ufeff${text}`);
    case "utf16le":
      return Buffer.from(text, "utf16le");
    case "utf16lebom":
      return Buffer.from(`\ufeff${text}`, "utf16le");
    case "utf16be":
      return Buffer.from(text, "utf16le").swap16();
    case "utf16bebom":
      return Buffer.from(`\ufeff${text}`, "utf16le").swap16();
    case "latin1":
      return Buffer.from(`é ${text}`, "latin1");
    case "binary":
      return Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3, 0xff, ...Buffer.from(ascii)]);
    case "empty":
      return new Uint8Array(0);
    case "bigcut": {
      // Valid UTF-8 whose 64 KiB head ends inside a two-byte character, then Latin-1 past the head: utf-8.
      const head = Buffer.from(`a${"é".repeat(HEAD / 2)}`);
      return Buffer.concat([head, Buffer.from("é tail\n", "latin1")]);
    }
    default:
      throw new Error(kind);
  }
}

const KINDS = [
  "ascii",
  "utf8",
  "utf8bom",
  "utf16le",
  "utf16lebom",
  "utf16be",
  "utf16bebom",
  "latin1",
  "binary",
  "empty",
];

/** A random tree: files of every kind, an ignored Latin-1 file, a symlink to a Latin-1 file, a directory. */
function encodedTree(seed: number): { base: string; want: Map<string, string> } {
  const rnd = prng(seed);
  const base = mkdtempSync(join(tmpdir(), "rglob-saved-as-"));
  made.push(base);
  const dirs = ["", "src/", "docs/", "docs/old/"];
  for (const d of dirs) if (d !== "") mkdirSync(join(base, d), { recursive: true });
  const want = new Map<string, string>();
  const put = (rel: string, b: Uint8Array) => {
    writeFileSync(join(base, rel), b);
    want.set(rel, detect(b));
  };
  KINDS.forEach((k, i) => {
    put(`${dirs[i % dirs.length]}${k}-${i}.txt`, bytesOf(k, rnd));
  });
  for (let i = 0; i < 14; i++) {
    const k = KINDS[Math.floor(rnd() * KINDS.length)] as string;
    put(`${dirs[Math.floor(rnd() * dirs.length)]}r${i}-${k}.txt`, bytesOf(k, rnd));
  }
  put("docs/big.txt", bytesOf("bigcut", rnd));
  // Ignored: not selected by any query (ignore rules apply as to every walk).
  writeFileSync(join(base, ".gitignore"), "*.log\n");
  want.set(".gitignore", "utf-8");
  writeFileSync(join(base, "legacy.log"), Buffer.from("caf\xe9\n", "latin1"));
  mkdirSync(join(base, "dir.txt"));
  writeFileSync(join(base, "latin-target.dat"), Buffer.from("Z\xfcrich\n", "latin1"));
  want.set("latin-target.dat", "windows-1252");
  symlinkSync("latin-target.dat", join(base, "to-latin.txt"));
  return { base, want };
}

/** The files of a tree whose detected name a test keeps, sorted. */
function pick(want: Map<string, string>, keep: (name: string) => boolean): string[] {
  return [...want]
    .filter(([, n]) => keep(n))
    .map(([p]) => p)
    .sort();
}

/** The queries compared, each with what it keeps of a detected name. */
const QUERIES: ReadonlyArray<readonly [string, (n: string) => boolean]> = [
  ["!utf-8", (n) => n !== "binary" && !n.startsWith("utf-8")],
  ["utf-16", (n) => n.startsWith("utf-16")],
  ["utf-8+bom", (n) => n === "utf-8+bom"],
  ["latin-1,binary", (n) => n === "windows-1252" || n === "binary"],
  ["!utf-8,!utf-16", (n) => n === "windows-1252"],
  ["utf-8,!utf-8+bom", (n) => n === "utf-8"],
  ["!binary", (n) => n !== "binary"],
  // A name without +bom takes the files with a byte order mark too.
  ["utf-16le+bom,utf-16be", (n) => n === "utf-16le+bom" || n.startsWith("utf-16be")],
];

describe("--saved-as against the test's own detector, on random trees", () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: find (human, --json, --jsonl), grep, count and explain select the same files`, () => {
      const { base, want } = encodedTree(seed);
      for (const [value, keep] of QUERIES) {
        const expected = pick(want, keep);
        // Human find: each path with its encoding, as file(1) prints it.
        const human = rglob(["find", "--saved-as", value, "--base", base], { cwd: base });
        expect(human.stderr).toBe("");
        expect(human.code).toBe(expected.length > 0 ? 0 : 1);
        expect(human.stdout.split("\n").filter(Boolean).sort()).toEqual(
          expected.map((p) => `${p}: ${want.get(p)}`),
        );
        const { json } = rglobJson<{ results: Array<{ relative_path: string; encoding: string }> }>([
          "find",
          "--saved-as",
          value,
          "--base",
          base,
          "--json",
        ]);
        expect(json.results.map((r) => [r.relative_path, r.encoding]).sort()).toEqual(
          expected.map((p) => [p, want.get(p) ?? ""]),
        );
        // The walk split between worker threads (each reads the heads of its subtree) gives the same answer.
        const split = rglob(["find", "--saved-as", value, "--base", base, "--json"], {
          cwd: base,
          env: { RGLOB_WALK_SPLIT: "3" },
        });
        expect(JSON.parse(split.stdout).results).toEqual(json.results);
        const lines = jsonl(
          rglob(["find", "--saved-as", value, "--base", base, "--jsonl"], { cwd: base }).stdout,
        );
        expect(lines.filter((r) => r.kind === "file").map((r) => r.encoding)).toEqual(
          json.results.map((r) => r.encoding),
        );
      }
      // -L: the symlink to a Latin-1 file is selected through its target.
      const followed = rglob(["find", "-L", "--saved-as", "windows-1252", "--base", base], { cwd: base });
      expect(followed.stdout.split("\n").filter(Boolean).sort()).toEqual(
        [
          ...pick(want, (n) => n === "windows-1252").map((p) => `${p}: windows-1252`),
          "to-latin.txt -> latin-target.dat: windows-1252",
        ].sort(),
      );
      // grep and count select the same files (the text ones they read).
      const notUtf8 = pick(want, (n) => n !== "binary" && !n.startsWith("utf-8"));
      const grepped = rglob(["grep", "-l", "--saved-as", "!utf-8", "[a-z]", base], { cwd: base });
      expect(grepped.stdout.split("\n").filter(Boolean).sort()).toEqual(notUtf8);
      const counted = rglobJson<{ results: Array<{ relative_path: string }> }>([
        "count",
        "--by",
        "file",
        "--saved-as",
        "windows-1252",
        "--base",
        base,
        "--json",
      ]).json;
      expect(counted.results.map((r) => r.relative_path).sort()).toEqual(
        pick(want, (n) => n === "windows-1252"),
      );
      // explain over the whole tree: included exactly where find selects.
      const explained = rglobJson<{
        results: Array<{ relative_path: string; included: boolean; entry_type?: string }>;
      }>(["explain", "--under", ".", "--saved-as", "!utf-8", "--base", base, "--json"], { cwd: base }).json;
      expect(
        explained.results
          .filter((r) => r.included)
          .map((r) => r.relative_path)
          .sort(),
      ).toEqual(notUtf8);
    });
  }
});

describe("--saved-as: what a user is told", () => {
  const { base, want } = encodedTree(7);
  const binary = pick(want, (n) => n === "binary")[0] as string;
  const utf8 = pick(want, (n) => n === "utf-8")[0] as string;
  const latin = pick(want, (n) => n === "windows-1252")[0] as string;

  test("explain says why a file is not selected: binary, not a regular file, its encoding; and why one is", () => {
    type Out = { results: Array<{ included: boolean; reasons: Array<{ stage: string; detail: string }> }> };
    const why = (p: string) =>
      rglobJson<Out>(["explain", p, "--saved-as", "!utf-8", "--base", base, "--json"], { cwd: base }).json
        .results[0];
    expect(why(binary)?.included).toBe(false);
    expect(why(binary)?.reasons).toEqual([
      {
        stage: "encoding",
        detail:
          "it is binary (a NUL byte in its first 8 KiB), not text: a '!' in --saved-as !utf-8 keeps text files only",
      },
    ]);
    expect(why("to-latin.txt")?.reasons[0]?.detail).toContain("not a regular file");
    expect(why("to-latin.txt")?.reasons[0]?.detail).toContain("-L follows a link");
    expect(why(utf8)?.reasons).toEqual([
      { stage: "encoding", detail: "it is saved as utf-8, not selected by --saved-as !utf-8" },
    ]);
    expect(why(latin)?.included).toBe(true);
    expect(why(latin)?.reasons[0]).toEqual({
      stage: "encoding",
      detail: "saved as windows-1252 (--saved-as !utf-8)",
    });
  });

  test("a name it does not know is a usage error naming the names; ASCII is said to be utf-8", () => {
    for (const v of ["ascii", "ebcdic", "windows-1252+bom"]) {
      const r = rglob(["find", "--saved-as", v, "--base", base], { cwd: base });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("is not an encoding rglob names");
      expect(r.stderr).toContain("windows-1252 (latin-1)");
      expect(r.stderr).not.toContain("    at ");
    }
    expect(rglob(["find", "--saved-as", "ascii", "--base", base], { cwd: base }).stderr).toContain(
      "ASCII text is utf-8",
    );
  });

  // #37: a trial agent asked `utf-8+bom,!utf-8` for "BOM files, or files not in UTF-8" and got an empty answer.
  test("a selection that can keep nothing is a usage error that says how to ask, on the CLI and over MCP", async () => {
    for (const [v, said] of [
      ["utf-8+bom,!utf-8", "name them instead (the text files not in UTF-8: utf-16,windows-1252)"],
      ["binary,!binary", "leaves out all that 'binary' keeps"],
      ["crlf,!crlf", "name them instead (crlf, lf, mixed or none)"],
      ["binary,crlf", "a binary file has no line ends"],
    ] as const) {
      const r = rglob(["find", "--saved-as", v, "--base", base], { cwd: base });
      expect(`${v}: ${r.code}`).toBe(`${v}: 2`);
      expect(r.stderr).toContain(said);
      expect(r.stderr).not.toContain("    at ");
    }
    // Selections that keep something stay answers.
    for (const v of ["utf-8,!utf-8+bom", "!utf-8", "utf-8+bom,utf-16,windows-1252", "utf-8,crlf"])
      expect(rglob(["find", "--saved-as", v, "--base", base], { cwd: base }).code).not.toBe(2);
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", saved_as: ["utf-8+bom", "!utf-8"] },
      })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(res.isError).toBe(true);
      expect(res.content[0]?.text).toContain("name them instead");
    } finally {
      await s.close();
    }
  });

  test("-0 prints the paths alone; --format {encoding} says the same name", () => {
    const nul = rglob(["find", "--saved-as", "windows-1252", "-0", "--base", base], { cwd: base });
    expect(nul.stdout.split("\0").filter(Boolean).sort()).toEqual(pick(want, (n) => n === "windows-1252"));
    const fmt = rglob(["find", "--saved-as", "!utf-8", "--format", "{rel} {encoding}", "--base", base], {
      cwd: base,
    });
    expect(fmt.stdout.split("\n").filter(Boolean).sort()).toEqual(
      pick(want, (n) => n !== "binary" && !n.startsWith("utf-8")).map((p) => `${p} ${want.get(p)}`),
    );
  });

  test("pages of two records, resumed by cursor, give every selected file once, with its encoding", () => {
    const all = rglobJson<{ results: Array<{ relative_path: string; encoding: string }> }>(
      ["find", "--saved-as", "!utf-8", "--json"],
      { cwd: base },
    ).json.results;
    expect(all.length).toBeGreaterThan(3);
    const pages: Array<{ relative_path: string; encoding: string }> = [];
    let cursor: string | null = null;
    do {
      const page: { results: typeof pages; next_cursor: string | null } = rglobJson<{
        results: typeof pages;
        next_cursor: string | null;
      }>(
        ["find", "--saved-as", "!utf-8", "--limit", "2", "--json", ...(cursor ? ["--cursor", cursor] : [])],
        {
          cwd: base,
        },
      ).json;
      pages.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pages.map((r) => [r.relative_path, r.encoding])).toEqual(
      all.map((r) => [r.relative_path, r.encoding]),
    );
  });

  test("find --help says the names, the negation and that binary files are never selected by it", () => {
    const help = rglob(["find", "--help"]).stdout.replace(/\s+/g, " ");
    expect(help).toContain("--saved-as");
    expect(help).toContain("'!' negates");
    expect(help).toContain("'!' keeps text only");
    expect(help).toContain("rglob find --saved-as '!utf-8'");
  });

  test("the library and the MCP server select the same files, and the MCP text names each one's encoding", async () => {
    const expected = pick(want, (n) => n !== "binary" && !n.startsWith("utf-8"));
    const lib = await searchAll({ base, saved_as: ["!utf-8"], limit: 1000 });
    expect(lib.results.map((r) => [r.relative_path, r.encoding ?? ""]).sort()).toEqual(
      expected.map((p) => [p, want.get(p) ?? ""]),
    );
    const s = await startMcp(["--root", base]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", saved_as: ["!utf-8"] },
      })) as unknown as {
        structuredContent: { results: Array<{ relative_path: string; encoding: string }> };
        content: Array<{ text: string }>;
      };
      expect(res.structuredContent.results.map((r) => [r.relative_path, r.encoding]).sort()).toEqual(
        expected.map((p) => [p, want.get(p) ?? ""]),
      );
      const text = res.content[0]?.text ?? "";
      for (const p of expected) expect(text).toContain(`${p}  saved as ${want.get(p)}`);
      expect(text).not.toContain(binary);
      const bad = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", saved_as: ["klingon"] },
      })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(bad.isError).toBe(true);
      expect(bad.content[0]?.text).toContain("is not an encoding rglob names");
      // grep over MCP takes it too.
      const grep = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "[a-z]", saved_as: ["windows-1252"], files_with_matches: true },
      })) as unknown as { structuredContent: { results: Array<{ relative_path: string }> } };
      expect(grep.structuredContent.results.map((r) => r.relative_path).sort()).toEqual(
        pick(want, (n) => n === "windows-1252").filter((p) => readFileSync(join(base, p)).length > 0),
      );
    } finally {
      await s.close();
    }
  });
});
