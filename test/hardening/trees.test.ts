// Hostile trees (issue #8): very deep nesting, a huge directory, odd names, links leading out of the base.
// Each tree is built in a temp dir; every case must end with exit 0/1, valid JSON and errors as records.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, rglobJson } from "../helpers.ts";

const work = realpathSync(mkdtempSync(join(tmpdir(), "rglob-hostile-")));
afterAll(() => {
  Bun.spawnSync(["rm", "-rf", work]);
});

interface Result {
  results: Array<{ path: string; relative_path: string }>;
  errors: Array<{ code: string; path: string | null; message: string }>;
  truncated: boolean;
}

describe("hostile trees", () => {
  test("5,000 levels of nesting: no stack overflow, deep paths reported as errors, not a crash", () => {
    const dir = join(work, "deep");
    mkdirSync(dir);
    // Built with relative mkdir/chdir system calls (perl is in every Debian base system; shells and Bun
    // compute the logical cwd and fail past PATH_MAX).
    const script =
      'for (1..5000) { mkdir "d" or die "mkdir: $!"; chdir "d" or die "chdir: $!" } open(F, ">leaf.txt") or die; print F "x\\n"';
    const made = Bun.spawnSync(["perl", "-e", script], { cwd: dir, stderr: "pipe" });
    expect(made.stderr.toString()).toBe("");
    expect(made.exitCode).toBe(0);
    const { json, run } = rglobJson<Result>(["find", "--json", "--no-ignore"], { cwd: dir });
    expect(run.code).toBe(json.errors.length > 0 ? 2 : 0); // exit 2 after per-path errors (#22)
    expect(run.stderr).not.toContain("internal error");
    expect(json.results.length).toBeGreaterThan(100);
    const depths = json.results.map((x) => x.relative_path.split("/").length);
    expect(Math.max(...depths)).toBeGreaterThan(100);
    if (!json.results.some((x) => x.relative_path.endsWith("leaf.txt"))) {
      expect(json.errors.length).toBeGreaterThan(0);
    }
    Bun.spawnSync(["rm", "-rf", dir]);
  }, 120_000);

  test("200,000 entries in one directory are all listed, in code point order", () => {
    const dir = join(work, "wide");
    mkdirSync(dir);
    const n = 200_000;
    for (let i = 0; i < n; i++) writeFileSync(join(dir, `f${i}`), "");
    const { json, run } = rglobJson<Result>(["find", "--json", "-t", "f"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(json.results.length).toBe(n);
    const names = json.results.map((x) => x.relative_path);
    const sorted = [...names].sort();
    expect(names).toEqual(sorted);
    Bun.spawnSync(["rm", "-rf", dir]);
  }, 180_000);

  test("names with newlines, control characters and 255-byte components round-trip in JSON", () => {
    const dir = join(work, "names");
    mkdirSync(dir);
    const odd = [
      "new\nline.txt",
      "tab\there.txt",
      "bell\u0007.txt",
      "é".repeat(127) + "x",
      "a".repeat(255),
      "-rf",
      " lead",
    ];
    for (const name of odd) writeFileSync(join(dir, name), "x");
    const { json, run } = rglobJson<Result>(["find", "--json"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(json.results.map((x) => x.relative_path).sort()).toEqual([...odd].sort());
    // Human output on a non-TTY keeps names as they are, one per line (use -0 for names with newlines).
    const zero = Bun.spawnSync([BIN, "find", "-0"], { cwd: dir });
    const listed = zero.stdout.toString().split("\0").filter(Boolean);
    expect(listed.sort()).toEqual([...odd].sort());
  });

  test("symlinks out of the base are listed as links but never followed out under strict_base", () => {
    const dir = join(work, "escape");
    const outside = join(work, "outside");
    mkdirSync(join(dir, "in"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "secret");
    writeFileSync(join(dir, "in", "ok.txt"), "ok");
    symlinkSync(outside, join(dir, "in", "out-dir"));
    symlinkSync(join(outside, "secret.txt"), join(dir, "in", "out-file"));
    symlinkSync("../in", join(dir, "in", "loop"));
    const plain = rglobJson<Result>(["find", "--json"], { cwd: dir }).json;
    expect(plain.results.map((x) => x.relative_path).sort()).toEqual([
      "in",
      "in/loop",
      "in/ok.txt",
      "in/out-dir",
      "in/out-file",
    ]);
    const followed = rglobJson<Result>(["find", "--json", "--follow", "--strict-base"], { cwd: dir }).json;
    for (const r of followed.results) expect(r.path.startsWith(dir)).toBe(true);
    expect(followed.results.some((x) => x.relative_path.includes("secret"))).toBe(false);
    // A link leading out of the base is a result, the link itself, flagged as escaping, and is not followed (#37).
    const out = followed.results.find((x) => x.relative_path === "in/out-dir") as
      | (Result["results"][number] & { entry_type?: string; link_escapes?: boolean })
      | undefined;
    expect(out?.entry_type).toBe("symlink");
    expect(out?.link_escapes).toBe(true);
    expect(followed.results.some((x) => x.relative_path.startsWith("in/out-dir/"))).toBe(false);
    expect(followed.errors.some((e) => e.path?.endsWith("out-dir"))).toBe(false);
    expect(followed.errors.some((e) => e.path?.endsWith("loop"))).toBe(true);
  });
});
