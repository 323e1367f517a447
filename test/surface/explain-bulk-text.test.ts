// Bulk ignore verdicts without repeated text (#37): `explain --all` says the ignore files consulted once for the
// entries that share them (each included entry is then one line), `find --only-ignored --format` does not list
// its paths again on stderr, and the MCP text of explain counts entries, not "files searched".
import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": "*.log\nbuild/\n",
  "a.txt": "a\n",
  "b.txt": "b\n",
  "src/c.ts": "c\n",
  "src/d.log": "d\n",
  "build/out.o": "o\n",
  "sub/.gitignore": "*.tmp\n",
  "sub/e.txt": "e\n",
  "sub/f.txt": "f\n",
});
afterAll(() => t.cleanup());
const cwd = t.dir;
const NO_RULE = "no ignore rule matches it: none of the";

describe("explain --all says the ignore files consulted once per set (#37)", () => {
  test("each included entry is one line once its ignore files were named", () => {
    const r = rglob(["explain", "--all", "--no-global-ignore-file"], { cwd });
    expect(r.code).toBe(0);
    const out = r.stdout;
    // Two sets of ignore files: the top .gitignore, and it with sub/.gitignore.
    expect(out.split(NO_RULE).length - 1).toBe(2);
    expect(out).toContain("a.txt: included\nb.txt: included\n");
    expect(out).toContain(
      "sub/.gitignore: included\n  listed by find with these options; no ignore rule matches it: none of the 3 rules of .gitignore (2), sub/.gitignore (1)\nsub/e.txt: included\nsub/f.txt: included\n",
    );
    expect(out).toContain("src/d.log: not included\n  ignored by .gitignore:1: *.log\n");
    // One path alone keeps its whole verdict.
    expect(rglob(["explain", "b.txt"], { cwd }).stdout).toContain(NO_RULE);
  });
});

describe("find --only-ignored --format does not list its paths again (#37)", () => {
  test("a count per rule, or nothing when the format shows {ignored_by}", () => {
    const plain = rglob(["find", "--only-ignored", "--expand"], { cwd });
    expect(plain.stderr).toContain("ignored by .gitignore:1:*.log: src/d.log");
    const formatted = rglob(["find", "--only-ignored", "--expand", "--format", "{rel}"], { cwd });
    expect(formatted.stdout).toBe("build\nbuild/out.o\nsrc/d.log\n");
    expect(formatted.stderr).not.toContain("src/d.log");
    expect(formatted.stderr).toBe(
      "rglob: ignored by .gitignore:2:build/: 2 entries\nrglob: ignored by .gitignore:1:*.log: 1 entry\nrglob: {ignored_by} in --format shows each entry's rule\n",
    );
    const withRule = rglob(["find", "--only-ignored", "--format", "{rel} {ignored_by}"], { cwd });
    expect(withRule.stdout).toContain("src/d.log .gitignore:1:*.log\n");
    expect(withRule.stderr).toBe("");
  });
});

describe("the MCP text of explain counts entries (#37)", () => {
  test("under: N entries explained, not files searched", async () => {
    const s = await startMcp(["--root", cwd]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", under: ".", global_ignore_file: false },
      })) as CallToolResult;
      const text = (res.content[0] as { text: string }).text;
      const first = text.split("\n")[0] as string;
      expect(first).toContain("entries explained");
      expect(first).not.toContain("searched");
      // The ignore files consulted are said once per set there too; the structured records keep them whole.
      expect(text.split(NO_RULE).length - 1).toBe(2);
      expect(text).toContain("\na.txt: included\nb.txt: included\n");
      const records = (res.structuredContent as { results: Array<{ reasons: Array<{ detail: string }> }> })
        .results;
      const whole = records.filter((x) => x.reasons.some((y) => y.detail.includes(NO_RULE))).length;
      expect(whole).toBeGreaterThan(2);
    } finally {
      await s.close();
    }
  });
});

describe("explain over several paths says how many are included (#37)", () => {
  test("MCP text and field, CLI --json: counts, never a bare included: false", async () => {
    const s = await startMcp(["--root", cwd]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", targets: ["a.txt", "src/d.log", "b.txt"], global_ignore_file: false },
      })) as CallToolResult;
      const text = (res.content[0] as { text: string }).text;
      expect(text).toContain("\nincluded: 2 of 3 (1 not included)\n");
      expect(text).not.toContain("included: false");
      expect(text).not.toContain("not_included:");
      expect(res.structuredContent).toMatchObject({ included: false, not_included: 1, explained: 3 });
      const one = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", targets: ["a.txt"], global_ignore_file: false },
      })) as CallToolResult;
      expect((one.content[0] as { text: string }).text).toContain("\nincluded: yes\n");
    } finally {
      await s.close();
    }
    const cli = JSON.parse(rglob(["explain", "a.txt", "src/d.log", "b.txt", "--json"], { cwd }).stdout);
    expect(cli).toMatchObject({ included: false, not_included: 1, explained: 3 });
    const all = JSON.parse(rglob(["explain", "a.txt", "b.txt", "--json"], { cwd }).stdout);
    expect(all).toMatchObject({ included: true, not_included: 0, explained: 2 });
  });
});
