// The first call answers (#37): what agents re-checked by hand after a right answer is in the answer itself, the
// same on the CLI, the library and the MCP tool. An ignored directory explained as one says how many files and
// directories it holds (against find(1) on the tree); an included path's verdict says that no ignore rule matches
// it, naming the files consulted (against git check-ignore); --perm takes symbolic modes (against GNU find's
// -perm); a time predicate's answer says the instants it was resolved to; count's answer says its rules.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { count, explain, searchAll } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const t = tempTree({
  ".gitignore": "# build output\nbuild/\n*.log\n\n!keep.log\n",
  "src/.gitignore": "gen/\n",
  "src/main.py": "print(1)\n",
  "src/gen/a.py": "",
  "src/gen/sub/b.py": "",
  "src/gen/sub/deeper/c.py": "",
  "build/out.o": "x",
  "build/lib/x.so": "x",
  "build/lib/link": { symlink: "x.so" },
  "keep.log": "kept\n",
  "app.log": "ignored\n",
});
afterAll(() => t.cleanup());
const git = (args: string[], cwd = t.dir) => Bun.spawnSync(["git", ...args], { cwd });
git(["init", "-q"]);

/** What find(1) counts below a directory: regular files and directories, the directory itself left out. */
function findCounts(dir: string): { files: number; dirs: number; entries: number } {
  const n = (args: string[]) =>
    Bun.spawnSync(["find", dir, "-mindepth", "1", ...args])
      .stdout.toString()
      .split("\n")
      .filter(Boolean).length;
  return { files: n(["-type", "f"]), dirs: n(["-type", "d"]), entries: n([]) };
}

interface Rec {
  relative_path: string;
  included: boolean;
  entries_inside?: number;
  files_inside?: number;
  dirs_inside?: number;
  reasons: Array<{ stage: string; detail: string; pattern?: string }>;
}

describe("explain: an ignored directory says how many files and directories it holds", () => {
  test("record fields match find -type f / -type d, on the CLI, the library and MCP", async () => {
    const { json } = rglobJson<{ results: Rec[] }>(["explain", "--all", "--only", "ignored", "--json"], {
      cwd: t.dir,
    });
    const folded = json.results.filter((r) => r.entries_inside !== undefined);
    expect(folded.map((r) => r.relative_path)).toEqual(["build", "src/gen"]);
    for (const r of folded) {
      const want = findCounts(join(t.dir, r.relative_path));
      expect([r.entries_inside, r.files_inside, r.dirs_inside]).toEqual([
        want.entries,
        want.files,
        want.dirs,
      ]);
    }
    // build/ holds a symlink too: an entry that is neither a file nor a directory.
    const build = folded[0] as Rec;
    expect([build.entries_inside, build.files_inside, build.dirs_inside]).toEqual([4, 2, 1]);
    const human = rglob(["explain", "--all", "--only", "ignored"], { cwd: t.dir }).stdout;
    expect(human).toContain(
      "build/: not included, with the 4 entries inside: 2 files, 1 directory, 1 other (symlinks and the like) (--expand lists them)",
    );
    expect(human).toContain("src/gen/: not included, with the 5 entries inside: 3 files, 2 directories");
    const lib = await explain({ base: t.dir, under: ".", only: "ignored" });
    expect(lib.results).toEqual(json.results as never);
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", under: ".", only: "ignored" },
      })) as CallToolResult;
      const recs = (res.structuredContent as { results: Rec[] }).results;
      expect(recs.filter((r) => r.entries_inside !== undefined)).toEqual(folded);
      expect((res.content[0] as { text: string }).text).toContain(
        "src/gen/: not included, with the 5 entries inside: 3 files, 2 directories (expand lists them)",
      );
      const found = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", only_ignored: true },
      })) as CallToolResult;
      expect((found.content[0] as { text: string }).text).toContain(
        "a directory: the 5 entries inside: 3 files, 2 directories, not listed",
      );
    } finally {
      await s.close();
    }
    // find --only-ignored folds the same directories with the same counts.
    const find = rglobJson<{ results: Rec[] }>(["find", "--only-ignored", "--json"], { cwd: t.dir }).json;
    expect(find.results.filter((r) => r.entries_inside !== undefined)).toEqual(
      folded.map((r) =>
        expect.objectContaining({ relative_path: r.relative_path, files_inside: r.files_inside }),
      ),
    );
  });
});

