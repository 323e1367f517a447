// count through the compiled binary: records and totals, binary files, exact totals under --limit and across
// cursor pages, --by breakdowns, --no-empty/--no-comments, --encoding, and bad input.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { BIN, FIXTURE, jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

interface CountResult {
  results: Array<{ relative_path: string; lines: number; non_blank: number; code: number; bytes: number }>;
  totals: {
    files: number;
    lines: number;
    bytes: number;
    non_blank: number;
    code: number;
    binary_files: number;
  };
  breakdown: Array<{ key: string; files: number; lines: number }> | null;
  errors: Array<{ code: string; path: string | null }>;
  truncated: boolean;
  next_cursor: string | null;
}

const tree = tempTree({
  "a.ts": "// header\nconst a = 1;\n\n/* block\n   more */\nexport { a };\n",
  "b.py": "# c\nx = 1\n\n",
  "lib/c.js": "x();\n",
  "lib/d.txt": "no newline at end",
  "lib/e.bin": new Uint8Array([0x7f, 0x45, 0x00, 0x0a, 0x0a]),
  "empty.txt": "",
  "w16.txt": new Uint8Array([0xff, 0xfe, ...Buffer.from("one\ntwo\n", "utf16le")]),
});
afterAll(() => tree.cleanup());
const cwd = tree.dir;

