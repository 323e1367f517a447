// Answers that need no second call (#37), on the compiled binary and over MCP with the SDK client: grep's `in`
// says how many matches it left out (left_out_by_in, a note, the MCP text), and an answer filtered by file type
// says which names the type covered (type_globs, a note), so an agent need not search again to check either.
import { describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const t = mcpOnTree({
  "a.ts": '// TODO one\nconst s = "TODO two";\nlet x = 1; // TODO three\nTODO();\n',
  "b.py": "x = 1  # TODO four\n",
  "c.py": "y = 'TODO five'\n",
  "notes.txt": "TODO six\n",
  tool: "#!/usr/bin/env python3\n# TODO seven\n",
});
const cwd = t.dir;

interface Result {
  results: Array<{ relative_path: string }>;
  left_out_by_in?: { matches: number; files: number };
  type_globs?: Record<string, string[]>;
}

describe("grep --in says what it left out", () => {
  test("the count of matches in other regions, and their files, in the summary and a note", () => {
    const { json, run } = rglobJson<Result>(["grep", "TODO", "--in", "comment", "--json"], { cwd });
    expect(run.code).toBe(0);
    // tool has no extension: its #! line names Python, so its `# TODO seven` is a comment (ADR 0031).
    expect(json.results.map((r) => r.relative_path)).toEqual(["a.ts", "a.ts", "b.py", "tool"]);
    // "TODO two" and "TODO()" in a.ts, 'TODO five' in c.py: three matches in two files.
    expect(json.left_out_by_in).toEqual({ matches: 3, files: 2 });
    expect(run.stderr).toContain(
      "rglob: note: --in left out 3 matches in 2 files that start in another region",
    );
    const code = rglobJson<Result>(["grep", "TODO", "--in", "code,string,comment", "--json"], { cwd }).json;
    expect(code.left_out_by_in).toEqual({ matches: 0, files: 0 });
    // Without --in there is no such field and no note.
    const plain = rglob(["grep", "TODO", "--json"], { cwd });
    expect(JSON.parse(plain.stdout).left_out_by_in).toBeUndefined();
    expect(plain.stderr).not.toContain("left out");
  });

  test("over MCP: the field and a line of the text", async () => {
    const res = (await t.mcp.client.callTool({
      name: "grep_content",
      arguments: { pattern: "TODO", in: ["code"] },
    })) as CallToolResult;
    const sc = res.structuredContent as unknown as Result;
    // Code: TODO() only; four comments (tool's by its #! line) and two strings are left out (notes.txt has no
    // language).
    expect(sc.results.map((r) => r.relative_path)).toEqual(["a.ts"]);
    expect(sc.left_out_by_in).toEqual({ matches: 6, files: 4 });
    expect((res.content as Array<{ text: string }>)[0]?.text).toContain("in left out 6 matches in 4 files");
  });
});

describe("a file type says what it covered", () => {
  test("find --lang py: the globs in type_globs and a note that names them and the scripts left out", () => {
    const { json, run } = rglobJson<Result>(["find", "--lang", "py", "--json"], { cwd });
    expect(json.results.map((r) => r.relative_path)).toEqual(["b.py", "c.py"]);
    expect(json.type_globs).toEqual({ py: ["*.py", "*.pyi", "*.pyw"] });
    expect(run.stderr).toContain("py = *.py *.pyi *.pyw");
    expect(run.stderr).toContain("1 file left out by --lang starts with a #! of py: tool (python3)");
    const not = rglobJson<Result>(["count", "--type-not", "md", "--json"], { cwd }).json;
    expect(not.type_globs).toEqual({ md: ["*.md", "*.markdown", "*.mdx"] });
    expect(rglob(["find", "--json"], { cwd }).stdout).not.toContain("type_globs");
  });

  test("over MCP: count_lines with file_types", async () => {
    const res = (await t.mcp.client.callTool({
      name: "count_lines",
      arguments: { file_types: ["python"] },
    })) as CallToolResult;
    expect((res.structuredContent as unknown as Result).type_globs).toEqual({
      python: ["*.py", "*.pyi", "*.pyw"],
    });
    expect((res.content as Array<{ text: string }>)[0]?.text).toContain("python = *.py *.pyi *.pyw");
  });
});
