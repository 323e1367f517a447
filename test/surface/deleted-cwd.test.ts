// Run from a working directory that was deleted (`mkdir d; cd d; rmdir ../d`), every command that does not need
// it works: --version, help, describe, and a search of a tree named by an absolute path, as fd answers for an
// explicit root (#39). One that needs it (a walk of the current directory, a relative path) is a usage error
// saying so and how to go on, never an internal error. Each command runs through sh, which deletes its directory
// before starting rglob there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, tempTree } from "../helpers.ts";

let tree: { dir: string; cleanup: () => void };
let root = "";

beforeAll(() => {
  tree = tempTree({ "a.txt": "needle one\n", "sub/b.txt": "needle two\nhay\n", "sub/c.md": "hay\n" });
  root = realpathSync(tree.dir);
});
afterAll(() => tree?.cleanup());

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command in a directory deleted just before it starts. */
function fromDeleted(cmd: string, args: readonly string[]): Run {
  const gone = mkdtempSync(join(tmpdir(), "rglob-deleted-cwd-"));
  const r = spawnSync("sh", ["-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", gone, cmd, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const rglob = (...args: string[]) => fromDeleted(BIN, args);

describe("commands that do not need the working directory", () => {
  test.each([
    [["--version"]],
    [["-V"]],
    [["help"]],
    [["--help"]],
    [["help", "grep"]],
    [["find", "--help"]],
    [["describe", "find"]],
    [["schema", "grep"]],
    [["capabilities"]],
    [["agent-version"]],
    [["completions", "bash"]],
    [["man"]],
  ])("rglob %p", (args) => {
    const r = rglob(...args);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  test("grep PATTERN /abs/file and /abs/dir: found, shown by absolute paths", () => {
    const one = rglob("grep", "needle", join(root, "a.txt"));
    expect({ code: one.code, stdout: one.stdout, stderr: one.stderr }).toEqual({
      code: 0,
      stdout: "1:needle one\n",
      stderr: "",
    });
    const dir = rglob("grep", "needle", root);
    expect(dir.code).toBe(0);
    expect(dir.stdout).toBe(`${root}/a.txt:1:needle one\n${root}/sub/b.txt:1:needle two\n`);
  });

  test("grep searches piped standard input, as rg does", () => {
    const gone = mkdtempSync(join(tmpdir(), "rglob-deleted-cwd-"));
    const r = spawnSync(
      "sh",
      ["-c", 'cd "$1" && rmdir "$1" && printf "a needle\\nhay\\n" | "$2" grep needle', "sh", gone, BIN],
      {
        encoding: "utf8",
      },
    );
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "1:a needle\n",
      stderr: "",
    });
  });

  test("grep --jsonl: relative_path is relative to the tree named", () => {
    const r = rglob("grep", "needle", join(root, "sub"), "--jsonl");
    expect(r.code).toBe(0);
    const first = JSON.parse(r.stdout.split("\n")[0] as string);
    expect(first).toMatchObject({ kind: "match", path: `${root}/sub/b.txt`, relative_path: "b.txt" });
  });

  test.each([
    ["find", ["find", "--base"]],
    ["tree", ["tree", "--base"]],
    ["count", ["count", "--json", "--base"]],
    ["stats", ["stats", "--base"]],
    ["grep --base", ["grep", "-l", "needle", "--base"]],
  ])("%s with an absolute base", (_n, args) => {
    const r = rglob(...args, root);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(args[0] === "tree" ? "b.txt" : `${root}/sub/b.txt`);
  });
});

describe("commands that need it: a clear usage error", () => {
  test.each([
    [["find"], "without --base, find searches it"],
    [["grep", "needle"], "without a PATH or --base, grep searches it"],
    [["grep", "needle", "sub"], "without a PATH or --base, grep searches it"],
    [["find", "--base", "sub"], "--base sub is relative to it"],
    [["explain", "a.txt", "--base", "BASE"], "'a.txt' is relative to it"],
  ])("rglob %p", (args, why) => {
    const r = rglob(...args.map((a) => (a === "BASE" ? root : a)));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^rglob: usage: the current directory \(.+\) was deleted, and /);
    expect(r.stderr).toContain(why);
    expect(r.stderr).toContain("cd to a directory that exists");
    expect(r.stderr).not.toContain("internal error");
  });
});

describe("as fd 8.6", () => {
  const fd = ["fdfind", "fd"].find((c) => spawnSync("sh", ["-c", `command -v ${c}`]).status === 0);
  if (fd === undefined) console.warn("skipped: fd is not installed (apt-get install fd-find)");
  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(fd === undefined)("an explicit root is answered, the current directory is not (skipped without fd)", () => {
    const theirs = fromDeleted(fd as string, ["-t", "f", ".", root]);
    const ours = rglob("find", "-t", "f", "--base", root);
    expect(theirs.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.stdout.split("\n").sort()).toEqual(theirs.stdout.split("\n").sort());
    const theirsNoRoot = fromDeleted(fd as string, []);
    const oursNoRoot = rglob("find");
    expect(theirsNoRoot.code).not.toBe(0);
    expect(oursNoRoot.code).toBe(2);
  });
});
