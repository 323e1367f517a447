// #37: "which files contain `Zürich`, in whatever encoding each is stored?" in one call on every surface. A tree
// holds the word in UTF-8, UTF-8 with a BOM, UTF-16LE/BE with and without a BOM, Latin-1, windows-1252 and a
// binary file (bytes written exactly); records say how each file was decoded, the summary counts them and names
// the files that are not valid UTF-8, `--encoding auto` decodes those, and -uuu is rg's --binary. Compared with
// rg where rg answers (UTF-8 and BOM files, the binary file's line); docs/decisions/0041-encodings.md.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { grepAll } from "../../src/agent/index.ts";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

const LINE = "Customers in Zürich\nsecond line\n";
const utf16be = (s: string) => Buffer.from(s, "utf16le").swap16();
const FILES: Record<string, Buffer> = {
  "utf8.txt": Buffer.from(LINE, "utf8"),
  "utf8-bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LINE, "utf8")]),
  "utf16le-bom.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(LINE, "utf16le")]),
  "utf16be-bom.txt": Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(LINE)]),
  "utf16le.txt": Buffer.from(LINE, "utf16le"),
  "utf16be.txt": utf16be(LINE),
  "latin1.txt": Buffer.from(LINE, "latin1"),
  // windows-1252's curly quotes (0x93, 0x94) and ü (0xFC).
  "cp1252.txt": Buffer.concat([
    Buffer.from([0x93]),
    Buffer.from("quoted", "latin1"),
    Buffer.from([0x94, 0x20]),
    Buffer.from(LINE, "latin1"),
  ]),
  "plain.txt": Buffer.from("nothing here\n"),
  // A SQLite-like file: a NUL at offset 15, the word in UTF-8 between binary bytes.
  "data.db": Buffer.concat([
    Buffer.from("SQLite format 3\u0000", "latin1"),
    Buffer.alloc(100),
    Buffer.from([1, 2]),
    Buffer.from(" city=Zürich; ", "utf8"),
    Buffer.from([0, 0, 0xff]),
  ]),
  // Binary files whose NUL bytes must not be taken for UTF-16 (odd length, control bytes, NUL pairs).
  "odd.bin": Buffer.from("a\u0000b\u0000c", "latin1"),
  "ctl.bin": Buffer.from("Z\u0000\u0001\u0000r\u0000", "latin1"),
  "pairs.bin": Buffer.from("Zürich\u0000\u0000Zürich", "utf8"),
};

const t = tempTree(FILES);
afterAll(() => t.cleanup());

type Rec = Record<string, unknown> & { relative_path: string };
interface Result {
  results: Rec[];
  encodings: Record<string, number>;
  not_utf8?: string[];
  files_skipped: { binary: number };
}

const rg = spawnSync("rg", ["--version"]).status === 0;
const byPath = (r: { results: Rec[] }) => Object.fromEntries(r.results.map((x) => [x.relative_path, x]));

