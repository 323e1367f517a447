// grep's command line keeps grep's habits where they do not clash with the walk's letters: `-n` (line numbers,
// the default) is accepted, `--no-line-number` hides them; `--limit` has no short letter outside `top -n`.
import { expect, test } from "bun:test";
import { FIXTURE, rglob } from "../helpers.ts";

test.each([
  [["grep", "-n", "TODO"], "docs/notes.txt:3:TODO: exercise grep context capture.\n"],
  [["grep", "TODO"], "docs/notes.txt:3:TODO: exercise grep context capture.\n"],
  [["grep", "--no-line-number", "TODO"], "docs/notes.txt:TODO: exercise grep context capture.\n"],
])("%p prints grep-style lines", (args, first) => {
  const r = rglob([...args, "--max-count", "1"], { cwd: FIXTURE });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(first);
});

test("-n is top's N, and not a limit flag of find", () => {
  expect(rglob(["top", "-n", "1"], { cwd: FIXTURE }).stdout.trim().split("\n")).toHaveLength(1);
  const r = rglob(["find", "-n", "1"], { cwd: FIXTURE });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("unknown flag '-n'");
});
