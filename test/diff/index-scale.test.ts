// The index at scale (#36), through the compiled binary on real temp trees:
// - exact-case narrowing keeps the cold answers: random identifiers of a generated code tree (camelCase,
//   snake_case, UPPER_CASE, short words, spelt in other cases too) with the persisted index against the same
//   grep with it turned off, case-sensitive, -i, smart case, --fixed-strings and regexes, and the Unicode case
//   folding traps (ſ and K match s and k under -i; İ does not match i);
// - a restarted `rglob mcp` loads the index its predecessor wrote to the cache and checks it (its capabilities
//   say so, with how many files changed while no server ran) and answers from it (`source: "index"`) with the
//   cold answer, a file changed, added or deleted meanwhile included;
// - a corrupt, foreign, old-format or replaced-tree index file in the cache is not loaded: the server builds its
//   own, and says why it did not load it.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  existsSync,
  linkSync,
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
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { INDEX_FORMAT } from "../../src/engine/index/format.ts";
import { findOperation } from "../../src/ops/registry.ts";
import { prng, rglobJson } from "../helpers.ts";
import { argvOf, type McpSession, startMcp } from "../surface/mcp-helpers.ts";

const SEED = Number(process.env.RGLOB_SCALE_SEED ?? 36);
const rand = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const op = findOperation("grep");

const PARTS = ["node", "scope", "path", "binding", "visit", "parse", "token", "error", "state", "type"];
const cap = (w: string) => (w[0] as string).toUpperCase() + w.slice(1);
/** An identifier of one of the kinds code holds. */
function identifier(): string {
  const a = pick(PARTS);
  const b = pick(PARTS);
  switch (Math.floor(rand() * 5)) {
    case 0:
      return `${a}${cap(b)}`;
    case 1:
      return `${a}_${b}`;
    case 2:
      return `${a}_${b}`.toUpperCase();
    case 3:
      return `${cap(a)}${cap(b)}`;
    default:
      return a;
  }
}

/** A line of code-like text over the identifiers, now and then with a trap character. */
function codeText(): string {
  const lines: string[] = [];
  for (let i = 0, n = 3 + Math.floor(rand() * 12); i < n; i++) {
    const ids = [identifier(), identifier(), identifier()];
    const trap = rand() < 0.04 ? pick(["\u017f", "\u212a", "\u0130", "\u0131"]) : "";
    lines.push(`const ${ids[0]} = ${ids[1]}(${ids[2]}); // ${trap}${pick(PARTS)}`);
  }
  return `${lines.join("\n")}\n`;
}

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

function makeTree(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), "rglob-scale-"));
  for (let f = 0; f < files; f++) {
    const rel = `pkg${f % 7}/${pick(PARTS)}/${pick(PARTS)}${f}.ts`;
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), codeText());
  }
  // The traps spelt out once each: long s and Kelvin sign (Unicode folds them to s and k), dotted capital I
  // (no simple fold to i).
  writeFileSync(join(dir, "traps.txt"), "\u017fcope and \u212aind and \u0130ndex\n");
  ageTree(dir);
  return dir;
}