describe("count", () => {
  test("per-file records and exact totals; binary files are skipped and counted as such", () => {
    const { json, run } = rglobJson<CountResult>(["count", "--json"], { cwd });
    expect(run.code).toBe(0);
    const byPath = Object.fromEntries(json.results.map((r) => [r.relative_path, r]));
    expect(Object.keys(byPath)).toEqual(["a.ts", "b.py", "empty.txt", "lib/c.js", "lib/d.txt", "w16.txt"]);
    expect(byPath["a.ts"]).toMatchObject({ lines: 6, non_blank: 5, code: 2, bytes: 58 });
    expect(byPath["b.py"]).toMatchObject({ lines: 3, non_blank: 2, code: 1 });
    expect(byPath["lib/d.txt"]).toMatchObject({ lines: 1, non_blank: 1 });
    expect(byPath["w16.txt"]).toMatchObject({ lines: 2, non_blank: 2 });
    expect(json.totals).toMatchObject({ files: 6, lines: 13, binary_files: 1 });
    // The skipped binary file's bytes are said beside it (#37), so bytes + binary_bytes is wc -c of every file.
    const text = json.results.reduce((n, r) => n + r.bytes, 0);
    expect(json.totals).toMatchObject({ bytes: text, binary_bytes: 5 });
    // Counted, not listed (#37); --list-binary lists them.
    expect(json.errors).toEqual([]);
    const listed = rglobJson<CountResult>(["count", "--json", "--list-binary"], { cwd }).json;
    expect(listed.errors).toEqual([
      expect.objectContaining({ code: "BINARY", path: expect.stringContaining("e.bin") }),
    ]);
  });

  test("--limit cuts the listing but not the totals, and the cursor pages keep them", () => {
    const full = rglobJson<CountResult>(["count", "--json"], { cwd }).json;
    const first = rglobJson<CountResult>(["count", "--json", "--limit", "2"], { cwd }).json;
    expect(first.results).toHaveLength(2);
    expect(first.truncated).toBe(true);
    expect(first.totals).toEqual(full.totals);
    const second = rglobJson<CountResult>(["count", "--json", "--cursor", first.next_cursor as string], {
      cwd,
    }).json;
    expect(second.totals).toEqual(full.totals);
    expect([...first.results, ...second.results]).toEqual(full.results);
  });

  test.each([
    ["ext", { ".ts": 6, ".py": 3, ".txt": 3, ".js": 1 }],
    ["language", { TypeScript: 6, Python: 3, "Plain Text": 3, JavaScript: 1 }],
    ["dir", { ".": 11, lib: 2 }],
  ])("--by %s", (by, expected) => {
    const { json } = rglobJson<CountResult>(["count", "--by", by, "--json"], { cwd });
    const got = Object.fromEntries((json.breakdown ?? []).map((g) => [g.key, g.lines]));
    expect(got).toEqual(expected);
    const lines = (json.breakdown ?? []).map((g) => g.lines);
    expect(lines).toEqual([...lines].sort((a, b) => b - a));
  });

  test("--by file gives each file's code, comment and blank lines in one table, most lines first", () => {
    const { json } = rglobJson<CountResult>(["count", "--by", "file", "--json"], { cwd });
    const rows = (json.breakdown ?? []) as Array<Record<string, unknown>>;
    expect(rows.map((g) => g.key)).toEqual(["a.ts", "b.py", "w16.txt", "lib/c.js", "lib/d.txt", "empty.txt"]);
    expect(rows[0]).toMatchObject({ key: "a.ts", files: 1, lines: 6, code: 2, comment: 3, blank: 1 });
    const human = rglob(["count", "--by", "file"], { cwd }).stdout;
    expect(human).toMatch(/^file\s+files\s+lines\s+code\s+comment\s+blank\s+bytes\n/);
    expect(human).toMatch(/^a\.ts\s+1\s+6\s+2\s+3\s+1\s+58$/m);
  });

  test("--no-empty and --no-comments choose what `lines` counts", () => {
    const get = (...flags: string[]) =>
      rglobJson<CountResult>(["count", "a.ts", ...flags, "--json"], { cwd }).json.results[0]?.lines;
    expect(get()).toBe(6);
    expect(get("--no-empty")).toBe(5);
    expect(get("--no-comments")).toBe(3);
    expect(get("--no-empty", "--no-comments")).toBe(2);
  });

  test("a file in UTF-16 without a byte order mark is counted by units, sniffed or with --encoding utf-16le", () => {
    const t = tempTree({ "x.txt": Buffer.from("a\nb\nc\n", "utf16le") });
    try {
      // Sniffed as grep and find's {encoding} sniff it (#37): it was skipped as binary.
      const sniffed = rglobJson<CountResult>(["count", "--json"], { cwd: t.dir }).json;
      expect(sniffed.totals).toMatchObject({ files: 1, lines: 3, binary_files: 0 });
      const wide = rglobJson<CountResult>(["count", "--encoding", "utf-16le", "--json"], { cwd: t.dir }).json;
      expect(wide.totals).toMatchObject({ files: 1, lines: 3, binary_files: 0 });
    } finally {
      t.cleanup();
    }
  });

  test("JSONL streams file records and one summary with the totals", () => {
    const lines = jsonl(rglob(["count", "*.py", "--jsonl"], { cwd }).stdout);
    expect(lines.map((l) => l.kind)).toEqual(["file", "summary"]);
    expect(lines[1]?.totals).toMatchObject({ files: 1, lines: 3 });
  });

  test("the human table ends with the totals", () => {
    const r = rglob(["count", "--by", "language", "--files"], { cwd });
    expect(r.code).toBe(0);
    // Each file's row names its breakdown key (which files make up "(unknown)").
    expect(r.stdout).toContain("lines      code   comment     blank     bytes  language      path");
    expect(rglob(["count", "--files"], { cwd }).stdout).toContain(
      "lines      code   comment     blank     bytes  path",
    );
    expect(r.stdout).toMatch(
      /total: 6 files, 13 lines \(\d+ code, \d+ comment, \d+ blank; \d+ non-blank\), \d+ bytes; 1 binary file \(5 bytes\) skipped/,
    );
    // Skipped binary files are counted in the totals line, not printed on stderr (as grep and ripgrep do).
    expect(r.stderr).not.toContain("BINARY");
    // With lines left out, the totals say so (else fewer lines than non-blank ones reads as a mistake).
    const kept = rglob(["count", "--no-empty", "--no-comments"], { cwd }).stdout;
    expect(kept).toMatch(/total: 6 files, \d+ lines without blank or comment lines \(/);
    expect(rglob(["count", "--no-comments"], { cwd }).stdout).toMatch(/\d+ lines without comment lines \(/);
  });

  test("nothing selected exits 1", () => {
    expect(rglob(["count", "*.nothing"], { cwd }).code).toBe(1);
  });

  test.each([
    [["count", "--by", "size"], "not one of ext, language, dir, file"],
    [["count", "--encoding", "klingon"], "not a known encoding"],
    [["count", "--min-size", "nope"], "is not a size"],
    [["tsize", "*", "--unit", "pb"], "not one of kb, mb, gb, tb"],
    [["dupes", "--min-size", "nope"], "is not a size"],
    [["lcount"], "PATTERN"],
  ])("bad input %p exits 2 with a clear message", (args, message) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain("    at ");
  });
});

describe("lcount and tsize (aliases of count)", () => {
  const t = tempTree({
    "src/a.py": "# c\nx = 1\n\ny = 2\n",
    "src/b.py": "z = 3\n",
    "src/dir.py": null,
    "src/broken.py": { symlink: "missing-target" },
    "src/link.py": { symlink: "a.py" },
    "big.bin": new Uint8Array(3 * 1024 * 1024),
  });
  afterAll(() => t.cleanup());

  test("lcount prints `Total lines: N` of the regular files: a matched directory or symlink is no error (#37)", () => {
    // As count and tokei select: dir.py, broken.py and link.py are entries, not files to count; exit 0.
    const r = rglob(["lcount", "*.py"], { cwd: t.dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "Total lines: 5\n", ""]);
    const json = rglobJson<CountResult>(["lcount", "*.py", "--json"], { cwd: t.dir }).json;
    expect(json.errors).toEqual([]);
    expect(json.results.map((x) => x.relative_path).sort()).toEqual(["src/a.py", "src/b.py"]);
    expect(rglob(["lcount", "*.py", "--no-empty", "--no-comments"], { cwd: t.dir }).stdout).toBe(
      "Total lines: 3\n",
    );
    // Following links, a link to a file counts as that file (wc -l reads through it); a broken one is not counted.
    const followed = rglob(["lcount", "*.py", "-L"], { cwd: t.dir });
    expect([followed.code, followed.stdout, followed.stderr]).toEqual([0, "Total lines: 9\n", ""]);
    // A pattern that selects only a directory counts nothing (exit 1, as a query that finds nothing) and says
    // it is a glob, where wc -l says `Is a directory`.
    const dirOnly = rglob(["lcount", "dir.py"], { cwd: join(t.dir, "src") });
    expect([dirOnly.code, dirOnly.stdout]).toEqual([1, "Total lines: 0\n"]);
    expect(dirOnly.stderr).toContain("'dir.py' is a glob");
  });

  // 3 MiB + a.py (17 bytes) + b.py (6 bytes): the unit is MiB (powers of 1024), and the exact bytes stand beside
  // it (#37: "3.55 MB" was printed for 3,727,361 bytes, which are 3.73 MB).
  const bytes = 3 * 1024 * 1024 + 17 + 6;
  test.each([
    [[], `Total size: 3.00 MiB (${bytes} bytes)\n`],
    [["--unit", "kb"], `Total size: 3072.02 KiB (${bytes} bytes)\n`],
    [["--unit", "gb"], `Total size: 0.00 GiB (${bytes} bytes)\n`],
  ])("tsize %p", (flags, expected) => {
    const r = rglob(["tsize", "*", ...flags], { cwd: t.dir });
    // A matched directory and a broken link are entries, not files to size: no error, exit 0 (#37).
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected);
  });

  test("tsize skips the symlinks its patterns match, and takes count's selection flags without a pattern (#37)", () => {
    const links = tempTree({
      "data/a.nc": new Uint8Array(1000),
      "data/b.nc": new Uint8Array(2000),
      "cases/a.nc": { symlink: "../data/a.nc" },
      "cases/gone.nc": { symlink: "../output/gone.nc" },
      "cases/loop.nc": { symlink: "loop.nc" },
      "notes.txt": "x\n",
    });
    try {
      for (const args of [["*.nc"], ["-e", "nc"], ["-e", "nc", "-t", "f"], ["--glob", "*.nc"]]) {
        const r = rglob(["tsize", ...args], { cwd: links.dir });
        expect([args, r.code, r.stderr]).toEqual([args, 0, ""]);
        expect(r.stdout).toBe("Total size: 0.00 MiB (3000 bytes)\n");
      }
      const json = rglobJson<{ totals: { files: number; bytes: number }; errors: unknown[] }>(
        ["tsize", "-e", "nc", "--json"],
        { cwd: links.dir },
      ).json;
      expect(json.totals).toEqual({ files: 2, bytes: 3000 });
      expect(json.errors).toEqual([]);
      // Following links, the one that leads to a file is sized as that file; those that lead nowhere are not.
      const followed = rglob(["tsize", "-e", "nc", "-L"], { cwd: links.dir });
      expect([followed.code, followed.stdout]).toEqual([0, "Total size: 0.00 MiB (4000 bytes)\n"]);
      expect(rglob(["tsize"], { cwd: links.dir }).stdout).toBe("Total size: 0.00 MiB (3002 bytes)\n");
    } finally {
      links.cleanup();
    }
  });

  test("tsize -t l sizes the symlinks themselves, as lstat(2) and du -b do (#37)", () => {
    const links = tempTree({
      "data/a.nc": new Uint8Array(1000),
      "cases/a.nc": { symlink: "../data/a.nc" },
      "cases/gone.nc": { symlink: "../output/gone.nc" },
      "cases/loop.nc": { symlink: "loop.nc" },
      "cases/far": { symlink: "/nonexistent/far/away" },
    });
    try {
      const own = (rel: string) => lstatSync(join(links.dir, rel)).size;
      const all = ["cases/a.nc", "cases/far", "cases/gone.nc", "cases/loop.nc"];
      const sum = all.reduce((n, rel) => n + own(rel), 0);
      expect(sum).toBe(12 + 21 + 17 + 7); // the lengths of the target texts
      const r = rglob(["tsize", "-t", "l"], { cwd: links.dir });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `Total size: 0.00 MiB (${sum} bytes)\n`, ""]);
      const json = rglobJson<{
        results: Array<{ relative_path: string; bytes: number; entry_type?: string }>;
        totals: { files: number; bytes: number };
      }>(["tsize", "-t", "l", "--json"], { cwd: links.dir }).json;
      expect(json.results).toEqual(
        all.map((rel) => ({
          path: join(links.dir, rel),
          relative_path: rel,
          bytes: own(rel),
          entry_type: "symlink",
        })),
      );
      expect(json.totals).toEqual({ files: 4, bytes: sum });
      // du -b says the same of the links (its apparent size of a link is lstat's).
      const du = Bun.spawnSync(["du", "-b", "-c", ...all], { cwd: links.dir });
      if (du.exitCode === 0) expect(du.stdout.toString()).toContain(`${sum}\ttotal`);
      // With files: both; a pattern selects among the links as among files.
      expect(rglob(["tsize", "-t", "f", "-t", "l"], { cwd: links.dir }).stdout).toBe(
        `Total size: 0.00 MiB (${sum + 1000} bytes)\n`,
      );
      expect(rglob(["tsize", "-t", "l", "*.nc"], { cwd: links.dir }).stdout).toBe(
        `Total size: 0.00 MiB (${sum - own("cases/far")} bytes)\n`,
      );
      // Following links, -t l is the links that lead nowhere (find -L -type l), sized themselves.
      const nowhere = own("cases/gone.nc") + own("cases/loop.nc") + own("cases/far");
      expect(rglob(["tsize", "-L", "-t", "l"], { cwd: links.dir }).stdout).toBe(
        `Total size: 0.00 MiB (${nowhere} bytes)\n`,
      );
      // A directory has no size of its own to give here: a usage error that says what to write.
      const d = rglob(["tsize", "-t", "d"], { cwd: links.dir });
      expect(d.code).toBe(2);
      expect(d.stderr).toContain("tsize --base DIR");
    } finally {
      links.cleanup();
    }
  });

  test("lcount and tsize are in the registry: describe and help show them", () => {
    for (const id of ["lcount", "tsize"]) {
      const { json, run } = rglobJson(["describe", id]);
      expect(run.code).toBe(0);
      expect(JSON.stringify(json)).toContain(id);
    }
    expect(rglob(["tsize", "--help"]).stdout).toContain("--unit");
  });
});

