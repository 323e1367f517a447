// displayPath shows a path relative to the current directory when under it. It takes the tail of a normalised
// path itself (path.relative costs more than a small file's search when every file is shown): it must agree
// with path.relative on every shape of path, normalised or not. A name that only begins with two dots (`..foo`)
// is below the current directory and shown relative, as fd and grep show it; `..` and `../x` leave it.
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
    "/a/b/..foo",
    "/a/b/...",
    "/a/b/..dir/x",
    "/a/..b",
    "/..x",
  ];
  test.each(["/a/b", "/a/b/", "/"])("from %s, as path.relative", (cwd) => {
    for (const abs of paths) {
      const rel = path.relative(cwd, abs);
      const leaves = rel === ".." || rel.startsWith("../") || path.isAbsolute(rel);
      const want = rel === "" ? "." : leaves ? abs : rel;
      const style = { color: false, escape: false, cwd, lsColors: null };
      expect([abs, displayPath(abs, style)]).toEqual([abs, want]);
      // A caller that knows its path is normalised gets the same answer for such a path.
      if (path.normalize(abs) === abs && !abs.endsWith("/")) expect(displayPath(abs, style, true)).toBe(want);
    }
  });
});
