// A negated --perm (#37): '!MODE' is the complement of MODE among the entries, as find's `! -perm MODE`, on files
// with random modes; compared with GNU find.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng, rglob } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rglob-perm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rnd = prng(37);
for (let i = 0; i < 60; i++) {
  const f = join(dir, `f${i}`);
  writeFileSync(f, "");
  chmodSync(f, Math.floor(rnd() * 0o1000) | 0o400); // readable by the owner, any other bits
}

const hasFind = Bun.spawnSync(["find", "--version"]).exitCode === 0;

const lines = (s: string) =>
  s
    .split("\n")
    .filter((l) => l !== "")
    .sort();

test.if(hasFind).each(["/111", "-111", "/022", "-640", "644", "/7000"])(
  "--perm '!%s' is find's ! -perm, and the complement of --perm (skipped without GNU find)",
  (mode) => {
    const ours = lines(
      rglob(["find", "-t", "f", "--perm", `!${mode}`, "--format", "{rel}"], { cwd: dir }).stdout,
    );
    const gnu = Bun.spawnSync(["find", ".", "-type", "f", "!", "-perm", mode, "-printf", "%P\\n"], {
      cwd: dir,
    });
    expect(ours).toEqual(lines(gnu.stdout.toString()));
    const positive = lines(
      rglob(["find", "-t", "f", "--perm", mode, "--format", "{rel}"], { cwd: dir }).stdout,
    );
    expect([...ours, ...positive].sort()).toEqual(
      lines(rglob(["find", "-t", "f", "--format", "{rel}"], { cwd: dir }).stdout),
    );
  },
);

test("explain names a negated --perm that rejects a file; a bad one is a clear error", () => {
  const exe = join(dir, "f-exe");
  writeFileSync(exe, "");
  chmodSync(exe, 0o755);
  const r = rglob(["explain", "f-exe", "--perm", "!/111"], { cwd: dir });
  // An explanation given, not included: exit 0 (#37); --only included is the verdict as an exit code.
  expect(r.code).toBe(0);
  expect(rglob(["explain", "f-exe", "--perm", "!/111", "--only", "included"], { cwd: dir }).code).toBe(1);
  expect(r.stdout).toContain("does not satisfy --perm !/111");
  const bad = rglob(["find", "--perm", "!!/111"], { cwd: dir });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("'!/111' none of them");
});

test("help states what x and a negated --perm mean", () => {
  const help = rglob(["find", "--help"]).stdout.replace(/\s+/g, " ");
  expect(help).toContain("any execute bit");
  expect(help).toContain("'!/111'");
});
