// grep --in code|comment|string (`in`, #38): the same answer on the CLI, the library and MCP, with threads and
// without; counts, -l, --by, context, paging and the persisted index work on the kept matches; a file of no
// language with code regions is counted in skipped.unknown_language and never searched as all code; a match's
// region is that of its first character, in multiline mode too.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { grepAll } from "../../src/agent/index.ts";
import { BIN, rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  "src/a.ts": [
    'const status = "TODO";',
    "// TODO: split this function",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
    "function todo() { return `TODO ${x /* TODO inner */} done`; }",
    "/* a block",
    "   TODO: in the block */ const TODO_LIMIT = 3;",
    "",
  ].join("\n"),
  "src/b.py": ["# TODO python", "s = '''", "TODO in a string", "'''", "TODO_X = 1  # TODO again", ""].join(
    "\n",
  ),
  "src/c.go": ["package c", "// TODO go", "var s = `TODO raw`", ""].join("\n"),
  "notes.txt": "TODO in plain text\n",
  "data.unknownext": "TODO nobody knows this language\n",
});
afterAll(() => t.cleanup());

interface Match {
  relative_path: string;
  line_number: number;
  submatches: Array<{ start: number }>;
}
interface Result {
  results: Match[];
  skipped: Record<string, number>;
  files_skipped: Record<string, number>;
  total_matches: number;
  matched_lines: number;
  next_cursor: string | null;
}

const where = (r: { results: Match[] }) =>
  r.results.map((m) => `${m.relative_path}:${m.line_number}:${m.submatches.map((s) => s.start).join(",")}`);

const COMMENTS = [
  "src/a.ts:2:3",
  "src/a.ts:3:38",
  "src/a.ts:5:3",
  "src/b.py:1:2",
  "src/b.py:5:14",
  "src/c.go:2:3",
];

