// The hidden default, the VCS exclusion and the skip ledger against real git (issue #20): on temp repositories
// shaped like a small monorepo (nested .gitignore, .github/.storybook, .eslintrc.js, ignored build output and
// logs, a .hg directory), `rglob find` lists what `git ls-files -co --exclude-standard` lists (less the .hg
// directory, which git does not know as a VCS directory), and the ledger's counts equal independent counts:
// ignored entries from `git status --ignored=matching -uall` (an ignored directory is one entry there too),
// hidden ones from the dot components of those paths, VCS directories and too-deep directories from the tree.
// An empty search that skipped something says so on stderr (human and JSON modes) and in the MCP text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson } from "../helpers.ts";
import { type McpSession, startMcp } from "../surface/mcp-helpers.ts";

const hasGit = Bun.spawnSync(["git", "--version"]).exitCode === 0;
if (!hasGit)
  console.warn("SKIPPED LOUDLY: git is not installed; the hidden-default and ledger tests need it");

let home = "";
let env: Record<string, string> = {};
let repo = "";

const VCS = [".git", ".hg", ".svn", ".bzr", ".jj", ".sl"];

function git(args: string[], cwd: string): string {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** The repository of the questions: what an agent's first answers missed under the old default. */
const FILES: Record<string, string> = {
  ".gitignore": "build/\nnode_modules/\n*.log\n.cache/\ncoverage\n",
  ".eslintrc.js": "module.exports = {};\n",
  ".github/workflows/ci.yml": "on: push\n",
  ".github/CONTRIBUTING.md": "# Contributing\n",
  ".github/PULL_REQUEST_TEMPLATE.md": "## What\n",
  ".storybook/main.ts": "export default {};\n",
  ".storybook/preview.log": "ignored below a hidden directory\n",
  ".cache/x.json": "{}\n",
  ".hg/store/data": "not a project file\n",
  ".svn/entries": "12\n",
  "packages/web/.gitignore": "dist/\n!keep.log\n",
  "packages/web/src/app.ts": "export const app = 1;\n",
  "packages/web/src/.env.example": "KEY=\n",
  "packages/web/dist/app.js": "var app = 1;\n",
  "packages/web/keep.log": "re-included\n",
  "packages/web/debug.log": "the needle: ONLY_IN_LOG\n",
  "packages/api/index.ts": "export {};\n",
  "packages/api/coverage/lcov.info": "TN:\n",
  "build/out/main.js": "bundle\n",
  "node_modules/dep/index.js": "dep\n",
  "docs/guide.md": "# Guide\n",
};

beforeAll(() => {
  if (!hasGit) return;
  home = mkdtempSync(join(tmpdir(), "rglob-home-"));
  env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  repo = mkdtempSync(join(tmpdir(), "rglob-ledger-"));
  git(["init", "-q"], repo);
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), content);
  }
});
afterAll(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
});

const underVcs = (p: string) => p.split("/").some((c) => VCS.includes(c));
const dotted = (p: string) => p.split("/").some((c) => c.startsWith("."));

/** Files git lists: untracked and cached, not ignored. */
function gitFiles(): string[] {
  return git(["ls-files", "-co", "--exclude-standard", "-z"], repo)
    .split("\0")
    .filter((p) => p !== "")
    .sort();
}

/** The ignored entries git reports where it stops (an ignored directory once), without a trailing '/'. */
function gitIgnored(): string[] {
  return git(["status", "--porcelain", "--ignored=matching", "--untracked-files=all", "-z"], repo)
    .split("\0")
    .filter((l) => l.startsWith("!! "))
    .map((l) => l.slice(3).replace(/\/$/, ""))
    .sort();
}

interface Listing {
  results: Array<{ relative_path: string }>;
  total_files_searched: number;
  skipped: Record<string, number>;
}

function find(extra: string[] = []): Listing {
  const { json, run } = rglobJson<Listing>(["find", "-t", "f", "--json", ...extra], { cwd: repo, env });
  expect(run.code).not.toBe(2);
  return json;
}

