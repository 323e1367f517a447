// displayPath shows a path relative to the current directory when under it. It takes the tail of a normalised
// path itself (path.relative costs more than a small file's search when every file is shown): it must agree
// with path.relative on every shape of path, normalised or not.
import { describe, expect, test } from "bun:test";
import * as path from "node:path";
import { displayPath } from "../../src/surface/cli/human/paths.ts";

describe("displayPath", () => {
  const paths = [
    "/a/b",
    "/a/b/c",
    "/a/bc",
    "/a",
    "/a/b/.x",
    "/a/b/../c",
    "/x/y",
    "/a/b/c/./d",
    "/a/b/c.d/e",
    "/a/b/c/",
    "/a/b//c",
    "/a/b/c/..",
  ];
  test.each(["/a/b", "/a/b/", "/"])("from %s, as path.relative", (cwd) => {
    for (const abs of paths) {
      const rel = path.relative(cwd, abs);
      const want = rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel;
      const style = { color: false, escape: false, cwd };
      expect([abs, displayPath(abs, style)]).toEqual([abs, want]);
      // A caller that knows its path is normalised gets the same answer for such a path.
      if (path.normalize(abs) === abs && !abs.endsWith("/")) expect(displayPath(abs, style, true)).toBe(want);
    }
  });
});
