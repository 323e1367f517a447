/*! grep's `also` (--also, --without, --also-in): files that hold one pattern and also another, each in its
 * regions, or not the other, in one call; on the compiled binary (CLI, in this thread and with workers) and
 * through a real MCP client, on a tree on disk. */
import { afterAll, describe, expect, test } from "bun:test";
import { jsonl, rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const big = `${"x = 1\n".repeat(250_000)}import requests\n# TODO: the last line of a large file\n`;
const t = tempTree({
  "svc/fetch.py": "import requests\n\n# TODO: retry on 503\ndef get(u):\n    return requests.get(u)\n",
  "svc/notify.py": "from requests import Session\n\ndef send():\n    pass  # TODO batch\n",
  "svc/upload.py": "import requests\n\ndef put():\n    return requests.put('x')\n",
  "svc/legacy.py": 'import requests\r\n\r\nMSG = "TODO later"\r\n',
  "svc/pipeline.py": "# uses requests elsewhere\n# TODO: split\ndef run():\n    pass\n",
  "svc/plain.py": "def nothing():\n    return 1\n",
  "svc/large.py": big,
  "data/blob.bin": Buffer.concat([Buffer.from("requests\0"), Buffer.from("TODO\n")]),
  "notes.md": "requests and TODO in prose\n",
});
afterAll(() => t.cleanup());

const Q12 = [
  "grep",
  "-w",
  "requests",
  "--in",
  "code",
  "--also",
  "TODO",
  "--also-in",
  "comment",
  "--lang",
  "py",
];

describe("grep --also / --without (CLI)", () => {
  test("one call answers 'Python files that import requests and have a TODO comment'", () => {
    for (const j of ["0", "2"]) {
      const r = rglob([...Q12, "-l", "-j", j], { cwd: t.dir });
      expect({ j, code: r.code, out: r.stdout }).toEqual({
        j,
        code: 0,
        out: "svc/fetch.py\nsvc/large.py\nsvc/notify.py\n",
      });
      // legacy.py (TODO only in a string) and upload.py (no TODO) are left out, and the note says so.
      expect(r.stderr).toContain("--also/--without left out 2 files (left_out_by_also)");
    }
  });

  test("lines, counts and totals are the main pattern's, in the files kept only", () => {
    const lines = rglob([...Q12, "-N"], { cwd: t.dir });
    expect(lines.stdout).toBe(
      "svc/fetch.py:import requests\nsvc/fetch.py:    return requests.get(u)\nsvc/large.py:import requests\nsvc/notify.py:from requests import Session\n",
    );
    expect(rglob([...Q12, "-c"], { cwd: t.dir }).stdout).toBe(
      "svc/fetch.py:2\nsvc/large.py:1\nsvc/notify.py:1\n",
    );
    const { json } = rglobJson<Record<string, unknown>>([...Q12, "--json"], { cwd: t.dir });
    expect({
      matches: json.total_matches,
      lines: json.matched_lines,
      files: json.files_with_matches,
      left: json.left_out_by_also,
    }).toEqual({ matches: 4, lines: 4, files: 3, left: 2 });
    const stream = jsonl(rglob([...Q12, "-l", "--jsonl"], { cwd: t.dir }).stdout);
    expect(stream.filter((r) => r.kind === "file").map((r) => r.relative_path)).toEqual([
      "svc/fetch.py",
      "svc/large.py",
      "svc/notify.py",
    ]);
    expect(stream.at(-1)).toMatchObject({ kind: "summary", left_out_by_also: 2 });
  });

  test("--without keeps the files where the pattern matches nowhere in its regions", () => {
    const r = rglob(
      [
        "grep",
        "-w",
        "requests",
        "--in",
        "code",
        "--without",
        "TODO",
        "--also-in",
        "comment",
        "-l",
        "--lang",
        "py",
      ],
      {
        cwd: t.dir,
      },
    );
    expect(r.stdout).toBe("svc/legacy.py\nsvc/upload.py\n");
    // Several conditions: each must hold.
    const both = rglob(["grep", "-l", "requests", "--also", "TODO", "--without", "Session", "--lang", "py"], {
      cwd: t.dir,
    });
    expect(both.stdout).toBe("svc/fetch.py\nsvc/large.py\nsvc/legacy.py\nsvc/pipeline.py\n");
  });

  test("--files-without-match lists the files that meet the conditions and lack the pattern", () => {
    // A condition takes the query's --in unless --also-in follows it: TODO in code is in no file.
    expect(
      rglob(["grep", "--files-without-match", "-w", "requests", "--in", "code", "--also", "TODO"], {
        cwd: t.dir,
      }).code,
    ).toBe(1);
    const r = rglob(
      [
        "grep",
        "--files-without-match",
        "-w",
        "requests",
        "--in",
        "code",
        "--also",
        "TODO",
        "--also-in",
        "comment",
      ],
      {
        cwd: t.dir,
      },
    );
    expect(r.stdout).toBe("svc/pipeline.py\n");
    expect(r.code).toBe(0);
  });

  test("a condition in a binary file: skipped as binary, or with -uuu tested on its bytes", () => {
    const skipped = rglobJson<Record<string, unknown>>(
      ["grep", "requests", "--also", "TODO", "data", "--json"],
      {
        cwd: t.dir,
      },
    );
    expect(skipped.run.code).toBe(1);
    expect(skipped.json.files_skipped).toMatchObject({ binary: 1 });
    expect(rglob(["grep", "-uuu", "requests", "--also", "TODO", "data"], { cwd: t.dir }).stdout).toBe(
      'data/blob.bin: binary file matches (found "\\0" byte around offset 8)\n',
    );
    const without = rglob(["grep", "-uuu", "requests", "--without", "TODO", "data"], { cwd: t.dir });
    expect({ code: without.code, out: without.stdout }).toEqual({ code: 1, out: "" });
  });

  test("a cursor page resumes in the files kept, and a cursor of another condition is refused", () => {
    const page1 = rglobJson<{ results: Array<{ relative_path: string }>; next_cursor: string }>(
      [...Q12, "-l", "--limit", "1", "--json"],
      { cwd: t.dir },
    ).json;
    expect(page1.results.map((r) => r.relative_path)).toEqual(["svc/fetch.py"]);
    const page2 = rglobJson<{ results: Array<{ relative_path: string }> }>(
      [...Q12, "-l", "--json", "--cursor", page1.next_cursor],
      { cwd: t.dir },
    ).json;
    expect(page2.results.map((r) => r.relative_path)).toEqual(["svc/large.py", "svc/notify.py"]);
    const other = rglob(
      [
        "grep",
        "-w",
        "requests",
        "--in",
        "code",
        "--also",
        "FIXME",
        "--lang",
        "py",
        "-l",
        "--cursor",
        page1.next_cursor,
      ],
      { cwd: t.dir },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("BAD_PREDICATE");
  });

  test("--also-in binds to the condition before it; alone it is a usage error", () => {
    const r = rglob(["grep", "requests", "--also-in", "comment"], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--also-in applies to the --also or --without before it");
    // The first condition anywhere, the second in comments: legacy.py has TODO in a string, not a comment.
    const bound = rglob(
      ["grep", "-l", "import requests", "--also", "TODO", "--also", "TODO", "--also-in", "comment"],
      {
        cwd: t.dir,
      },
    );
    expect(bound.stdout).toBe("svc/fetch.py\nsvc/large.py\n");
  });
});

describe("grep also (MCP)", () => {
  test("the same answer through the rglob tool, with the note in its text", async () => {
    const mcp = await startMcp(["--root", t.dir]);
    try {
      const res = (await mcp.client.callTool({
        name: "rglob",
        arguments: {
          op: "grep",
          pattern: "requests",
          word_regexp: true,
          in: ["code"],
          also: [{ pattern: "TODO", in: ["comment"] }],
          file_types: ["py"],
          files_with_matches: true,
        },
      })) as { structuredContent: Record<string, unknown>; content: Array<{ text: string }> };
      const sc = res.structuredContent as {
        results: Array<{ relative_path: string }>;
        left_out_by_also: number;
      };
      expect(sc.results.map((r) => r.relative_path)).toEqual([
        "svc/fetch.py",
        "svc/large.py",
        "svc/notify.py",
      ]);
      expect(sc.left_out_by_also).toBe(2);
      expect(res.content[0]?.text).toContain("also left out 2 files (left_out_by_also)");
      const bad = (await mcp.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "requests", also: [{ pattern: "(" }] },
      })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(bad.isError).toBe(true);
      expect(bad.content[0]?.text).toContain("REGEX");
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
