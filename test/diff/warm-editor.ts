/*! The second process of test/diff/warm-index.test.ts: edits a tree while `rglob mcp` serves it. On each line
 * "edit N" on stdin it makes N seeded edits (files changed, added, removed, renamed, saved through a rename,
 * directories renamed or created, ignore files edited), then prints "done" with what it did. Usage:
 * bun warm-editor.ts DIR SEED. Not a test file (no .test.ts). */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const [dir, seedText] = process.argv.slice(2) as [string, string];
let a = Number(seedText) >>> 0;
/** mulberry32, as test/helpers.ts prng. */
const rand = (): number => {
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "needle",
  "Needle",
  "NEEDLE",
  "haystack",
  "TODO",
  "todo",
  "fixme",
  "kelvin",
  "\u212Aelvin",
  "foo_bar",
  "fooBar",
  "x1",
  "zeta42",
  "caf\u00e9",
  "ok",
];

/** A few random lines of words. */
function text(r: () => number = rand): string {
  const lines: string[] = [];
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    const w: string[] = [];
    const m = 1 + Math.floor(r() * 6);
    for (let j = 0; j < m; j++) w.push(WORDS[Math.floor(r() * WORDS.length)] as string);
    lines.push(w.join(r() < 0.3 ? "-" : " "));
  }
  return `${lines.join("\n")}\n`;
}

function listAll(): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (e.name === ".git") continue;
      const abs = join(d, e.name);
      if (e.isDirectory()) {
        dirs.push(abs);
        visit(abs);
      } else files.push(abs);
    }
  };
  visit(dir);
  return { files, dirs };
}

const EXTS = [".txt", ".md", ".log", ".js"];
let made = 0;
const fresh = (d: string) => join(d, `n${made++}${pick(EXTS)}`);

function edit(): string {
  const { files, dirs } = listAll();
  const plain = files.filter((f) => !f.endsWith("ignore"));
  const anyDir = () => (dirs.length > 0 && rand() < 0.7 ? pick(dirs) : dir);
  const kind = Math.floor(rand() * 10);
  switch (kind) {
    case 0: {
      if (plain.length === 0) return "none";
      const f = pick(plain);
      writeFileSync(f, text());
      return `change ${relative(dir, f)}`;
    }
    case 1: {
      const f = fresh(anyDir());
      writeFileSync(f, text());
      return `add ${relative(dir, f)}`;
    }
    case 2: {
      if (plain.length < 10) return "none";
      const f = pick(plain);
      rmSync(f);
      return `remove ${relative(dir, f)}`;
    }
    case 3: {
      if (plain.length === 0) return "none";
      const f = pick(plain);
      const to = fresh(anyDir());
      renameSync(f, to);
      return `rename ${relative(dir, f)} ${relative(dir, to)}`;
    }
    case 4: {
      // An editor's save: a temporary file renamed over the original.
      if (plain.length === 0) return "none";
      const f = pick(plain);
      const tmp = join(dir, `.save-${made++}.tmp`);
      writeFileSync(tmp, text());
      renameSync(tmp, f);
      return `save ${relative(dir, f)}`;
    }
    case 5: {
      if (dirs.length === 0) return "none";
      const d = pick(dirs);
      const to = join(dir, `d${made++}`);
      if (to.startsWith(`${d}/`)) return "none";
      renameSync(d, to);
      return `rename-dir ${relative(dir, d)} ${relative(dir, to)}`;
    }
    case 6: {
      const d = join(anyDir(), `sub${made++}`);
      mkdirSync(d, { recursive: true });
      for (let i = 0; i < 3; i++) writeFileSync(fresh(d), text());
      return `add-dir ${relative(dir, d)}`;
    }
    case 7: {
      const d = anyDir();
      const name = rand() < 0.7 ? ".gitignore" : ".ignore";
      const rules = ["*.log", "*.md", "n1*", "sub*/", "!keep.log", "d*/", "*.js"];
      const body = rules.filter(() => rand() < 0.3).join("\n");
      writeFileSync(join(d, name), body === "" ? "" : `${body}\n`);
      return `ignore ${relative(dir, join(d, name))}: ${body.replace(/\n/g, " ")}`;
    }
    case 8: {
      // Two directories swap places: the same paths now hold other files, and only the directories are named
      // by the change.
      const top = dirs.filter((d) => relative(dir, d).split("/").length === 1);
      if (top.length < 2) return "none";
      const x = pick(top);
      const y = pick(top.filter((d) => d !== x));
      const tmp = join(dir, `swap${made++}`);
      renameSync(x, tmp);
      renameSync(y, x);
      renameSync(tmp, y);
      return `swap ${relative(dir, x)} ${relative(dir, y)}`;
    }
    default: {
      // Grow a file by a line (an append: the file keeps its inode).
      if (plain.length === 0) return "none";
      const f = pick(plain);
      if (!existsSync(f) || statSync(f).size > 4000) return "none";
      writeFileSync(f, text(), { flag: "a" });
      return `append ${relative(dir, f)}`;
    }
  }
}

let buffered = "";
for await (const chunk of Bun.stdin.stream()) {
  buffered += new TextDecoder().decode(chunk);
  let nl = buffered.indexOf("\n");
  while (nl >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    nl = buffered.indexOf("\n");
    const m = /^edit (\d+)$/.exec(line);
    if (m === null) continue;
    const done: string[] = [];
    for (let i = 0; i < Number(m[1]); i++) done.push(edit());
    process.stdout.write(`done ${JSON.stringify(done)}\n`);
  }
}
