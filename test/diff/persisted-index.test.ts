// Differential (#24): `rglob grep` with a persisted index (`rglob index`) against the same grep with the index
// turned off (RGLOB_INDEX=0), on real temp trees through the compiled binary: random queries, then again after
// edits the index does not know of (changed files, a file rewritten with the same size, its mtime put back,
// new and deleted files, a changed .gitignore). The whole result must be equal (records, order, errors, skip
// counts, totals, cursors); only bytes_read (smaller) and `source` differ. A corrupt, truncated or foreign
// index is not used; the index is never written inside the tree. Seeded (RGLOB_INDEX_SEED). Each test runs
// dozens of processes: its time limit is generous for a loaded machine (no timing is asserted).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { readConfig } from "../../src/config.ts";
import { indexPathFor, loadIndex, walkKeyOf } from "../../src/engine/index/persist.ts";
import { classifyOperands } from "../../src/ops/grep/operands.ts";
import { compileGrepWalk } from "../../src/ops/grep/run.ts";
import { GrepInputSchema } from "../../src/ops/grep/schema.ts";
import { findOperation } from "../../src/ops/registry.ts";
import { assignOperands, parseCommand } from "../../src/surface/cli/flags.ts";
import { cwdOperandPaths } from "../../src/surface/cli/operand-paths.ts";
import { prng, rglob, rglobJson } from "../helpers.ts";
import { argvOf } from "../surface/mcp-helpers.ts";
import { INDEX_QUERIES, WORDS, wordText } from "./index-corpus.ts";

const SEED = Number(process.env.RGLOB_INDEX_SEED ?? 24);
const rand = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

/** The index differentials' queries, and paging, hidden and byte bounds. */
const QUERIES: ReadonlyArray<Record<string, unknown>> = [
  ...INDEX_QUERIES,
  { pattern: "haystack", hidden: false },
  { pattern: "needle", limit: 3 },
  { pattern: "fixme", max_bytes: 2000 },
];

const op = findOperation("grep");
let dir: string;
let cache: string;
const env = () => ({ RGLOB_CACHE_DIR: cache });

/** Puts every file's mtime an hour back: a file modified in the last moments is not indexed (racy stats). */
function ageTree(root: string): void {
  const past = new Date(Date.now() - 3600_000);
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.isFile()) utimesSync(p, past, past);
    }
  };
  visit(root);
}

function grepBoth(
  input: Record<string, unknown>,
  cwd = dir,
): { cold: Record<string, unknown>; hot: Record<string, unknown> } {
  const args = ["grep", "--json", ...argvOf(op, input)];
  const { json: cold } = rglobJson(args, { cwd, env: { ...env(), RGLOB_INDEX: "0" } });
  const { json: hot } = rglobJson(args, { cwd, env: env() });
  return { cold, hot };
}

/**
 * Runs a grep with and without the index and expects the same result (bytes_read and `source` aside), the
 * indexed one from the index.
 * @returns the cold result
 */
function fromIndex(
  args: readonly string[],
  cwd: string,
  e: Record<string, string> = env(),
): Record<string, unknown> {
  const { json: cold } = rglobJson([...args], { cwd, env: { ...e, RGLOB_INDEX: "0" } });
  const { json: hot } = rglobJson([...args], { cwd, env: e });
  expect(hot.source).toBe("index");
  delete hot.source;
  hot.bytes_read = cold.bytes_read;
  expect(hot).toEqual(cold);
  return cold;
}

/** Compares a query with and without the index, paging through to the end with its cursors. */
function same(input: Record<string, unknown>): string | undefined {
  let cursor: string | null = null;
  let source: string | undefined;
  for (let page = 0; page < 20; page++) {
    const { cold, hot } = grepBoth(cursor === null ? input : { ...input, cursor });
    expect(cold.source).toBeUndefined();
    source ??= hot.source as string | undefined;
    delete hot.source;
    expect(hot.bytes_read as number).toBeLessThanOrEqual(cold.bytes_read as number);
    hot.bytes_read = cold.bytes_read;
    expect({ input, page, ...hot }).toEqual({ input, page, ...cold });
    cursor = typeof cold.next_cursor === "string" ? cold.next_cursor : null;
    if (cursor === null) break;
  }
  return source;
}

