// Listing what the ignore rules leave out, with the rule of each (#37): `find --only-ignored` and
// `grep --only-ignored` over seeded random trees against `git check-ignore -v -n --no-index` over every path of
// the tree: the same paths (grep: the same files, each holding a hit), each with git's FILE:LINE:PATTERN; and the
// same on the library's and the MCP server's key (only_ignored).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { prng, rglob, rglobJson } from "../helpers.ts";

let home = "";
let env: Record<string, string> = {};
const hasGit = Bun.which("git") !== null;

beforeAll(() => {
  // An isolated HOME/XDG so the machine's global excludes and config never take part.
  home = mkdtempSync(join(tmpdir(), "rglob-home-"));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1" };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const NAMES = ["a", "b", "src", "lib", "build", "keep", "x.log", "y.txt", "z.o", "doc.md"];
const RULES = [
  "*.log",
  "!keep*",
  "build/",
  "/a",
  "src/**/y.txt",
  "**/lib",
  "*.o",
  "!z.o",
  "doc.*",
  "b/*",
  "!b/keep",
  "# comment",
  "[ab]",
  "l?b/",
];

function randomRepo(seed: number): { dir: string; paths: string[] } {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const dir = mkdtempSync(join(tmpdir(), "rglob-explain-git-"));
  Bun.spawnSync(["git", "init", "-q"], { cwd: dir, env: { ...process.env, ...env } });
  const dirs = [""];
  for (let i = 0; i < 45; i++) {
    const parent = pick(dirs);
    const rel = parent === "" ? `${pick(NAMES)}${i % 3}` : `${parent}/${pick(NAMES)}`;
    const abs = join(dir, rel);
    try {
      if (r() < 0.35 && parent.split("/").length < 4) {
        mkdirSync(abs, { recursive: true });
        dirs.push(rel);
      } else {
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, "TODO here\n");
      }
    } catch {} // a name taken by the other kind
  }
  for (const d of dirs) {
    if (r() < 0.4) continue;
    const lines = Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(RULES));
    try {
      writeFileSync(join(dir, d, ".gitignore"), `${lines.join("\n")}\n`);
    } catch {}
  }
  const paths: string[] = [];
  const list = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      if (name === ".git") continue;
      const p = rel === "" ? name : `${rel}/${name}`;
      paths.push(p);
      if (statSync(join(dir, p)).isDirectory()) list(p);
    }
  };
  list("");
  return { dir, paths };
}

/** git's verdict of each path: the deciding rule (file relative to the repository, line, pattern), if any. */
function gitVerdicts(dir: string, paths: readonly string[]) {
  const res = Bun.spawnSync(["git", "check-ignore", "-v", "-n", "-z", "--no-index", "--stdin"], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdin: Buffer.from(paths.join("\0")),
    stdout: "pipe",
    stderr: "pipe",
  });
  const f = res.stdout.toString().split("\0");
  const out = new Map<string, { ignored: boolean; file: string; line: number; pattern: string } | null>();
  for (let i = 0; i + 3 < f.length; i += 4) {
    const source = f[i] as string;
    const line = f[i + 1] as string;
    const pattern = f[i + 2] as string;
    const p = f[i + 3] as string;
    out.set(
      p,
      source === "" ? null : { ignored: !pattern.startsWith("!"), file: source, line: Number(line), pattern },
    );
  }
  return out;
}

interface Listed {
  relative_path: string;
  ignored_by?: string;
  kinds?: string[];
  line_number?: number;
}

describe.if(hasGit)("--only-ignored against git check-ignore -v over every path", () => {
  let total = 0;
  afterAll(() => expect(total).toBeGreaterThan(50));
  for (const seed of [21, 22, 23, 24, 25, 26]) {
    test(`seed ${seed}`, () => {
      const { dir, paths } = randomRepo(seed);
      try {
        const git = gitVerdicts(dir, paths);
        const want = new Map<string, string>();
        for (const [p, g] of git) if (g?.ignored) want.set(p, `${g.file}:${g.line}:${g.pattern}`);
        total += want.size;
        const found = rglobJson<{ results: Listed[]; skipped: Record<string, number> }>(
          ["find", "--only-ignored", "--json"],
          { cwd: dir, env },
        ).json;
        expect(new Map(found.results.map((r) => [r.relative_path, r.ignored_by]))).toEqual(want);
        // grep: the ignored files, each line with its file's rule; nothing from a file git keeps.
        const files = new Set(
          [...want.keys()].filter(
            (p) => statSync(join(dir, p)).isFile() && readFileSync(join(dir, p), "utf8").includes("TODO"),
          ),
        );
        const hits = rglobJson<{ results: Listed[]; total_matches: number; files_with_matches: number }>(
          ["grep", "TODO", "--only-ignored", "--json"],
          { cwd: dir, env },
        ).json;
        expect(new Set(hits.results.map((r) => r.relative_path))).toEqual(files);
        for (const r of hits.results) expect(r.ignored_by).toBe(want.get(r.relative_path) as string);
        expect(hits.total_matches).toBe(files.size);
        expect(hits.files_with_matches).toBe(files.size);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("--only-ignored on the CLI", () => {
  test("human output lists the entries and says the rule of each once, on stderr; other filters apply", () => {
    const dir = mkdtempSync(join(tmpdir(), "rglob-only-ignored-"));
    try {
      mkdirSync(join(dir, "build"));
      writeFileSync(join(dir, ".gitignore"), "build/\n*.log\n");
      writeFileSync(join(dir, "build", "out.js"), "TODO built\n");
      writeFileSync(join(dir, "build", "map.txt"), "no hit\n");
      writeFileSync(join(dir, "debug.log"), "TODO logged\n");
      writeFileSync(join(dir, "src.ts"), "TODO kept\n");
      const g = rglob(["grep", "TODO", "--only-ignored"], { cwd: dir });
      expect(g.code).toBe(0);
      expect(g.stdout).toBe("build/out.js:1:TODO built\ndebug.log:1:TODO logged\n");
      expect(g.stderr).toBe(
        "rglob: ignored by .gitignore:1:build/: build/out.js\nrglob: ignored by .gitignore:2:*.log: debug.log\n",
      );
      const f = rglob(["find", "--only-ignored", "-t", "f", "-e", "js"], { cwd: dir });
      expect(f.stdout).toBe("build/out.js\n");
      // Without the flag nothing changes: the ignored entries stay out.
      expect(rglob(["grep", "TODO"], { cwd: dir }).stdout).toBe("src.ts:1:TODO kept\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
