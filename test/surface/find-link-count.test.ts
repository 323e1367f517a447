// find's selections that answered by hand before (#37): symlinks by where their chain ends (`--link file|dir`,
// GNU find's -xtype, AND'd with the state words), hard link counts (`--links`, find's -links) with `{nlink}` and
// `{inode}` (stat -c %h %i), and `{encoding}` (the name grep --encoding auto gives a file), on random trees with
// hard links and links to directories (chained, looping, broken, outside), compared with GNU find, stat and grep,
// on the compiled binary, the library and the MCP server.
import { afterAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchAll } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const hasTools =
  Bun.spawnSync(["stat", "--version"]).exitCode === 0 &&
  Bun.spawnSync(["find", "--version"]).stdout.toString().includes("GNU findutils");

/** A random tree in `<tmp>/base`, with `<tmp>/outside` next to it: files with hard links, links of every sort. */
function linkTree(seed: number): { top: string; base: string } {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const top = mkdtempSync(join(tmpdir(), "rglob-link-count-"));
  made.push(top);
  const base = join(top, "base");
  mkdirSync(join(top, "outside", "od"), { recursive: true });
  writeFileSync(join(top, "outside", "of"), "o");
  mkdirSync(base);
  const dirs: string[] = [];
  for (let i = 0; i < 5; i++) {
    const d = dirs.length === 0 || rnd() < 0.5 ? `d${i}` : `${pick(dirs)}/d${i}`;
    mkdirSync(join(base, d));
    dirs.push(d);
  }
  const at = () => {
    const d = pick(["", ...dirs]);
    return d === "" ? "" : `${d}/`;
  };
  const files: string[] = [];
  for (let i = 0; i < 8; i++) {
    const f = `${at()}f${i}`;
    writeFileSync(join(base, f), `file ${i}\n`);
    files.push(f);
  }
  // Hard links: some files get one or two more names, elsewhere in the tree.
  for (let i = 0; i < 6; i++) linkSync(join(base, pick(files)), join(base, `${at()}h${i}`));
  // Links: to directories (direct, chained, a chain through one outside), to files, broken, loops, outside.
  symlinkSync(dirs[0] as string, join(base, "ldir"));
  symlinkSync("ldir", join(base, "lchain"));
  symlinkSync(files[0] as string, join(base, "lfile"));
  symlinkSync("missing", join(base, "lbroken"));
  symlinkSync("loopB", join(base, "loopA"));
  symlinkSync("loopA", join(base, "loopB"));
  symlinkSync("../outside/od", join(base, "lout"));
  symlinkSync(join(top, "outside"), join(base, "labs"));
  symlinkSync("lout", join(base, "lchainout"));
  symlinkSync("../outside/of", join(base, "loutfile"));
  for (let i = 0; i < 6; i++) {
    const d = at();
    const up = "../".repeat(d === "" ? 0 : d.split("/").length - 1);
    const target = pick([`${up}${pick(dirs)}`, `${up}${pick(files)}`, `${up}nothing`, `${up}ldir`]);
    symlinkSync(target, join(base, `${d}l${i}`));
  }
  return { top, base };
}

/** Runs GNU find in `base` and returns the paths it prints, without `./`, sorted. */
function gnuFind(base: string, args: readonly string[]): string[] {
  const r = Bun.spawnSync(["find", ".", "-mindepth", "1", ...args, "-printf", "%P\n"], { cwd: base });
  return r.stdout.toString().split("\n").filter(Boolean).sort();
}

