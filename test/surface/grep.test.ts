// grep through the compiled binary: operands, modes, context, bounds, cursors, files (binary, encodings, CRLF,
// huge lines, unreadable, FIFO), request failures and the catastrophic-regex timeout.
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, FIXTURE, jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";

interface Match {
  relative_path: string;
  line_number: number;
  content: string;
  clipped: boolean;
  content_offset: number;
  submatches: Array<{ start: number; end: number; byte_start: number; byte_end: number }>;
  before: Array<{ line_number: number; content: string }>;
  after: Array<{ line_number: number; content: string }>;
  encoding: string;
}
interface Result {
  results: Match[];
  truncated: boolean;
  truncated_reason: string | null;
  next_cursor: string | null;
  errors: Array<{ code: string; path: string | null }>;
  total_matches: number;
  matched_lines: number;
  files_with_matches: number;
  files_skipped: { binary: number; too_large: number; unreadable: number };
}

const lines = (r: Result) => r.results.map((m) => `${m.relative_path}:${m.line_number}`);

describe("grep operands", () => {
  test("no operand searches the current directory; ignored and hidden files are skipped", () => {
    const { json, run } = rglobJson<Result>(["grep", "TODO", "--json"], { cwd: FIXTURE });
    expect(run.code).toBe(0);
    expect(lines(json)).toEqual(["docs/notes.txt:3", "src/utils/helper.py:6"]);
  });

  test("an existing operand is a root; an ignored file named explicitly is searched", () => {
    const { json } = rglobJson<Result>(["grep", "TODO", "ignored.log", "src", "--json"], { cwd: FIXTURE });
    expect(lines(json)).toEqual(["ignored.log:1", "src/utils/helper.py:6"]);
  });

  test("an operand that does not exist is a glob filter", () => {
    const { json } = rglobJson<Result>(["grep", "TODO", "*.py", "--json"], { cwd: FIXTURE });
    expect(lines(json)).toEqual(["src/utils/helper.py:6"]);
  });

  test("with -e every operand is a path or glob, and patterns are OR'd", () => {
    const { json } = rglobJson<Result>(["grep", "-e", "TODO", "-e", "def ", "src", "--json"], {
      cwd: FIXTURE,
    });
    expect(lines(json)).toEqual(["src/main.py:6", "src/utils/helper.py:4", "src/utils/helper.py:6"]);
  });
});