describe("explain: an included path says no ignore rule matches it", () => {
  test("the verdict names each ignore file consulted with its rule count; git agrees it is not ignored", () => {
    const { json } = rglobJson<{ results: Rec[] }>(["explain", "src/main.py", "keep.log", "--json"], {
      cwd: t.dir,
    });
    const [main, keep] = json.results as [Rec, Rec];
    expect(main.included).toBe(true);
    // No reason of the ignore stage (that is a rule that matched, with its file, line and pattern): the verdict's
    // last reason says no rule matches. .gitignore holds 3 rules (a comment and a blank line are not), src/ 1.
    expect(main.reasons.some((r) => r.stage === "ignore")).toBe(false);
    const none = main.reasons.at(-1) as Rec["reasons"][number];
    expect(none.stage).toBe("selected");
    expect(none.detail).toMatch(
      /^listed by find with these options; no ignore rule matches it: none of the 4 rules of .*\.gitignore \(3\), src\/\.gitignore \(1\)$/,
    );
    expect(git(["check-ignore", "-q", "--no-index", "src/main.py"]).exitCode).toBe(1);
    // A re-included path names its '!' rule instead.
    expect(keep.reasons.find((r) => r.stage === "ignore")?.detail).toBe(
      "re-included by .gitignore:5: !keep.log",
    );
    expect(keep.reasons.some((r) => r.detail.startsWith("no ignore rule"))).toBe(false);
    // With ignore files off there is nothing to say about them.
    const off = rglobJson<{ results: Rec[] }>(["explain", "src/main.py", "--no-ignore", "--json"], {
      cwd: t.dir,
    });
    expect((off.json.results[0] as Rec).reasons.at(-1)?.detail).toBe("listed by find with these options");
    expect(rglob(["explain", "src/main.py"], { cwd: t.dir }).stdout).toContain(
      "  listed by find with these options; no ignore rule matches it",
    );
  });
});

describe("explain: no claim of 'no rule' where a rule matched a directory on the way", () => {
  const r = tempTree({ ".gitignore": "out/*\n!out/keep/\n", "out/keep/a.txt": "a\n", "top.txt": "b\n" });
  afterAll(() => r.cleanup());
  test("a file in a re-included directory is included without the note; git agrees", () => {
    git(["init", "-q"], r.dir);
    const { json } = rglobJson<{ results: Rec[] }>(["explain", "out/keep/a.txt", "top.txt", "--json"], {
      cwd: r.dir,
    });
    const [inKept, top] = json.results as [Rec, Rec];
    expect([inKept.included, top.included]).toEqual([true, true]);
    expect(inKept.reasons.at(-1)?.detail).toBe("listed by find with these options");
    expect(top.reasons.at(-1)?.detail).toContain("no ignore rule matches it");
    expect(git(["check-ignore", "-q", "--no-index", "out/keep/a.txt"], r.dir).exitCode).toBe(1);
  });
});

describe("--perm: symbolic modes", () => {
  const dir = mkdtempSync(join(tmpdir(), "rglob-perm-sym-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const rnd = prng(3737);
  for (let i = 0; i < 80; i++) {
    const f = join(dir, `f${i}`);
    writeFileSync(f, "");
    chmodSync(f, Math.floor(rnd() * 0o1000) | 0o400);
  }
  // The exact modes asked for below, among the random ones.
  for (const mode of [0o644, 0o775, 0o755]) {
    writeFileSync(join(dir, `m${mode.toString(8)}`), "");
    chmodSync(join(dir, `m${mode.toString(8)}`), mode);
  }
  const hasFind = Bun.spawnSync(["find", "--version"]).exitCode === 0;
  const lines = (s: string) => s.split("\n").filter(Boolean).sort();
  const ours = (mode: string) =>
    lines(rglob(["find", "-t", "f", "--perm", mode, "--format", "{rel}"], { cwd: dir }).stdout);
  const gnu = (args: string[]) =>
    lines(
      Bun.spawnSync(["find", ".", "-type", "f", ...args, "-printf", "%P\\n"], { cwd: dir }).stdout.toString(),
    );

  // GNU find's readings; 'u+x' and '!u+x' with no prefix are ours ('-u+x'), said in the docs.
  test.if(hasFind).each([
    ["-u+x", ["-perm", "-u+x"]],
    ["/u+x,g+x", ["-perm", "/u+x,g+x"]],
    ["u=rw,go=r", ["-perm", "u=rw,go=r"]],
    ["-a=rwx,o-w", ["-perm", "-a=rwx,o-w"]],
    ["/o+w", ["-perm", "/o+w"]],
    ["!/u+x", ["!", "-perm", "/u+x"]],
    ["!-g+rw", ["!", "-perm", "-g+rw"]],
    ["u+x", ["-perm", "-u+x"]],
    ["!u+x", ["!", "-perm", "-u+x"]],
    ["g+w,o+w", ["-perm", "-g+w,o+w"]],
  ])("--perm '%s' is find %p (skipped without GNU find)", (mode, args) => {
    const got = ours(mode);
    expect(got).toEqual(gnu(args));
    expect(got.length).toBeGreaterThan(0);
  });

  test("the library and MCP take the same modes; bad ones are clear errors", async () => {
    const cli = ours("!u+x");
    const lib = await searchAll({ base: dir, types: ["f"], perm: "!u+x" });
    expect(lib.results.map((r) => r.relative_path).sort()).toEqual(cli);
    for (const bad of ["u+s", "u+q", "!!u+x", "12345"]) {
      const r = rglob(["find", "--perm", bad], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`perm: '${bad}'`);
      expect(r.stderr).not.toContain("    at ");
    }
    const s = await startMcp(["--root", dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", types: ["f"], perm: "!u+x", limit: 1000 },
      })) as CallToolResult;
      const recs = (res.structuredContent as { results: Array<{ relative_path: string }> }).results;
      expect(recs.map((r) => r.relative_path).sort()).toEqual(cli);
      const bad = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "find", perm: "u+z" },
      })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect((bad.content[0] as { text: string }).text).toContain(
        "'u+z' is not WHO (u g o a) OP (+ - =) PERMS (r w x)",
      );
    } finally {
      await s.close();
    }
  });
});