/** The lines of a CLI find run, sorted. */
function lines(base: string, args: readonly string[]): string[] {
  const r = rglob(["find", "--base", base, "--format", "{rel}", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.split("\n").filter(Boolean).sort();
}

describe.if(hasTools)("--link file|dir and --links against GNU find (skipped without GNU find, stat)", () => {
  for (const seed of [1, 2, 3, 4]) {
    test(`seed ${seed}: -xtype d, -xtype f, -links N, +N, -N; {nlink} {inode} as stat -c '%h %i'`, () => {
      const { top, base } = linkTree(seed);
      const toDir = gnuFind(base, ["-type", "l", "-xtype", "d"]);
      expect(toDir).toContain("lchain");
      expect(toDir).toContain("lchainout");
      expect(lines(base, ["--link", "dir"])).toEqual(toDir);
      expect(lines(base, ["--link", "file"])).toEqual(gnuFind(base, ["-type", "l", "-xtype", "f"]));
      expect(lines(base, ["--link", "file,dir"])).toEqual(
        gnuFind(base, ["-type", "l", "(", "-xtype", "f", "-o", "-xtype", "d", ")"]),
      );
      // AND'd with a state word: the links to a directory whose chain ends outside the base.
      const outside = realpathSync(join(top, "outside"));
      const escapingDirs = toDir.filter((l) => realpathSync(join(base, l)).startsWith(`${outside}`));
      expect(escapingDirs.sort()).toEqual(["labs", "lchainout", "lout"]);
      expect(lines(base, ["--link", "dir,escaping"])).toEqual(escapingDirs);
      expect(lines(base, ["--link", "escaping"])).toContain("loutfile");
      // Hard link counts, as find -links.
      for (const n of ["+1", "1", "2", "3", "-2", "-3", "+2"]) {
        expect(lines(base, ["--links", n])).toEqual(gnuFind(base, ["-links", n]));
      }
      const linked = lines(base, ["-t", "f", "--links", "+1"]);
      expect(linked.length).toBeGreaterThan(1);
      expect(linked).toEqual(gnuFind(base, ["-type", "f", "-links", "+1"]));
      // {nlink} and {inode} against stat(1), for every entry (links' own).
      const mine = rglob(["find", "--base", base, "--format", "{nlink} {inode} {rel}"]).stdout;
      const paths = gnuFind(base, []);
      const st = Bun.spawnSync(["stat", "-c", "%h %i %n", ...paths], { cwd: base }).stdout.toString();
      expect(mine.split("\n").filter(Boolean).sort()).toEqual(st.split("\n").filter(Boolean).sort());
    });
  }

  test("library and MCP select the same entries as the CLI; explain says why --links leaves one out", async () => {
    const { base } = linkTree(9);
    const want = lines(base, ["--links", "+1", "-t", "f"]);
    const wantDirs = lines(base, ["--link", "dir"]);
    const lib = await searchAll({ base, nlink: "+1", types: ["f"], limit: 1000 });
    expect(lib.results.map((r) => r.relative_path).sort()).toEqual(want);
    const libDirs = await searchAll({ base, links: ["dir"], limit: 1000 });
    expect(libDirs.results.map((r) => r.relative_path).sort()).toEqual(wantDirs);
    const s = await startMcp(["--root", base]);
    try {
      type Res = { structuredContent: { results: Array<{ relative_path: string }> }; isError?: boolean };
      const call = async (args: Record<string, unknown>) =>
        (await s.client.callTool({
          name: "rglob",
          arguments: { op: "find", limit: 1000, ...args },
        })) as unknown as Res;
      const hard = await call({ nlink: "+1", types: ["f"] });
      expect(hard.structuredContent.results.map((r) => r.relative_path).sort()).toEqual(want);
      // Under the server's strict_base the links that lead outside are listed (never followed): the same set.
      const toDir = await call({ links: ["dir"] });
      expect(toDir.structuredContent.results.map((r) => r.relative_path).sort()).toEqual(wantDirs);
      const bad = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", nlink: "two" },
      })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(bad.isError).toBe(true);
      expect(bad.content[0]?.text).toContain("not a link count");
    } finally {
      await s.close();
    }
    const single = lines(base, ["-t", "f", "--links", "1"])[0] as string;
    const { json } = rglobJson<{
      results: Array<{ included: boolean; reasons: Array<{ stage: string; detail: string }> }>;
    }>(["explain", single, "--base", base, "--links", "+1", "--json"]);
    expect(json.results[0]?.included).toBe(false);
    expect(json.results[0]?.reasons).toEqual([
      { stage: "links", detail: "its link count 1 is not +1 (--links)" },
    ]);
  });
});

