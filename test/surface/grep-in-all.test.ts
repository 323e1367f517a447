// grep --in all (`in: ["all"]`, #37): one call says, for every match, the region it starts in (code, comment,
// string, docstring): "where is load_cfg defined, and where only mentioned in a comment, a docstring or a string".
// Each match's region is the lexer's at its first character, on real files of several languages, each with a
// string that looks like a comment and a comment that looks like a string; the matches tagged R are those
// `--in R` keeps; the MCP answer (SDK client) carries the same regions, in its records and its text.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { languageOf } from "../../src/engine/languages.ts";
import { regionLexer } from "../../src/engine/regions/regions.ts";
import { rglob, rglobJson } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const FILES: Record<string, string> = {
  "app/config.py": [
    '"""Module docs: load_cfg reads the file."""',
    "def load_cfg(path):",
    '    """load_cfg: the docstring."""',
    "    s = '# load_cfg is not a comment here'",
    '    t = f"{load_cfg} and load_cfg"',
    "    return path  # load_cfg again",
    "",
  ].join("\n"),
  "web/load.ts": [
    "// load_cfg in a line comment",
    'const s = "// load_cfg inside a string";',
    "/* load_cfg in a block, 'quoted' */ export function load_cfg() {}",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source text as test data
    "const t = `x ${load_cfg()} load_cfg`;",
    "",
  ].join("\n"),
  "cmd/main.go": [
    "package main",
    'var s = "/* load_cfg */"',
    '// load_cfg: a comment with "quotes"',
    "func load_cfg() {}",
    "",
  ].join("\n"),
  "lib/cfg.rb": [
    "# load_cfg in a comment",
    "def load_cfg; end",
    'x = "#{load_cfg} load_cfg # not a comment"',
    "",
  ].join("\n"),
  "bin/run.sh": [
    "#!/bin/sh",
    "# load_cfg comment",
    'echo "$(load_cfg) load_cfg # in a string"',
    "load_cfg",
    "",
  ].join("\n"),
  "src/cfg.rs": [
    "/// load_cfg: a doc comment",
    "fn load_cfg() {}",
    'let s = r"// load_cfg raw";',
    "/* outer /* load_cfg nested */ still */ load_cfg();",
    "",
  ].join("\n"),
  "notes.txt": "load_cfg in plain text\n",
};
const t = mcpOnTree(FILES);
const cwd = t.dir;

interface Sub {
  start: number;
  region?: string;
}
interface Line {
  relative_path: string;
  line_number: number;
  submatches: Sub[];
}

/** Each match of a grep's JSON as `path:line:column region`, in order. */
function tagged(results: readonly Line[]): string[] {
  return results.flatMap((r) =>
    r.submatches.map((m) => `${r.relative_path}:${r.line_number}:${m.start} ${m.region ?? "-"}`),
  );
}

/** What the lexer says of each match's first character (the files are ASCII: a column is a UTF-16 offset). */
function lexed(results: readonly Line[]): string[] {
  const names = ["code", "comment", "string", "docstring"];
  return results.flatMap((r) => {
    const text = readFileSync(join(cwd, r.relative_path), "utf8");
    const name = r.relative_path.split("/").pop() as string;
    const lex = regionLexer(languageOf(name)?.name ?? null, name);
    if (lex === null) throw new Error(`no lexer for ${name}`);
    const map = lex(text);
    const lineStart =
      text
        .split("\n")
        .slice(0, r.line_number - 1)
        .join("\n").length + (r.line_number > 1 ? 1 : 0);
    return r.submatches.map(
      (m) => `${r.relative_path}:${r.line_number}:${m.start} ${names[map[lineStart + m.start] as number]}`,
    );
  });
}

const all = () =>
  rglobJson<{ results: Line[]; skipped: Record<string, number> }>(
    ["grep", "load_cfg", "--in", "all", "--json"],
    { cwd },
  ).json;

