// What a link's chain ends at, and links that loop under --follow (#37). link_target_type of every link of random
// trees (chains, loops, escapes by absolute path and by `..`, links to directories, to a FIFO and to /dev/null, links
// through a linked directory in mid-path) against `stat -L` and `test -d`, on every surface: --jsonl, --json,
// --format {target_type}, human find and tree (`name -> target (directory)` for a directory end), the library and
// MCP. Then `find -L -t l` against GNU `find -L -type l`: the same links, and the loops GNU find reports as
// "Too many levels of symbolic links" errors are listed as links that lead nowhere, with no error and exit 0.
import { afterAll, describe, expect, test } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, relative } from "node:path";
import { searchAll } from "../../src/agent/index.ts";
import { jsonl, prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const hasTools =
  Bun.spawnSync(["stat", "-L", "--printf=%F", "/"]).exitCode === 0 &&
  Bun.spawnSync(["mkfifo", "--version"]).exitCode === 0 &&
  Bun.spawnSync(["find", "--version"]).stdout.toString().includes("GNU findutils");

/**
 * A random tree in `<tmp>/base` with `<tmp>/outside` next to it. No link leads to a directory above itself (a
 * directory cycle is a separate matter: reported under --follow), so that every --follow walk ends without error.
 */
function endTree(seed: number): { top: string; base: string } {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const top = mkdtempSync(join(tmpdir(), "rglob-link-end-"));
  made.push(top);
  const base = join(top, "base");
  const outside = join(top, "outside");
  mkdirSync(join(outside, "od"), { recursive: true });
  writeFileSync(join(outside, "of"), "x");
  symlinkSync("nowhere", join(outside, "od/dang")); // listed through an escaping link under --follow
  mkdirSync(base);
  const dirs: string[] = [];
  for (let i = 0; i < 5; i++) {
    const d = dirs.length === 0 || rnd() < 0.4 ? `d${i}` : `${pick(dirs)}/d${i}`;
    mkdirSync(join(base, d));
    dirs.push(d);
  }
  const files: string[] = [];
  for (let i = 0; i < 6; i++) {
    const f = `${pick(["", ...dirs.map((d) => `${d}/`)])}f${i}`;
    writeFileSync(join(base, f), "y");
    files.push(f);
  }
  expect(Bun.spawnSync(["mkfifo", join(base, "pipe")]).exitCode).toBe(0);
  // Fixed links: to a directory, a chain to it, a file through the linked directory in mid-path, two loops, a
  // link through a loop in mid-path, a char device outside the base.
  symlinkSync(dirs[0] as string, join(base, "dl"));
  symlinkSync("dl", join(base, "dll"));
  const inD0 = files.find((f) => f.startsWith(`${dirs[0]}/`) && !f.slice(dirs[0]?.length).includes("/", 1));
  symlinkSync(
    `dl/${inD0 === undefined ? "none" : inD0.slice((dirs[0] as string).length + 1)}`,
    join(base, "via"),
  );
  symlinkSync("dll/missing", join(base, "via-broken"));
  symlinkSync("loopB", join(base, "loopA"));
  symlinkSync("loopA", join(base, "loopB"));
  symlinkSync("loop3b", join(base, "loop3a"));
  symlinkSync("loop3c", join(base, "loop3b"));
  symlinkSync("loop3a", join(base, "loop3c"));
  symlinkSync("loopA/f", join(base, "through-loop"));
  symlinkSync("/dev/null", join(base, "devnull"));
  symlinkSync("pipe", join(base, "pipe-link"));
  // A link to a directory goes only to a directory made later than its own (a subdirectory always is): every
  // path of a --follow walk then meets directories in the order they were made, so none is met twice.
  const order = (d: string) => (d === "" ? -1 : dirs.indexOf(d));
  const safe = ["loopA", "loop3a"]; // links that end at no directory of the base
  for (let i = 0; i < 14; i++) {
    const d = pick(["", ...dirs]);
    const name = d === "" ? `l${i}` : `${d}/l${i}`;
    const up = d === "" ? "" : "../".repeat(d.split("/").length);
    const kind = Math.floor(rnd() * 9);
    let target: string;
    const later = dirs.filter((x) => order(x) > order(d));
    const chained = d === "" ? [...safe, "dl", "dll"] : safe;
    if (kind === 0) target = `${up}${pick(files)}`;
    else if (kind === 1 && later.length > 0) target = `${up}${pick(later)}`;
    else if (kind === 2) target = `missing${i}`;
    else if (kind === 3)
      target = `${up}${pick(chained)}`; // chained: to a directory, or into a loop
    else if (kind === 4)
      target = `l${i}`; // a loop on itself
    else if (kind === 5)
      target = `${up}../outside/${pick(["of", "od", "nope"])}`; // escaping by `..`
    else if (kind === 6)
      target = join(outside, pick(["of", "od", "nope"])); // escaping by absolute path
    else if (kind === 7)
      target = `${up}dl/${d === "" ? pick(["none", "."]) : "none"}`; // through a linked dir
    else target = `${up}pipe`;
    symlinkSync(target, join(base, name));
    if (kind !== 1 && kind !== 3 && kind !== 7) safe.push(name);
  }
  return { top, base };
}

/** Every symlink under dir (not entering linked directories), by POSIX path relative to dir. */
function linksOnDisk(dir: string, rel = "", out: string[] = []): string[] {
  for (const name of readdirSync(join(dir, rel))) {
    const r = rel === "" ? name : `${rel}/${name}`;
    const st = lstatSync(join(dir, r));
    if (st.isSymbolicLink()) out.push(r);
    else if (st.isDirectory()) linksOnDisk(dir, r, out);
  }
  return out.sort();
}

/** stat(1)'s %F in --type's letters. */
const LETTER: Record<string, string> = {
  "regular file": "f",
  "regular empty file": "f",
  directory: "d",
  fifo: "p",
  socket: "s",
  "block special file": "b",
  "character special file": "c",
};

/** What `stat -L` says the link's chain ends at (null when it fails: broken, a loop), checked with `test -d`. */
function endOf(abs: string): string | null {
  const st = Bun.spawnSync(["stat", "-L", "--printf=%F", "--", abs]);
  const letter = st.exitCode === 0 ? (LETTER[st.stdout.toString()] ?? "?") : null;
  const isDir = Bun.spawnSync(["test", "-d", abs]).exitCode === 0;
  expect(`${abs}: ${isDir}`).toBe(`${abs}: ${letter === "d"}`);
  return letter;
}

/** The expected link_target_type of every link on disk. */
function expectedEnds(base: string): Record<string, string | null> {
  return Object.fromEntries(linksOnDisk(base).map((rel) => [rel, endOf(join(base, rel))]));
}

const byRel = (recs: ReadonlyArray<Record<string, unknown>>) =>
  Object.fromEntries(recs.map((r) => [r.relative_path as string, r.link_target_type]));

describe.if(hasTools)(
  "link_target_type against stat -L and test -d (skipped without GNU stat, find, mkfifo)",
  () => {
    for (const seed of [1, 2, 3, 4]) {
      test(`seed ${seed}: --jsonl, --json, --format and the library agree with stat -L`, async () => {
        const { base } = endTree(seed);
        const want = expectedEnds(base);
        // Every sort is there: a file, a directory, a fifo, a char device, and nowhere.
        for (const t of ["f", "d", "p", "c", null]) expect(Object.values(want)).toContain(t);
        const lines = jsonl(rglob(["find", "-t", "l", "--base", base, "--jsonl"]).stdout);
        expect(byRel(lines.filter((r) => r.kind === "file"))).toEqual(want);
        // The field sits after link_target_exists, in the model's order; null is written, not left out.
        const dll = lines.find((r) => r.relative_path === "dll") as object;
        expect(Object.keys(dll).join(",")).toContain(
          "link_target,link_target_exists,link_target_type,link_escapes",
        );
        expect(lines.find((r) => r.relative_path === "loopA")).toMatchObject({ link_target_type: null });
        const { json } = rglobJson<{ results: Array<Record<string, unknown>> }>([
          "find",
          "-t",
          "l",
          "--base",
          base,
          "--json",
        ]);
        expect(byRel(json.results)).toEqual(want);
        const fmt = rglob(["find", "-t", "l", "--base", base, "--format", "{rel}\t{target_type}"]);
        const shown = Object.fromEntries(
          fmt.stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => l.split("\t") as [string, string]),
        );
        expect(shown).toEqual(Object.fromEntries(Object.entries(want).map(([k, v]) => [k, v ?? ""])));
        const lib = await searchAll({ base, types: ["l"], strict_base: false, limit: 1000 });
        expect(byRel(lib.results as unknown as Array<Record<string, unknown>>)).toEqual(want);
        // Entries that are not links have no such field.
        const files = jsonl(rglob(["find", "-t", "f", "-t", "d", "--base", base, "--jsonl"]).stdout);
        expect(files.filter((r) => r.kind === "file" && "link_target_type" in r)).toEqual([]);
      });
    }

    test("human find and tree: `link -> target (directory)` when the chain ends at a directory, the text exact", () => {
      const { base } = endTree(5);
      const want = expectedEnds(base);
      const find = rglob(["find", "-t", "l", "--base", base], { cwd: base });
      const lines = find.stdout.split("\n").filter(Boolean);
      for (const [rel, end] of Object.entries(want)) {
        const line = lines.find((l) => l.startsWith(`${rel} -> `)) as string;
        expect(`${line}: ${line.endsWith(" (directory)")}`).toBe(`${line}: ${end === "d"}`);
      }
      expect(lines).toContain("dll -> dl (directory)");
      // The text as written: no `/` is added after it (ls -lF's mark was read as part of the text).
      expect(lines.filter((l) => / -> [^ ]*\/$/.test(l))).toEqual([]);
      expect(lines).toContain("loopA -> loopB");
      // -0 keeps one path per entry, and {target} the text as written.
      expect(rglob(["find", "dl", "--base", base, "-0"], { cwd: base }).stdout).toBe("dl\0");
      expect(rglob(["find", "dll", "--base", base, "--format", "{target}"]).stdout).toBe("dl\n");
      const tree = rglob(["tree", "--base", base, "--max-depth", "1"], { cwd: base }).stdout;
      expect(tree).toContain("── dl -> d0 (directory)\n");
      expect(tree).toContain("── dll -> dl (directory)\n");
      expect(tree).not.toContain("/\n");
      expect(tree).toContain("── pipe-link -> pipe\n");
      expect(tree).toContain("── loopA -> loopB\n");
    });

    test("human find and tree show a link's text exactly, a `/` in it included, and the directory mark apart", () => {
      const top = mkdtempSync(join(tmpdir(), "rglob-link-mark-"));
      made.push(top);
      mkdirSync(join(top, "build/gyre"), { recursive: true });
      writeFileSync(join(top, "build/f"), "x");
      symlinkSync("build/gyre/", join(top, "slash"));
      symlinkSync("build/gyre", join(top, "plain"));
      symlinkSync("build/f", join(top, "file"));
      const find = rglob(["find", "-t", "l"], { cwd: top }).stdout.split("\n").filter(Boolean).sort();
      expect(find).toEqual([
        "file -> build/f",
        "plain -> build/gyre (directory)",
        "slash -> build/gyre/ (directory)",
      ]);
      const tree = rglob(["tree", "-t", "l"], { cwd: top }).stdout;
      for (const line of find) expect(tree).toContain(`── ${line}\n`);
    });
  },
);