describe("the default grep", () => {
  const { json, run } = rglobJson<Result>(["grep", "-F", "Zürich", "--json"], { cwd: t.dir });

  test("finds the word in UTF-8, UTF-8 with a BOM and UTF-16 with or without a BOM; records say which", () => {
    const got = byPath(json);
    expect(Object.keys(got).sort()).toEqual([
      "utf16be-bom.txt",
      "utf16be.txt",
      "utf16le-bom.txt",
      "utf16le.txt",
      "utf8-bom.txt",
      "utf8.txt",
    ]);
    const how = (p: string) => [got[p]?.encoding, got[p]?.bom ?? false];
    expect(how("utf8.txt")).toEqual(["utf-8", false]);
    expect(how("utf8-bom.txt")).toEqual(["utf-8", true]);
    expect(how("utf16le-bom.txt")).toEqual(["utf-16le", true]);
    expect(how("utf16be-bom.txt")).toEqual(["utf-16be", true]);
    expect(how("utf16le.txt")).toEqual(["utf-16le", false]);
    expect(how("utf16be.txt")).toEqual(["utf-16be", false]);
    for (const r of json.results) expect(r.content).toBe("Customers in Zürich");
  });

  test("the summary counts files by encoding and names those that are not valid UTF-8, with the flag", () => {
    expect(json.encodings).toEqual({
      "invalid-utf-8": 2,
      "utf-16be": 1,
      "utf-16be+bom": 1,
      "utf-16le": 1,
      "utf-16le+bom": 1,
      "utf-8+bom": 1,
    });
    expect(json.not_utf8).toEqual(["cp1252.txt", "latin1.txt"]);
    // The binary files are skipped, none taken for UTF-16.
    expect(json.files_skipped.binary).toBe(4);
    expect(run.stderr).toContain(
      "rglob: note: 2 files are not valid UTF-8, searched as UTF-8 where a non-ASCII pattern cannot match its other bytes (cp1252.txt, latin1.txt): --encoding auto decodes them as windows-1252",
    );
  });

  test("-l records carry the encoding, utf-8 included (#37: an absent field was read as unknown)", () => {
    const l = rglobJson<Result>(["grep", "-l", "Zürich", "--json"], { cwd: t.dir }).json;
    const got = byPath(l);
    expect(got["utf8.txt"]).toEqual({
      path: join(t.dir, "utf8.txt"),
      relative_path: "utf8.txt",
      count: null,
      encoding: "utf-8",
    });
    expect(got["utf8-bom.txt"]?.bom).toBe(true);
    expect(got["utf16le.txt"]?.encoding).toBe("utf-16le");
    expect(got["utf16le.txt"]?.bom).toBeUndefined();
  });

  test("search workers give the same records and counts (the outcome crosses threads)", () => {
    for (const extra of [[], ["--encoding", "auto"], ["-uuu"]]) {
      const one = rglobJson<Result>(["grep", "-F", "Zürich", "--json", "--threads", "0", ...extra], {
        cwd: t.dir,
      });
      const two = rglobJson<Result>(["grep", "-F", "Zürich", "--json", "--threads", "2", ...extra], {
        cwd: t.dir,
      });
      expect(two.json.results).toEqual(one.json.results);
      expect(two.json.encodings).toEqual(one.json.encodings);
      expect(two.json.not_utf8).toEqual(one.json.not_utf8);
    }
  });

  test.skipIf(!rg)("where rg decodes a file (UTF-8, BOMs) it finds the same lines", () => {
    const peer = spawnSync("rg", ["-F", "--no-heading", "-n", "Zürich"], { cwd: t.dir }).stdout.toString();
    const ours = rglob(["grep", "-F", "Zürich"], { cwd: t.dir }).stdout;
    const set = (s: string) => s.split("\n").filter(Boolean).sort();
    // rg skips UTF-16 without a BOM as binary; rglob searches it (ADR 0041): the rest is rg's answer.
    expect(set(ours).filter((l) => !/^utf16(le|be)\.txt:/.test(l))).toEqual(set(peer));
    expect(set(ours).filter((l) => /^utf16(le|be)\.txt:/.test(l))).toHaveLength(2);
  });
});

