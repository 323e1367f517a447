// A mistyped command or flag is a usage error that names the one probably meant, as rg and fd name a mistyped
// flag (#39); grep without a pattern is a usage message, not an internal error code (JSON keeps its envelope).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { FIXTURE, rglob } from "../helpers.ts";

describe("did you mean", () => {
  test.each([
    [["gerp", "TODO"], "unknown command 'gerp': did you mean 'grep'?"],
    [["fnid"], "unknown command 'fnid': did you mean 'find'?"],
    [["help", "gerp"], "unknown command 'gerp': did you mean 'grep'?"],
    [["gerp", "--help"], "unknown command 'gerp': did you mean 'grep'?"],
    [["grep", "--ignore-cas", "x"], "unknown flag '--ignore-cas' for 'grep': did you mean '--ignore-case'?"],
    [["grep", "--no-ignroe", "x"], "unknown flag '--no-ignroe' for 'grep': did you mean '--no-ignore'?"],
    [["find", "--exlude", "x"], "unknown flag '--exlude' for 'find': did you mean '--exclude'?"],
    [["find", "--max-dpeth=2"], "unknown flag '--max-dpeth' for 'find': did you mean '--max-depth'?"],
    [["mcp", "--roots", "."], "unknown argument '--roots': did you mean '--root'?"],
  ])("rglob %p", (args, message) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/\(run 'rglob (mcp )?--help'\)|\(see 'rglob (grep|find) --help'\)/);
  });

  test.each([
    [["zzzzzz"], "unknown command 'zzzzzz' (run 'rglob --help')"],
    [["grep", "--bogus-flag", "x"], "unknown flag '--bogus-flag' for 'grep' (see 'rglob grep --help')"],
  ])("rglob %p: nothing close, no guess", (args, message) => {
    const r = rglob(args, { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`rglob: usage: ${message}`);
  });

  test("help for a meta command still answers", () => {
    expect(rglob(["help", "mcp"]).code).toBe(0);
  });
});

describe("the same guesses as rg 13 and fd 8.6", () => {
  const have = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
  const fd = have("fdfind") ? "fdfind" : "fd";
  const cases: ReadonlyArray<readonly [string, string, readonly string[], readonly string[]]> = [
    ["rg", "rg", ["--ignore-cas", "x"], ["grep", "--ignore-cas", "x"]],
    ["rg", "rg", ["--max-coutn", "1", "x"], ["grep", "--max-coutn", "1", "x"]],
    ["rg", "rg", ["--fixed-string", "x"], ["grep", "--fixed-string", "x"]],
    ["rg", "rg", ["--word-regex", "x"], ["grep", "--word-regex", "x"]],
    ["fd", fd, ["--extensio", "md"], ["find", "--extensio", "md"]],
    ["fd", fd, ["--max-dpeth", "1"], ["find", "--max-dpeth", "1"]],
    ["fd", fd, ["--exlude", "x"], ["find", "--exlude", "x"]],
  ];
  for (const [name, exe, theirs, ours] of cases) {
    const present = have(exe);
    if (!present) console.warn(`skipped: ${name} is not installed (apt-get install ripgrep fd-find)`);
    test.skipIf(!present)(`${name} ${theirs.join(" ")} (skipped: not installed)`, () => {
      const peer = spawnSync(exe, theirs, { cwd: FIXTURE, encoding: "utf8" });
      const guess = /Did you mean '?(--[\w-]+)'?\?/.exec(peer.stderr)?.[1];
      expect(guess).toBeDefined();
      const r = rglob(ours, { cwd: FIXTURE });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`did you mean '${guess}'?`);
    });
  }
});

describe("grep without a pattern", () => {
  test("is a usage message naming PATTERN, with no internal code", () => {
    const r = rglob(["grep"], { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("rglob: usage: missing PATTERN: rglob grep PATTERN [PATH_OR_GLOB...]");
    expect(r.stderr).not.toContain("BAD_PREDICATE");
  });

  test("with flags and no operand too", () => {
    const r = rglob(["grep", "-i", "--hidden"], { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing PATTERN");
    expect(r.stderr).not.toContain("BAD_PREDICATE");
  });

  test.each([["--json"], ["--jsonl"]])("%s keeps the failure envelope with its code", (flag) => {
    const r = rglob(["grep", flag], { cwd: FIXTURE });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: "BAD_PREDICATE" } });
  });

  test("-e gives it", () => {
    expect(rglob(["grep", "-e", "TODO"], { cwd: FIXTURE }).code).toBe(0);
  });
});