/** GNU find's answer to `find -L BASE -type l`: the paths it lists, and those it reports as symlink loops. */
function gnuFindL(base: string): { listed: string[]; loops: string[] } {
  const res = Bun.spawnSync(["find", "-L", base, "-type", "l"], { env: { ...process.env, LC_ALL: "C" } });
  const rel = (p: string) => relative(base, p).split("\\").join("/");
  const listed = res.stdout.toString().split("\n").filter(Boolean).map(rel);
  const loops = [
    ...res.stderr.toString().matchAll(/^find: '(.*)': Too many levels of symbolic links$/gm),
  ].map((m) => rel(m[1] as string));
  return { listed, loops };
}

describe.if(hasTools)("find -L -t l: loops are links that lead nowhere (skipped without GNU find)", () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: GNU find's links and its ELOOP errors, as results, exit 0`, () => {
      const { base } = endTree(seed);
      const gnu = gnuFindL(base);
      expect(gnu.loops).toContain("loopA");
      expect(gnu.loops).toContain("through-loop");
      // GNU find lists no loop: it reports each (exit 1). fd -L leaves them out silently.
      expect(gnu.listed.filter((p) => gnu.loops.includes(p))).toEqual([]);
      const run = rglob(["find", "-L", "-t", "l", "--base", base, "--jsonl"]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      const lines = jsonl(run.stdout);
      const summary = lines.find((r) => r.kind === "summary") as { errors: unknown[] };
      expect(summary.errors).toEqual([]);
      const recs = lines.filter((r) => r.kind === "file");
      expect(recs.map((r) => r.relative_path).sort()).toEqual([...gnu.listed, ...gnu.loops].sort());
      // Each a link that leads nowhere: the same answer as --link broken gives without following.
      for (const r of recs) expect(r).toMatchObject({ link_target_exists: false, link_target_type: null });
      const broken = rglob(["find", "--link", "broken", "--base", base, "--format", "{rel}"]);
      const names = recs.map((r) => r.relative_path as string);
      for (const p of broken.stdout.split("\n").filter(Boolean)) expect(names).toContain(p);
      // The human list and the text format: one line per link, nothing on stderr.
      const human = rglob(["find", "-L", "-t", "l", "--base", base, "--format", "{rel}"]);
      expect(human.code).toBe(0);
      expect(human.stderr).toBe("");
      expect(human.stdout.split("\n").filter(Boolean).sort()).toEqual([...gnu.listed, ...gnu.loops].sort());
    });
  }

  test("a directory cycle is still reported (it is a directory met again, not a link that leads nowhere)", () => {
    const { base } = endTree(6);
    symlinkSync("..", join(base, "d0/up"));
    const run = rglob(["find", "-L", "-t", "l", "--base", base, "--jsonl"]);
    expect(run.code).toBe(2);
    const errors = (
      jsonl(run.stdout).find((r) => r.kind === "summary") as { errors: Array<{ message: string }> }
    ).errors;
    // Once for each path that reaches d0/up (through dl, dll and other links to d0 as well).
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors.map((e) => e.message))).toEqual(
      new Set(["filesystem loop: directory already on the path"]),
    );
    expect(jsonl(run.stdout).some((r) => r.relative_path === "loopA")).toBe(true);
  });
});

