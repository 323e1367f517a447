// Orientation in one or two calls (#37): `rglob --help` opens with the everyday questions, one command each, taken
// from the registry's examples (describe lists the same), `rglob help --all` is every command's usage and flags on
// one page, and a command's --help lists every flag without repeating find's rules page after page.
import { expect, test } from "bun:test";
import { rglob, rglobJson } from "../helpers.ts";

interface Described {
  usage: string;
  examples: Array<{ cli: string; description: string; question?: string }>;
  flags: Array<{ name: string; short: string | null; aliases: string[]; input_key: string | null }>;
}
const ops = rglobJson<{ operations: string[] }>(["capabilities"]).json.operations;
const described = new Map(ops.map((op) => [op, rglobJson<Described>(["describe", op]).json]));

test("rglob --help opens with the registry's questions, each with its command, before the commands", () => {
  const help = rglob(["--help"], { env: { COLUMNS: "200" } });
  expect(help.code).toBe(0);
  const text = help.stdout;
  const questions = [...described.values()].flatMap((d) => d.examples.filter((e) => e.question));
  // The everyday questions the last trial asked: each has a command.
  expect(questions.length).toBeGreaterThanOrEqual(20);
  for (const words of [
    "symlink point",
    "ignore rules leave out, and by which rule",
    "execute bit",
    "blank lines per language",
    "comments only",
    "encoding",
    "Exact sizes in bytes",
    "bytes the extra copies waste",
    "newer than a build output",
    "Which entries under a folder are ignored",
  ])
    expect(questions.some((q) => q.question?.includes(words))).toBe(true);
  const at = text.indexOf("QUESTIONS");
  expect(at).toBeGreaterThan(0);
  expect(at).toBeLessThan(text.indexOf("COMMANDS"));
  let last = at;
  for (const q of questions) {
    // The question, then its command on the next line, in registry order: generated, not written twice.
    const i = text.indexOf(`  ${q.question}\n      ${q.cli}\n`, last);
    expect(`${q.cli}: ${i > last ? "listed in order" : "missing"}`).toBe(`${q.cli}: listed in order`);
    last = i;
  }
  expect(text).toContain("rglob help --all");
});

test("rglob help --all: every command and every flag spelling on one page of about 8 KB", () => {
  const all = rglob(["help", "--all"]);
  expect(all.code).toBe(0);
  expect(rglob(["--help-all"]).stdout).toBe(all.stdout);
  expect(rglob(["help", "-a"]).stdout).toBe(all.stdout);
  const bytes = Buffer.byteLength(all.stdout);
  // About 8 KB (git help -a is 11.7 KB here); the twelve -h pages together are 13.5 KB.
  expect(bytes).toBeLessThan(9_000);
  for (const l of all.stdout.split("\n")) expect(l.length).toBeLessThanOrEqual(100);
  for (const [op, d] of described) {
    expect(all.stdout).toContain(`\n${d.usage.replace(/ \[FLAGS\]$/, "")}\n`);
    // Every flag of the command is named: by its shortest long spelling, in the shared block or its own.
    for (const f of d.flags) {
      const longs = [f.name, ...f.aliases].filter((n) => n.startsWith("--"));
      const negated = longs.map((n) => `--no-${n.slice(2)}`);
      const named = [...longs, ...negated].some((n) =>
        new RegExp(`(?<![\\w-])${n}(?![\\w-])`).test(all.stdout),
      );
      expect(`${op} ${f.name}: ${named ? "named" : "missing"}`).toBe(`${op} ${f.name}: named`);
    }
  }
  // grep's -e is a pattern: the shared block never gives -e to --extension for it.
  const shared = all.stdout.slice(0, all.stdout.indexOf("\nrglob find"));
  expect(shared).not.toContain("-e, --extension");
  expect(all.stdout.slice(all.stdout.indexOf("\nrglob grep"))).toMatch(/-e\/--regexp/);
});

test("--help lists every flag, each once, and cuts find's rules elsewhere to a line with where they are", () => {
  for (const [op, d] of described) {
    const help = rglob([op, "--help"], { env: { COLUMNS: "100" } }).stdout;
    for (const f of d.flags) expect(help).toContain(f.name);
    if (op === "find") {
      expect(help).not.toContain("(more: find --help)");
      // find's page keeps the rules whole.
      expect(help).toContain("'!/111': no execute bit at all");
    }
  }
  // The sizes at 100 columns (before #37's cut: find 16,718 bytes, grep 24,822, count 17,097; count's page
  // then gained the docstring rules and --docstrings: 10,313).
  for (const [op, most] of [
    ["find", 13_000],
    ["grep", 17_000],
    ["count", 11_000],
  ] as const)
    expect(
      `${op}: ${Buffer.byteLength(rglob([op, "--help"], { env: { COLUMNS: "100" } }).stdout) <= most}`,
    ).toBe(`${op}: true`);
  const grep = rglob(["grep", "--help"], { env: { COLUMNS: "1000" } }).stdout;
  expect(grep).toContain("(more: find --help)");
  expect(grep).toContain("'rglob find --help' gives their rules in full");
  expect(grep).not.toContain("'!/111': no execute bit at all");
  // The glob rules once: the operands point at --glob.
  const find = rglob(["find", "--help"], { env: { COLUMNS: "1000" } }).stdout;
  expect(find.split("does not cross '/'").length - 1).toBe(1);
  expect(find).toMatch(/\[GLOB\.\.\.\]\n {8}As -g, --glob below\./);
});