describe("grep output", () => {
  test("human output is path:line:content, context is path-line-content with -- between groups", () => {
    const t = tempTree({ "a.txt": "x1\nhit\nx3\nx4\nx5\nx6\nhit\nx8\n", "b.txt": "hit\n" });
    try {
      const r = rglob(["grep", "hit", "-C", "1"], { cwd: t.dir });
      expect(r.stdout).toBe(
        [
          "a.txt-1-x1",
          "a.txt:2:hit",
          "a.txt-3-x3",
          "--",
          "a.txt-6-x6",
          "a.txt:7:hit",
          "a.txt-8-x8",
          "--",
          "b.txt:1:hit",
          "",
        ].join("\n"),
      );
      const plain = rglob(["grep", "hit", "a.txt", "--no-line-number"], { cwd: t.dir });
      expect(plain.stdout).toBe("hit\nhit\n");
      const named = rglob(["grep", "hit", "a.txt", "--with-filename"], { cwd: t.dir });
      expect(named.stdout).toBe("a.txt:2:hit\na.txt:7:hit\n");
    } finally {
      t.cleanup();
    }
  });

  test("--color=always highlights the path, the line number and each match; never without it", () => {
    const t = tempTree({ "a.txt": "one hit two hit\n" });
    try {
      const r = rglob(["grep", "hit", "--color=always"], { cwd: t.dir, env: { NO_COLOR: "" } });
      expect(r.stdout).toBe(
        "\u001b[35ma.txt\u001b[0m:\u001b[32m1\u001b[0m:one \u001b[1;31mhit\u001b[0m two \u001b[1;31mhit\u001b[0m\n",
      );
      expect(rglob(["grep", "hit"], { cwd: t.dir }).stdout).toBe("a.txt:1:one hit two hit\n");
    } finally {
      t.cleanup();
    }
  });

  test("--stats prints totals on stderr", () => {
    const r = rglob(["grep", "TODO", "--stats"], { cwd: FIXTURE });
    expect(r.stderr).toContain("2 matches");
    expect(r.stderr).toContain(
      "skipped: 2 ignored, 0 hidden, 0 excluded, 0 too deep, 1 binary, 0 too large, 0 unreadable, 0 vcs",
    );
  });

  test("context groups merge: no line is given twice", () => {
    const t = tempTree({ "a.txt": "hit\nx\nhit\nx\n" });
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "-C", "2", "--json"], { cwd: t.dir });
      expect(
        json.results.map((m) => [
          m.before.map((c) => c.line_number),
          m.line_number,
          m.after.map((c) => c.line_number),
        ]),
      ).toEqual([
        [[], 1, [2]],
        [[], 3, [4]],
      ]);
    } finally {
      t.cleanup();
    }
  });

  test("submatches carry character and byte columns", () => {
    const t = tempTree({ "u.txt": "héllo wörld wörld\n" });
    try {
      const { json } = rglobJson<Result>(["grep", "wörld", "--json"], { cwd: t.dir });
      expect(json.results[0]?.submatches).toEqual([
        { start: 6, end: 11, byte_start: 7, byte_end: 13 },
        { start: 12, end: 17, byte_start: 14, byte_end: 20 },
      ]);
      expect(json.total_matches).toBe(2);
      expect(json.matched_lines).toBe(1);
    } finally {
      t.cleanup();
    }
  });

  test("JSONL streams match lines and ends with one summary holding totals and skip counts", () => {
    const r = rglob(["grep", "TODO", "--jsonl"], { cwd: FIXTURE });
    const rows = jsonl(r.stdout);
    // The skipped binary file is counted in the summary, not an error line (#37).
    expect(rows.map((x) => x.kind)).toEqual(["match", "match", "summary"]);
    const summary = rows.at(-1) as Record<string, unknown>;
    expect(summary.files_skipped).toEqual({ binary: 1, too_large: 0, unreadable: 0 });
    expect(summary.files_with_matches).toBe(2);
  });

  test.each([
    [["-l"], ["docs/notes.txt", "src/utils/helper.py"]],
    [["-c"], ["docs/notes.txt:1", "src/utils/helper.py:1"]],
    [
      ["--files-without-match"],
      [
        ".gitignore",
        "duplicates/a.txt",
        "duplicates/b.txt",
        "hidden/.secret.py",
        "src/main.py",
        "unreadable/.keep",
      ],
    ],
  ])("file modes %p", (flags, expected) => {
    const r = rglob(["grep", "TODO", ...flags], { cwd: FIXTURE });
    expect(r.stdout.trim().split("\n")).toEqual(expected);
  });

  test("-c on one named file prints the count alone, as grep -c does; -l and several files keep the names", () => {
    expect(rglob(["grep", "-c", "TODO", "docs/notes.txt"], { cwd: FIXTURE }).stdout).toBe("1\n");
    expect(rglob(["grep", "-c", "--with-filename", "TODO", "docs/notes.txt"], { cwd: FIXTURE }).stdout).toBe(
      "docs/notes.txt:1\n",
    );
    expect(rglob(["grep", "-l", "TODO", "docs/notes.txt"], { cwd: FIXTURE }).stdout).toBe("docs/notes.txt\n");
  });

  test("-U with context prints every line once, each with its own number, as rg -U does", () => {
    const t = tempTree({ "a.txt": "1\n2\nb\nx\n5\n6\nb\nx\n9\n" });
    try {
      const r = rglob(["grep", "-U", "-A", "2", "-B", "1", "b\\nx", "a.txt"], { cwd: t.dir });
      expect(r.stdout).toBe("2-2\n3:b\n4:x\n5-5\n6-6\n7:b\n8:x\n9-9\n");
      expect(rglob(["grep", "-U", "-c", "b\\nx", "a.txt"], { cwd: t.dir }).stdout).toBe("2\n");
      expect(rglob(["grep", "-U", "-v", "b\\nx", "a.txt"], { cwd: t.dir }).stdout).toBe(
        "1:1\n2:2\n5:5\n6:6\n9:9\n",
      );
    } finally {
      t.cleanup();
    }
  });

  // grep prints the lines after the max_count-th match as its context even when they match; the context used to
  // stop before the next match (found by comparing -m with context against GNU grep on random files).
  test("-m with after-context gives the last match its whole context, as grep does", () => {
    const t = tempTree({
      "a.txt": "foo1\na\nfoo2\nb\nc\nfoo3\nd\n",
      "big.txt": "foo\n".repeat(400_000), // 1.6 MB: searched window by window
    });
    try {
      const run = (...a: string[]) => rglob(["grep", ...a], { cwd: t.dir }).stdout;
      // A line of that context that matches is printed as a match (`:`), as rg prints it (#22).
      expect(run("-m", "1", "-A", "2", "foo", "a.txt")).toBe("1:foo1\n2-a\n3:foo2\n");
      expect(run("-m", "2", "-C", "1", "foo", "a.txt")).toBe("1:foo1\n2-a\n3:foo2\n4-b\n");
      expect(run("-m", "3", "-A", "2", "foo", "big.txt")).toBe("1:foo\n2:foo\n3:foo\n4:foo\n5:foo\n");
      const { json } = rglobJson<Result>(["grep", "-m", "1", "-A", "2", "foo", "a.txt", "--json"], {
        cwd: t.dir,
      });
      expect(json.results.map((m) => m.after.map((c) => c.content))).toEqual([["a", "foo2"]]);
      // Across files --max-total is global: the context of the last match given stays within its file.
      expect(run("--max-total", "4", "-A", "1", "foo")).toBe(
        "a.txt:1:foo1\na.txt-2-a\na.txt:3:foo2\na.txt-4-b\n--\na.txt:6:foo3\na.txt-7-d\n--\nbig.txt:1:foo\nbig.txt:2:foo\n",
      );
      // -m is per file, as in rg and grep: one match of each file, each with its context.
      expect(run("-m", "1", "-A", "1", "foo")).toBe(
        "a.txt:1:foo1\na.txt-2-a\n--\nbig.txt:1:foo\nbig.txt:2:foo\n",
      );
    } finally {
      t.cleanup();
    }
  });

  test("-o gives one record per match with the matched text", () => {
    const t = tempTree({ "a.txt": "ab12cd345\n" });
    try {
      const r = rglob(["grep", "-o", "[0-9]+", "a.txt"], { cwd: t.dir });
      expect(r.stdout).toBe("1:12\n1:345\n");
    } finally {
      t.cleanup();
    }
  });

  test("-v, -x, -w, -i, -F and -U", () => {
    const t = tempTree({ "a.txt": "Foo bar\nfoobar\nfoo\na.c\nstart\nend\n" });
    try {
      const run = (...a: string[]) =>
        rglob(["grep", ...a, "a.txt", "--no-line-number"], { cwd: t.dir }).stdout;
      expect(run("-v", "foo")).toBe("Foo bar\na.c\nstart\nend\n");
      expect(run("-x", "foo")).toBe("foo\n");
      expect(run("-w", "-i", "foo")).toBe("Foo bar\nfoo\n");
      expect(run("-F", "a.c")).toBe("a.c\n");
      expect(run("-S", "Foo")).toBe("Foo bar\n");
      const { json } = rglobJson<Result>(["grep", "-U", "start\\nend", "a.txt", "--json"], { cwd: t.dir });
      expect(json.results.map((m) => [m.line_number, m.content])).toEqual([[5, "start\nend"]]);
      // Human output: every spanned line carries its own file and line number, as ripgrep prints them.
      const human = rglob(["grep", "-U", "(?:foo|start)\\n[a-z]+", "."], { cwd: t.dir }).stdout;
      expect(human).toBe("a.txt:3:foo\na.txt:4:a.c\na.txt:5:start\na.txt:6:end\n");
    } finally {
      t.cleanup();
    }
  });
});

