// Help and human output for people (#37): count states its counting rules and shows comment and blank columns
// per file (checked against what it counts), top gives exact bytes beside a rounded size.
import { afterAll, expect, test } from "bun:test";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

const t = tempTree({
  "a.js": "#!/usr/bin/env node\nx = 1; // c\n// only\n\n/* a\n\n b */\ny",
  "b.py": '#!/usr/bin/env python\n"""doc\nstring"""\nx = 1  # c\n',
  "big.bin.txt": "x".repeat(1536),
  hook: "#!/bin/sh\n# run the checks\nnpm test\n",
});
afterAll(t.cleanup);

test("count --help states the counting rules, and they are what count does", () => {
  const help = rglob(["count", "--help"]).stdout.replace(/\s+/g, " ");
  for (const rule of [
    "a line with code and a comment is code",
    "a file whose name gives no language takes the one its #! line names (#!/usr/bin/env sh: Shell), as tokei and cloc do; that first line is a comment where comments start with '#', else code",
    "a docstring line (a Python string statement of its own, a Julia string before a definition, Elixir's @doc/@moduledoc/@typedoc) is a comment line as cloc counts it, also counted in `docstring`",
    "a blank line inside a block comment is blank",
    "plus a last line without a newline",
  ])
    expect(help).toContain(rule);
  const { json } = rglobJson<{ results: Array<Record<string, unknown>> }>(["count", "--json"], {
    cwd: t.dir,
  });
  const by = Object.fromEntries(json.results.map((r) => [r.relative_path, r]));
  // a.js: the shebang and two code lines (one with a comment) are code; '// only' and the two block lines are
  // comments; the empty line and the one inside the block are blank; 'y' has no newline and counts.
  expect(by["a.js"]).toMatchObject({ lines: 8, code: 3, comment: 3, blank: 2 });
  // b.py: the shebang and the docstring's two lines are comments (cloc's convention), 'x = 1  # c' is code.
  expect(by["b.py"]).toMatchObject({ lines: 4, code: 1, comment: 3, blank: 0 });
  // hook: no name of a language, so its #! line names it (Shell); the #! and '# run the checks' are comments.
  expect(by.hook).toMatchObject({ language: "Shell", lines: 3, code: 1, comment: 2, blank: 0 });
  const human = rglob(["count", "--files"], { cwd: t.dir }).stdout.split("\n");
  expect(human[0]?.trim().split(/\s+/)).toEqual(["lines", "code", "comment", "blank", "bytes", "path"]);
  expect(
    human
      .find((l) => l.endsWith("a.js"))
      ?.trim()
      .split(/\s+/),
  ).toEqual(["8", "3", "3", "2", "54", "a.js"]);
});

test("top prints the exact bytes beside a rounded size", () => {
  const r = rglob(["top", "-n", "1"], { cwd: t.dir });
  expect(r.stdout).toBe("   1  1.5 KiB (1536 B)  big.bin.txt\n");
});