describe("--encoding auto", () => {
  test("finds the word in every text file, in one call, each record saying its encoding", () => {
    const { json, run } = rglobJson<Result>(["grep", "-F", "Zürich", "--encoding", "auto", "--json"], {
      cwd: t.dir,
    });
    const got = byPath(json);
    expect(Object.keys(got)).toHaveLength(8);
    expect(got["latin1.txt"]?.encoding).toBe("windows-1252");
    expect(got["cp1252.txt"]?.content).toBe("\u201cquoted\u201d Customers in Zürich");
    expect(got["utf16be.txt"]?.encoding).toBe("utf-16be");
    expect(json.encodings["windows-1252"]).toBe(2);
    expect(json.not_utf8).toBeUndefined();
    expect(run.stderr).not.toContain("not valid UTF-8");
  });

  test("a bad label is a clear error naming auto", () => {
    const r = rglob(["grep", "x", "--encoding", "nope"], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(or auto)");
  });
});

describe("-uuu is rg's --binary", () => {
  test("the binary file that matches is one line, as rg prints it, never its bytes", () => {
    const r = rglob(["grep", "-uuu", "-F", "Zürich"], { cwd: t.dir });
    expect(r.stdout).toContain('data.db: binary file matches (found "\\0" byte around offset 15)\n');
    expect(r.stdout).not.toContain("SQLite");
    expect(r.stdout).toContain("pairs.bin: binary file matches");
    if (rg) {
      const peer = spawnSync("rg", ["-uuu", "-F", "Zürich", "data.db", "pairs.bin"], { cwd: t.dir });
      const ours = rglob(["grep", "-uuu", "-F", "Zürich", "data.db", "pairs.bin"], { cwd: t.dir });
      expect(ours.stdout.split("\n").sort()).toEqual(peer.stdout.toString().split("\n").sort());
    }
  });

  test("JSON says binary and where, with no content; -c counts as rg; -a still gives the lines", () => {
    const { json } = rglobJson<Result>(["grep", "-uuu", "-F", "Zürich", "--json"], { cwd: t.dir });
    expect(byPath(json)["data.db"]).toEqual({
      path: join(t.dir, "data.db"),
      relative_path: "data.db",
      count: null,
      binary_offset: 15,
    });
    expect(json.encodings.binary).toBe(4);
    expect(json.files_skipped.binary).toBe(0);
    expect(rglob(["grep", "-c", "-uuu", "-F", "Zürich", "data.db"], { cwd: t.dir }).stdout).toBe("1\n");
    const a = rglobJson<Result>(["grep", "-a", "-F", "city=", "data.db", "--json"], { cwd: t.dir }).json;
    expect(String(a.results[0]?.content)).toContain("city=Zürich");
  });
});

describe("the library and MCP give the same answer", () => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await startMcp(["--root", t.dir]);
  });
  afterAll(async () => {
    await mcp.close();
  });

  test("grepAll and the rglob tool equal the CLI's JSON, with auto and with binary", async () => {
    for (const extra of [{}, { encoding: "auto" }, { binary: true }]) {
      const argv = ["grep", "-F", "Zürich", "--json"];
      if ("encoding" in extra) argv.push("--encoding", "auto");
      if ("binary" in extra) argv.push("--binary");
      const cli = rglobJson<Result>(argv, { cwd: t.dir }).json;
      const lib = (await grepAll({
        pattern: "Zürich",
        fixed_strings: true,
        base: t.dir,
        ...extra,
      })) as unknown as Result;
      expect(lib.results).toEqual(cli.results);
      expect(lib.encodings).toEqual(cli.encodings);
      const res = (await mcp.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "Zürich", fixed_strings: true, ...extra },
      })) as CallToolResult;
      const sc = res.structuredContent as unknown as Result;
      expect(sc.results).toEqual(cli.results);
      // The server's warm index rules only plain UTF-8 files out unread, the kind not counted (ADR 0041): its
      // counts and names are the cold run's.
      expect(sc.encodings).toEqual(cli.encodings);
      expect(sc.not_utf8).toEqual(cli.not_utf8);
      const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
      if (sc.not_utf8 !== undefined) expect(text).toContain('encoding: "auto" decodes them as windows-1252');
    }
  });
});

test("an index-backed grep names the same files that are not UTF-8 as a cold one (an index never rules them out)", () => {
  const files: Record<string, string | Buffer> = { "latin.txt": Buffer.from("Z\xfcrich\n", "latin1") };
  files["bom8.txt"] = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("Zürich with a BOM\n")]);
  for (let i = 0; i < 20; i++) files[`src/f${i}.txt`] = `plain text ${i}\n`;
  const t = tempTree(files);
  const cache = tempTree({});
  try {
    const env = { RGLOB_CACHE_DIR: cache.dir, RGLOB_SERVE: "0" };
    // Files written in the last moments are not indexed (their writes may not be over): make them older.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const f of Object.keys(files)) utimesSync(join(t.dir, f), hourAgo, hourAgo);
    const built = rglob(["index"], { cwd: t.dir, env });
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/files\s+20 indexed, 2 not/);
    for (const pattern of ["Zürich", "nowhere-at-all", "plain"]) {
      const hot = rglobJson<Record<string, unknown>>(["grep", pattern, "--json"], { cwd: t.dir, env }).json;
      const cold = rglobJson<Record<string, unknown>>(["grep", pattern, "--json"], {
        cwd: t.dir,
        env: { ...env, RGLOB_INDEX: "0" },
      }).json;
      expect(hot.source).toBe("index");
      expect(hot.not_utf8).toEqual(["latin.txt"]);
      expect(hot.not_utf8).toEqual(cold.not_utf8);
      expect(hot.encodings).toEqual({ "invalid-utf-8": 1, "utf-8+bom": 1 });
      expect(hot.encodings).toEqual(cold.encodings);
    }
  } finally {
    t.cleanup();
    cache.cleanup();
  }
});
