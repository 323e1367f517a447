// The first call names the doubtful few (#37): a trial's agents answered right but spent a call checking a class
// of files the answer left unnamed. Each case on a real tree, through the compiled binary and over MCP with the
// SDK client: the scripts a --lang left out that start with a #! of its language (or that none does), the files
// of count's (unknown) row, dupes' files with hard links only, a link's words in the MCP text (find's {link}
// words), and the instant a --changed-within counted back to.
import { describe, expect, test } from "bun:test";
import { linkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { mcpOnTree } from "./mcp-helpers.ts";

const t = mcpOnTree({
  "bin/tool": "#!/usr/bin/env python3\nprint('TODO')\n",
  "bin/run": "#!/bin/bash -e\necho TODO\n",
  "scripts/gen": "#!/usr/bin/python2.7\n# TODO\n",
  "scripts/data.weird": "TODO not a script\n",
  "src/a.py": "x = 1  # TODO\n",
  "src/b.go": "package b // TODO\n",
  LICENSE: "MIT\n",
  "docs/readme.md": "# TODO\n",
  "same/one.txt": "same\n",
  "same/two.txt": "same\n",
  "held/x.bin": "kept once\n",
});
const cwd = t.dir;
linkSync(join(cwd, "held/x.bin"), join(cwd, "held/x-again.bin"));
symlinkSync("/nonexistent/rglob-test-target", join(cwd, "abs-broken"));
symlinkSync(join(cwd, "LICENSE"), join(cwd, "abs-in"));

/** Calls the one tool with an op; returns its text and structured content. */
async function call(args: Record<string, unknown>): Promise<{ text: string; sc: Record<string, unknown> }> {
  const res = (await t.mcp.client.callTool({ name: "rglob", arguments: args })) as CallToolResult;
  return {
    text: (res.content as Array<{ text: string }>)[0]?.text ?? "",
    sc: res.structuredContent as Record<string, unknown>,
  };
}

describe("--lang names the scripts it left out by their #! line", () => {
  test("CLI find, grep and count: the scripts of the asked language, with their interpreter", () => {
    const find = rglob(["find", "--lang", "py"], { cwd });
    expect(find.stdout).toBe("src/a.py\n");
    expect(find.stderr).toContain(
      "rglob: note: 2 files left out by --lang start with a #! of py: bin/tool (python3), scripts/gen (python2.7); without --lang, name them (a glob or a path) to take them in\n",
    );
    // grep's operands are its roots: only bin/ is looked at.
    const grep = rglob(["grep", "TODO", "--lang", "py", "bin"], { cwd });
    expect(grep.code).toBe(1);
    expect(grep.stderr).toContain("1 file left out by --lang starts with a #! of py: bin/tool (python3)");
    const two = rglob(["count", "--lang", "py,sh"], { cwd });
    expect(two.stderr).toContain(
      "3 files left out by --lang start with a #! of py or sh: bin/run (bash), bin/tool (python3), scripts/gen (python2.7)",
    );
    // --json is untouched: the records and fields of before.
    const { json } = rglobJson<Record<string, unknown>>(["find", "--lang", "py", "--json"], { cwd });
    expect(Object.keys(json)).not.toContain("shebangs");
  });

  test("none: it says so, and how many files of no known type it read", () => {
    const go = rglob(["find", "--lang", "go"], { cwd });
    expect(go.stdout).toBe("src/b.go\n");
    // bin/tool, bin/run, scripts/gen, scripts/data.weird, LICENSE, held/x.bin, held/x-again.bin (abs-broken is a
    // link, not a file).
    expect(go.stderr).toContain(
      "rglob: note: no file left out by --lang starts with a #! of go (the first line of the 7 files of no known type read)\n",
    );
    // --type-not alone: the rule, as before.
    expect(rglob(["find", "-T", "py"], { cwd }).stderr).toContain(
      "a file type selects by name only, never by a #! line (which count's language reads)",
    );
  });

  test("MCP: the same note in the text", async () => {
    const { text } = await call({ op: "grep", pattern: "TODO", file_types: ["python"] });
    expect(text).toContain(
      "note: 2 files left out by file_types start with a #! of python: bin/tool (python3), scripts/gen (python2.7); without file_types, name them in patterns or paths to take them in",
    );
  });
});

describe("count --by language names the files of (unknown)", () => {
  test("CLI: under the table, when few", () => {
    // The scripts are not among them: count takes their language from their #! line (bin/run is Shell).
    const r = rglob(["count", "--by", "language", "-g", "!held/**"], { cwd });
    expect(r.stdout).toContain("(unknown): 2 files of no known language: LICENSE, scripts/data.weird\n");
    const all = rglob(["count", "--by", "language"], { cwd });
    expect(all.stdout).toContain(
      "(unknown): 4 files of no known language: LICENSE, held/x-again.bin, held/x.bin, scripts/data.weird\n",
    );
    // More than five: how many, and how to list them.
    const six = tempTree(Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`notes/n${i}`, "plain\n"])));
    try {
      const many = rglob(["count", "--by", "language"], { cwd: six.dir });
      expect(many.stdout).toContain(
        "(unknown): 6 files of no known language; --files lists each file with its language\n",
      );
    } finally {
      six.cleanup();
    }
  });

  test("MCP: in the text, from a page that does not hold them too", async () => {
    const { text } = await call({ op: "count", by: "language", exclude: ["held", "same"], limit: 1 });
    expect(text).toContain("note: (unknown): 2 files of no known language: LICENSE, scripts/data.weird");
  });
});

