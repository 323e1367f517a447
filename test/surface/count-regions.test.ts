// count and grep --in share one lexer (#38): a comment line in count is a line whose every non-blank character
// lies in a comment region, so a `//` line inside a template literal or a `#` line inside a Python string that is
// not a docstring is code for both (the marker scan count used before called them comments).
import { afterAll, expect, test } from "bun:test";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

const t = tempTree({
  "a.ts": "const help = `\n// not a comment\n`;\n// a comment\nconst re = /\\/\\/ x/; // trailing\n",
  "b.py": 'def f():\n    s = """\n    # not a comment\n    """\n    # a comment\n',
});
afterAll(() => t.cleanup());

interface Counted {
  results: Array<{ relative_path: string; comment: number; code: number; blank: number }>;
}

test("count's comment lines are the lines grep --in comment sees as all comment", () => {
  const { json } = rglobJson<Counted>(["count", "--json"], { cwd: t.dir });
  const byFile = Object.fromEntries(json.results.map((r) => [r.relative_path, [r.code, r.comment]]));
  expect(byFile).toEqual({ "a.ts": [4, 1], "b.py": [4, 1] });
  // The markers inside the template literal and the Python string are strings; a trailing comment is a comment
  // (its line is code for count).
  const g = rglob(["grep", "(//|#) ", "--in", "comment"], { cwd: t.dir });
  expect(g.stdout).toBe(
    "a.ts:4:// a comment\na.ts:5:const re = /\\/\\/ x/; // trailing\nb.py:5:    # a comment\n",
  );
});