describe("grep -i and Unicode case folding", () => {
  test("-i matches k and s through K (KELVIN SIGN) and ſ (LONG S), in small and windowed files, as rg does", () => {
    // The literal prefilter folds ASCII only; a line whose only spelling of the word is folded must still match.
    const filler = `${"plain filler line\n".repeat(80_000)}`; // 1.4 MB: searched window by window
    const t = tempTree({
      "small.txt": "the ſeal\nno match here\n5 \u212aelvin\n",
      "big.txt": `${filler}the ſeal\n${filler}the SEAL\n`,
      "ascii.txt": "a Seal\n",
    });
    try {
      const run = (...a: string[]) => rglob(["grep", ...a, "--no-line-number"], { cwd: t.dir }).stdout;
      expect(run("-i", "seal", "small.txt")).toBe("the ſeal\n");
      expect(run("-i", "kelvin", "small.txt")).toBe("5 \u212aelvin\n");
      expect(run("-i", "-C1", "seal", "small.txt")).toBe("the ſeal\nno match here\n");
      expect(run("-i", "-w", "seal", "big.txt")).toBe("the ſeal\nthe SEAL\n");
      expect(run("-i", "-F", "seal", "ascii.txt")).toBe("a Seal\n");
      // Without -i nothing is folded.
      expect(run("seal", "small.txt")).toBe("");
    } finally {
      t.cleanup();
    }
  });
});

