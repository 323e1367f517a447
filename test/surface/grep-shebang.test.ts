// grep takes a file's language by count's rule: its name's when the name names one, else its #! line's
// interpreter's (a trial found `grep --in comment` skipping `.husky/pre-commit` and `bin/deploy` as
// unknown_language, and `grep --by language` calling them `(unknown)`, where count counts them as Shell).
// CLI human and JSON, count beside it, and MCP (SDK client); the served answer is test/serve/in-shebang.test.ts.
import { describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";
import { COMMENTS, SCRIPTS } from "./shebang-scripts.ts";

const t = mcpOnTree(SCRIPTS);
const cwd = t.dir;

interface Hit {
  relative_path: string;
  line_number: number;
}
interface Result {
  results: Hit[];
  skipped: Record<string, number>;
  breakdown?: Array<{ key: string; files_with_matches: number }>;
}
interface CountRec {
  relative_path: string;
  language: string | null;
}

const where = (r: { results: Hit[] }) => r.results.map((h) => `${h.relative_path}:${h.line_number}`).sort();
const rows = (r: Result) => Object.fromEntries((r.breakdown ?? []).map((b) => [b.key, b.files_with_matches]));

describe("grep: a file whose name names no language takes its #! line's, as count does", () => {
  test.each([0, 2])(
    "--in comment keeps the scripts' comments, the rest unknown_language or binary (threads %p)",
    (threads) => {
      const { json, run } = rglobJson<Result>(
        ["grep", "TODO", "--in", "comment", "-j", String(threads), "--json"],
        {
          cwd,
        },
      );
      expect(run.code).toBe(0);
      expect(where(json)).toEqual(COMMENTS);
      // bin/far, bin/odd, NOTES and notes.txt; bin/blob is binary.
      expect(json.skipped.unknown_language).toBe(4);
      expect(json.skipped.binary).toBe(1);
      const human = rglob(["grep", "TODO", "--in", "comment", "bin/deploy", ".husky"], { cwd });
      // A script named as a root (searched as it is given: roots in their order) too.
      expect(human.stdout).toBe(
        "bin/deploy:2:# TODO deploy\n.husky/pre-commit:2:# TODO hook\n.husky/pre-commit:3:npm test # TODO inline\n",
      );
    },
  );

  test("--in code and string lex a script by its #! language", () => {
    const code = rglobJson<Result>(["grep", "TODO", "--in", "string", "--json", "bin"], { cwd }).json;
    expect(where(code)).toEqual(["bin/cli:3", "bin/deploy:3", "bin/tool:4"]);
  });

  test("--by language names the script's language, as count's records do", () => {
    for (const threads of ["0", "2"]) {
      const g = rglobJson<Result>(["grep", "TODO", "--by", "language", "-j", threads, "--json"], {
        cwd,
      }).json;
      expect(rows(g)).toEqual({ Shell: 4, Python: 1, JavaScript: 2, "Plain Text": 1, "(unknown)": 3 });
    }
    const c = rglobJson<{ results: CountRec[] }>(["count", "--json"], { cwd }).json;
    const lang = Object.fromEntries(c.results.map((r) => [r.relative_path, r.language]));
    expect(lang).toMatchObject({
      ".husky/pre-commit": "Shell",
      "bin/crlf": "Shell",
      "bin/long": "Shell",
      "bin/far": null,
      "bin/tool": "Python",
      "bin/tool.js": "JavaScript",
      "notes.txt": "Plain Text",
    });
    const human = rglob(["grep", "TODO", "--by", "language"], { cwd });
    expect(human.stdout).toMatch(/^Shell +4 +\d+ +\d+$/m);
  });

  test("--lang still selects by name, and its note names the scripts it left out", () => {
    const r = rglob(["grep", "TODO", "--lang", "sh", "--in", "comment"], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "5 files left out by --lang start with a #! of sh: .husky/pre-commit (sh), bin/blob (sh), bin/crlf (bash), bin/deploy (bash), bin/long (bash);",
    );
  });

  test("MCP: the same regions and breakdown", async () => {
    const call = async (args: Record<string, unknown>) =>
      (
        (await t.mcp.client.callTool({
          name: "rglob",
          arguments: { op: "grep", pattern: "TODO", ...args },
        })) as CallToolResult
      ).structuredContent as unknown as Result;
    const inComment = await call({ in: ["comment"], limit: 100 });
    expect(where(inComment)).toEqual(COMMENTS);
    expect(inComment.skipped.unknown_language).toBe(4);
    expect(rows(await call({ by: "language", limit: 0 }))).toEqual({
      Shell: 4,
      Python: 1,
      JavaScript: 2,
      "Plain Text": 1,
      "(unknown)": 3,
    });
  });
});
