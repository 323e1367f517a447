// UTF-16 without a BOM (#37, ADR 0039): a file whose first block is UTF-16 text (a NUL byte beside each ASCII
// character, on one side) is searched as UTF-16LE or UTF-16BE, not skipped as binary; the answer names the files
// it decoded from UTF-16 (`utf16_files`, a note on CLI stderr and in the MCP text). Binary files stay binary,
// and `--encoding utf-8` turns the sniff off. On real files, the compiled binary, the library and MCP.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grepAll } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rglob-utf16-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const utf16be = (s: string) => Buffer.from(s, "utf16le").swap16();
writeFileSync(join(dir, "le.txt"), Buffer.from("first line\r\nhello wörld ✓ 😀\r\n", "utf16le"));
writeFileSync(join(dir, "be.txt"), utf16be("hello from big-endian\n"));
writeFileSync(
  join(dir, "bom.txt"),
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hello bom\n", "utf16le")]),
);
writeFileSync(join(dir, "plain.txt"), "hello plain\n");
// A large one, past the first block and the window of large files.
writeFileSync(
  join(dir, "big.log"),
  Buffer.from(`${"line of a log\n".repeat(200_000)}hello at the end\n`, "utf16le"),
);
// Binary files holding hello: random bytes, NULs between ASCII at random sides, NUL characters, a PNG head.
const rnd = prng(16);
const bins: Record<string, Buffer> = {
  "random.bin": Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rnd() * 256))),
  "nul-units.bin": Buffer.concat([
    Buffer.from("hello", "utf16le"),
    Buffer.alloc(64),
    Buffer.from("hello", "utf16le"),
  ]),
  "mixed.bin": Buffer.from([104, 0, 101, 0, 0, 108, 0, 108, 111, 0, 1, 2, 3, 4, 5, 6, 7, 8]),
  "png.bin": Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.from("hello")]),
};
for (const [name, bytes] of Object.entries(bins))
  writeFileSync(join(dir, name), Buffer.concat([bytes, Buffer.from("hello")]));

type Res = {
  results: Array<{ relative_path: string; line_number: number; content: string; encoding?: string }>;
  utf16_files?: string[];
  files_skipped: { binary: number };
};
const expected = [
  ["be.txt", 1, "hello from big-endian", "utf-16be"],
  ["big.log", 200_001, "hello at the end", "utf-16le"],
  ["bom.txt", 1, "hello bom", "utf-16le"],
  ["le.txt", 2, "hello wörld ✓ 😀", "utf-16le"],
  ["plain.txt", 1, "hello plain", "utf-8"],
];
const rows = (r: Res) =>
  r.results.map((m) => [m.relative_path, m.line_number, m.content, m.encoding ?? "utf-8"]);

test("grep finds hello in UTF-16 files with and without a BOM, says which, and skips the binary ones", () => {
  const { json, run } = rglobJson<Res>(["grep", "hello", "--json"], { cwd: dir });
  expect(run.code).toBe(0);
  expect(rows(json)).toEqual(expected);
  expect(json.utf16_files).toEqual(["be.txt", "big.log", "bom.txt", "le.txt"]);
  expect(json.files_skipped.binary).toBe(Object.keys(bins).length);
  const human = rglob(["grep", "hello"], { cwd: dir });
  expect(human.stdout).toContain("le.txt:2:hello wörld ✓ 😀\n");
  expect(human.stdout).toContain("be.txt:1:hello from big-endian\n");
  const notes = human.stderr.split("\n").filter((l) => l.includes("UTF-16"));
  expect(notes).toEqual([
    "rglob: note: searched as UTF-16 (a BOM, or UTF-16 text without one; utf16_files): be.txt, big.log, bom.txt, le.txt; --encoding utf-8 reads them as UTF-8",
  ]);
});

test("--encoding utf-8 reads them as UTF-8: the BOM-less ones are binary again; a plain answer has no note", () => {
  const { json } = rglobJson<Res>(["grep", "hello", "--encoding", "utf-8", "--json"], { cwd: dir });
  expect(json.results.map((m) => m.relative_path)).toEqual(["plain.txt"]);
  expect(json.utf16_files).toBeUndefined();
  const plain = rglob(["grep", "hello", "plain.txt"], { cwd: dir });
  expect(plain.stderr).toBe("");
});

test("the library and MCP give the same records and say the same", async () => {
  const lib = (await grepAll({ pattern: "hello", base: dir, strict_base: false })) as unknown as Res;
  expect(rows(lib)).toEqual(expected);
  expect(lib.utf16_files).toEqual(["be.txt", "big.log", "bom.txt", "le.txt"]);
  const s = await startMcp(["--root", dir]);
  try {
    const res = (await s.client.callTool({
      name: "rglob",
      arguments: { op: "grep", pattern: "hello" },
    })) as unknown as {
      content: Array<{ text: string }>;
      structuredContent: Res;
    };
    expect(rows(res.structuredContent)).toEqual(expected);
    expect(res.content[0]?.text).toContain(
      "note: searched as UTF-16 (a BOM, or UTF-16 text without one; utf16_files): be.txt, big.log, bom.txt, le.txt; encoding: utf-8 reads them as UTF-8",
    );
  } finally {
    await s.close();
  }
});

test("a UTF-16 file named on the command line shows its lines, as rg -E utf-16le does; a binary one stays one line", () => {
  for (const args of [
    ["hello", "le.txt"],
    ["hello", "bom.txt"],
    ["--encoding", "utf-16le", "hello", "le.txt"],
  ]) {
    const r = rglob(["grep", ...args], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("binary file matches");
    expect(r.stdout).toMatch(/^\d+:hello/);
  }
  const bin = rglob(["grep", "hello", "png.bin"], { cwd: dir });
  expect(bin.stdout).toContain("binary file matches");
});