describe("grep bounds and paging", () => {
  const many = () =>
    tempTree(
      Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, "hit one\nmiss\nhit two\nhit three\n"]),
      ),
    );

  test("--max-total (the global cap) is global and truncates by look-ahead", () => {
    const t = many();
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "--max-total", "4", "--json"], { cwd: t.dir });
      expect(lines(json)).toEqual(["f0.txt:1", "f0.txt:3", "f0.txt:4", "f1.txt:1"]);
      expect(json.truncated_reason).toBe("max_count");
      const exact = rglobJson<Result>(["grep", "hit", "--max-total", "18", "--json"], { cwd: t.dir }).json;
      expect(exact.truncated).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  test("--max-per-file caps each file", () => {
    const t = many();
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "--max-per-file", "1", "--json"], { cwd: t.dir });
      expect(json.results).toHaveLength(6);
      expect(json.truncated).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  test("--cursor resumes after the last match, inside a file, without repeating", () => {
    const t = many();
    try {
      const all = lines(rglobJson<Result>(["grep", "hit", "--json"], { cwd: t.dir }).json);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        const args: string[] = [
          "grep",
          "hit",
          "--limit",
          "4",
          "--json",
          ...(cursor ? ["--cursor", cursor] : []),
        ];
        const { json }: { json: Result } = rglobJson<Result>(args, { cwd: t.dir });
        seen.push(...lines(json));
        cursor = json.next_cursor;
        if (!json.truncated) break;
      }
      expect(seen).toEqual(all);
    } finally {
      t.cleanup();
    }
  });

  // Regression: each page applied --max-count afresh, so paging a max_count query gave more records than the
  // same query in one piece (the cursor now carries the count given so far).
  test.each([
    [["--max-total", "7"], 3],
    [["--max-total", "5", "-C", "1"], 2],
    [["-l", "--max-total", "2"], 1],
    [["-c", "--max-total", "3"], 2],
  ])("paging %p with --limit %d gives exactly the records of one request", (flags, limit) => {
    const t = many();
    try {
      const records = (json: Result) => json.results.map((r) => JSON.stringify(r));
      const whole = records(rglobJson<Result>(["grep", "hit", ...flags, "--json"], { cwd: t.dir }).json);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 50; page++) {
        const args = ["grep", "hit", ...flags, "--limit", String(limit), "--json"];
        const { json }: { json: Result } = rglobJson<Result>(
          [...args, ...(cursor ? ["--cursor", cursor] : [])],
          {
            cwd: t.dir,
          },
        );
        seen.push(...records(json));
        cursor = json.next_cursor;
        if (cursor === null) break;
      }
      expect(seen).toEqual(whole);
    } finally {
      t.cleanup();
    }
  });

  // grep -o -m N and rg -o -m N give every match of the first N matching lines; -m counted each match.
  test("with -o, --max-total counts matching lines, and paging it gives one request's records", () => {
    const t = tempTree({ "p.txt": "a1b2c3\nx\nd4e5\nf6\n" });
    try {
      expect(rglob(["grep", "-o", "--max-total", "2", "[0-9]", "p.txt"], { cwd: t.dir }).stdout).toBe(
        "1:1\n1:2\n1:3\n3:4\n3:5\n",
      );
      const whole = rglobJson<Result>(["grep", "-o", "--max-total", "2", "[0-9]", "--json"], {
        cwd: t.dir,
      }).json;
      expect([whole.results.length, whole.truncated_reason]).toEqual([5, "max_count"]);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const args = ["grep", "-o", "--max-total", "2", "[0-9]", "--limit", "2", "--json"];
        const { json }: { json: Result } = rglobJson<Result>(
          [...args, ...(cursor ? ["--cursor", cursor] : [])],
          {
            cwd: t.dir,
          },
        );
        seen.push(...json.results.map((r) => JSON.stringify(r)));
        cursor = json.next_cursor;
        if (cursor === null) break;
      }
      expect(seen).toEqual(whole.results.map((r) => JSON.stringify(r)));
    } finally {
      t.cleanup();
    }
  });

  test("-c keeps the grand total exact when --limit cuts the listing", () => {
    const t = many();
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "-c", "--limit", "2", "--json"], { cwd: t.dir });
      expect(json.results).toHaveLength(2);
      expect(json.truncated_reason).toBe("limit");
      expect(json.matched_lines).toBe(18);
      expect(json.files_with_matches).toBe(6);
    } finally {
      t.cleanup();
    }
  });

  test("--max-bytes stops before reading past the budget", () => {
    const t = many();
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "--max-bytes", "60", "--json"], { cwd: t.dir });
      expect(json.truncated_reason).toBe("max_bytes");
      expect(new Set(json.results.map((m) => m.relative_path))).toEqual(new Set(["f0.txt"]));
      expect(json.truncated).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  test("--max-file-size skips larger files as TOO_LARGE", () => {
    const t = tempTree({ "big.txt": `${"hit\n".repeat(1000)}`, "small.txt": "hit\n" });
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "--max-file-size", "1K", "--json"], { cwd: t.dir });
      expect(lines(json)).toEqual(["small.txt:1"]);
      expect(json.errors.map((e) => e.code)).toEqual(["TOO_LARGE"]);
      expect(json.files_skipped.too_large).toBe(1);
    } finally {
      t.cleanup();
    }
  });
});

