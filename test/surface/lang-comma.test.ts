// File types as a comma list (#37): `--lang java,kotlin` is `--lang java --lang kotlin` on every surface
// (file_types: ["java,kotlin"] in the library and the MCP tool); a type's name never holds a comma.
import { afterAll, expect, test } from "bun:test";
import { count } from "../../src/agent/index.ts";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

const t = tempTree({ "A.java": "class A {}\n", "B.kt": "class B\n", "c.py": "x = 1\n", "d.md": "# d\n" });
afterAll(() => t.cleanup());

const paths = (r: { results: Array<{ relative_path: string }> }) => r.results.map((x) => x.relative_path);

test("--lang java,kotlin selects what --lang java --lang kotlin does, and --type-not takes a list too", async () => {
  const listed = rglobJson<{ results: Array<{ relative_path: string }> }>(
    ["count", "--lang", "java,kotlin", "--json"],
    { cwd: t.dir },
  );
  expect(listed.run.code).toBe(0);
  expect(paths(listed.json)).toEqual(["A.java", "B.kt"]);
  const repeated = rglobJson<{ results: Array<{ relative_path: string }> }>(
    ["count", "--lang", "java", "--lang", "kotlin", "--json"],
    { cwd: t.dir },
  );
  expect(paths(listed.json)).toEqual(paths(repeated.json));
  const lib = await count({ base: t.dir, file_types: ["java,kotlin"] });
  expect(paths(lib)).toEqual(["A.java", "B.kt"]);
  const not = rglobJson<{ results: Array<{ relative_path: string }> }>(
    ["find", "--type-not", "md,py", "--json"],
    { cwd: t.dir },
  );
  expect(paths(not.json)).toEqual(["A.java", "B.kt"]);
});

test("an unknown name in a list is a usage error naming it", () => {
  const r = rglob(["count", "--lang", "java,nope"], { cwd: t.dir });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("unknown file type 'nope'");
});

test("-e py,sh selects what -e py -e sh does (a trial agent's comma list found nothing and read as no such files)", async () => {
  const u = tempTree({ "a.py": "x = 1\n", "b.sh": "echo\n", "c.sql": "select 1;\n" });
  try {
    const listed = rglobJson<{ results: Array<{ relative_path: string }> }>(
      ["count", "-e", "py,sh", "--json"],
      { cwd: u.dir },
    );
    expect(listed.run.code).toBe(0);
    expect(paths(listed.json)).toEqual(["a.py", "b.sh"]);
    const repeated = rglobJson<{ results: Array<{ relative_path: string }> }>(
      ["count", "-e", "py", "-e", "sh", "--json"],
      { cwd: u.dir },
    );
    expect(paths(repeated.json)).toEqual(paths(listed.json));
    const lib = await count({ base: u.dir, extensions: ["py,sh"] });
    expect(paths(lib)).toEqual(["a.py", "b.sh"]);
  } finally {
    u.cleanup();
  }
});