describe("time predicates: the answer says the instants used", () => {
  const dir = mkdtempSync(join(tmpdir(), "rglob-window-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const now = Date.now() / 1000;
  for (const [name, ago] of [
    ["fresh.txt", 30],
    ["stale.txt", 90],
  ] as const) {
    writeFileSync(join(dir, name), "x\n");
    utimesSync(join(dir, name), now - ago, now - ago);
  }
  interface Window {
    now: string;
    after?: string;
    before?: string;
  }
  const check = (w: Window | undefined, before: number, after: number) => {
    expect(w).toBeDefined();
    const at = Date.parse((w as Window).now);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    // '1m' is exactly 60 s before the instant said.
    expect(Date.parse((w as Window).after as string)).toBe(at - 60_000);
  };

  test("CLI --json, the library and MCP: time_window; the selection is the one it says", async () => {
    const t0 = Date.now();
    const { json, run } = rglobJson<{ results: Array<{ relative_path: string }>; time_window?: Window }>(
      ["find", "--changed-within", "1m", "--json"],
      { cwd: dir },
    );
    check(json.time_window, t0, Date.now());
    expect(json.results.map((r) => r.relative_path)).toEqual(["fresh.txt"]);
    // The instants on stderr too (#37: agents made a second call to check the files near the boundary).
    const said = `rglob: note: modified after ${json.time_window?.after}, durations counted back from ${json.time_window?.now} (time_window)\n`;
    expect(run.stderr).toBe(said);
    const human = rglob(["find", "--changed-within", "1m"], { cwd: dir });
    expect(human.stdout).toBe("fresh.txt\n");
    expect(human.stderr).toMatch(
      /^rglob: note: modified after \S+Z, durations counted back from \S+Z \(time_window\)\n$/,
    );
    // No time predicate, no field.
    expect(
      rglobJson<Record<string, unknown>>(["find", "--json"], { cwd: dir }).json.time_window,
    ).toBeUndefined();
    const both = rglobJson<{ time_window: Window }>(
      ["find", "--newer-than", "2026-01-31", "--older-than", "2026-02-01T12:30:00+01:00", "--json"],
      { cwd: dir },
    ).json.time_window;
    expect([both.after, both.before]).toEqual(["2026-01-31T00:00:00.000Z", "2026-02-01T11:30:00.000Z"]);
    const t1 = Date.now();
    const lib = await count({ base: dir, newer_than: "1m" });
    check((lib as unknown as { time_window: Window }).time_window, t1, Date.now());
    const s = await startMcp(["--root", dir]);
    try {
      const t2 = Date.now();
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "grep", pattern: "x", newer_than: "1m" },
      })) as CallToolResult;
      const w = (res.structuredContent as { time_window: Window }).time_window;
      check(w, t2, Date.now());
      const text = (res.content[0] as { text: string }).text;
      expect(text).toContain(
        `note: modified after ${w.after}, durations counted back from ${w.now} (time_window)`,
      );
      expect(text).not.toContain("time_window: ");
    } finally {
      await s.close();
    }
  });
});

describe("count: the answer says what it counted by", () => {
  const c = tempTree({ "a.kt": "/* a /* nested */ still */\nval x = 1 // note\n\n" });
  afterAll(() => c.cleanup());
  test("CLI human note, MCP text; not in JSON", async () => {
    const human = rglob(["count"], { cwd: c.dir });
    expect(human.stderr).toContain(
      "rglob: note: counted by: a line with code and a comment is code; strings are code, but docstring lines (Python, Julia, Elixir) are comment lines unless --docstrings code, and counted in `docstring` either way; doc comments are comments",
    );
    // The nesting languages come from the lexers (test/surface/count-nesting.test.ts checks the whole list).
    expect(human.stderr).toMatch(/only [^;]*Kotlin[^;]*Julia[^;]* nest block comments/);
    expect(rglob(["count", "--json"], { cwd: c.dir }).stderr).toBe("");
    const s = await startMcp(["--root", c.dir]);
    try {
      const res = (await s.client.callTool({ name: "rglob", arguments: { op: "count" } })) as CallToolResult;
      expect((res.content[0] as { text: string }).text).toContain(
        "\ncounted by: a line with code and a comment is code",
      );
      expect((res.content[0] as { text: string }).text).toContain("classify: true shows each line's class");
    } finally {
      await s.close();
    }
  });
});
