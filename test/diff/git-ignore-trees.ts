// Seeded random git repositories with nested .gitignore files, and git's own verdict on each of their paths
// (`git check-ignore -v -n --no-index`): the oracle of the ignore differentials (explain-git, only-ignored-git),
// and the isolated HOME they and ignore-guards run git in.
// Not a test file (no .test.ts).
import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { prng } from "../helpers.ts";

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

/**
 * Creates a seeded random repository: directories and files of a few names, a .gitignore in most directories.
 * @param seed the seed
 * @param env the environment git runs with (an isolated HOME)
 * @param text what each file holds
 * @returns the repository and every path in it (.git left out), in walk order
 */
export function randomRepo(
  seed: number,
  env: Record<string, string>,
  text = "",
): { dir: string; paths: string[] } {
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
        writeFileSync(abs, text);
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
export function gitVerdicts(dir: string, paths: readonly string[], env: Record<string, string>) {
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

/** git's ignored entries with each ignored directory once (`dir/`): `git ls-files -o -i --exclude-standard --directory`. */
export function gitCollapsed(dir: string, env: Record<string, string>): string[] {
  const res = Bun.spawnSync(["git", "ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory"], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdout: "pipe",
  });
  return res.stdout
    .toString()
    .split("\0")
    .filter((p) => p !== "");
}

/**
 * Creates an isolated HOME and XDG_CONFIG_HOME for one test file, made before its tests and removed after them, so
 * that the machine's global excludes and config never take part.
 * @returns the environment git and rglob run with (filled when the file's tests start)
 */
export function isolatedGitHome(): Record<string, string> {
  const env: Record<string, string> = {};
  let home = "";
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "rglob-home-"));
    Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1" });
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  return env;
}