describe("dupes names the files with hard links only", () => {
  test("CLI footer: a = b, as the hard-link line of a group", () => {
    const r = rglob(["dupes"], { cwd });
    expect(r.stdout).toContain(
      "1 more file has only hard links of itself: held/x-again.bin = held/x.bin (--include-hard-links lists it as a group)\n",
    );
    const json = rglobJson<Record<string, unknown>>(["dupes", "--json"], { cwd }).json;
    expect(json.hard_link_only_files).toBe(1);
    expect(JSON.stringify(json)).not.toContain("x-again");
  });

  test("MCP: the same names in the text, none in the structured result", async () => {
    const { text, sc } = await call({ op: "dupes" });
    expect(text).toContain(
      "note: 1 more file has only hard links of itself: held/x-again.bin = held/x.bin (include_hard_links: true lists it as a group)",
    );
    expect(JSON.stringify(sc)).not.toContain("x-again");
  });
});

describe("a link's words are find's {link} words in the MCP text", () => {
  test("broken, escaping, absolute on both surfaces", async () => {
    expect(rglob(["find", "-t", "l", "--format", "{path} {link}"], { cwd }).stdout).toBe(
      "abs-broken broken, escaping, absolute\nabs-in ok, absolute\n",
    );
    const { text } = await call({ op: "find", types: ["l"] });
    expect(text).toContain("abs-broken -> /nonexistent/rglob-test-target (broken, escaping, absolute)");
    // A working link says no "ok", as the CLI's listing does not; absolute still.
    expect(text).toContain(`abs-in -> ${join(cwd, "LICENSE")} (absolute)`);
  });
});

describe("a time predicate says its cut-off instant", () => {
  test("CLI: a note with the instant, as the MCP text says it", () => {
    const { json, run } = rglobJson<{ time_window: { now: string; after: string } }>(
      ["find", "--changed-within", "3d", "--json"],
      { cwd },
    );
    const w = json.time_window;
    expect(Date.parse(w.now) - Date.parse(w.after)).toBe(3 * 86_400_000);
    expect(run.stderr).toContain(
      `rglob: note: modified after ${w.after}, durations counted back from ${w.now}`,
    );
    expect(rglob(["find", "--changed-within", "3d"], { cwd }).stderr).toMatch(
      /^rglob: note: modified after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z, durations counted back from /,
    );
  });
});