describe("grep files", () => {
  test("binary files are skipped unless -a: counted, listed as BINARY only with --list-binary (#37)", () => {
    const t = tempTree({ "b.bin": new Uint8Array([104, 105, 116, 0, 10, 104, 105, 116, 10]) });
    try {
      const skipped = rglobJson<Result & { skipped: { binary: number } }>(["grep", "hit", "--json"], {
        cwd: t.dir,
      });
      expect(skipped.run.code).toBe(1);
      expect(skipped.json.errors).toEqual([]);
      expect(skipped.json.skipped.binary).toBe(1);
      const listed = rglobJson<Result>(["grep", "hit", "--list-binary", "--json"], { cwd: t.dir });
      expect(listed.json.errors.map((e) => e.code)).toEqual(["BINARY"]);
      const { json } = rglobJson<Result>(["grep", "hit", "-a", "--json"], { cwd: t.dir });
      expect(lines(json)).toEqual(["b.bin:1", "b.bin:2"]);
      // Human output: skipped quietly, but each one named on stderr when --list-binary asks for them.
      expect(rglob(["grep", "hit"], { cwd: t.dir }).stderr).not.toContain("b.bin");
      const human = rglob(["grep", "hit", "--list-binary"], { cwd: t.dir });
      expect(human.stderr).toContain("b.bin: binary file skipped");
    } finally {
      t.cleanup();
    }
  });

  test("UTF-16 by BOM, latin1 by --encoding, invalid UTF-8 replaced", () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("alpha\nnaïve hit\n", "utf16le")]);
    const be = Buffer.from(le);
    be.swap16();
    const t = tempTree({
      "le.txt": le,
      "be.txt": be,
      "latin.txt": Buffer.from("caf\xe9 hit\n", "latin1"),
      "bad.txt": Buffer.from([0x68, 0x69, 0x74, 0xff, 0xfe, 0x0a]),
    });
    try {
      const { json } = rglobJson<Result>(["grep", "hit", "--json"], { cwd: t.dir });
      const by = Object.fromEntries(json.results.map((m) => [m.relative_path, [m.content, m.encoding]]));
      expect(by["le.txt"]).toEqual(["naïve hit", "utf-16le"]);
      expect(by["be.txt"]).toEqual(["naïve hit", "utf-16be"]);
      expect(by["bad.txt"]).toEqual(["hit\ufffd\ufffd", "utf-8"]);
      const latin = rglobJson<Result>(["grep", "café", "latin.txt", "--encoding", "latin1", "--json"], {
        cwd: t.dir,
      });
      expect(latin.json.results.map((m) => [m.content, m.encoding])).toEqual([["café hit", "windows-1252"]]);
    } finally {
      t.cleanup();
    }
  });

  test("CRLF lines without \\r; empty file and no final newline as grep", () => {
    const t = tempTree({ "crlf.txt": "one hit\r\ntwo\r\n", "empty.txt": "", "nonl.txt": "last hit" });
    try {
      const { json } = rglobJson<Result>(["grep", "hit$", "--json"], { cwd: t.dir });
      expect(json.results.map((m) => [m.relative_path, m.line_number, m.content])).toEqual([
        ["crlf.txt", 1, "one hit"],
        ["nonl.txt", 1, "last hit"],
      ]);
      const inverted = rglob(["grep", "-v", "zzz", "-c"], { cwd: t.dir });
      expect(inverted.stdout).toBe("crlf.txt:2\nnonl.txt:1\n");
    } finally {
      t.cleanup();
    }
  });

  test("a CR that ends the file (no LF after it) is part of the last line on every path", () => {
    // Only a CR before LF is not part of a line. The byte path dropped the last CR, the whole-text path kept it:
    // 'd\r' found nothing, 'cd$' found the line, and JSONL gave "cd\r" in one record and "cd" in another.
    const big = `${"z".repeat(99)}\n`.repeat(12_000);
    const t = tempTree({
      "cr.txt": "ab\ncd\r",
      "big.txt": `${big}ab\ncd\r`,
      "long.txt": `${"z".repeat(17 << 20)}cd\r`,
    });
    try {
      for (const file of ["cr.txt", "big.txt", "long.txt"]) {
        for (const extra of [[], ["-C", "1"], ["-c"], ["-o"]]) {
          const hit = rglobJson<Result>(["grep", "d\\r", file, "--json", ...extra], { cwd: t.dir });
          expect([file, extra, hit.json.matched_lines]).toEqual([file, extra, 1]);
          if (extra.length === 0 && file !== "long.txt") expect(hit.json.results[0]?.content).toBe("cd\r");
          const none = rglobJson<Result>(["grep", "cd$", file, "--json", ...extra], { cwd: t.dir });
          expect([file, extra, none.json.matched_lines]).toEqual([file, extra, 0]);
        }
      }
      const records = jsonl(rglob(["grep", "c", "cr.txt", "--jsonl", "-C", "1"], { cwd: t.dir }).stdout);
      expect(records.filter((r) => r.kind === "match").map((r) => r.content)).toEqual(["cd\r"]);
    } finally {
      t.cleanup();
    }
  });

  test("--max-columns counts characters (code points) and never splits a surrogate pair", () => {
    // It counted UTF-16 units: 15 emoji with --max-columns 15 were clipped to 7, and with 10 the content held 5
    // of them while the submatches listed 6.
    const t = tempTree({ "emoji.txt": `${"😀".repeat(15)}\nctx ${"é😀".repeat(10)}\n` });
    try {
      const fits = rglobJson<Result>(
        ["grep", "😀", "emoji.txt", "--max-columns", "15", "--json", "-m", "1"],
        {
          cwd: t.dir,
        },
      );
      expect(fits.json.results[0]?.clipped).toBe(false);
      expect(fits.json.results[0]?.content).toBe("😀".repeat(15));
      const cut = rglobJson<Result>(
        ["grep", "^😀", "emoji.txt", "--max-columns", "10", "--json", "-A", "1"],
        {
          cwd: t.dir,
        },
      );
      const m = cut.json.results[0] as Match;
      expect([m.clipped, m.content]).toEqual([true, "😀".repeat(10)]);
      for (const s of m.submatches) {
        expect(s.end).toBeGreaterThan(m.content_offset);
        expect(s.start).toBeLessThan(m.content_offset + 10);
      }
      expect(m.after.map((c) => [Array.from(c.content).length, c.content.includes("\ufffd")])).toEqual([
        [10, false],
      ]);
      const human = rglob(["grep", "😀", "emoji.txt", "--max-columns", "10", "-m", "1"], { cwd: t.dir });
      expect(human.stdout).toBe(`1:${"😀".repeat(10)}\n[… line clipped to 10 characters]\n`);
    } finally {
      t.cleanup();
    }
  });

  test("an empty match before an astral character steps over the whole character (it looped forever)", () => {
    // With 'u' the regex moves an index inside a surrogate pair back to its start, so stepping one UTF-16 unit
    // after an empty match found the same empty match again, forever.
    const t = tempTree({ "e.txt": "a😀b\n" });
    try {
      for (const extra of [["-o"], ["-c"], ["-U", "--json"]]) {
        const res = Bun.spawnSync([BIN, "grep", "x?", "e.txt", ...extra], {
          cwd: t.dir,
          stdout: "pipe",
          timeout: 10_000,
        });
        expect([extra, res.exitCode]).toEqual([extra, 0]);
      }
      const { json } = rglobJson<Result>(["grep", "x?", "e.txt", "--json"], { cwd: t.dir });
      expect(json.results[0]?.submatches.map((s) => [s.start, s.byte_start])).toEqual([
        [0, 0],
        [1, 1],
        [2, 5],
        [3, 6],
      ]);
    } finally {
      t.cleanup();
    }
  });

  test("a minified one-line file is clipped by --max-columns around the match", () => {
    const t = tempTree({ "min.js": `${"x".repeat(200_000)}NEEDLE${"y".repeat(200_000)}` });
    try {
      const { json } = rglobJson<Result>(["grep", "NEEDLE", "--max-columns", "100", "--json"], {
        cwd: t.dir,
      });
      const m = json.results[0] as Match;
      expect(m.clipped).toBe(true);
      expect(m.content.length).toBe(100);
      expect(m.content).toContain("NEEDLE");
      expect(m.submatches).toEqual([
        { start: 200_000, end: 200_006, byte_start: 200_000, byte_end: 200_006 },
      ]);
      expect(m.content.indexOf("NEEDLE") + m.content_offset).toBe(200_000);
    } finally {
      t.cleanup();
    }
  });

  const hasSetpriv = Bun.spawnSync(["sh", "-c", "command -v setpriv"]).exitCode === 0;
  test.skipIf(!hasSetpriv)(
    "an unreadable file is an error record and the search goes on (skipped without setpriv)",
    () => {
      const t = tempTree({ "ok.txt": "hit\n", "secret.txt": "hit\n" });
      try {
        Bun.spawnSync(["chmod", "755", t.dir]);
        Bun.spawnSync(["chmod", "644", join(t.dir, "ok.txt")]);
        Bun.spawnSync(["chmod", "000", join(t.dir, "secret.txt")]);
        const copy = join(t.dir, "rglob");
        copyFileSync(BIN, copy);
        Bun.spawnSync(["chmod", "755", copy]);
        const res = Bun.spawnSync(
          [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            copy,
            "grep",
            "hit",
            "*.txt",
            "--json",
          ],
          { cwd: t.dir, stdout: "pipe", stderr: "pipe" },
        );
        const json = JSON.parse(res.stdout.toString()) as Result;
        expect(lines(json)).toEqual(["ok.txt:1"]);
        expect(json.errors.map((e) => [e.code, e.path?.endsWith("secret.txt")])).toEqual([["PERM", true]]);
        expect(json.files_skipped.unreadable).toBe(1);
      } finally {
        t.cleanup();
      }
    },
  );

  test("a FIFO named as an operand is never opened (no hang)", () => {
    const t = tempTree({ "a.txt": "hit\n" });
    try {
      Bun.spawnSync(["mkfifo", join(t.dir, "pipe")]);
      const r = rglob(["grep", "hit", "pipe", "a.txt", "--timeout", "20"], { cwd: t.dir });
      expect(r.stdout).toBe("a.txt:1:hit\n");
    } finally {
      t.cleanup();
    }
  });
});

