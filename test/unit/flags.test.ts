// Strict CLI parsing driven by the registry: types, repeatable flags, negations, bundles, operands.
import { describe, expect, test } from "bun:test";
import { findOperation } from "../../src/ops/registry.ts";
import { assignOperands, parseCommand, UsageError } from "../../src/surface/cli/flags.ts";

const find = findOperation("find");

describe("parseCommand(find)", () => {
  test.each([
    [["--max-depth", "3"], { max_depth: 3 }],
    [["-d3"], { max_depth: 3 }],
    [["-d", "3"], { max_depth: 3 }],
    [["--max-depth=3"], { max_depth: 3 }],
    [["--no-ignore"], { respect_gitignore: false }],
    [["--no-respect-gitignore"], { respect_gitignore: false }],
    [["-H"], { hidden: true }],
    [["-HL"], { hidden: true, follow_symlinks: true }],
    [["-t", "f", "-t", "d"], { types: ["f", "d"] }],
    [["--type", "f,x"], { types: ["f", "x"] }],
    [["-E", "node_modules", "-E", "dist"], { exclude: ["node_modules", "dist"] }],
    [["--min-size", "10k"], { min_size: "10k" }],
    [["--min-size", "1024"], { min_size: 1024 }],
    [["--timeout", "1.5"], { timeout_seconds: 1.5 }],
    [["--hidden=false"], { hidden: false }],
  ])("%p → %p", (argv, expected) => {
    expect(parseCommand(find, argv).input).toEqual(expected);
  });

  test.each([
    [["--bogus"], "unknown flag '--bogus'"],
    [["-q"], "unknown flag '-q'"],
    [["--max-depth", "1.5"], "not a whole number"],
    [["--max-depth", "ten"], "not a number"],
    [["--limit"], "needs a value"],
    [["--type", "z"], "not one of"],
    [["--hidden=yes"], "takes no value"],
    [["--no-limit"], "unknown flag"],
  ])("%p is a usage error (%s)", (argv, message) => {
    expect(() => parseCommand(find, argv)).toThrow(UsageError);
    expect(() => parseCommand(find, argv)).toThrow(message);
  });

  test("operands, '--' and presentation flags", () => {
    const p = parseCommand(find, ["*.ts", "-0", "--", "-weird-name"]);
    expect(p.operands).toEqual(["*.ts", "-weird-name"]);
    expect(p.presentation).toEqual({ print0: true });
    const input: Record<string, unknown> = {};
    assignOperands(find, p.operands, input);
    expect(input).toEqual({ patterns: ["*.ts", "-weird-name"] });
  });
});
