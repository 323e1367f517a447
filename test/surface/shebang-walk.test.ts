// The --lang shebang note from the query's own walk (#37): the files of no known type a file type left out are
// kept by the walk that answers the query (in the calling thread and through walk workers), so the note reads
// their first lines without walking again. Its text must be the one the walk again gives: a query whose walk
// stops early (`--limit 1`) walks again, and so does a call served by a running `rglob mcp` (a replayed walk);
// all of them, and the MCP text, name the same scripts. A real tree of 1,130 files of no known type (past the
// 1,000 read), through the compiled binary and the SDK client.
import { describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const spec: Record<string, string> = {
  ".gitignore": "ignored/\n",
  ".hooks/pre-commit": "#!/usr/bin/env python3\nprint(1)\n",
  "ignored/gen": "#!/usr/bin/python3\n",
  "bin/deploy": "#!/bin/sh\necho x\n",
  "bin/tool.weird": "#!/usr/bin/env python3\nx = 1\n",
  "src/a.py": "x = 1\n",
  "src/b.sh": "echo x\n",
  LICENSE: "x\n",
};
// tools/t0000 … t1119: every 97th a python script, every 89th a shell script; the 1,000 read end inside them.
for (let i = 0; i < 1120; i++) {
  const head = i % 97 === 5 ? "#!/usr/bin/env python3\n" : i % 89 === 3 ? "#!/bin/bash\n" : "plain x\n";
  spec[`tools/t${String(i).padStart(4, "0")}`] = `${head}x\n`;
}
const t = mcpOnTree(spec);
const cwd = t.dir;
symlinkSync("tools/t0005", join(cwd, "link-to-script"));

/** The shebang note of a CLI run (cold unless served), or "" when it printed none. */
function note(args: readonly string[], env: Record<string, string>): string {
  const line = rglob(args, { cwd, env })
    .stderr.split("\n")
    .find((l) => l.includes("left out by --lang"));
  return line ?? "";
}

const COLD = { RGLOB_SERVE: "0" };
const CASES: string[][] = [
  ["find", "--lang", "py"],
  ["find", "--lang", "py,sh"],
  ["find", "--lang", "sh", "-t", "x"],
  ["find", "--lang", "py", "--no-hidden"],
  ["find", "--lang", "py", "-u"],
  ["find", "--lang", "py", "-L"],
  ["find", "--lang", "py", "--max-depth", "1"],
  ["find", "--lang", "py", "--min-size", "10"],
  ["find", "--lang", "py", "-g", "!tools/t00*"],
  ["find", "--lang", "py", "*1*"],
  ["grep", "-l", "x", "--lang", "py"],
  ["grep", "-c", "x", "--lang", "py", "bin"],
  ["count", "--lang", "py"],
  ["count", "--lang", "sh", "-e", "weird"],
];

describe("--lang's shebang note from the query's own walk", () => {
  test("names the scripts in the first 1,000 files of no known type, in walk order, and says where it stopped", () => {
    const got = note(["find", "--lang", "py"], COLD);
    expect(got).toBe(
      "rglob: note: 13 files left out by --lang start with a #! of py: .hooks/pre-commit (python3), bin/tool.weird (python3), tools/t0005 (python3), tools/t0102 (python3), tools/t0199 (python3), tools/t0296 (python3), tools/t0393 (python3), tools/t0490 (python3), tools/t0587 (python3), tools/t0684 (python3), and 3 more; without --lang, name them (a glob or a path) to take them in; only the first 1000 files of no known type were read, not the others",
    );
  });

  test.each(CASES.map((c) => [c.join(" "), c] as const))(
    "%s: the note of a walk again, with and without walk workers",
    (_, args) => {
      // --limit 1 stops the query's walk early: the note walks again, as before.
      const again = note([...args, "--limit", "1"], { ...COLD, RGLOB_WALK_SPLIT: "0" });
      expect(again).toContain("--lang");
      for (const split of ["0", "3"])
        expect({ split, note: note(args, { ...COLD, RGLOB_WALK_SPLIT: split }) }).toEqual({
          split,
          note: again,
        });
    },
  );

  test("a call served by the running rglob mcp, and the MCP text, say the same", async () => {
    for (const args of CASES.slice(0, 4)) expect(note(args, {})).toBe(note(args, COLD));
    const res = (await t.mcp.client.callTool({
      name: "rglob",
      arguments: { op: "find", file_types: ["py"], limit: 5000, max_output_bytes: 1_000_000 },
    })) as CallToolResult;
    const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
    const cli = note(["find", "--lang", "py"], COLD);
    const named = (s: string) => s.slice(s.indexOf("#! of py: ") + 10, s.indexOf("; without"));
    expect(text).toContain(`#! of py: ${named(cli)}; without file_types`);
    expect(text).toContain("only the first 1000 files of no known type were read");
  });
});