describe.if(hasTools)("MCP (skipped without GNU stat, find, mkfifo)", () => {
  test("records carry link_target_type, the text marks a directory end, follow lists loops without errors", async () => {
    const { base } = endTree(7);
    const want = expectedEnds(base);
    const s = await startMcp(["--root", base]);
    try {
      type Res = {
        content: Array<{ text: string }>;
        structuredContent: { results: Array<Record<string, unknown>>; errors: unknown[] };
        isError?: boolean;
      };
      const call = async (args: Record<string, unknown>) =>
        (await s.client.callTool({
          name: "rglob",
          arguments: { op: "find", limit: 1000, ...args },
        })) as unknown as Res;
      const plain = await call({ types: ["l"] });
      expect(plain.isError ?? false).toBe(false);
      expect(byRel(plain.structuredContent.results)).toEqual(want);
      const text = plain.content[0]?.text ?? "";
      expect(text).toContain("\ndll -> dl (directory, ends at d0)\n");
      expect(text).toContain("\nloopA -> loopB (broken, ends at loopA)\n");
      // A working link inside the base says where its chain ends when the target text does not (it passes
      // through another link, #37), against realpath(3).
      for (const r of plain.structuredContent.results) {
        if (r.link_target_exists !== true || r.link_escapes === true) continue;
        const rel = r.relative_path as string;
        const target = r.link_target as string;
        const named = target.startsWith("/")
          ? target
          : posix.normalize(posix.join(posix.dirname(rel), target));
        const real = relative(realpathSync(base), realpathSync(join(base, rel))) || ".";
        const line = text.split("\n").find((l) => l.startsWith(`${rel} -> ${target}`)) ?? "";
        expect(`${line}: ${line.includes(`ends at ${real}`)}`).toBe(`${line}: ${real !== named}`);
      }
      const tree = await s.client.callTool({ name: "rglob", arguments: { op: "tree", max_depth: 1 } });
      expect((tree as unknown as Res).content[0]?.text).toContain("dl -> d0 (directory)\n");
      // The server walks under strict_base: an escaping link is listed, not followed, so -t l keeps it too.
      const followed = await call({ types: ["l"], follow_symlinks: true });
      expect(followed.structuredContent.errors).toEqual([]);
      const cli = rglob(["find", "-L", "--strict-base", "-t", "l", "--base", base, "--format", "{rel}"]);
      expect(cli.code).toBe(0);
      const names = followed.structuredContent.results.map((r) => r.relative_path).sort();
      expect(names).toEqual(cli.stdout.split("\n").filter(Boolean).sort());
      for (const loop of ["loopA", "loopB", "loop3a", "through-loop"]) expect(names).toContain(loop);
      // /dev/null exists, but outside the base: not followed under strict_base, so a link to -t l.
      expect(names).toContain("devnull");
    } finally {
      await s.close();
    }
  });
});