// biome-ignore format: the title, with why it may be skipped, stays on its line
describe.skipIf(!hasGit)("the hidden default and VCS directories agree with git (skipped without git)", () => {
  test("default: every file git lists, dot files included, no VCS directory (git does not know .hg/.svn)", () => {
    const want = gitFiles().filter((p) => !underVcs(p));
    const got = find()
      .results.map((r) => r.relative_path)
      .sort();
    expect(got).toEqual(want);
    // The files the old default missed.
    for (const p of [
      ".eslintrc.js",
      ".github/CONTRIBUTING.md",
      ".storybook/main.ts",
      "packages/web/src/.env.example",
    ])
      expect(got).toContain(p);
  });

  test("--hidden is still accepted and changes nothing", () => {
    expect(find(["--hidden"]).results).toEqual(find().results);
  });

  test("--no-hidden: git's list less every path with a dot component", () => {
    const want = gitFiles().filter((p) => !dotted(p));
    expect(
      find(["--no-hidden"])
        .results.map((r) => r.relative_path)
        .sort(),
    ).toEqual(want);
  });

  test("a .git, .hg or .svn directory is never listed, not even with --no-ignore", () => {
    const all = rglobJson<Listing>(["find", "--no-ignore", "--json"], { cwd: repo, env }).json.results;
    expect(all.map((r) => r.relative_path).filter(underVcs)).toEqual([]);
  });
});