describe("unreadable files (run as an unprivileged user)", () => {
  const setpriv = Bun.which("setpriv");
  if (!setpriv) console.warn("SKIP unreadable-file tests in test/surface/count.test.ts: setpriv is missing");
  const asNobody = (args: string[], dir: string) => {
    const r = Bun.spawnSync(
      [setpriv as string, "--reuid=65534", "--regid=65534", "--clear-groups", BIN, ...args, "--base", dir],
      { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
    );
    return { code: r.exitCode, json: JSON.parse(r.stdout.toString()) as Record<string, unknown> };
  };

  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(!setpriv)("count and dupes report a PERM error record and go on (skipped without setpriv)", () => {
    const u = tempTree({ "ok.txt": "a\nb\n", "locked.txt": "a\nb\n", "ok2.txt": "a\nb\n" });
    try {
      chmodSync(u.dir, 0o755);
      chmodSync(join(u.dir, "ok.txt"), 0o644);
      chmodSync(join(u.dir, "ok2.txt"), 0o644);
      chmodSync(join(u.dir, "locked.txt"), 0o000);
      const count = asNobody(["count", "--json"], u.dir);
      expect(count.code).toBe(2); // a PERM record: exit 2, as rg after an unreadable file (#22)
      expect(count.json.totals).toMatchObject({ files: 2, lines: 4 });
      expect(count.json.errors).toEqual([expect.objectContaining({ code: "PERM" })]);
      const dupes = asNobody(["dupes", "--json"], u.dir);
      expect(dupes.code).toBe(2);
      expect((dupes.json.results as Array<{ relative_paths: string[] }>)[0]?.relative_paths).toEqual([
        "ok.txt",
        "ok2.txt",
      ]);
      expect(dupes.json.errors).toEqual([expect.objectContaining({ code: "PERM" })]);
    } finally {
      u.cleanup();
    }
  });
});
