// count takes the language of a file whose name gives none from its #! line, as tokei and cloc do (a trial's
// agents spent five calls on "lines of shell" because git hooks such as .husky/pre-commit came out (unknown)):
// its row in --by language, its lines classed by that language's comments, its record's `language`. A name of a
// known language wins over the #! line; file types (--lang) still select by name only. CLI and MCP (SDK client).
import { describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const t = mcpOnTree({
  ".husky/commit-msg": "#!/usr/bin/env sh\n# one line\nhead -1 \"$1\" | grep -qv '\\.$'\n",
  ".husky/pre-commit": "#!/usr/bin/env sh\n# checks\nnpm run lint\n./tools/check.sh\n",
  "tools/check.sh": "#!/bin/bash\n\necho ok\n",
  "bin/tool": "#!/usr/bin/env -S python3 -u\n# why\nx = 1\n",
  "bin/cli": "#!/usr/bin/env node\n// why\nconsole.log(1);\n",
  "bin/odd": "#!/usr/bin/env frobnicate\n# not a comment here\n",
  "notes.txt": "#!/bin/sh\nplain text\n",
});
const cwd = t.dir;

interface Row {
  key: string;
  files: number;
  code: number;
  comment: number;
}
interface FileRec {
  relative_path: string;
  language: string | null;
  code: number;
  comment: number;
}

describe("count: a script of no known name is counted as its #! line's language", () => {
  test("CLI JSON: records, the breakdown by language and the comment rules of that language", () => {
    const { json } = rglobJson<{ results: FileRec[]; breakdown: Row[] }>(
      ["count", "--by", "language", "--json"],
      { cwd },
    );
    const lang = Object.fromEntries(
      json.results.map((r) => [r.relative_path, [r.language, r.code, r.comment]]),
    );
    expect(lang).toEqual({
      ".husky/commit-msg": ["Shell", 1, 2],
      ".husky/pre-commit": ["Shell", 2, 2],
      "bin/cli": ["JavaScript", 2, 1], // the #! line is code where comments do not start with '#'
      "bin/odd": [null, 2, 0], // an interpreter the table does not know: no language, every line code
      "bin/tool": ["Python", 1, 2],
      "notes.txt": ["Plain Text", 2, 0], // the name gives a language: the #! line does not change it
      "tools/check.sh": ["Shell", 1, 1],
    });
    const shell = json.breakdown.find((r) => r.key === "Shell");
    expect(shell).toMatchObject({ files: 3, code: 4, comment: 5 });
  });

  test("CLI table and --classify: the hook's row and why its first line is a comment", () => {
    const r = rglob(["count", "--by", "language"], { cwd });
    expect(r.stdout).toMatch(/^Shell +3 +\d+ +4 +5 /m);
    expect(r.stdout).toContain("(unknown): 1 file of no known language: bin/odd\n");
    const c = rglob(["count", "--classify", ".husky/pre-commit"], { cwd });
    expect(c.stdout).toContain(
      ".husky/pre-commit:1: comment (shebang, a comment where comments start with #): #!/usr/bin/env sh",
    );
  });

  test("--lang sh selects by name only, and its note names the hooks it left out", () => {
    const r = rglob(["count", "--lang", "sh", "--by", "language", "--limit", "0"], { cwd });
    expect(r.stdout).toMatch(/^Shell +1 +3 +1 +1 /m);
    expect(r.stderr).toContain(
      "2 files left out by --lang start with a #! of sh: .husky/commit-msg (sh), .husky/pre-commit (sh)",
    );
  });

  test("MCP: the same breakdown and records", async () => {
    const res = (await t.mcp.client.callTool({
      name: "rglob",
      arguments: { op: "count", by: "language" },
    })) as CallToolResult;
    const sc = res.structuredContent as { results: FileRec[]; breakdown: Row[] };
    expect(sc.breakdown.find((r) => r.key === "Shell")).toMatchObject({ files: 3, code: 4, comment: 5 });
    expect(sc.results.find((r) => r.relative_path === ".husky/commit-msg")?.language).toBe("Shell");
  });
});