describe("exact-case narrowing keeps the cold answers", () => {
  let dir: string;
  let cache: string;
  beforeAll(() => {
    dir = makeTree(220);
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    const { json } = rglobJson(["index", "--json"], { cwd: dir, env: { RGLOB_CACHE_DIR: cache } });
    expect((json.results as Array<{ state: string }>)[0]?.state).toBe("built");
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  /** Runs a grep with and without the index: the same result (bytes_read and source aside), from the index. */
  function same(input: Record<string, unknown>): void {
    const args = ["grep", "--json", ...argvOf(op, input)];
    const { json: cold } = rglobJson(args, { cwd: dir, env: { RGLOB_CACHE_DIR: cache, RGLOB_INDEX: "0" } });
    const { json: hot } = rglobJson(args, { cwd: dir, env: { RGLOB_CACHE_DIR: cache } });
    expect({ input, source: hot.source }).toEqual({ input, source: "index" });
    delete hot.source;
    hot.bytes_read = cold.bytes_read;
    expect({ input, ...hot }).toEqual({ input, ...cold });
  }

  test("random identifiers, in their own case and others, every case mode", () => {
    const spell = (w: string) =>
      pick([w, w.toLowerCase(), w.toUpperCase(), w.replace(/[a-z]/, (c) => c.toUpperCase())]);
    for (let q = 0; q < 36; q++) {
      const id = spell(identifier());
      const mode = q % 6;
      if (mode === 0) same({ pattern: id });
      else if (mode === 1) same({ pattern: id, ignore_case: true });
      else if (mode === 2) same({ pattern: id, smart_case: true });
      else if (mode === 3) same({ pattern: id, fixed_strings: true, count: true });
      else if (mode === 4) same({ pattern: `${id}\\(`, files_with_matches: true });
      else if (q % 12 === 5) same({ pattern: `${id}_?[A-Za-z]*`, ignore_case: rand() < 0.5 });
      else same({ pattern: `${id}|${spell(identifier())}`, ignore_case: rand() < 0.5 });
    }
  }, 240_000);

  test("Unicode case folding: ſ and K match s and k under -i, İ does not match i", () => {
    // Case-sensitive, the ASCII spellings are not in traps.txt; caseless, ſcope and Kind match.
    for (const pattern of ["scope", "SCOPE", "kind", "KIND", "index", "Index", "sCoPe and"]) {
      same({ pattern });
      same({ pattern, ignore_case: true });
      same({ pattern, smart_case: true });
    }
    const { json } = rglobJson(["grep", "--json", "-i", "scope and kind", "traps.txt"], {
      cwd: dir,
      env: { RGLOB_CACHE_DIR: cache },
    });
    expect(json.source).toBe("index");
    expect((json.results as unknown[]).length).toBe(1);
  }, 240_000);
});

/** The warm state of the server's one root, as capabilities report it. */
interface Warm {
  state: string;
  reason: string | null;
  files: number | null;
  watching: boolean;
  checks?: { mode: string; given: number; stat_checks: number };
}

async function warm(mcp: McpSession): Promise<Warm> {
  const res = await mcp.client.readResource({ uri: "rglob://capabilities" });
  const caps = JSON.parse((res.contents[0] as { text: string }).text) as { mcp: { warm: Warm[] } };
  return caps.mcp.warm[0] as Warm;
}

async function ready(mcp: McpSession): Promise<Warm> {
  for (let i = 0; i < 2400; i++) {
    const w = await warm(mcp);
    if (w.state !== "building") return w;
    await Bun.sleep(50);
  }
  throw new Error("the index was not built");
}

/** Waits until a loaded index's files were stat'ed once the watch was whole (its reason says so). */
async function checkedOnceWatched(mcp: McpSession): Promise<Warm> {
  for (let i = 0; i < 2400; i++) {
    const w = await warm(mcp);
    if ((w.reason ?? "").includes("checked once watched")) return w;
    await Bun.sleep(50);
  }
  throw new Error("the loaded index was not checked once watched");
}

async function grepMcp(mcp: McpSession, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = (await mcp.client.callTool({ name: "grep_content", arguments: args })) as CallToolResult;
  return r.structuredContent as Record<string, unknown>;
}

/**
 * Servers of a tree with a cache directory of its own (the index written to it from 0 files on), and the check
 * of their answers against the cold CLI's.
 * @param at the tree and the cache (set in beforeAll)
 */
function restarts(at: () => { dir: string; cache: string }) {
  const env = (more: Record<string, string> = {}) => ({
    RGLOB_CACHE_DIR: at().cache,
    RGLOB_PERSIST_MIN_FILES: "0",
    ...more,
  });

  async function server(more: Record<string, string> = {}): Promise<McpSession> {
    const saved = { ...process.env };
    Object.assign(process.env, env(more));
    try {
      return await startMcp(["--root", at().dir], { cwd: at().dir });
    } finally {
      for (const k of Object.keys(env(more))) if (saved[k] === undefined) delete process.env[k];
    }
  }

  /** The server's answer equals the cold CLI's (bytes_read aside), and comes from the index. */
  async function sameAsCold(
    mcp: McpSession,
    input: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const hot = await grepMcp(mcp, { ...input, limit: 1000 });
    const args = ["grep", "--json", ...argvOf(op, { ...input, limit: 1000 })];
    const { json: cold } = rglobJson(args, {
      cwd: at().dir,
      env: { RGLOB_INDEX: "0", RGLOB_CACHE_DIR: at().cache },
    });
    expect({ input, source: hot.source }).toEqual({ input, source: "index" });
    for (const r of [hot, cold]) {
      delete r.source;
      delete r.bytes_read;
    }
    expect({ input, ...hot }).toEqual({ input, ...cold });
    return cold;
  }

  /** Waits for the index file a first server writes to the cache after its build; returns its path. */
  async function written(): Promise<string> {
    const idx = join(at().cache, "index");
    for (let i = 0; i < 400 && !existsSync(idx); i++) await Bun.sleep(50);
    for (let i = 0; i < 400 && readdirSync(idx).filter((f) => f.endsWith(".rgi")).length === 0; i++)
      await Bun.sleep(50);
    const files = readdirSync(idx).filter((f) => f.endsWith(".rgi"));
    expect(files.length).toBe(1);
    return join(idx, files[0] as string);
  }

  return { server, sameAsCold, written };
}

describe("a restarted server loads the index from the cache", () => {
  let dir: string;
  let cache: string;
  let indexFile: string;
  const { server, sameAsCold, written } = restarts(() => ({ dir, cache }));

  beforeAll(async () => {
    dir = realpathSync(makeTree(90));
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    const mcp = await server();
    try {
      const w = await ready(mcp);
      expect(w.state).toBe("ready");
      // The first server built it (and says nothing of a cache) and writes it to the cache after its build.
      expect(w.reason ?? "").not.toMatch(/loaded from the cache/);
      indexFile = await written();
    } finally {
      await mcp.close();
    }
  }, 240_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  test("the index is loaded, checked, and answers; changes made while no server ran are seen", async () => {
    // While no server runs: a file gains a literal found nowhere else, one is deleted, one is added.
    const victims = readdirSync(join(dir, "pkg1"), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".ts"));
    const edited = join(dir, "pkg1", victims[0] as string);
    writeFileSync(edited, `${readFileSync(edited, "utf8")}const zanzibarQuokka = 1;\n`);
    unlinkSync(join(dir, "pkg1", victims[1] as string));
    writeFileSync(join(dir, "pkg1", "fresh.ts"), "export const zanzibarQuokka = 2;\n");
    const mcp = await server();
    try {
      const w = await checkedOnceWatched(mcp);
      expect(w.state).toBe("ready");
      // Before the client's first call, the server rehearsed one as the index answers from then on (#36): by the
      // watch, no file it rules out stat'ed. (The first literal found nowhere after a restart ran that path first.)
      expect(w.checks).toMatchObject({ mode: "watch", stat_checks: 0 });
      // The one stat of every file, once the watch was whole, found the edited and the deleted file (the new one
      // is not the index's).
      expect(w.reason).toMatch(
        new RegExp(
          `^loaded from the cache and checked once watched: 2 of ${w.files} files changed since it was written`,
        ),
      );
      const cold = await sameAsCold(mcp, { pattern: "zanzibarQuokka" });
      expect((cold.results as unknown[]).length).toBe(2);
      await sameAsCold(mcp, { pattern: "nodeScope" });
      await sameAsCold(mcp, { pattern: "NODE_SCOPE", ignore_case: true });
      // A change while this server runs is the watch's.
      writeFileSync(join(dir, "pkg2", "later.ts"), "const zanzibarQuokka = 3;\n");
      await Bun.sleep(100);
      expect(((await sameAsCold(mcp, { pattern: "zanzibarQuokka" })).results as unknown[]).length).toBe(3);
    } finally {
      await mcp.close();
    }
  }, 240_000);

  test("a loaded index answers before the watch is set up; a change made before the watch covered it is seen", async () => {
    // The watch waits for the gate: the server loads and checks the index, answers by stat'ing each file the
    // index rules out, and a file is edited then, which no watch can report.
    const gate = join(cache, "watch-gate");
    rmSync(gate, { force: true });
    const mcp = await server({ RGLOB_TEST_WATCH_GATE: gate });
    try {
      const w = await ready(mcp);
      expect({ state: w.state, watching: w.watching }).toEqual({ state: "ready", watching: false });
      // Loaded, not stat'ed yet: each query stats the files the index rules out until the watch is whole.
      expect(w.reason).toMatch(
        /^loaded from the cache \(\d+ files\): each query stats the files it rules out/,
      );
      await sameAsCold(mcp, { pattern: "nodeScope" });
      expect((await warm(mcp)).checks?.mode).toBe("stat");
      const victim = readdirSync(join(dir, "pkg3"), { recursive: true })
        .map(String)
        .find((f) => f.endsWith(".ts")) as string;
      const edited = join(dir, "pkg3", victim);
      writeFileSync(edited, `${readFileSync(edited, "utf8")}const quokkaBeforeWatch = 1;\n`);
      writeFileSync(gate, "");
      // Once the watch is set up and the files stat'ed again, the watch vouches for the files ruled out.
      let mode = "stat";
      for (let i = 0; i < 2400 && mode !== "watch"; i++) {
        await Bun.sleep(50);
        await grepMcp(mcp, { pattern: "nodeScope", limit: 1 });
        mode = (await warm(mcp)).checks?.mode ?? "";
      }
      expect(mode).toBe("watch");
      const cold = await sameAsCold(mcp, { pattern: "quokkaBeforeWatch" });
      expect(((await warm(mcp)).checks ?? { mode: "" }).mode).toBe("watch");
      expect((cold.results as unknown[]).length).toBe(1);
      expect((await warm(mcp)).reason).toMatch(
        // The one stat of every file counts it with the files changed while no server ran (the previous test).
        /^loaded from the cache and checked once watched: [1-9]\d* of \d+ files changed/,
      );
    } finally {
      await mcp.close();
    }
  }, 240_000);

  test("a watch that cannot be set up (the user's inotify watches run out) says why; answers stay exact", async () => {
    // RGLOB_TEST_WATCH_LIMIT fails inotify_add_watch after 3 directories, as the user's limit does (ENOSPC):
    // the server does not fall back to another watch that meets the same limit, and says so in its state.
    const mcp = await server({ RGLOB_TEST_WATCH_LIMIT: "3" });
    try {
      let w = await ready(mcp);
      for (let i = 0; i < 2400 && !(w.reason ?? "").includes("not watching"); i++) {
        await Bun.sleep(50);
        w = await warm(mcp);
      }
      expect({ state: w.state, watching: w.watching }).toEqual({ state: "ready", watching: false });
      expect(w.reason).toMatch(
        /^loaded from the cache \(\d+ files\): .*; not watching: a directory could not be watched after 3 were .*; checking files per query$/,
      );
      // And the server's log says it too.
      expect(mcp.stderr()).toMatch(
        /rglob: warm index of .*: not watching: a directory could not be watched after 3/,
      );
      await sameAsCold(mcp, { pattern: "nodeScope" });
      expect((await warm(mcp)).checks?.mode).toBe("stat");
      // An edit with no watch: the stat of each file the index rules out sees it.
      const victim = readdirSync(join(dir, "pkg4"), { recursive: true })
        .map(String)
        .find((f) => f.endsWith(".ts")) as string;
      const edited = join(dir, "pkg4", victim);
      writeFileSync(edited, `${readFileSync(edited, "utf8")}const quokkaUnwatched = 1;\n`);
      expect(((await sameAsCold(mcp, { pattern: "quokkaUnwatched" })).results as unknown[]).length).toBe(1);
      expect((await warm(mcp)).checks?.mode).toBe("stat");
    } finally {
      await mcp.close();
    }
  }, 240_000);

  test("a corrupt, old-format, foreign or replaced-tree index is not loaded", async () => {
    const good = readFileSync(indexFile);
    const cases: Array<[string, () => void, RegExp]> = [
      [
        "corrupt",
        () => {
          const b = Buffer.from(good);
          b[b.length - 3] = (b[b.length - 3] as number) ^ 0xff;
          writeFileSync(indexFile, b);
        },
        /not used: corrupt/,
      ],
      [
        "old format",
        () => {
          const b = Buffer.from(good);
          b.writeUInt32LE(3, 8);
          writeFileSync(indexFile, b);
        },
        new RegExp(`not used: format 3, not ${INDEX_FORMAT}`),
      ],
      [
        "another tree's",
        () => {
          const other = makeTree(5);
          rglobJson(["index", "--json"], { cwd: other, env: { RGLOB_CACHE_DIR: cache } });
          const otherFile = readdirSync(join(cache, "index"))
            .filter((f) => f.endsWith(".rgi"))
            .map((f) => join(cache, "index", f))
            .find((f) => f !== indexFile) as string;
          renameSync(otherFile, indexFile);
          rmSync(other, { recursive: true, force: true });
        },
        /not used: built for another tree/,
      ],
      [
        "a replaced tree's",
        () => {
          writeFileSync(indexFile, good);
          const moved = `${dir}.old`;
          renameSync(dir, moved);
          mkdirSync(dir);
          for (const e of readdirSync(moved)) renameSync(join(moved, e), join(dir, e));
          rmSync(moved, { recursive: true, force: true });
        },
        /not used: built for a tree since removed or replaced/,
      ],
    ];
    for (const [name, spoil, why] of cases) {
      spoil();
      const mcp = await server();
      try {
        const w = await ready(mcp);
        expect({ name, state: w.state }).toEqual({ name, state: "ready" });
        expect({ name, reason: w.reason }).toEqual({ name, reason: expect.stringMatching(why) });
        await sameAsCold(mcp, { pattern: "zanzibarQuokka" });
      } finally {
        await mcp.close();
      }
    }
  }, 480_000);
});

describe("a restarted server answers from the walk written with the index", () => {
  let dir: string;
  let cache: string;
  const { server, sameAsCold, written } = restarts(() => ({ dir, cache }));
  /** A file of the tree in a package directory, relative to it. */
  const fileIn = (pkg: string, nth: number) =>
    join(
      dir,
      pkg,
      readdirSync(join(dir, pkg), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".ts"))
        .sort()[nth] as string,
    );
  const append = (file: string, text: string) =>
    writeFileSync(file, `${readFileSync(file, "utf8")}${text}\n`);
  /** The grep's checks: `given` counts the entries a replayed walk gave (0 when the tree was walked). */
  const checks = async (mcp: McpSession) => (await warm(mcp)).checks ?? { mode: "", given: -1 };

  beforeAll(async () => {
    dir = realpathSync(makeTree(80));
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    // The walk is written only when what it depends on changed over two seconds before (racy stats): the
    // directories were just made.
    await Bun.sleep(2100);
    const mcp = await server();
    try {
      expect((await ready(mcp)).state).toBe("ready");
      const file = await written();
      const raw = readFileSync(file);
      const header = JSON.parse(raw.toString("utf8", 32, 32 + raw.readUInt32LE(12))) as {
        walk: { entries: number } | null;
      };
      expect(header.walk?.entries ?? 0).toBeGreaterThan(80);
    } finally {
      await mcp.close();
    }
  }, 240_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  test("edits while no server ran and after the restart, before and after the watch: the cold answers", async () => {
    // While no server runs: a file gains a literal (its directory stays as it was: the walk still holds).
    append(fileIn("pkg4", 0), "const quaggaWhileDown = 1;");
    const gate = join(cache, "watch-gate");
    rmSync(gate, { force: true });
    const mcp = await server({ RGLOB_TEST_WATCH_GATE: gate });
    try {
      const w = await ready(mcp);
      expect({ state: w.state, watching: w.watching }).toEqual({ state: "ready", watching: false });
      expect(w.reason).toMatch(/^loaded from the cache \(\d+ files\)/);
      // The first answers replay the walk written with the index (its directories stat'ed), not a walk.
      expect(((await sameAsCold(mcp, { pattern: "quaggaWhileDown" })).results as unknown[]).length).toBe(1);
      expect(await checks(mcp)).toMatchObject({ mode: "stat", given: expect.any(Number) });
      expect((await checks(mcp)).given).toBeGreaterThan(0);
      await sameAsCold(mcp, { pattern: "nodeScope" });
      await sameAsCold(mcp, { pattern: "NODE_SCOPE", ignore_case: true });
      // After the restart, before the watch: an edit (the stat of each file the index rules out sees it).
      append(fileIn("pkg5", 0), "const quaggaAfterRestart = 1;");
      expect(((await sameAsCold(mcp, { pattern: "quaggaAfterRestart" })).results as unknown[]).length).toBe(
        1,
      );
      expect((await checks(mcp)).given).toBeGreaterThan(0);
      writeFileSync(gate, "");
      let mode = "stat";
      for (let i = 0; i < 2400 && mode !== "watch"; i++) {
        await Bun.sleep(50);
        await grepMcp(mcp, { pattern: "nodeScope", limit: 1 });
        mode = (await checks(mcp)).mode;
      }
      expect(mode).toBe("watch");
      // Watched and checked again: the walk written with the index is the remembered default walk (the reason
      // says so once the rehearsal, which a call may come before, is over).
      for (let i = 0; i < 200 && !/checked once watched/.test((await warm(mcp)).reason ?? ""); i++)
        await Bun.sleep(50);
      expect((await warm(mcp)).reason).toMatch(/; the default walk is the one written with the index$/);
      await sameAsCold(mcp, { pattern: "quaggaAfterRestart" });
      expect(await checks(mcp)).toMatchObject({ mode: "watch" });
      expect((await checks(mcp)).given).toBeGreaterThan(0);
      // A new file and a deleted one under the watch.
      writeFileSync(join(dir, "pkg5", "newer.ts"), "const quaggaAfterRestart = 2;\n");
      unlinkSync(fileIn("pkg6", 0));
      await Bun.sleep(100);
      expect(((await sameAsCold(mcp, { pattern: "quaggaAfterRestart" })).results as unknown[]).length).toBe(
        2,
      );
      await sameAsCold(mcp, { pattern: "nodeScope" });
    } finally {
      await mcp.close();
    }
  }, 240_000);

  test("the tree's shape changed while no server ran, or after the restart: the walk is not replayed", async () => {
    // The index file is the first server's: pkg5 and pkg6 changed since (the previous test), and more now.
    mkdirSync(join(dir, "pkg0", "fresh"), { recursive: true });
    writeFileSync(join(dir, "pkg0", "fresh", "made.ts"), "const quaggaShape = 1;\n");
    unlinkSync(fileIn("pkg1", 0));
    const gate = join(cache, "watch-gate");
    rmSync(gate, { force: true });
    const mcp = await server({ RGLOB_TEST_WATCH_GATE: gate });
    try {
      expect((await ready(mcp)).state).toBe("ready");
      expect(((await sameAsCold(mcp, { pattern: "quaggaShape" })).results as unknown[]).length).toBe(1);
      expect(await checks(mcp)).toEqual(expect.objectContaining({ mode: "stat", given: 0 }));
      await sameAsCold(mcp, { pattern: "nodeScope" });
      writeFileSync(join(dir, "pkg2", "later.ts"), "const quaggaShape = 2;\n");
      expect(((await sameAsCold(mcp, { pattern: "quaggaShape" })).results as unknown[]).length).toBe(2);
      writeFileSync(gate, "");
      let reason = "";
      for (let i = 0; i < 2400 && !reason.includes("checked once watched"); i++) {
        await Bun.sleep(50);
        reason = (await warm(mcp)).reason ?? "";
      }
      expect(reason).toMatch(/^loaded from the cache and checked once watched: \d+ of \d+ files changed/);
      expect(((await sameAsCold(mcp, { pattern: "quaggaShape" })).results as unknown[]).length).toBe(2);
    } finally {
      await mcp.close();
    }
  }, 240_000);
});

describe("a restarted server's watch is set up from the walk written with the index", () => {
  let dir: string;
  let cache: string;
  const { server, sameAsCold, written } = restarts(() => ({ dir, cache }));
  /** The nth file of a package directory's first subdirectory, and that subdirectory (sorted names). */
  const subOf = (pkg: string) => join(dir, pkg, readdirSync(join(dir, pkg)).sort()[0] as string);
  const fileOf = (sub: string) => join(sub, readdirSync(sub).sort()[0] as string);
  const checks = async (mcp: McpSession) => (await warm(mcp)).checks ?? { mode: "", given: -1 };

  beforeAll(async () => {
    dir = realpathSync(makeTree(80));
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    // A directory the default walk leaves out (an `.ignore` rule): the walk written with the index does not
    // hold it, so the restarted watch must find it by listing its parent (its link count says it is there).
    mkdirSync(join(dir, "skipme", "sub"), { recursive: true });
    writeFileSync(join(dir, "skipme", "sub", "kept.ts"), "const quollIgnored = 1;\n");
    writeFileSync(join(dir, ".ignore"), "skipme/\n");
    ageTree(dir);
    // The walk is written only when what it depends on changed over two seconds before (racy stats).
    await Bun.sleep(2100);
    const mcp = await server();
    try {
      expect((await ready(mcp)).state).toBe("ready");
      await written();
    } finally {
      await mcp.close();
    }
  }, 240_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  test("nothing changed while no server ran: only the directory holding one the walk left out is listed", async () => {
    const mcp = await server();
    try {
      const w = await checkedOnceWatched(mcp);
      // The root holds skipme, which the walk left out (its link count says one more subdirectory): listed, and
      // skipme watched and listed below it; every other directory only watched and stat'ed.
      expect(w.reason).toMatch(
        /; the watch listed 1 of the walk's \d+ directories; the default walk is the one written with the index$/,
      );
      await sameAsCold(mcp, { pattern: "quoll" });
      await sameAsCold(mcp, { pattern: "quoll", respect_gitignore: false });
      await sameAsCold(mcp, { pattern: "\u017fcope|quoll" });
      expect(await checks(mcp)).toMatchObject({ mode: "watch" });
      writeFileSync(join(dir, "skipme", "sub", "early.ts"), "const quollEarly = 1;\n");
      await Bun.sleep(100);
      expect(
        ((await sameAsCold(mcp, { pattern: "quollEarly", respect_gitignore: false })).results as unknown[])
          .length,
      ).toBe(1);
    } finally {
      await mcp.close();
      rmSync(join(dir, "skipme", "sub", "early.ts"), { force: true });
    }
  }, 240_000);

  test("each change made while no server ran, then one under the watch there: every answer is the cold one", async () => {
    // Each kind of change is made while no server runs (they add up: the index file stays the first server's),
    // then a restarted server's answers are compared with the cold CLI's, before and after a file is made under
    // its watch where the change was (a walk remembered meanwhile must be let go).
    const renamed = subOf("pkg2");
    const replaced = subOf("pkg3");
    const changes: Array<{ what: string; change: () => void; later: () => string }> = [
      {
        what: "a file added in an existing directory",
        change: () => writeFileSync(join(subOf("pkg1"), "added.ts"), "const quollAdded = 1;\n"),
        later: () => subOf("pkg1"),
      },
      {
        what: "a directory renamed",
        change: () => renameSync(renamed, `${renamed}-moved`),
        later: () => `${renamed}-moved`,
      },
      {
        what: "a file edited with its mtime put back (its ctime differs)",
        change: () => {
          const edited = fileOf(subOf("pkg4"));
          const before = statSync(edited);
          writeFileSync(edited, `${readFileSync(edited, "utf8")}const quollEdited = 1;\n`);
          utimesSync(edited, before.atime, before.mtime);
        },
        later: () => subOf("pkg4"),
      },
      {
        what: "a directory replaced by another of the same name",
        change: () => {
          renameSync(replaced, `${replaced}-old`);
          mkdirSync(join(replaced, "inner"), { recursive: true });
          writeFileSync(join(replaced, "inner", "made.ts"), "const quollReplaced = 1;\n");
        },
        later: () => join(replaced, "inner"),
      },
    ];
    let late = 0;
    for (const { what, change, later } of changes) {
      change();
      const mcp = await server();
      try {
        const w = await checkedOnceWatched(mcp);
        expect({ what, state: w.state }).toEqual({ what, state: "ready" });
        // Only the directories that changed (and the root, which holds skipme) were listed.
        const [, listed, of] =
          /; the watch listed (\d+) of the walk's (\d+) directories/.exec(w.reason ?? "") ?? [];
        expect({ what, few: Number(listed) >= 1 && Number(listed) < Number(of) / 2 }).toEqual({
          what,
          few: true,
        });
        // A directory changed: the walk written with the index is not the default walk.
        expect({ what, reason: w.reason }).not.toEqual({
          what,
          reason: expect.stringContaining("the default walk is the one written with the index"),
        });
        await sameAsCold(mcp, { pattern: "quoll" });
        await sameAsCold(mcp, { pattern: "quoll" });
        await sameAsCold(mcp, { pattern: "quoll", respect_gitignore: false });
        // Under the watch, a file made where the change was, and one in a new directory there.
        late++;
        writeFileSync(join(later(), `late${late}.ts`), `const quollLate = ${late};\n`);
        mkdirSync(join(later(), `new${late}`));
        writeFileSync(join(later(), `new${late}`, "deep.ts"), `const quollLate = ${late};\n`);
        await Bun.sleep(100);
        const got = await sameAsCold(mcp, { pattern: "quollLate" });
        expect({ what, files: (got.results as unknown[]).length }).toEqual({ what, files: 2 * late });
        expect(await checks(mcp)).toMatchObject({ mode: "watch" });
        await sameAsCold(mcp, { pattern: "quoll", respect_gitignore: false });
      } finally {
        await mcp.close();
      }
    }
  }, 240_000);

  test("the files stat'ed on a second thread as their directories are watched: an edit before the watch is seen", async () => {
    // The stat worker is given the files as the server loads the index, and may stat each only once the watch's
    // set-up has added its directory's watch: an edit made after the load and before the watch (held back by
    // the gate, long enough for a worker that did not wait to stat every file) is seen by that stat.
    const edited = fileOf(subOf("pkg5"));
    const text = readFileSync(edited, "utf8");
    const gate = join(cache, "watch-gate");
    rmSync(gate, { force: true });
    const mcp = await server({ RGLOB_TEST_WATCH_GATE: gate });
    try {
      expect((await ready(mcp)).watching).toBe(false);
      await Bun.sleep(1500);
      const before = statSync(edited);
      writeFileSync(edited, `${text}const quollBeforeWatch = 1;\n`);
      utimesSync(edited, before.atime, before.mtime);
      writeFileSync(gate, "");
      const w = await checkedOnceWatched(mcp);
      const [, changed, aside] =
        /: (\d+) of \d+ files changed since it was written \((\d+) stat'ed on a second thread as their directories were watched\)/.exec(
          w.reason ?? "",
        ) ?? [];
      // The edited file at least (the changes of the test before, made while no server ran, add up).
      expect({ changed: Number(changed) >= 1, aside: Number(aside) > 0 }).toEqual({
        changed: true,
        aside: true,
      });
      expect(((await sameAsCold(mcp, { pattern: "quollBeforeWatch" })).results as unknown[]).length).toBe(1);
      expect(await checks(mcp)).toMatchObject({ mode: "watch" });
      await sameAsCold(mcp, { pattern: "quoll" });
    } finally {
      await mcp.close();
      writeFileSync(edited, text);
      rmSync(gate, { force: true });
    }
  }, 240_000);
});

describe("a restarted server answers from the walk `rglob index` wrote", () => {
  let dir: string;
  let cache: string;
  const { server, sameAsCold } = restarts(() => ({ dir, cache }));
  const checks = async (mcp: McpSession) => (await warm(mcp)).checks ?? { mode: "", given: -1 };
  /** The first file of a package directory's first subdirectory (sorted names). */
  const fileIn = (pkg: string) => {
    const sub = join(dir, pkg, readdirSync(join(dir, pkg)).sort()[0] as string);
    return join(sub, readdirSync(sub).sort()[0] as string);
  };

  beforeAll(async () => {
    dir = realpathSync(makeTree(80));
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    // The walk is written only when what it depends on changed over two seconds before (racy stats).
    await Bun.sleep(2100);
    const { json } = rglobJson(["index", "--json"], { cwd: dir, env: { RGLOB_CACHE_DIR: cache } });
    expect((json.results as Array<{ state: string }>)[0]?.state).toBe("built");
    const { json: status } = rglobJson(["index", "--status", "--json"], {
      cwd: dir,
      env: { RGLOB_CACHE_DIR: cache },
    });
    expect((status.results as Array<{ walk: string | null }>)[0]?.walk).toBe("fresh");
  }, 240_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  test("its walk is the default walk before and once the watch is trusted; edits while no server ran are seen", async () => {
    // While no server runs: a file gains a literal (its directory stays as it was: the walk still holds).
    writeFileSync(fileIn("pkg3"), `${readFileSync(fileIn("pkg3"), "utf8")}const wombatWhileDown = 1;\n`);
    const gate = join(cache, "watch-gate");
    rmSync(gate, { force: true });
    const mcp = await server({ RGLOB_TEST_WATCH_GATE: gate });
    try {
      const w = await ready(mcp);
      expect({ state: w.state, watching: w.watching }).toEqual({ state: "ready", watching: false });
      // Before the watch: the walk `rglob index` wrote is replayed (its paths stat'ed), not a walk of the tree.
      expect(((await sameAsCold(mcp, { pattern: "wombatWhileDown" })).results as unknown[]).length).toBe(1);
      expect(await checks(mcp)).toMatchObject({ mode: "stat" });
      expect((await checks(mcp)).given).toBeGreaterThan(0);
      await sameAsCold(mcp, { pattern: "nodeScope" });
      writeFileSync(gate, "");
      const trusted = await checkedOnceWatched(mcp);
      expect(trusted.reason).toMatch(/; the default walk is the one written with the index$/);
      await sameAsCold(mcp, { pattern: "wombatWhileDown" });
      expect(await checks(mcp)).toMatchObject({ mode: "watch" });
      expect((await checks(mcp)).given).toBeGreaterThan(0);
      // A new file under the watch.
      writeFileSync(join(dir, "pkg4", "newer.ts"), "const wombatWhileDown = 2;\n");
      await Bun.sleep(100);
      expect(((await sameAsCold(mcp, { pattern: "wombatWhileDown" })).results as unknown[]).length).toBe(2);
      await sameAsCold(mcp, { pattern: "NODE_SCOPE", ignore_case: true });
    } finally {
      await mcp.close();
    }
  }, 240_000);
});

describe("a restarted server's first queries stat on two threads before the watch is set up", () => {
  let dir: string;
  let cache: string;
  const { server, sameAsCold, written } = restarts(() => ({ dir, cache }));
  const files: string[] = [];
  /** A same-size rewrite with the mtime put back: only the ctime tells (the index rules the file out). */
  const sneak = (rel: string, word: string) => {
    const p = join(dir, rel);
    const before = statSync(p);
    const text = readFileSync(p, "utf8");
    writeFileSync(p, `${word}${text.slice(word.length)}`);
    utimesSync(p, before.atime, before.mtime);
  };

  beforeAll(async () => {
    // Over 4,096 files: the stat worker takes part (fewer are stat'ed on one thread).
    dir = realpathSync(mkdtempSync(join(tmpdir(), "rglob-scale-two-")));
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    for (let d = 0; d < 50; d++) {
      mkdirSync(join(dir, `d${String(d).padStart(2, "0")}`));
      for (let f = 0; f < 100; f++) {
        const rel = `d${String(d).padStart(2, "0")}/f${String(f).padStart(3, "0")}.ts`;
        writeFileSync(join(dir, rel), `alpha ${d} ${f}\n`);
        files.push(rel);
      }
    }
    ageTree(dir);
    await Bun.sleep(2100);
    const mcp = await server();
    try {
      expect((await ready(mcp)).state).toBe("ready");
      await written();
    } finally {
      await mcp.close();
    }
  }, 240_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  // With RGLOB_STAT_SPLIT=worker every check of such a query is the worker's: a wrong answer of its shows.
  test.each(["both", "worker"])(
    "edits while no server ran and after the restart (stats on %s): the cold answers",
    async (split) => {
      const word = `omega${split}`;
      sneak(files[4990] as string, word);
      const gate = join(cache, `watch-gate-${split}`);
      rmSync(gate, { force: true });
      const mcp = await server({ RGLOB_TEST_WATCH_GATE: gate, RGLOB_STAT_SPLIT: split });
      try {
        const w = await ready(mcp);
        expect({ state: w.state, watching: w.watching }).toEqual({ state: "ready", watching: false });
        const found = await sameAsCold(mcp, { pattern: word, files_with_matches: true });
        expect(found.results as unknown[]).toHaveLength(1);
        expect((await warm(mcp)).checks).toMatchObject({ mode: "stat" });
        expect((await warm(mcp)).checks?.stat_checks).toBeGreaterThan(4000);
        // After the restart, before the watch: a file early and one late in the walk, and a new file.
        sneak(files[3] as string, word);
        sneak(files[2600] as string, word);
        expect((await sameAsCold(mcp, { pattern: word, files_with_matches: true })).results).toHaveLength(3);
        writeFileSync(join(dir, "d10", `new-${split}.ts`), `${word} new\n`);
        expect((await sameAsCold(mcp, { pattern: word, files_with_matches: true })).results).toHaveLength(4);
        await sameAsCold(mcp, { pattern: "alpha 7 9", count: true });
        writeFileSync(gate, "");
        await checkedOnceWatched(mcp);
        expect((await sameAsCold(mcp, { pattern: word, files_with_matches: true })).results).toHaveLength(4);
      } finally {
        await mcp.close();
      }
    },
    240_000,
  );
});

// A file with another hard link outside the tree, written through that name, sends the tree's watch no event
// (ADR 0032, "Other hard links"): a server reads such a file at each query. The link count is what the index saw
// when it read the file, so a restarted server must know it from the index file, whoever wrote it.
describe("a restarted server reads a file with another hard link at each query", () => {
  let dir: string;
  let cache: string;
  let outside: string;
  const { server, sameAsCold, written } = restarts(() => ({ dir, cache }));

  /** A tree with `linked.txt`, whose other name is outside it (aged: not a racy stat). */
  const linkedTree = (): { linked: string; alias: string } => {
    dir = realpathSync(makeTree(30));
    cache = mkdtempSync(join(tmpdir(), "rglob-scale-cache-"));
    outside = mkdtempSync(join(tmpdir(), "rglob-scale-outside-"));
    const linked = join(dir, "linked.txt");
    const alias = join(outside, "alias.txt");
    writeFileSync(linked, "const plainText = 1;\n");
    linkSync(linked, alias);
    ageTree(dir);
    return { linked, alias };
  };
  afterEach(() => {
    for (const d of [dir, cache, outside]) rmSync(d, { recursive: true, force: true });
  });

  /** A restarted server, its index checked once watched, then a write through the outside name. */
  async function writtenThroughAlias(alias: string): Promise<void> {
    const mcp = await server();
    try {
      await checkedOnceWatched(mcp);
      await sameAsCold(mcp, { pattern: "plainText" });
      appendFileSync(alias, "const wombatThroughAlias = 1;\n");
      await Bun.sleep(100);
      const found = await sameAsCold(mcp, { pattern: "wombatThroughAlias" });
      expect((found.results as unknown[]).length).toBe(1);
      expect((await warm(mcp)).checks).toMatchObject({ mode: "watch" });
    } finally {
      await mcp.close();
    }
  }

  test("the index a first server wrote", async () => {
    const { alias } = linkedTree();
    const first = await server();
    try {
      expect((await ready(first)).state).toBe("ready");
      await written();
    } finally {
      await first.close();
    }
    await writtenThroughAlias(alias);
  }, 240_000);

  test("the index `rglob index` wrote", async () => {
    const { alias } = linkedTree();
    const { json } = rglobJson(["index", "--json"], { cwd: dir, env: { RGLOB_CACHE_DIR: cache } });
    expect((json.results as Array<{ state: string }>)[0]?.state).toBe("built");
    await writtenThroughAlias(alias);
  }, 240_000);
});