function index(args: string[] = [], cwd = dir) {
  return rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--json", ...args], {
    cwd,
    env: env(),
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-pindex-"));
  cache = mkdtempSync(join(tmpdir(), "rglob-pindex-cache-"));
  mkdirSync(join(dir, ".git", "info"), { recursive: true });
  for (let d = 0; d < 5; d++) {
    for (let f = 0; f < 10; f++) {
      const rel = `dir${d}/${d % 2 === 0 ? `inner${f % 3}/` : ""}f${f}${pick([".txt", ".md", ".log", ".js"])}`;
      mkdirSync(join(dir, rel, ".."), { recursive: true });
      writeFileSync(join(dir, rel), wordText(rand));
    }
  }
  writeFileSync(join(dir, ".gitignore"), "*.log\n");
  writeFileSync(join(dir, ".hidden.txt"), "haystack needle\n");
  writeFileSync(join(dir, "kelvin.txt"), "\u212aelvin\n");
  writeFileSync(join(dir, "binary.bin"), Buffer.from([110, 101, 101, 100, 108, 101, 0, 1, 2]));
  ageTree(dir);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

describe("rglob grep with a persisted index", () => {
  test("index builds in the cache, outside the tree, and reports its state", () => {
    const before = rglob(["find", "--no-ignore"], { cwd: dir }).stdout;
    const { json, run } = index();
    expect(run.code).toBe(0);
    const r = json.results[0] as Record<string, unknown>;
    expect(r.state).toBe("built");
    expect(r.root).toBe(realpathSync(dir));
    expect((r.index_path as string).startsWith(cache)).toBe(true);
    expect(existsSync(r.index_path as string)).toBe(true);
    expect(r.files as number).toBeGreaterThan(40);
    // The tree is as it was: nothing written into it.
    expect(rglob(["find", "--no-ignore"], { cwd: dir }).stdout).toBe(before);
    const status = index(["--status"]).json.results[0] as Record<string, unknown>;
    expect([status.state, status.changed_files, status.files]).toEqual(["present", 0, r.files]);
    // The walk of a plain grep is kept with it, and nothing it depends on changed: grep replays it.
    expect([r.walk, status.walk]).toEqual(["fresh", "fresh"]);
    // A person reading the status sees it too.
    const human = rglob(["index", "--status"], { cwd: dir, env: env() }).stdout;
    expect(human).toMatch(/^walk +fresh \(a plain grep replays it instead of walking\)$/m);
  }, 120_000);

  test("a plain grep on the CLI compiles the walk recorded with the index (so it replays it), others do not", () => {
    // The CLI's own parsing, operand handling and grep's walk compilation, in this process, as `rglob grep` run
    // in the tree does them: a drift between the walk the index records and the one grep compiles would make
    // every grep walk again, with the same answers, unseen by the comparisons below.
    const keyOf = (argv: string[]) => {
      const parsed = parseCommand(op, argv);
      const operands = cwdOperandPaths(op, parsed.operands, parsed.input, dir);
      assignOperands(op, operands, parsed.input);
      const input = v.parse(GrepInputSchema, parsed.input);
      const { paths, globs } = classifyOperands(input, dir);
      return walkKeyOf(compileGrepWalk(input, paths, globs, dir, config.git).plan);
    };
    // The Config the binary reads from this environment with RGLOB_CACHE_DIR set (passed, not set in process.env).
    const config = readConfig({ ...process.env, RGLOB_CACHE_DIR: cache });
    const stored =
      loadIndex(realpathSync(dir), indexPathFor(realpathSync(dir), config.indexDir)).index?.walk?.key ?? null;
    expect(typeof stored).toBe("string");
    for (const argv of [["needle"], ["-i", "-w", "needle"], ["-l", "-c", "needle"], ["-F", "a.b", "-C", "2"]])
      expect({ argv, key: keyOf(argv) }).toEqual({ argv, key: stored });
    for (const argv of [
      ["needle", "-g", "*.txt"],
      ["needle", "--no-hidden"],
      ["needle", "dir0"],
      ["-u", "x"],
    ])
      expect(keyOf(argv)).not.toBe(stored);
  }, 120_000);

  test("a walk recorded a few entries at a time, collected between, is the same walk (#36)", () => {
    // `rglob index` collects its garbage every 2^17 entries of the walk it records (a test's tree has far fewer):
    // every 3 entries here, in a cache of its own. Each section of the two files is the same bytes.
    const sliced = mkdtempSync(join(tmpdir(), "rglob-pindex-sliced-"));
    try {
      const run = (c: string, extra: Record<string, string>) =>
        rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--json"], {
          cwd: dir,
          env: { RGLOB_CACHE_DIR: c, ...extra },
        }).json.results[0] as Record<string, unknown>;
      const a = run(cache, {});
      const b = run(sliced, { RGLOB_TEST_RECORD_SLICE: "3" });
      expect([a.walk, b.walk]).toEqual(["fresh", "fresh"]);
      const sections = (file: string) => {
        const bytes = readFileSync(file);
        const h = JSON.parse(bytes.subarray(32, 32 + bytes.readUInt32LE(12)).toString("utf8")) as {
          sections: Array<[string, string, number, number, number]>;
          walk: Record<string, unknown> | null;
        };
        const out: Record<string, string> = { walk: JSON.stringify(h.walk) };
        for (const [name, , , at, n] of h.sections) out[name] = bytes.subarray(at, at + n).toString("base64");
        return out;
      };
      const mine = sections(b.index_path as string);
      expect((mine.ops ?? "").length).toBeGreaterThan(0);
      expect(mine).toEqual(sections(a.index_path as string));
    } finally {
      rmSync(sliced, { recursive: true, force: true });
    }
  }, 120_000);

  test("random queries give the cold answer, from the index", () => {
    const sources = new Set<string | undefined>();
    for (const q of QUERIES) sources.add(same(q));
    for (let i = 0; i < 12; i++) sources.add(same({ pattern: `${pick(WORDS)}`, ignore_case: rand() < 0.5 }));
    expect(sources.has("index")).toBe(true);
    expect(sources.has("cold")).toBe(true); // max_bytes, invert, no literal
  }, 120_000);

  test("after edits the index does not know of, answers are still the cold ones", () => {
    const files = rglob(["find", "--type", "f", "--format", "{rel}"], { cwd: dir })
      .stdout.split("\n")
      .filter((f) => f.endsWith(".txt") || f.endsWith(".js"));
    // A file rewritten with the same size, a word the index ruled out now in it.
    const a = join(dir, files[0] as string);
    const old = readFileSync(a, "utf8");
    writeFileSync(a, `zeta42${old.slice(6)}`);
    expect(readFileSync(a).length).toBe(Buffer.byteLength(old));
    // The same, its mtime put back as it was (ctime still changes).
    const b = join(dir, files[1] as string);
    const bOld = readFileSync(b, "utf8");
    const bTime = statSync(b).mtime;
    writeFileSync(b, `zeta42${bOld.slice(6)}`);
    utimesSync(b, bTime, bTime);
    // New files, a deleted file, a changed .gitignore (logs searched now, markdown ignored).
    writeFileSync(join(dir, "dir1", "new.txt"), "zeta42 needle haystack\n");
    mkdirSync(join(dir, "fresh"), { recursive: true });
    writeFileSync(join(dir, "fresh", "n.js"), "fooBar needle\n");
    unlinkSync(join(dir, files[2] as string));
    writeFileSync(join(dir, ".gitignore"), "*.md\n");
    for (const q of QUERIES) same(q);
    expect(same({ pattern: "zeta42" })).toBe("index");
    const { cold } = grepBoth({ pattern: "zeta42", files_with_matches: true });
    expect((cold.results as unknown[]).length).toBe(3);
    const status = index(["--status"]).json.results[0] as Record<string, unknown>;
    expect(status.changed_files as number).toBeGreaterThanOrEqual(3);
    expect(status.walk).toBe("stale");
  }, 120_000);

  test("the recorded walk is replayed only while nothing it depends on changed", () => {
    // A tree inside a directory of its own, so that an ignore file can appear above it; git's global
    // excludes file in a config directory of the test's own.
    const outer = mkdtempSync(join(tmpdir(), "rglob-pindex-walk-"));
    const t = join(outer, "tree");
    const xdg = join(outer, "xdg");
    const e = { ...env(), XDG_CONFIG_HOME: xdg, HOME: outer };
    try {
      mkdirSync(join(t, ".git", "info"), { recursive: true });
      mkdirSync(join(xdg, "git"), { recursive: true });
      for (const rel of ["a/one.txt", "a/b/two.md", "c/three.js", "c/d/e/four.log", "five.txt"]) {
        mkdirSync(join(t, rel, ".."), { recursive: true });
        writeFileSync(join(t, rel), `needle ${rel}\n`);
      }
      writeFileSync(join(t, "a", ".gitignore"), "*.log\n");
      ageTree(t);
      const both = (input: Record<string, unknown>) =>
        fromIndex(["grep", "--json", ...argvOf(op, input)], t, e);
      const walkState = () =>
        (
          rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--status", "--json"], {
            cwd: t,
            env: e,
          }).json.results[0] as Record<string, unknown>
        ).walk;
      const paths = (r: Record<string, unknown>) =>
        (r.results as Array<{ relative_path: string }>).map((x) => x.relative_path).sort();
      // Each change, made after a fresh index, must show in the next answer: the walk is not replayed then.
      const changes: Array<[string, () => void, (r: Record<string, unknown>) => void]> = [
        [
          "a file created in a directory",
          () => writeFileSync(join(t, "c", "d", "new.txt"), "needle new\n"),
          (r) => expect(paths(r)).toContain("c/d/new.txt"),
        ],
        [
          "a directory renamed",
          () => renameSync(join(t, "c", "d"), join(t, "c", "dd")),
          (r) => expect(paths(r)).toContain("c/dd/new.txt"),
        ],
        [
          "an ignore file edited",
          () => writeFileSync(join(t, "a", ".gitignore"), "*.md\n"),
          (r) => expect(paths(r)).not.toContain("a/b/two.md"),
        ],
        [
          "an ignore file created above the tree",
          () => writeFileSync(join(outer, ".ignore"), "five.txt\n"),
          (r) => expect(paths(r)).not.toContain("five.txt"),
        ],
        [
          "info/exclude written",
          () => writeFileSync(join(t, ".git", "info", "exclude"), "*.js\n"),
          (r) => expect(paths(r)).not.toContain("c/three.js"),
        ],
        [
          "the global excludes file written",
          () => writeFileSync(join(xdg, "git", "ignore"), "one.txt\n"),
          (r) => expect(paths(r)).not.toContain("a/one.txt"),
        ],
      ];
      // git writes inside its directory on every status and commit: nothing the walk reads, so it is kept.
      rglobJson(["index", "--json"], { cwd: t, env: e });
      writeFileSync(join(t, ".git", "index.lock"), "x");
      mkdirSync(join(t, ".git", "objects", "ab"), { recursive: true });
      unlinkSync(join(t, ".git", "index.lock"));
      expect(walkState()).toBe("fresh");
      both({ pattern: "needle", files_with_matches: true });
      for (const [what, change, check] of changes) {
        const built = rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--json"], {
          cwd: t,
          env: e,
        }).json.results[0] as Record<string, unknown>;
        expect({ what, walk: built.walk }).toEqual({ what, walk: "fresh" });
        both({ pattern: "needle", files_with_matches: true });
        change();
        expect({ what, walk: walkState() }).toEqual({ what, walk: "stale" });
        check(both({ pattern: "needle", files_with_matches: true }));
        both({ pattern: "needle" });
      }
      // Another home: git's global excludes file is looked for elsewhere, so the walk is not replayed.
      rglobJson(["index", "--json"], { cwd: t, env: e });
      mkdirSync(join(outer, "home2", ".config", "git"), { recursive: true });
      writeFileSync(join(outer, "home2", ".config", "git", "ignore"), "*.txt\n");
      const args = ["grep", "--json", "-l", "needle"];
      const e2 = { ...e, HOME: join(outer, "home2"), XDG_CONFIG_HOME: "" };
      // The status says so too: under this HOME a plain grep makes another walk than the one recorded.
      expect(walkState()).toBe("fresh");
      const statusUnder = (env2: Record<string, string>) =>
        (
          rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--status", "--json"], {
            cwd: t,
            env: env2,
          }).json.results[0] as Record<string, unknown>
        ).walk;
      expect(statusUnder(e2)).toBe("stale");
      const { json: cold } = rglobJson(args, { cwd: t, env: { ...e2, RGLOB_INDEX: "0" } });
      const { json: hot } = rglobJson(args, { cwd: t, env: e2 });
      expect(paths(cold).filter((p) => p.endsWith(".txt"))).toEqual([]);
      expect(paths(cold).length).toBeGreaterThan(0);
      delete hot.source;
      hot.bytes_read = cold.bytes_read;
      expect(hot).toEqual(cold);
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
  }, 120_000);

  // Both threads take chunks of files to check; with RGLOB_STAT_SPLIT=worker this one leaves them all to the
  // worker, whose answers are then the only ones (here, where this thread has little else to do, it could
  // otherwise take every chunk before the worker has started).
  test.each(["both", "worker"])(
    "a tree of thousands of files (stats checked in two threads, %s) gives the cold answers after edits",
    (split) => {
      const e = { ...env(), RGLOB_STAT_SPLIT: split };
      const t = mkdtempSync(join(tmpdir(), "rglob-pindex-many-"));
      try {
        const files: string[] = [];
        for (let d = 0; d < 50; d++) {
          mkdirSync(join(t, `d${String(d).padStart(2, "0")}`));
          for (let f = 0; f < 100; f++) {
            const rel = `d${String(d).padStart(2, "0")}/f${String(f).padStart(3, "0")}.txt`;
            writeFileSync(join(t, rel), `alpha ${d} ${f}\n`);
            files.push(rel);
          }
        }
        writeFileSync(join(t, ".ignore"), "*.log\n");
        ageTree(t);
        const built = index([], t).json.results[0] as Record<string, unknown>;
        expect([built.files, built.walk]).toEqual([5001, "fresh"]); // and .ignore
        const check = (input: Record<string, unknown>) =>
          fromIndex(["grep", "--json", ...argvOf(op, input)], t, e);
        check({ pattern: "alpha" });
        expect((check({ pattern: "omega" }).results as unknown[]).length).toBe(0);
        // Same-size rewrites with the mtime put back, early and late in the walk: the index ruled them out for
        // "omega"; their ctime tells they changed.
        for (const rel of [files[3], files[1500], files[2600], files[4990]] as string[]) {
          const p = join(t, rel);
          const before = statSync(p);
          const text = readFileSync(p, "utf8");
          writeFileSync(p, `omega${text.slice(5)}`);
          utimesSync(p, before.atime, before.mtime);
        }
        expect((index(["--status"], t).json.results[0] as Record<string, unknown>).walk).toBe("fresh");
        const found = check({ pattern: "omega", files_with_matches: true });
        expect((found.results as unknown[]).length).toBe(4);
        check({ pattern: "omega", count: true });
        check({ pattern: "alpha", files_without_match: true });
        // What the recorded walk depends on is checked in the same chunks: a directory's listing, then an
        // ignore file, each changed after a fresh index, shows in the next answer.
        const changes: Array<[() => void, (r: Record<string, unknown>) => void]> = [
          [
            () => writeFileSync(join(t, "d10", "new.txt"), "omega new\n"),
            (r) => expect(r.results as unknown[]).toHaveLength(5),
          ],
          [
            () => writeFileSync(join(t, ".ignore"), "*.log\nd26/\n"),
            (r) => expect(r.results as unknown[]).toHaveLength(4),
          ],
        ];
        for (const [change, shows] of changes) {
          ageTree(t);
          expect((index([], t).json.results[0] as Record<string, unknown>).walk).toBe("fresh");
          change();
          shows(check({ pattern: "omega", files_with_matches: true }));
        }
      } finally {
        rmSync(t, { recursive: true, force: true });
      }
    },
    120_000,
  );

  test("a grep below the indexed tree, or with the tree as a root operand, uses it", () => {
    expect(same({ pattern: "needle", base: "dir0" })).toBe("index");
    fromIndex(["grep", "--json", "needle", dir], tmpdir());
  }, 120_000);

  test("names outside ASCII in the walk written with the index replay as written (ADR 0061)", () => {
    // The walk's relative paths are decoded from the index file's bytes at each replay: a directory, a file the
    // index holds and a binary file it does not, each named in UTF-8 beyond ASCII, as the cold walk names them.
    const tree = mkdtempSync(join(tmpdir(), "rglob-pindex-names-"));
    try {
      mkdirSync(join(tree, "zürich", "日本"), { recursive: true });
      writeFileSync(join(tree, "zürich", "naïve-ä.txt"), "haystack needle\n");
      writeFileSync(join(tree, "zürich", "日本", "é.bin"), Buffer.from("needle\0\u0001"));
      writeFileSync(join(tree, "plain.txt"), "needle\n");
      ageTree(tree);
      index([], tree);
      const cold = fromIndex(["grep", "--json", "--list-binary", "needle"], tree) as {
        results: Array<{ relative_path: string }>;
        errors: Array<{ code: string; path: string }>;
      };
      expect(cold.results.map((r) => r.relative_path).sort()).toEqual(["plain.txt", "zürich/naïve-ä.txt"]);
      expect(cold.errors.map((e) => [e.code, e.path])).toEqual([
        ["BINARY", join(realpathSync(tree), "zürich", "日本", "é.bin")],
      ]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }, 120_000);

  test("a corrupt, truncated or foreign index is not used", () => {
    index();
    const file = (index(["--status"]).json.results[0] as Record<string, unknown>).index_path as string;
    const good = readFileSync(file);
    const check = (bytes: Uint8Array, why: RegExp) => {
      writeFileSync(file, bytes);
      const s = index(["--status"]).json.results[0] as Record<string, unknown>;
      expect(s.state).toBe("unusable");
      expect(String(s.reason)).toMatch(why);
      for (const q of QUERIES.slice(0, 6)) expect(same(q)).toBeUndefined();
    };
    // A flipped byte in the posting lists, a truncated file, garbage.
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] as number) ^ 0x55;
    check(flipped, /corrupt/);
    check(good.subarray(0, good.length - 100), /truncated|corrupt/);
    check(Buffer.from("not an index at all, just text"), /not an rglob index/);
    // Another rglob version (the hash made right, so only the version tells).
    const other = Buffer.from(good);
    const at = other.indexOf('"rglob":"');
    other.write("9", at + 9, "latin1");
    other.write(Bun.hash.xxHash3(other.subarray(32)).toString(16).padStart(16, "0"), 16, "latin1");
    check(other, /built by rglob 9/);
    // Another tree's index under this tree's name.
    const elsewhere = mkdtempSync(join(tmpdir(), "rglob-pindex-other-"));
    try {
      writeFileSync(join(elsewhere, "a.txt"), "needle\n");
      ageTree(elsewhere);
      const foreign = index([], elsewhere).json.results[0] as Record<string, unknown>;
      check(readFileSync(foreign.index_path as string), /another tree/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    writeFileSync(file, good);
    expect(same({ pattern: "needle" })).toBe("index");
  }, 120_000);

  test("index --remove deletes it; grep then says nothing of an index", () => {
    expect((index(["--remove"]).json.results[0] as Record<string, unknown>).state).toBe("removed");
    expect((index(["--status"]).json.results[0] as Record<string, unknown>).state).toBe("absent");
    expect(same({ pattern: "needle" })).toBeUndefined();
    expect((index(["--remove"]).json.results[0] as Record<string, unknown>).state).toBe("absent");
  }, 120_000);

  test("a cache directory inside the tree is refused (exit 2, nothing written)", () => {
    const inner = join(dir, "cache-here");
    const run = rglob(["index"], { cwd: dir, env: { RGLOB_CACHE_DIR: inner } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("inside the tree");
    expect(run.stderr).not.toContain("    at ");
    expect(existsSync(inner)).toBe(false);
    const both = rglob(["index", "--status", "--remove"], { cwd: dir, env: env() });
    expect(both.code).toBe(2);
    expect(rglob(["index", "--base", join(dir, "nope")], { cwd: dir, env: env() }).code).toBe(2);
  }, 120_000);

  test("binary, UTF-16 and huge files are not indexed and are searched as cold", () => {
    const t = mkdtempSync(join(tmpdir(), "rglob-pindex-big-"));
    try {
      writeFileSync(join(t, "small.txt"), "needle in a haystack\n");
      writeFileSync(
        join(t, "bin.dat"),
        Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(16), Buffer.from("x")]),
      );
      // A NUL far past the sniff window: grep searches it as text; the index leaves it out.
      writeFileSync(
        join(t, "late-nul.txt"),
        Buffer.concat([Buffer.alloc(70_000, 0x61), Buffer.from([0]), Buffer.from("needle\n")]),
      );
      writeFileSync(
        join(t, "utf16.txt"),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("needle\n", "utf16le")]),
      );
      const huge = Buffer.alloc(11 * 1024 * 1024, 0x62);
      for (let i = 100; i < huge.length; i += 100) huge[i] = 0x0a;
      writeFileSync(join(t, "huge.txt"), Buffer.concat([huge, Buffer.from("needle at the end\n")]));
      ageTree(t);
      const r = index([], t).json.results[0] as Record<string, unknown>;
      expect([r.state, r.files, r.not_indexed]).toEqual(["built", 1, 4]);
      for (const input of [
        { pattern: "needle" },
        { pattern: "needle", text: true },
        { pattern: "needle", files_with_matches: true },
        { pattern: "zzz" },
        { pattern: "needle", binary_sniff_bytes: 100_000 },
      ]) {
        fromIndex(["grep", "--json", ...argvOf(op, input)], t);
      }
    } finally {
      rmSync(t, { recursive: true, force: true });
    }
  }, 120_000);
});
