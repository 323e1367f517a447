// The README's "Everyday questions" block: every command in it runs, as written, with the compiled binary as
// `rglob`, on a small project where each question has an answer. An agent copies these lines: a flag that stops
// parsing, or a command that finds nothing where the comment promises an answer, fails here.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, ROOT, tempTree } from "../helpers.ts";

/** The command lines of the block after the `<!-- everyday … -->` marker, without their comments. */
function everydayCommands(): string[] {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
  const at = lines.findIndex((l) => l.startsWith("<!-- everyday"));
  if (at < 0) throw new Error("README.md has no <!-- everyday --> block");
  const out: string[] = [];
  for (let i = at + 2; i < lines.length && !(lines[i] as string).startsWith("```"); i++) {
    out.push((lines[i] as string).replace(/\s+#\s.*$/, "").trim());
  }
  return out;
}

const png = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.alloc(1_100_000, 7)]);
const t = tempTree({
  ".gitignore": "*.log\n",
  "README.md": "# demo\n\nA project.\n",
  ".github/CONTRIBUTING.md": "How to help.\n",
  "packages/api/src/config.ts":
    "// Reads the settings.\nexport function parseConfig(text: string) {\n  // TODO: validate\n  return JSON.parse(text);\n}\n",
  "scripts/build.ts": "// TODO: outside src, not listed\n",
  "assets/a.png": png,
  "public/b.png": png,
  "packages/web/config/app.json": "{}\n",
  "packages/web/config/locales/en.json": "{}\n",
  "packages/web/.gitignore": "generated/\n",
  "packages/web/generated/schema.ts": "export {};\n",
  "logs/app.log": "12:00 ERR_QUOTA_7731 quota exceeded\n",
});
afterAll(() => t.cleanup());

/** What each command must print (the question's answer in this project), by its first words. */
const ANSWERS: ReadonlyArray<readonly [string, readonly string[], number]> = [
  ["rglob find -e ts --changed-within", ["packages/api/src/config.ts", "scripts/build.ts"], 0],
  ["rglob grep -w TODO", ["packages/api/src/config.ts:3:"], 0],
  ["rglob grep 'function parseConfig", ["packages/api/src/config.ts:2:"], 0],
  ["rglob count --by language", ["TypeScript", "Markdown"], 0],
  ["rglob count -e md", ["2 files"], 0],
  ["rglob top -n 5", ["assets/a.png", "public/b.png"], 0],
  ["rglob dupes -e png", ["assets/a.png", "public/b.png"], 0],
  ["rglob find -e json --base", ["packages/web/config/app.json", "packages/web/config/locales/en.json"], 0],
  ["rglob explain", ["packages/web/.gitignore:1"], 1],
  ["rglob grep -u -F", ["logs/app.log:1:"], 0],
  ["rglob stats", ["files"], 0],
];

describe("README: everyday questions, one command each", () => {
  const commands = everydayCommands();
  test("the block lists a command for each answer checked here", () => {
    expect(commands.length).toBe(ANSWERS.length);
  });
  test.each(commands)("%s", (command) => {
    const answer = ANSWERS.find(([start]) => command.startsWith(start));
    expect(answer).toBeDefined();
    const [, expected, code] = answer as (typeof ANSWERS)[number];
    const r = Bun.spawnSync(["bash", "-c", command], {
      cwd: t.dir,
      env: { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH ?? ""}`, NO_COLOR: "1", HOME: t.dir },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = r.stdout.toString();
    expect({ code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ code, stderr: expect.any(String) });
    for (const text of expected) expect(out).toContain(text);
    if (command.startsWith("rglob grep -w TODO")) expect(out).not.toContain("scripts/build.ts");
  });
});
