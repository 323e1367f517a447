// The guarded ignore matcher (#23) against git on seeded random repositories whose rules use negation,
// anchoring, `**`, classes, `?`, a trailing '/' and escaped characters, with names full of characters that are
// special in patterns: `rglob find --hidden` lists what `git ls-files -co --exclude-standard` lists, and for
// every entry whose parents are not ignored, the compiled matcher names the same deciding rule (file and line,
// negations included) as `git check-ignore -v -n`. Needs git; skips loudly without it.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CompiledRules, compileRules, lastMatch } from "../../src/engine/ignore-rules.ts";
import { prng, rglobJson } from "../helpers.ts";
import { randomName, randomRules } from "../ignore-random.ts";
import { isolatedGitHome } from "./git-ignore-trees.ts";

const hasGit = Bun.spawnSync(["git", "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
if (!hasGit) console.warn("SKIPPED test/diff/ignore-guards.test.ts: git is not installed");

/** An isolated HOME/XDG so the machine's global excludes and config never take part. */
const env = isolatedGitHome();

function git(args: string[], cwd: string, stdin?: string): string {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  // check-ignore exits 1 when nothing is ignored
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

interface Case {
  readonly dirs: string[];
  readonly files: string[];
  /** Directory ("" or "d/") → its .gitignore lines. */
  readonly ignores: Map<string, string[]>;
}

function randomCase(seed: number): Case {
  const r = prng(seed);
  const dirs = [""];
  const files: string[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < 45; i++) {
    const parent = dirs[Math.floor(r() * dirs.length)] as string;
    const rel = `${parent}${randomName(r)}`;
    if (taken.has(rel) || rel.endsWith(".gitignore")) continue;
    taken.add(rel);
    if (parent.split("/").length < 4 && r() < 0.3) dirs.push(`${rel}/`);
    else files.push(rel);
  }
  const ignores = new Map<string, string[]>();
  ignores.set("", randomRules(r, 3 + Math.floor(r() * 8)));
  const nested = dirs[1 + Math.floor(r() * (dirs.length - 1))];
  if (nested !== undefined && r() < 0.7) ignores.set(nested, randomRules(r, 1 + Math.floor(r() * 5)));
  // Every directory holds a file, so git (which lists no empty directory) and the walk see the same tree.
  for (const d of dirs) if (d !== "" && !files.some((f) => f.startsWith(d))) files.push(`${d}f`);
  return { dirs, files, ignores };
}

function materialise(c: Case): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-guards-"));
  git(["init", "-q"], dir);
  for (const d of c.dirs) if (d !== "") mkdirSync(join(dir, d), { recursive: true });
  for (const f of c.files) writeFileSync(join(dir, f), "");
  for (const [d, lines] of c.ignores) writeFileSync(join(dir, d, ".gitignore"), `${lines.join("\n")}\n`);
  return dir;
}

/** The deciding rule as "file:line", or "" when none: the deepest file first, as the walk's chain does. */
function decide(chain: Array<[string, CompiledRules]>, key: string, isDir: boolean): string {
  const name = key.slice(key.lastIndexOf("/") + 1);
  for (let i = chain.length - 1; i >= 0; i--) {
    const [prefix, rules] = chain[i] as [string, CompiledRules];
    if (!key.startsWith(prefix)) continue;
    const idx = lastMatch(rules, key.slice(prefix.length), name, isDir);
    if (idx >= 0) return `${prefix}.gitignore:${rules.rules[idx]?.line}`;
  }
  return "";
}

let compared = 0;
let ignoredSeen = 0;

// biome-ignore format: the title, with why it may be skipped, stays on its line
describe.skipIf(!hasGit)("guarded ignore matching equals git on random repositories (skipped without git)", () => {
  afterAll(() => {
    // The rules must decide often for the comparison to mean much.
    expect(compared).toBeGreaterThan(1000);
    expect(ignoredSeen).toBeGreaterThan(300);
  });
  const seeds = Array.from({ length: 40 }, (_, i) => 7000 + i);
  test.each(seeds)("seed %d", (seed) => {
    const c = randomCase(seed);
    const dir = materialise(c);
    try {
      const chain = [...c.ignores]
        .sort((a, b) => a[0].length - b[0].length)
        .map(([d, lines]): [string, CompiledRules] => [d, compileRules(`${lines.join("\n")}\n`)]);
      // Entries whose parents the walk reaches: parents decided "not ignored" by the matcher, shallowest first.
      const entries = [...c.dirs.filter((d) => d !== "").map((d) => d.slice(0, -1)), ...c.files].sort();
      const ignoredDirs = new Set<string>();
      const reached: Array<[string, boolean]> = [];
      for (const key of entries) {
        const parts = key.split("/");
        let parentIgnored = false;
        for (let k = 1; k < parts.length; k++)
          if (ignoredDirs.has(parts.slice(0, k).join("/"))) parentIgnored = true;
        if (parentIgnored) continue;
        const isDir = c.dirs.includes(`${key}/`);
        reached.push([key, isDir]);
        const verdict = decide(chain, key, isDir);
        if (isDir && verdict !== "") {
          const [, rules] = chain.find(([p]) => verdict.startsWith(`${p}.gitignore:`)) as [
            string,
            CompiledRules,
          ];
          const line = Number(verdict.slice(verdict.lastIndexOf(":") + 1));
          if (!rules.rules.find((x) => x.line === line)?.negate) ignoredDirs.add(key);
        }
      }
      // git check-ignore -v -n: source, line, pattern and path, NUL-separated; an empty source for no match.
      const out = git(
        ["check-ignore", "-v", "-n", "--stdin", "-z"],
        dir,
        `${reached.map(([k]) => k).join("\0")}\0`,
      );
      const fields = out.split("\0");
      const gitVerdicts = new Map<string, string>();
      for (let i = 0; i + 3 < fields.length; i += 4)
        gitVerdicts.set(fields[i + 3] as string, fields[i] === "" ? "" : `${fields[i]}:${fields[i + 1]}`);
      for (const [key, isDir] of reached) {
        compared++;
        const ours = decide(chain, key, isDir);
        if (ours !== "") ignoredSeen++;
        expect({ seed, key, isDir, rule: ours }).toEqual({
          seed,
          key,
          isDir,
          rule: gitVerdicts.get(key) ?? "?",
        });
      }
      // The whole listing through the binary.
      const listed = git(["ls-files", "-co", "--exclude-standard", "-z"], dir)
        .split("\0")
        .filter((p) => p !== "")
        .sort();
      const { json, run } = rglobJson<{ results: Array<{ relative_path: string }> }>(
        ["find", "-t", "f", "--json", "--hidden"],
        { cwd: dir, env },
      );
      if (run.code === 2) throw new Error(run.stdout + run.stderr);
      expect({ seed, files: json.results.map((x) => x.relative_path).sort() }).toEqual({
        seed,
        files: listed,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
