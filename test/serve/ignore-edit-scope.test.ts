/*! A `.gitignore` written in place in a served tree (issue #36): the next served call takes the new rules where
 * they apply (a walk whose base is at or above the file's directory), and a remembered walk elsewhere stays
 * remembered (its replay says `warm_list`; a cold walk says `cold`), as an edit of `.git/info/exclude` leaves it
 * (ADR 0028's amendment). `--max-bytes` keeps the content index out, so `source` tells a replayed walk from a new
 * one. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sameAsColdIn, serveSandbox, until } from "./sandbox.ts";

const { root, run, servers, serve, end } = serveSandbox("rglob-ignore-edit-scope-");
/** A served call waits for the server rather than running cold. */
const sameAsCold = sameAsColdIn({ root, run, servers }, { RGLOB_SERVE_WAIT_MS: "120000" });
let server: ReturnType<typeof Bun.spawn> | null = null;

beforeAll(async () => {
  for (const d of ["a", "b", ".git"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, "a", ".gitignore"), "*.log\n");
  for (const f of ["a/x.log", "a/x.txt", "b/y.log", "b/y.txt", "c.txt"])
    writeFileSync(join(root, f), "scopeneedle\n");
  ({ server } = serve());
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
}, 300_000);

afterAll(() => end(server));

/** A served grep: where its walk came from, and the files it lists. */
function grep(...roots: string[]): { source: string | undefined; files: string[] } {
  const out = sameAsCold(["grep", "-l", "scopeneedle", ...roots, "--json", "--max-bytes", "100000000"]);
  const o = JSON.parse(out.stdout.toString()) as {
    source?: string;
    results: Array<{ relative_path: string }>;
  };
  return { source: o.source, files: o.results.map((r) => r.relative_path) };
}

test("an edit of a .gitignore lets go only the remembered walks that read it", () => {
  grep("b");
  expect(grep("b")).toEqual({ source: "warm_list", files: ["b/y.log", "b/y.txt"] });
  grep();
  expect(grep()).toEqual({ source: "warm_list", files: ["a/x.txt", "b/y.log", "b/y.txt", "c.txt"] });
  grep("a");
  expect(grep("a").source).toBe("warm_list");
  writeFileSync(join(root, "a", ".gitignore"), "*.txt\n");
  // The walk of b never read a/.gitignore: still remembered.
  expect(grep("b")).toEqual({ source: "warm_list", files: ["b/y.log", "b/y.txt"] });
  // The walks that read it are walked again under the new rules, then remembered again.
  expect(grep()).toEqual({ source: "cold", files: ["a/x.log", "b/y.log", "b/y.txt", "c.txt"] });
  expect(grep()).toEqual({ source: "warm_list", files: ["a/x.log", "b/y.log", "b/y.txt", "c.txt"] });
  expect(grep("a")).toEqual({ source: "cold", files: ["a/x.log"] });
  // One made (an entry: every walk is let go), then written again, in a directory the walk of a does not reach:
  // that walk stays remembered; the whole tree's does not.
  writeFileSync(join(root, "b", ".gitignore"), "");
  grep("a");
  expect(grep()).toEqual({ source: "cold", files: ["a/x.log", "b/y.log", "b/y.txt", "c.txt"] });
  expect(grep("a").source).toBe("warm_list");
  writeFileSync(join(root, "b", ".gitignore"), "*.log\n");
  expect(grep("a")).toEqual({ source: "warm_list", files: ["a/x.log"] });
  expect(grep()).toEqual({ source: "cold", files: ["a/x.log", "b/y.txt", "c.txt"] });
}, 120_000);
