// A find or grep that found nothing while ignore rules left entries out says what the same query finds among them
// (the first three) and the rule that ignores each: "why is icons.ts not there" and "the API key in the env
// file" took trial agents a second and third call (-u, explain). Real git-style ignore files, the compiled
// binary, and the SDK client over stdio.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": "node_modules/\n.env\n",
  "web/.gitignore": "/src/generated/\n",
  "web/src/app.ts": "import { icons } from './generated/icons';\n",
  "web/src/generated/icons.ts": "export const icons = [];\n",
  ".env": "API_KEY=sk_test_123\n",
  ".env.example": "API_KEY=your-key-here\n",
  "node_modules/a/index.js": "module.exports = 1;\n",
  "node_modules/b/icons.ts": "x\n",
  "node_modules/c/icons.ts": "y\n",
  "node_modules/d/icons.ts": "z\n",
});
afterAll(() => t.cleanup());

describe("nothing found, but among the ignored entries", () => {
  test("find: the ignored file named, with the rule of the nested .gitignore that ignores its directory", () => {
    const run = rglob(["find", "icons.ts", "--base", "web"], { cwd: t.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      "rglob: among the ignored entries, the same query finds: src/generated/icons.ts (its directory 'src/generated' is ignored by .gitignore:1: /src/generated/)",
    );
  });

  test("grep: the line, and the rule that ignores its file", () => {
    const run = rglob(["grep", "sk_test_"], { cwd: t.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "rglob: among the ignored entries, the same query finds: .env:1 (ignored by .gitignore:2: .env)",
    );
  });

  test("at most three, and said so when there are more", () => {
    const run = rglob(["find", "icons.ts", "-t", "f", "--base", "."], { cwd: t.dir });
    // web/src/generated/icons.ts and node_modules/{b,c,d}/icons.ts: four, three named.
    expect(run.code).toBe(1);
    const line = run.stderr.split("\n").find((l) => l.startsWith("rglob: among the ignored entries")) ?? "";
    expect(line).toContain("the same query finds, first: ");
    expect(line.split("; ")).toHaveLength(3);
  });

  test("no such note when the ignored entries hold nothing, when ignore rules are off, or when something was found", () => {
    for (const args of [
      ["grep", "nowhere_at_all"],
      ["find", "nothing-named-so.ts"],
      ["find", "icons.ts", "--no-ignore", "-E", "node_modules", "-E", "generated"],
      ["find", "app.ts"],
    ]) {
      expect(rglob(args, { cwd: t.dir }).stderr).not.toContain("among the ignored entries");
    }
  });

  test("over MCP: in the text of an empty answer", async () => {
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "sk_test_" },
      })) as CallToolResult;
      expect((res.structuredContent as { results: unknown[] }).results).toEqual([]);
      expect((res.content[0] as { text: string }).text).toContain(
        "among the ignored entries, the same query finds: .env:1 (ignored by .gitignore:2: .env)",
      );
    } finally {
      await s.close();
    }
  });
});

// The second look is bounded by work, not by a deadline (#36): a deadline cut it where the machine's load said, so
// a cold run and a served one (or two cold runs) of one query printed different notes.
describe("the look among the ignored entries is bounded by work, not time", () => {
  const dir = mkdtempSync(join(tmpdir(), "rglob-look-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a hit behind a second of work is named: more than the quarter second the look had, less than its budget", () => {
    // 450,000 matches in strings to leave out (--in comment lexes the file to tell): about a second of CPU here, and
    // more than 0.25 s on any machine (the deadline the look had), but 3 entries and 14.4 MB, inside its budget.
    const slow = join(dir, "slow");
    mkdirSync(join(slow, "deps"), { recursive: true });
    writeFileSync(join(slow, ".gitignore"), "deps/\n");
    writeFileSync(join(slow, "kept.js"), "const a = 1;\n");
    writeFileSync(join(slow, "deps", "a.js"), 'const s = "lookMarker"; // near\n'.repeat(450_000));
    writeFileSync(join(slow, "deps", "z.js"), "// lookMarker here\n");
    const run = rglob(["grep", "--in", "comment", "lookMarker"], { cwd: slow });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "rglob: among the ignored entries, the same query finds: deps/z.js:1 (its directory 'deps' is ignored by .gitignore:1: deps/)\n",
    );
  });

  test("a look that stops at its budget says so: bytes read (grep), entries walked (find); CLI and MCP", async () => {
    const big = join(dir, "big");
    mkdirSync(join(big, "deps"), { recursive: true });
    writeFileSync(join(big, ".gitignore"), "deps/\n");
    writeFileSync(join(big, "kept.txt"), "nothing here\n");
    // Three files of 6 MiB before the hit: the look reads two (12 MiB) and stops before the third (16 MiB).
    for (const n of ["a", "b", "c"]) writeFileSync(join(big, "deps", `${n}.txt`), "x".repeat(6 << 20));
    writeFileSync(join(big, "deps", "d.txt"), "budgetMarker\n");
    const g = rglob(["grep", "budgetMarker"], { cwd: big });
    expect(g.code).toBe(1);
    expect(g.stderr).toContain(
      "rglob: among the ignored entries, the same query finds nothing in the first 16 MiB read with the ignore rules off; the look stops there (--no-ignore searches them all)\n",
    );
    // With -u the file is there: the note did not hide a hit it had seen.
    expect(rglob(["grep", "-u", "budgetMarker"], { cwd: big }).stdout).toBe("deps/d.txt:1:budgetMarker\n");
    // The MCP text says the same, naming the input key (max_file_size: its default, 10M, would skip the files).
    const s = await startMcp(["--root", big]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "budgetMarker", max_file_size: "20M" },
      })) as CallToolResult;
      expect((res.content[0] as { text: string }).text).toContain(
        "among the ignored entries, the same query finds nothing in the first 16 MiB read with the ignore rules off; the look stops there (respect_gitignore: false searches them all)",
      );
    } finally {
      await s.close();
    }
    // find: 50,176 entries walked, then the look stops (a directory of 50,200 empty files before the hit).
    const wide = join(big, "deps", "c-wide");
    mkdirSync(wide);
    for (let i = 0; i < 50_200; i++) writeFileSync(join(wide, `e${i}`), "");
    const f = rglob(["find", "d.txt"], { cwd: big });
    expect(f.code).toBe(1);
    expect(f.stderr).toContain(
      "rglob: among the ignored entries, the same query finds nothing in the first 50,176 entries walked with the ignore rules off; the look stops there (--no-ignore searches them all)\n",
    );
  });
});
