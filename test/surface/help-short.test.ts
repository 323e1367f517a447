// Help for people (#37): `-h` is a screen (usage, the flags used most, two examples, where the rest is), `--help`
// the full reference, and both speak the CLI's words: flag spellings, not the input keys of the wire contract.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { rglob, rglobJson, tempTree } from "../helpers.ts";

const ops = rglobJson<{ operations: string[] }>(["capabilities"]).json.operations;

interface Described {
  flags: Array<{
    name: string;
    short: string | null;
    aliases: string[];
    negations: string[];
    input_key: string | null;
  }>;
}
const described = new Map(ops.map((op) => [op, rglobJson<Described>(["describe", op]).json]));

/** Every spelling the parser takes for an operation: long names, aliases, negations, --no-x, short letters. */
function spellingsOf(op: string): Set<string> {
  const out = new Set(["--help", "-h"]);
  for (const f of described.get(op)?.flags ?? []) {
    for (const n of [f.name, ...f.aliases]) {
      out.add(n);
      out.add(`--no-${n.slice(2)}`);
    }
    for (const n of f.negations) out.add(n);
    if (f.short) out.add(f.short);
  }
  return out;
}

test("-h is a screen of real flags, and names --help for the rest", () => {
  for (const op of ops) {
    const short = rglob([op, "-h"]);
    const long = rglob([op, "--help"]);
    expect(short.code).toBe(0);
    const lines = short.stdout.trimEnd().split("\n");
    // A screen: at most 35 lines of at most 100 columns (rg -h and fd -h are 50-90 lines; ours are shorter), and
    // far shorter than the reference.
    expect(`${op}: ${lines.length}`).toMatch(/: ([12]?\d|3[0-5])$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(100);
    expect(lines.length * 2).toBeLessThan(long.stdout.split("\n").length);
    expect(short.stdout).toContain(`rglob ${op} --help`);
    // Every flag it shows is one the parser takes (a row starts with the spellings).
    const rows = short.stdout.slice(short.stdout.indexOf("OPTIONS"), short.stdout.indexOf("EXAMPLES"));
    const shown = [...rows.matchAll(/^ {2}(-[^\s,]+)(?:, (--[^\s]+))?/gm)].flatMap((m) =>
      [m[1], m[2]].filter((x): x is string => x !== undefined),
    );
    expect(shown.length).toBeGreaterThanOrEqual(4);
    const real = spellingsOf(op);
    for (const s of shown) expect(`${op} ${s}`).toBe(`${op} ${real.has(s) ? s : "(not a flag)"}`);
    // Each flag on one line or two, never a paragraph.
    expect(rows.split("\n").length).toBeLessThanOrEqual(2 * shown.length + 4);
  }
  // rglob -h grep is the same screen as rglob grep -h; --help stays the reference.
  expect(rglob(["-h", "grep"]).stdout).toBe(rglob(["grep", "-h"]).stdout);
  expect(rglob(["help", "grep"]).stdout).toBe(rglob(["grep", "--help"]).stdout);
}, 120_000);

test("--help speaks in flag spellings, not the wire contract's keys", () => {
  // Every input key spelled with an underscore (the contract's snake_case) that has a CLI flag.
  const keys = new Set<string>();
  for (const d of described.values())
    for (const f of d.flags) if (f.input_key?.includes("_")) keys.add(f.input_key);
  expect(keys.has("max_per_file")).toBe(true);
  for (const op of ops) {
    for (const args of [
      [op, "--help"],
      [op, "-h"],
    ]) {
      // A key in quotes is a value (the reason 'max_count'), not a key.
      const text = rglob(args, { env: { COLUMNS: "1000" } }).stdout.replace(/'[^'\s]*'/g, "''");
      for (const key of keys)
        expect(`${args.join(" ")}: ${key}`).toBe(
          `${args.join(" ")}: ${new RegExp(`(?<![\\w.-])${key}(?![\\w-])`).test(text) ? "(key in help)" : key}`,
        );
      // Per-path problems are errors to a CLI user (--json lists them), never "error records".
      expect(text).not.toContain("error record");
      expect(text).not.toMatch(/call again with/);
    }
  }
  const grep = rglob(["grep", "--help"], { env: { COLUMNS: "1000" } }).stdout;
  expect(grep).toContain("(--max-count is per file)");
  expect(grep).toContain("--no-hidden skips them");
  expect(grep).toContain("run the same command again with --cursor NEXT_CURSOR");
}, 120_000);

const t = tempTree({
  "a/.gitignore": "sub/\n*.log\n",
  "a/sub/x": "x\n",
  "a/y.log": "y\n",
  "a/z": "z\n",
  "b/sub/w": "w\n",
});
afterAll(t.cleanup);

test("explain --under DIR is taken from the current directory, as its PATH operands are", () => {
  const cwd = join(t.dir, "a");
  // From a/ with --base ..: sub is a/sub (it exists here), not the base's sub.
  const r = rglobJson<{ results: Array<{ relative_path: string; included: boolean }> }>(
    ["explain", "--under", "sub", "--base", "..", "--json"],
    { cwd },
  );
  expect(r.json.results.map((x) => [x.relative_path, x.included])).toEqual([["a/sub/x", false]]);
  expect(
    rglobJson<{ results: Array<{ relative_path: string }> }>(
      ["explain", "--under=sub", "--base", "..", "--json"],
      {
        cwd,
      },
    ).json.results.map((x) => x.relative_path),
  ).toEqual(["a/sub/x"]);
  // A DIR that names nothing here is the base's (b/sub), and --all is the base's whole tree.
  expect(
    rglobJson<{ results: Array<{ relative_path: string }> }>(
      ["explain", "--under", "b/sub", "--base", "..", "--json"],
      {
        cwd,
      },
    ).json.results.map((x) => x.relative_path),
  ).toEqual(["b/sub/w"]);
  expect(
    rglobJson<{ results: Array<{ relative_path: string }> }>(
      ["explain", "--all", "--only", "ignored", "--base", "..", "--json"],
      { cwd },
    ).json.results.map((x) => x.relative_path),
  ).toEqual(["a/sub", "a/y.log"]); // an ignored directory once (#37)
});