describe("grep --in all", () => {
  test("every match of a file with a lexer, each with the lexer's region at its first character", () => {
    const json = all();
    const got = tagged(json.results);
    expect(got).toEqual(lexed(json.results));
    // Every match of every file with a lexer is there: as many as a grep without --in finds outside notes.txt.
    const plain = rglobJson<{ results: Line[] }>(["grep", "load_cfg", "--json", "-g", "!notes.txt"], {
      cwd,
    }).json;
    expect(got.length).toBe(tagged(plain.results).length);
    expect(json.skipped.unknown_language).toBe(1);
    // The edge cases, by hand: a '#' or '//' inside a string is string, a quote inside a comment is comment,
    // an interpolation's expression is code, a docstring is a docstring, a nested block comment is one comment.
    expect(got).toContain("app/config.py:1:16 docstring");
    expect(got).toContain("app/config.py:2:4 code");
    expect(got).toContain("app/config.py:4:11 string");
    expect(got).toContain("app/config.py:5:11 code");
    expect(got).toContain("app/config.py:5:25 string");
    expect(got).toContain("app/config.py:6:19 comment");
    expect(got).toContain("web/load.ts:2:14 string");
    expect(got).toContain("web/load.ts:3:3 comment");
    expect(got).toContain("web/load.ts:4:15 code");
    expect(got).toContain("cmd/main.go:2:12 string");
    expect(got).toContain("cmd/main.go:3:3 comment");
    expect(got).toContain("lib/cfg.rb:3:7 code");
    expect(got).toContain("lib/cfg.rb:3:17 string");
    expect(got).toContain("bin/run.sh:3:8 code");
    expect(got).toContain("bin/run.sh:3:18 string");
    expect(got).toContain("src/cfg.rs:3:13 string");
    expect(got).toContain("src/cfg.rs:4:12 comment");
    expect(got).toContain("src/cfg.rs:4:40 code");
  });

  test("the matches tagged with a region are those --in of that region keeps", () => {
    const got = tagged(all().results);
    const pick = (...regions: string[]) => got.filter((g) => regions.includes(g.split(" ")[1] as string));
    const only = (region: string) =>
      tagged(
        rglobJson<{ results: Line[] }>(["grep", "load_cfg", "--in", region, "--json"], { cwd }).json.results,
      ).map((g) => g.split(" ")[0]);
    expect(pick("code").map((g) => g.split(" ")[0])).toEqual(only("code"));
    expect(pick("string").map((g) => g.split(" ")[0])).toEqual(only("string"));
    expect(pick("docstring").map((g) => g.split(" ")[0])).toEqual(only("docstring"));
    // comment keeps docstrings too.
    expect(pick("comment", "docstring").map((g) => g.split(" ")[0])).toEqual(only("comment"));
  });

  test("human output tags each line; no note of matches left out", () => {
    const run = rglob(["grep", "load_cfg", "--in", "all", "app/config.py"], { cwd });
    expect(run.stdout.split("\n")[0]).toBe('1:[docstring]:"""Module docs: load_cfg reads the file."""');
    expect(run.stdout).toContain('5:[code,string]:    t = f"{load_cfg} and load_cfg"');
    expect(run.stderr).not.toContain("left no match out");
    expect(rglobJson(["grep", "load_cfg", "--in", "all", "--json"], { cwd }).json).not.toHaveProperty(
      "left_out_by_in",
    );
  });

  test("MCP: the same regions in the records, and the tags in the text", async () => {
    const res = (await t.mcp.client.callTool({
      name: "rglob",
      arguments: { op: "grep", pattern: "load_cfg", in: ["all"], limit: 500 },
    })) as CallToolResult;
    const sc = res.structuredContent as { results: Line[] };
    expect(tagged(sc.results)).toEqual(tagged(all().results));
    const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(text).toContain("[code,string]:");
    expect(text).toContain("[docstring]:");
  });
});