describe("grep --in", () => {
  test.each([0, 2])(
    "--in comment keeps TODO comments only (threads %p), and says what it skipped",
    (threads) => {
      const { json, run } = rglobJson<Result>(
        ["grep", "TODO", "--in", "comment", "-j", String(threads), "--json"],
        {
          cwd: t.dir,
        },
      );
      expect(run.code).toBe(0);
      expect(where(json)).toEqual(COMMENTS);
      expect(json.skipped.unknown_language).toBe(2);
      expect(json.files_skipped.unknown_language).toBe(2);
      expect(json.total_matches).toBe(6);
    },
  );

  test("--in string and --in code, and a comma list is the union", () => {
    const strings = rglobJson<Result>(["grep", "TODO", "--in", "string", "--json"], { cwd: t.dir }).json;
    expect(where(strings)).toEqual(["src/a.ts:1:16", "src/a.ts:3:26", "src/b.py:3:0", "src/c.go:3:9"]);
    const code = rglobJson<Result>(["grep", "TODO", "--in", "code", "--json"], { cwd: t.dir }).json;
    expect(where(code)).toEqual(["src/a.ts:5:31", "src/b.py:5:0"]);
    const both = rglobJson<Result>(["grep", "TODO", "--in", "code,string", "--json"], { cwd: t.dir }).json;
    const twice = rglobJson<Result>(["grep", "TODO", "--in", "code", "--in", "string", "--json"], {
      cwd: t.dir,
    });
    expect(where(twice.json)).toEqual(where(both));
    expect(both.total_matches).toBe(6);
  });

  test("without --in every file is searched as before (the plain text ones too)", () => {
    const all = rglobJson<Result>(["grep", "TODO", "--json"], { cwd: t.dir }).json;
    expect(all.total_matches).toBe(14);
    expect(all.skipped.unknown_language).toBeUndefined();
    expect(all.files_skipped.unknown_language).toBeUndefined();
  });

  test("the library and MCP give the CLI's answer", async () => {
    const cli = rglobJson<Result>(["grep", "TODO", "--in", "comment", "--json"], { cwd: t.dir }).json;
    const lib = (await grepAll({ pattern: "TODO", base: t.dir, in: ["comment"] })) as unknown as Result;
    expect(where(lib)).toEqual(where(cli));
    expect(lib.skipped.unknown_language).toBe(2);
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "TODO", in: ["comment"] },
      })) as CallToolResult;
      expect(res.isError ?? false).toBe(false);
      expect(where(res.structuredContent as unknown as Result)).toEqual(where(cli));
    } finally {
      await s.close();
    }
  });

  test("-c, -l, --by language and context count and show the kept matches only", () => {
    const c = rglob(["grep", "TODO", "--in", "comment", "-c"], { cwd: t.dir });
    expect(c.stdout).toBe("src/a.ts:3\nsrc/b.py:2\nsrc/c.go:1\n");
    const l = rglob(["grep", "TODO", "--in", "string", "-l"], { cwd: t.dir });
    expect(l.stdout).toBe("src/a.ts\nsrc/b.py\nsrc/c.go\n");
    const by = rglobJson<{ breakdown: Array<{ key: string; matched_lines: number }> }>(
      ["grep", "TODO", "--in", "code", "--by", "language", "--json"],
      { cwd: t.dir },
    ).json;
    expect(by.breakdown.map((g) => `${g.key}=${g.matched_lines}`)).toEqual(["Python=1", "TypeScript=1"]);
    const ctx = rglob(["grep", "TODO", "--in", "code", "-B1", "src/a.ts"], { cwd: t.dir });
    expect(ctx.stdout).toBe("4-/* a block\n5:   TODO: in the block */ const TODO_LIMIT = 3;\n");
  });

  test("paging with a cursor gives every kept match once", () => {
    const full = where(rglobJson<Result>(["grep", "TODO", "--in", "comment", "--json"], { cwd: t.dir }).json);
    const pages: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n++) {
      const args = ["grep", "TODO", "--in", "comment", "--limit", "2", "--json"];
      if (cursor !== null) args.push("--cursor", cursor);
      const page: Result = rglobJson<Result>(args, { cwd: t.dir }).json;
      pages.push(...where(page));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(pages).toEqual(full);
  });

  test("a match's region is that of its first character, also across lines (multiline)", () => {
    // "inner */} done" starts in a comment and ends in a template literal's text.
    const comment = rglobJson<Result>(["grep", "-U", "inner \\*/\\} done", "--in", "comment", "--json"], {
      cwd: t.dir,
    }).json;
    expect(where(comment)).toEqual(["src/a.ts:3:43"]);
    const code = rglob(["grep", "-U", "inner \\*/\\} done", "--in", "code,string"], { cwd: t.dir });
    expect(code.code).toBe(1);
    // Starts in code ("}"), spans two lines, ends in a comment.
    const span = rglobJson<Result>(["grep", "-U", "\\}\\n/\\* a", "--in", "code", "--json"], {
      cwd: t.dir,
    }).json;
    expect(where(span)).toEqual(["src/a.ts:3:60"]);
  });

  test("-v selects the lines where no match starts in the regions asked for", () => {
    const r = rglob(["grep", "-v", "TODO", "--in", "comment", "src/c.go"], { cwd: t.dir });
    expect(r.stdout).toBe("1:package c\n3:var s = `TODO raw`\n");
  });

  test("--replace replaces the kept matches only; a line after -m's last match is context unless asked", () => {
    const r = rglob(["grep", "TODO", "src/a.ts", "--in", "comment", "--replace", "DONE", "-n"], {
      cwd: t.dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "2:// DONE: split this function",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
        "3:function todo() { return `TODO ${x /* DONE inner */} done`; }",
        "5:   DONE: in the block */ const TODO_LIMIT = 3;",
        "",
      ].join("\n"),
    );
    // The string's TODO is the match; the next line's TODO is a comment's: context ('-'), not a match line.
    const m = rglob(["grep", "TODO", "src/a.ts", "--in", "string", "-m1", "-A1", "--replace", "DONE", "-n"], {
      cwd: t.dir,
    });
    expect(m.stdout).toBe(['1:const status = "DONE";', "2-// TODO: split this function", ""].join("\n"));
  });

  test("a file of no language with code regions is named by the note of an empty answer", () => {
    const r = rglob(["grep", "nobody", "--in", "code"], { cwd: t.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "nothing found; 2 files of no language with code regions were searched whole, without --in",
    );
    // Nothing was found, so no note speaks of "every match found" (a trial agent read it as a contradiction).
    expect(r.stderr).not.toContain("not searched");
    expect(r.stderr).not.toContain("left no match out");
  });

  test("a bad region is a usage error that names the choices", () => {
    const r = rglob(["grep", "TODO", "--in", "comments"], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("code, comment, string");
    expect(r.stderr).not.toContain("    at ");
  });

  test("with the persisted index the answer is the cold one (the index only narrows)", () => {
    const cache = mkdtempSync(join(tmpdir(), "rglob-in-cache-"));
    try {
      const env = { RGLOB_CACHE_DIR: cache };
      expect(rglob(["index"], { cwd: t.dir, env }).code).toBe(0);
      const hot = rglobJson<Result & { source?: string }>(["grep", "TODO", "--in", "comment", "--json"], {
        cwd: t.dir,
        env,
      }).json;
      expect(hot.source).toBe("index");
      expect(where(hot)).toEqual(COMMENTS);
      expect(hot.skipped.unknown_language).toBe(2);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

// #37: "is each mention code, a comment or a string" in one call: with --in naming several regions, each
// submatch carries the region it starts in, and each human match line shows them as a `[…]:` field.
describe("grep --in with several regions: each match says its region", () => {
  interface Tagged {
    relative_path: string;
    line_number: number;
    submatches: Array<{ start: number; region?: string }>;
  }
  const byRegion = (r: { results: Tagged[] }, region: string) =>
    r.results
      .map((m) => ({ ...m, submatches: m.submatches.filter((s) => s.region === region) }))
      .filter((m) => m.submatches.length > 0);

  test.each([0, 2])("each region's matches are those of --in that region alone (threads %p)", (threads) => {
    const all = rglobJson<{ results: Tagged[]; total_matches: number }>(
      ["grep", "TODO", "--in", "code,comment,string", "-j", String(threads), "--json"],
      { cwd: t.dir },
    ).json;
    for (const region of ["code", "comment", "string"]) {
      const alone = rglobJson<Result>(["grep", "TODO", "--in", region, "--json"], { cwd: t.dir }).json;
      expect(where({ results: byRegion(all, region) })).toEqual(where(alone));
      // One region asked for: the field is left out (the region is the one asked for).
      expect(JSON.stringify(alone.results)).not.toContain('"region"');
    }
    expect(all.results.every((m) => m.submatches.every((s) => s.region !== undefined))).toBe(true);
    expect(all.total_matches).toBe(12);
  });

  test("human output: path:line:[regions]:text, after --column, one region a match with --vimgrep", () => {
    const out = rglob(["grep", "TODO", "--in", "comment,string", "src/a.ts", "src/b.py"], {
      cwd: t.dir,
    }).stdout;
    expect(out.split("\n")).toContain('src/a.ts:1:[string]:const status = "TODO";');
    expect(out.split("\n")).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text as test data
      "src/a.ts:3:[string,comment]:function todo() { return `TODO ${x /* TODO inner */} done`; }",
    );
    expect(out.split("\n")).toContain("src/b.py:5:[comment]:TODO_X = 1  # TODO again");
    // In the calling thread too, where plain lines are otherwise written as the search finds them.
    const here = rglob(["grep", "TODO", "--in", "comment,string", "-j", "0"], { cwd: t.dir }).stdout;
    expect(here.split("\n")).toContain("src/b.py:5:[comment]:TODO_X = 1  # TODO again");
    const code = rglob(["grep", "TODO", "--in", "code,comment", "--column", "src/b.py"], {
      cwd: t.dir,
    }).stdout;
    expect(code.split("\n")).toContain("5:1:[code,comment]:TODO_X = 1  # TODO again");
    const vim = rglob(["grep", "TODO", "--in", "code,comment", "--vimgrep", "src/b.py"], {
      cwd: t.dir,
    }).stdout;
    expect(vim.split("\n").filter((l) => l.startsWith("src/b.py:5:"))).toEqual([
      "src/b.py:5:1:[code]:TODO_X = 1  # TODO again",
      "src/b.py:5:15:[comment]:TODO_X = 1  # TODO again",
    ]);
    // One region: no field, the lines are rg's.
    const one = rglob(["grep", "TODO", "--in", "comment", "src/b.py"], { cwd: t.dir }).stdout;
    expect(one.split("\n")).toContain("5:TODO_X = 1  # TODO again");
  });

  test("the library, MCP records and MCP text say the same regions", async () => {
    const cli = rglobJson<{ results: Tagged[] }>(["grep", "TODO", "--in", "code,comment", "--json"], {
      cwd: t.dir,
    }).json;
    const lib = (await grepAll({ pattern: "TODO", base: t.dir, in: ["code", "comment"] })) as unknown as {
      results: Tagged[];
    };
    const regions = (r: { results: Tagged[] }) =>
      r.results.map((m) => m.submatches.map((s) => s.region).join(","));
    expect(regions(lib)).toEqual(regions(cli));
    expect(regions(cli)).toContain("code,comment");
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "TODO", in: ["code", "comment"] },
      })) as CallToolResult;
      expect(res.isError ?? false).toBe(false);
      expect(regions(res.structuredContent as unknown as { results: Tagged[] })).toEqual(regions(cli));
      expect((res.content as Array<{ text: string }>)[0]?.text).toContain(
        "src/b.py:5:[code,comment]:TODO_X = 1  # TODO again",
      );
    } finally {
      await s.close();
    }
  });

  test("a note comes after the lines it speaks of when stdout and stderr are one stream (2>&1)", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-in-2to1-"));
    try {
      const out = join(dir, "both.txt");
      const fd = openSync(out, "w");
      const res = Bun.spawnSync([BIN, "grep", "TODO", "--in", "code,comment,string"], {
        cwd: t.dir,
        env: { ...process.env, NO_COLOR: "1" },
        stdout: fd,
        stderr: fd,
      });
      expect(res.exitCode).toBe(0);
      const lines = readFileSync(out, "utf8").trimEnd().split("\n");
      const notes = lines.filter((l) => l.startsWith("rglob: note:"));
      expect(notes.length).toBeGreaterThan(0);
      expect(lines.slice(-notes.length)).toEqual(notes);
      expect(lines.length).toBeGreaterThan(notes.length + 5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