describe("--links: bad values", () => {
  test("a value that is not a count is a usage error naming the forms, exit 2, no stack trace", () => {
    for (const v of ["x", "+", "1.5", "++1"]) {
      const r = rglob(["find", "--links", v, "--base", "fixtures/tree"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("not a link count");
      expect(r.stderr).not.toContain("    at ");
    }
  });

  test("find(1)'s -links and -xtype are usage errors that give the rglob spelling", () => {
    const links = rglob(["find", "-links", "2"]);
    expect(links.code).toBe(2);
    expect(links.stderr).toContain("'-links' is find(1)'s spelling; here, use --links N");
    const xtype = rglob(["find", "-xtype", "d"]);
    expect(xtype.code).toBe(2);
    expect(xtype.stderr).toContain("use --link file or --link dir");
  });
});

describe("{encoding}: grep --encoding auto's names, from the file's head", () => {
  test("UTF-8 with and without BOM, UTF-16LE/BE with and without BOM, Latin-1, ASCII, binary, empty", () => {
    const base = mkdtempSync(join(tmpdir(), "rglob-encoding-"));
    made.push(base);
    const files: Record<string, Uint8Array> = {
      "ascii.txt": Buffer.from("plain text\n"),
      "utf8.txt": Buffer.from("héllo Zürich\n"),
      "utf8-bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo Zürich\n")]),
      "utf16le-bom.txt": Buffer.from("\ufeffhéllo Zürich\n", "utf16le"),
      "utf16le.txt": Buffer.from("héllo Zürich\n", "utf16le"),
      "utf16be.txt": Buffer.from("héllo Zürich\n", "utf16le").swap16(),
      "latin1.txt": Buffer.from("héllo Zürich\n", "latin1"),
      "bin.dat": Buffer.from([0, 1, 2, 3, 0xff, 0x7a]),
      "empty.txt": new Uint8Array(0),
    };
    for (const [n, b] of Object.entries(files)) writeFileSync(join(base, n), b);
    mkdirSync(join(base, "dir"));
    symlinkSync("utf8.txt", join(base, "link"));
    const shown = Object.fromEntries(
      rglob(["find", "--base", base, "--format", "{rel}\t{encoding}"])
        .stdout.split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t") as [string, string]),
    );
    expect(shown).toEqual({
      "ascii.txt": "utf-8",
      "utf8.txt": "utf-8",
      "utf8-bom.txt": "utf-8+bom",
      "utf16le-bom.txt": "utf-16le+bom",
      "utf16le.txt": "utf-16le",
      "utf16be.txt": "utf-16be",
      "latin1.txt": "windows-1252",
      "bin.dat": "binary",
      "empty.txt": "utf-8",
      dir: "",
      link: "",
    });
    // The same names as grep's: each text file's encoding (and +bom) under --encoding auto.
    const { json } = rglobJson<{ results: Array<{ relative_path: string; encoding?: string; bom?: true }> }>(
      ["grep", "--encoding", "auto", "-c", "l", "--base", base, "--json"],
      { cwd: base },
    );
    const grepNames = Object.fromEntries(
      json.results.map((r) => [r.relative_path, `${r.encoding ?? "utf-8"}${r.bom === true ? "+bom" : ""}`]),
    );
    for (const [rel, name] of Object.entries(grepNames))
      expect(`${rel} ${shown[rel]}`).toBe(`${rel} ${name}`);
    expect(Object.keys(grepNames).length).toBe(7);
    // Under -L a link to a file has its file's encoding.
    const followed = rglob(["find", "-L", "--base", base, "--format", "{rel} {encoding}", "link"]);
    expect(followed.stdout).toBe("link utf-8\n");
  });
});
