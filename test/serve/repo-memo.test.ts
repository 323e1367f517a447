/*! A warm server keeps what it read of a root's repository (the ignore files above the root, `.git`,
 * info/exclude, git's config files and the excludes file they name) while each of those paths stats as it did
 * (src/engine/ignore.ts repoContext, #36). An edit of each, made after a call kept them, is in the next served
 * answer, as in the cold run's: the files are left older than the racy window (2 s) before the calls that keep
 * them, so that the memo is used, and a memo that missed the edit would answer with the old rules. The compiled
 * binary, a real tree, real processes. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveSandbox, until } from "./sandbox.ts";

const linux = process.platform === "linux";
const { outer, root, run, servers, serve, end } = serveSandbox("rglob-repo-memo-");
const home = join(outer, "home");
/** The user the calls are made as: git's config files in the sandbox's home, not the system's. */
const USER = { HOME: home, XDG_CONFIG_HOME: "", GIT_CONFIG_NOSYSTEM: "1" };
/** The question: a root below the repository's top, so that the ignore files above it are the repoContext's. */
const ASK = ["grep", "-l", "memoMarker", "pkg/sub"] as const;
const ALL = ["pkg/sub/a.md", "pkg/sub/b.md", "pkg/sub/c.txt"];
const NOT_A = ["pkg/sub/b.md", "pkg/sub/c.txt"];

let server: ReturnType<typeof Bun.spawn> | null = null;

/** The files a served call names; asserts it was served and that the cold run answers the same. */
function answer(): string[] {
  const calls = () => Number(servers().find((s) => s.root === root)?.calls ?? -1);
  const before = calls();
  const warm = run(ASK, root, { ...USER, RGLOB_SERVE_WAIT_MS: "120000" });
  expect(calls()).toBe(before + 1);
  const cold = run(ASK, root, { ...USER, RGLOB_SERVE: "0" });
  expect({ code: warm.code, stderr: warm.stderr, out: warm.stdout.toString() }).toEqual({
    code: cold.code,
    stderr: cold.stderr,
    out: cold.stdout.toString(),
  });
  return warm.stdout.toString().split("\n").filter(Boolean).sort();
}

/**
 * Lets the files age past the racy window, asks twice (the second answer from the memo), makes the edit and asks
 * again at once.
 * @param before the answer before the edit
 * @param edit the edit
 * @param after the answer after it
 */
function editSeen(before: readonly string[], edit: () => void, after: readonly string[]): void {
  Bun.sleepSync(2100);
  expect(answer()).toEqual([...before]);
  expect(answer()).toEqual([...before]);
  edit();
  expect(answer()).toEqual([...after]);
}

beforeAll(async () => {
  if (!linux) return;
  mkdirSync(join(root, "pkg", "sub"), { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const f of ["a.md", "b.md", "c.txt"]) writeFileSync(join(root, "pkg", "sub", f), "memoMarker\n");
  expect(Bun.spawnSync(["git", "init", "-q", root]).exitCode).toBe(0);
  writeFileSync(join(root, ".git", "info", "exclude"), "zz.md\n");
  writeFileSync(join(root, "pkg", ".gitignore"), "zz.md\n");
  ({ server } = serve());
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
}, 300_000);

afterAll(() => end(server));

test.skipIf(!linux)(
  "an edit of each file a root's repository lookup read is in the next served answer (skipped off Linux)",
  () => {
    // A .gitignore above the root, edited (the same size).
    editSeen(ALL, () => writeFileSync(join(root, "pkg", ".gitignore"), "a.md\n"), NOT_A);
    editSeen(NOT_A, () => writeFileSync(join(root, "pkg", ".gitignore"), "zz.md\n"), ALL);
    // An .ignore above the root, made where there was none.
    editSeen(ALL, () => writeFileSync(join(root, "pkg", ".ignore"), "a.md\n"), NOT_A);
    rmSync(join(root, "pkg", ".ignore"));
    // The repository's info/exclude, edited.
    editSeen(ALL, () => writeFileSync(join(root, ".git", "info", "exclude"), "a.md\n"), NOT_A);
    writeFileSync(join(root, ".git", "info", "exclude"), "zz.md\n");
    // The user's git config made, naming an excludes file; then that file edited.
    writeFileSync(join(home, "excludes"), "zz.md\n");
    editSeen(
      ALL,
      () => writeFileSync(join(home, ".gitconfig"), "[core]\n\texcludesFile = ~/excludes2\n"),
      ALL,
    );
    writeFileSync(join(home, "excludes2"), "a.md\n");
    expect(answer()).toEqual(NOT_A);
    editSeen(NOT_A, () => writeFileSync(join(home, "excludes2"), "b.md\n"), [
      "pkg/sub/a.md",
      "pkg/sub/c.txt",
    ]);
    rmSync(join(home, ".gitconfig"));
    // Without core.excludesFile, git's default excludes file (~/.config/git/ignore), made.
    editSeen(
      ALL,
      () => {
        mkdirSync(join(home, ".config", "git"), { recursive: true });
        writeFileSync(join(home, ".config", "git", "ignore"), "a.md\n");
      },
      NOT_A,
    );
    rmSync(join(home, ".config"), { recursive: true });
    // A .git made between the root and the repository's top: pkg is a repository of its own, and the
    // repository above no longer applies (its info/exclude); removed, it applies again.
    writeFileSync(join(root, ".git", "info", "exclude"), "a.md\n");
    editSeen(NOT_A, () => mkdirSync(join(root, "pkg", ".git")), ALL);
    editSeen(ALL, () => rmSync(join(root, "pkg", ".git"), { recursive: true }), NOT_A);
  },
  120_000,
);