describe("grep failures", () => {
  test("a bad regex is a REGEX failure envelope with exit 2, before anything is searched", () => {
    const { json, run } = rglobJson(["grep", "a(", "--json"], { cwd: FIXTURE });
    expect(run.code).toBe(2);
    expect(json).toEqual({
      ok: false,
      error: { code: "REGEX", message: expect.stringContaining("a("), path: null },
    });
  });

  // A newline character can only match a newline, which no line holds: without -U the pattern would silently
  // find nothing (ripgrep refuses it; grep -F reads it as several patterns).
  test.each([[["-F"]], [[]], [["-e", "x"]]])(
    "a pattern holding a newline without -U is REGEX, exit 2 (%p)",
    (flags) => {
      const { json, run } = rglobJson(["grep", ...flags, "-e", "TODO:\nexercise", "--json"], {
        cwd: FIXTURE,
      });
      expect(run.code).toBe(2);
      expect((json as { error: { code: string; message: string; path: null } }).error).toEqual({
        code: "REGEX",
        message: expect.stringContaining("use multiline (-U)"),
        path: null,
      });
    },
  );

  test("with -U a pattern holding newlines matches across lines", () => {
    const { json, run } = rglobJson<Result>(["grep", "-U", "-F", "-e", "notes.\n\nTODO", "--json"], {
      cwd: FIXTURE,
    });
    expect(run.code).toBe(0);
    expect(json.results.map((r) => r.relative_path)).toContain("docs/notes.txt");
  });

  test("an unknown --encoding label is BAD_PREDICATE with exit 2", () => {
    const { json, run } = rglobJson(["grep", "x", "--encoding", "klingon", "--json"], { cwd: FIXTURE });
    expect(run.code).toBe(2);
    expect((json as { error: { code: string } }).error.code).toBe("BAD_PREDICATE");
  });

  test("no pattern is a usage failure", () => {
    expect(rglob(["grep"], { cwd: FIXTURE }).code).toBe(2);
  });

  test("a catastrophic regex stops at --timeout with what was found, from a copied binary elsewhere", () => {
    // Nine nested stars backtrack polynomially (about 10^10 steps a line) and JavaScriptCore never cuts that short
    // (a repeated group it does cut short, and such a pattern runs on the linear-time engine, ADR 0020).
    const spec: Record<string, string> = { "a.txt": "fine hit\n" };
    for (let i = 10; i < 30; i++) spec[`z${i}.txt`] = `${"a".repeat(60)}!\n`.repeat(40);
    const t = tempTree(spec);
    const dir = mkdtempSync(join(tmpdir(), "rglob-bin-"));
    try {
      const copy = join(dir, "rglob");
      copyFileSync(BIN, copy);
      Bun.spawnSync(["chmod", "+x", copy]);
      const { json } = rglobJson<Result>(
        ["grep", "-e", "hit", "-e", "a*a*a*a*a*a*a*a*a*[b!]!", "--timeout", "1", "--json"],
        {
          cwd: t.dir,
          bin: copy,
        },
      );
      expect(json.truncated_reason).toBe("timeout");
      expect(lines(json)).toEqual(["a.txt:1"]);
    } finally {
      t.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