describe.skipIf(!hasGit)("the skip ledger against independent counts (skipped without git)", () => {
  test("default: ignored = git's ignored entries, vcs = VCS directories, total_files_searched = git's files", () => {
    const r = find();
    const ignored = gitIgnored().filter((p) => !underVcs(p));
    expect(ignored.length).toBeGreaterThan(5);
    expect(r.skipped.ignored).toBe(ignored.length);
    expect(r.skipped.vcs).toBe(3); // .git, .hg, .svn
    expect(r.skipped.hidden).toBe(0);
    // Every file the walk tested: with -t f nothing else, so exactly the listing (directories are not counted).
    expect(r.total_files_searched).toBe(gitFiles().filter((p) => !underVcs(p)).length);
    expect(r.total_files_searched).toBe(r.results.length);
  });

  test("--no-hidden: hidden = the top-most dot entries (ignored ones included), ignored = the rest", () => {
    const r = find(["--no-hidden"]);
    const paths = [...gitFiles(), ...gitIgnored()].filter((p) => !underVcs(p));
    const topDot = new Set<string>();
    for (const p of paths) {
      const parts = p.split("/");
      const i = parts.findIndex((c) => c.startsWith("."));
      if (i >= 0) topDot.add(parts.slice(0, i + 1).join("/"));
    }
    expect(r.skipped.hidden).toBe(topDot.size);
    expect(r.skipped.ignored).toBe(gitIgnored().filter((p) => !dotted(p)).length);
    expect(r.total_files_searched).toBe(gitFiles().filter((p) => !dotted(p)).length);
  });

  test("excluded and too_deep count the directories left out once", () => {
    const ex = find(["--exclude", "docs/", "--exclude", "*.ts"]);
    const ts = gitFiles().filter((p) => p.endsWith(".ts") && !p.startsWith("docs/")).length;
    expect(ex.skipped.excluded).toBe(1 + ts);
    // Directories at depth 1 that the walk would enter: not ignored, not VCS.
    const deep = find(["--max-depth", "1"]);
    const dirs = new Set(
      gitFiles()
        .filter((p) => p.includes("/") && !underVcs(p))
        .map((p) => p.split("/")[0]),
    );
    expect(deep.skipped.too_deep).toBe(dirs.size);
  });

  test("JSONL summary line and --json carry the same ledger", () => {
    const run = rglob(["find", "--jsonl"], { cwd: repo, env });
    const lines = run.stdout.trim().split("\n");
    const summary = JSON.parse(lines[lines.length - 1] as string);
    expect(summary.kind).toBe("summary");
    expect(summary.skipped).toEqual(rglobJson<Listing>(["find", "--json"], { cwd: repo, env }).json.skipped);
  });

  test("grep: binary, too large and unreadable files are counted", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-ledger-grep-"));
    try {
      writeFileSync(join(dir, "a.txt"), "text\n");
      writeFileSync(join(dir, "b.bin"), Buffer.from([0x61, 0, 0x62, 10]));
      writeFileSync(join(dir, "c.bin"), Buffer.from([0, 1, 2]));
      writeFileSync(join(dir, "big.txt"), "x".repeat(5000));
      writeFileSync(join(dir, "locked.txt"), "locked\n");
      chmodSync(join(dir, "locked.txt"), 0);
      const root = process.getuid?.() === 0; // root reads a mode-000 file
      const { json } = rglobJson<Listing>(["grep", "-F", "zzz", "--max-file-size", "1000", "--json"], {
        cwd: dir,
      });
      expect(json.skipped.binary).toBe(2);
      expect(json.skipped.too_large).toBe(1);
      expect(json.skipped.unreadable).toBe(root ? 0 : 1);
      expect(json.total_files_searched).toBe(5);
      chmodSync(join(dir, "locked.txt"), 0o644);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasGit)("nothing skipped silently: an empty result names what was skipped", () => {
  test("a string only in an ignored log: exit 1, a line naming --no-ignore, and one naming the log and its rule (human mode)", () => {
    const run = rglob(["grep", "-F", "ONLY_IN_LOG"], { cwd: repo, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const lines = run.stderr.trim().split("\n");
    expect(lines.length).toBe(2);
    expect(lines[0]).toMatch(
      /^rglob: nothing found; not searched: \d+ entries ignored by .*\(--no-ignore includes them\)/,
    );
    expect(lines[1]).toMatch(
      /^rglob: among the ignored entries, the same query finds: (\S+\/)?debug\.log:\d+ \(ignored by \S*\.gitignore:\d+: /,
    );
    // The flag it names finds it.
    const again = rglob(["grep", "-F", "ONLY_IN_LOG", "--no-ignore"], { cwd: repo, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("debug.log");
  });

  test("the same line in JSON mode (stderr; stdout holds only the result)", () => {
    const run = rglob(["grep", "-F", "ONLY_IN_LOG", "--json"], { cwd: repo, env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).results).toEqual([]);
    expect(run.stderr).toContain("--no-ignore includes them");
  });

  test("hidden entries skipped by --no-hidden are named with the way back", () => {
    const run = rglob(["find", "CONTRIBUTING.md", "--no-hidden"], { cwd: repo, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\d+ hidden \(included without --no-hidden\)/);
  });

  test("no line when something was found, or with -q", () => {
    expect(rglob(["grep", "-F", "export"], { cwd: repo, env }).stderr).toBe("");
    expect(rglob(["grep", "-q", "-F", "ONLY_IN_LOG"], { cwd: repo, env }).stderr).toBe("");
  });

  test("--stats reports the ledger", () => {
    const run = rglob(["grep", "-F", "ONLY_IN_LOG", "--stats"], { cwd: repo, env });
    expect(run.stderr).toMatch(
      /skipped: \d+ ignored, 0 hidden, 0 excluded, 0 too deep, 0 binary, 0 too large, 0 unreadable, 3 vcs/,
    );
  });

  describe("over MCP", () => {
    let mcp: McpSession;
    beforeAll(async () => {
      mcp = await startMcp(["--root", repo], { cwd: repo });
    });
    afterAll(async () => {
      await mcp.close();
    });

    test("the text content says it and names the argument; structuredContent carries the ledger", async () => {
      const res = (await mcp.client.callTool({
        name: "grep_content",
        arguments: { pattern: "ONLY_IN_LOG", fixed_strings: true },
      })) as CallToolResult;
      const text = (res.content as Array<{ text: string }>).map((c) => c.text).join("\n");
      expect(text).toMatch(/nothing found; not searched: \d+ entries ignored .*respect_gitignore: false/);
      const sc = res.structuredContent as { skipped: Record<string, number> };
      expect(sc.skipped.ignored).toBeGreaterThan(0);
      expect(sc.skipped.vcs).toBe(3);
    });
  });
});
