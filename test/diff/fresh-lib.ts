/*! The freshness differential (#34), shared by test/diff/fresh-differential.test.ts (bounded, one case per
 * change class) and scripts/fuzz-fresh.ts (long runs): a real git repository with two branches, indexed with
 * `rglob index` and served by `rglob mcp` (the SDK's client over stdio), which a second process
 * (test/diff/fresh-editor.ts) changes in one class at a time. After each batch of changes every warm answer (the
 * MCP tools) and every persisted-index answer (`rglob grep` in the tree) is compared with the cold one: the CLI
 * with RGLOB_INDEX=0, a fresh process with no warm state. The whole result must be equal (records in walk
 * order, errors, skip counts, totals, cursors); only `source` and bytes_read (the index reads fewer files, so
 * never more) may differ. With `served`, the warm answers are CLI calls in the tree answered by `rglob serve`
 * (`served: "mcp"`: by the `rglob mcp` the SDK's client keeps open, which serves the CLI in its root)
 * (ADR 0033) instead of MCP tool calls. Not a test file (no .test.ts). */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { findOperation } from "../../src/ops/registry.ts";
import { BIN, prng, readPastQueue } from "../helpers.ts";
import { argvOf, type McpSession, startMcp } from "../surface/mcp-helpers.ts";
import { changer } from "./fresh-changes.ts";
import { wordText } from "./index-corpus.ts";

/** The change classes, each a case of the test (and of `mixed`, which draws from most of them). */
export const CLASSES = [
  "edit",
  "append",
  "truncate",
  "rename-replace",
  "same-size",
  "hardlink-outside",
  "hardlink-inside",
  "mmap",
  "mmap-held",
  "mmap-open",
  "hardlink-later",
  "create-delete",
  "dir-rename",
  "ancestor-rename",
  "root-recreate",
  "gitignore",
  "git-checkout",
  "non-utf8",
  "long-paths",
  "overflow",
] as const;

/** Classes whose changes only the warm server is asked to see (ADR 0032: the persisted index's residual). */
const WARM_ONLY: ReadonlySet<string> = new Set(["mmap-held"]);

/** What one class does to the tree (printed with its results). */
export const CLASS_NOTES: Readonly<Record<string, string>> = {
  edit: "a file rewritten in place (another size)",
  append: "a line appended (same inode)",
  truncate: "a file truncated in place",
  "rename-replace": "saved through a rename (a temporary file renamed over it)",
  "same-size": "rewritten twice with the same size, atime and mtime put back to the ns (touch -r)",
  "hardlink-outside": "a store file outside the tree edited in place; its hard link in the tree shows it",
  "hardlink-inside": "one of two names of a file inside the tree edited; the other shows it",
  mmap: "bytes written through a MAP_SHARED mapping and msync'd (no write(2))",
  "mmap-held":
    "bytes written through a MAP_SHARED mapping made (its page dirtied) before the server started, descriptor closed, no msync (no event, no time change); warm server only",
  "mmap-open":
    "bytes written through MAP_SHARED mappings made while serving and kept open, no msync; now and then one let go",
  "hardlink-later": "a hard link made in the tree while serving, written through its new name in place",
  "create-delete": "files and directories created and deleted",
  "dir-rename": "directories renamed, moved and swapped",
  "ancestor-rename": "the root's parent moved away and a fresh copy put at its path, then edited",
  "root-recreate": "the root deleted (or moved away) and made again, then edited",
  gitignore: "nested .gitignore/.ignore files with negated rules written and removed",
  "git-checkout": "git checkout -f of the other branch (or back)",
  "non-utf8": "files and directories named with bytes that are not UTF-8, created, edited and renamed",
  "long-paths": "files past 4096 bytes of path (a chain of 24 directories) edited and created",
  overflow:
    "mixed changes made while the server is stopped (SIGSTOP) and its watch's queue overflows (the tree read past fs.inotify.max_queued_events)",
  mixed: "a random class each change",
};

/** The greps asked of the warm server (MCP input; the same as CLI flags for the cold answer). */
const WARM_GREPS: ReadonlyArray<Record<string, unknown>> = [
  { pattern: "zeta42" },
  { pattern: "quartz", files_with_matches: true },
  { pattern: "needle", ignore_case: true },
  { pattern: "NEEDLE", ignore_case: true, word_regexp: true },
  { pattern: "zeta42", count: true },
  { pattern: "qu[a]rtz|zeta4[2]" },
  { pattern: "caf\u00e9" },
  { pattern: "quartz", files_without_match: true },
  { pattern: "haystack", patterns: ["*.txt"] },
  { pattern: "zeta42", respect_gitignore: false },
  { pattern: "alpha beta" },
  // `in` counts the files it cannot lex (.txt, .md, .log: unknown_language) among those the index rules out too.
  { pattern: "zeta42", in: ["comment"], by: "language" },
  { pattern: "zeta42", also: [{ pattern: "quartz" }] },
  { pattern: "needle", ignore_case: true, count: true, also: [{ pattern: "zeta42", not: true }] },
  { pattern: "quartz", files_without_match: true, also: [{ pattern: "haystack" }] },
];

/** The other walking tools, which replay the server's remembered walks. */
const WARM_WALKS: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  ["find", "find_files", {}],
  ["find", "find_files", { patterns: ["*.txt"] }],
  ["find", "find_files", { types: ["d"] }],
  ["count", "count_lines", {}],
  ["tree", "directory_tree", {}],
];

/** The greps run on the CLI in the tree (a plain grep replays the walk recorded with the index). */
const INDEX_GREPS: ReadonlyArray<readonly string[]> = [
  ["zeta42"],
  ["-i", "NEEDLE"],
  ["-l", "quartz"],
  ["-c", "zeta42"],
  ["-w", "needle"],
  ["qu[a]rtz|zeta4[2]"],
  ["-l", "caf\u00e9"],
  ["--files-without-match", "quartz"],
  ["--in", "comment", "--by", "language", "zeta42"],
  ["haystack"],
  ["-l", "zeta42", "--also", "quartz"],
  ["--files-without-match", "quartz", "--without", "zeta42"],
];

/** One difference: where, after what, and how the answers differ. */
export interface Difference {
  readonly cls: string;
  readonly round: number;
  /** warm: the warm server against the cold CLI; index: `rglob grep` with the index against RGLOB_INDEX=0. */
  readonly surface: "warm" | "index";
  readonly query: string;
  readonly after: string;
  readonly how: string;
}

/** The counts of a run of one class. */
export interface ClassReport {
  readonly cls: string;
  readonly rounds: number;
  compared: number;
  /** Changes the editor made. */
  changes: number;
  readonly sources: Record<string, number>;
  readonly differences: Difference[];
  /** What the set-up did, and the rounds' changes. */
  readonly log: string[];
  /**
   * How many times the server's log said its watch was repaired after its queue overflowed (null: its log is not
   * read, `rglob serve --detach`'s).
   */
  repairs: number | null;
}

/** How a run goes: seed, rounds, changes a round, and whether the editor runs while queries are in flight. */
export interface FreshOptions {
  readonly seed: number;
  readonly rounds: number;
  /** Changes a round: 1 to this many. */
  readonly changes?: number;
  /** Warm greps, walks and index greps a round. */
  readonly warmGreps?: number;
  readonly warmWalks?: number;
  readonly indexGreps?: number;
  /** Let the editor change the tree while queries are in flight, then stop it and compare. */
  readonly concurrent?: boolean;
  /** Ask each walking tool twice a round (a walk remembered, then replayed). */
  readonly walkTwice?: boolean;
  /** Run `rglob index` again every this many rounds (0: never). */
  readonly reindexEvery?: number;
  /**
   * The warm answers from CLI calls in the tree instead of the MCP server's tools: served by `rglob serve`
   * (true), or by the `rglob mcp` of the run ("mcp").
   */
  readonly served?: boolean | "mcp";
}

/** The environment of the served CLI calls and of their server (the same RGLOB_* settings, or it declines). */
const servedEnv = (cache: string): Record<string, string> => ({ RGLOB_CACHE_DIR: cache, RGLOB_INDEX: "0" });

/** A stable number of a class name, mixed into the seed so that each class has its own sequence. */
const classSeed = (seed: number, cls: string): number => {
  let h = seed >>> 0;
  for (const c of cls) h = Math.imul(h ^ c.charCodeAt(0), 0x9e3779b1) >>> 0;
  return h;
};

/**
 * Runs a process to its end without blocking the others (runs overlap: the cold answers of a round are
 * computed together, and the trees are prepared together).
 */
async function spawn(cmd: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const p = Bun.spawn([...cmd], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  if (code !== 0 && cmd[0] !== BIN) throw new Error(`${cmd.join(" ")} (exit ${code}): ${err}`);
  if (cmd[0] === BIN && code === 2 && !out.startsWith("{"))
    throw new Error(`${cmd.join(" ")}: ${err.slice(0, 500)}`);
  return out;
}

/** Runs the compiled binary and parses its JSON. */
async function rglobJson(args: readonly string[], cwd: string, env: Record<string, string>) {
  const out = await spawn([BIN, ...args], cwd, env);
  try {
    return JSON.parse(out) as Record<string, unknown>;
  } catch {
    throw new Error(`rglob ${args.join(" ")}: not JSON: ${out.slice(0, 300)}`);
  }
}

const git = (args: string[], cwd: string) =>
  spawn(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", ...args], cwd, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  });

/**
 * Makes the repository every class's tree is a copy of: four directories of files of words, a `.gitignore`, and
 * two branches (`other`: a file with the new words, a directory removed, one added and one renamed, another
 * `.gitignore`), `main` checked out.
 * @param seed the seed
 * @returns its directory (remove its parent when done)
 */
export async function makeRepository(seed: number): Promise<string> {
  const root = join(realpathSync(mkdtempSync(join(tmpdir(), "rglob-fresh-repo-"))), "proj");
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  for (let d = 0; d < 4; d++) {
    for (let f = 0; f < 8; f++) {
      const rel = `dir${d}/${d % 2 === 0 ? `inner${f % 3}/` : ""}f${f}${pick([".txt", ".md", ".log", ".js"])}`;
      mkdirSync(join(root, rel, ".."), { recursive: true });
      writeFileSync(join(root, rel), wordText(rand));
    }
  }
  writeFileSync(join(root, ".gitignore"), "*.log\n");
  await git(["init", "-q", "-b", "main"], root);
  await git(["add", "-A"], root);
  await git(["commit", "-qm", "base"], root);
  await git(["checkout", "-qb", "other"], root);
  writeFileSync(join(root, "dir0", "f0.txt"), "quartz zeta42 on the other branch\nneedle\n");
  rmSync(join(root, "dir1"), { recursive: true });
  mkdirSync(join(root, "dir9"));
  writeFileSync(join(root, "dir9", "only-other.txt"), "zeta42 haystack\n");
  renameSync(join(root, "dir2"), join(root, "dir2b"));
  writeFileSync(join(root, ".gitignore"), "*.md\n");
  await git(["add", "-A"], root);
  await git(["commit", "-qm", "other"], root);
  await git(["checkout", "-q", "main"], root);
  return root;
}

/** The tree, the server and the editor of one class's run. */
export class FreshTree {
  readonly outer: string;
  readonly root: string;
  readonly cache: string;
  readonly seed: number;
  mcp!: McpSession;
  /** Serve the tree with `rglob serve` (its CLI calls) rather than `rglob mcp`. */
  served = false;
  /** Serve the tree's CLI calls by its `rglob mcp` (started with the CLI calls' RGLOB_* settings). */
  servedByMcp = false;
  private editor!: ReturnType<typeof Bun.spawn>;
  private editorOut!: { read(): Promise<{ value?: Uint8Array | undefined; done: boolean }> };
  private pending = "";
  private stopped = false;

  /** What the set-up did. */
  readonly log: string[] = [];

  /**
   * @param cls the change class
   * @param seed the run's seed (mixed with the class's name)
   */
  constructor(
    readonly cls: string,
    seed: number,
  ) {
    this.seed = classSeed(seed, cls);
    this.outer = realpathSync(mkdtempSync(join(tmpdir(), "rglob-fresh-")));
    this.root = join(this.outer, "work", "proj");
    this.cache = join(this.outer, "cache");
  }

  /**
   * Copies the repository (`cp -a`) and makes the class's set-up, every file aged an hour (the index leaves out
   * files modified in the last 2 s). The index build also waits until no directory changed in the last 2 s
   * (persist.ts): trees are prepared ahead of their runs.
   * @param golden the repository to copy (makeRepository)
   */
  async prepare(golden: string): Promise<FreshTree> {
    mkdirSync(join(this.outer, "work"));
    mkdirSync(this.cache);
    await spawn(["cp", "-a", golden, this.root], this.outer);
    // What the root is made again from (root-recreate).
    await spawn(["cp", "-a", this.root, join(this.outer, "template")], this.outer);
    const c = changer(this.outer, this.root, this.seed);
    this.log.push(`setup: ${c.setup(this.cls)}; ${c.age()}`);
    return this;
  }

  /** Indexes the tree, serves it, and starts the editor. */
  async start(log: string[]): Promise<void> {
    const t0 = performance.now();
    const ms = () => `${Math.round(performance.now() - t0)} ms`;
    this.editor = Bun.spawn(
      [process.execPath, join(import.meta.dir, "fresh-editor.ts"), this.outer, this.root, String(this.seed)],
      { cwd: this.outer, stdin: "pipe", stdout: "pipe", stderr: "inherit" },
    );
    this.editorOut = (this.editor.stdout as ReadableStream<Uint8Array>).getReader();
    log.push(`held: ${await this.ask(`hold ${this.cls}`)}`);
    await this.index(log);
    log.push(`indexed at ${ms()}`);
    if (this.served) {
      await spawn([BIN, "serve", "--detach", "--idle-seconds", "3600"], this.root, servedEnv(this.cache));
      const warm = await this.settledWarm(400);
      log.push(`rglob serve ${warm?.state} at ${ms()}: ${JSON.stringify(warm)}`);
      return;
    }
    this.mcp = await startMcp(
      ["--root", this.root],
      this.servedByMcp
        ? { cwd: this.outer, env: { ...servedEnv(this.cache), RGLOB_SERVE: "" } }
        : { cwd: this.outer },
    );
    const warm = await this.settledWarm(400);
    log.push(`server ${warm?.state} at ${ms()}: ${JSON.stringify(warm)}`);
  }

  /** `rglob index` in the tree. */
  async index(log: string[]): Promise<void> {
    const json = await rglobJson(["index", "--json"], this.root, { RGLOB_CACHE_DIR: this.cache });
    const r = (json.results as Array<Record<string, unknown>>)[0] ?? {};
    log.push(`index: ${r.state} ${r.files} files, walk ${r.walk}`);
  }

  /** Sends the editor a line and waits for its answer. */
  async ask(line: string): Promise<string> {
    const stdin = this.editor.stdin as import("bun").FileSink;
    stdin.write(`${line}\n`);
    stdin.flush();
    for (;;) {
      const nl = this.pending.indexOf("\n");
      if (nl >= 0) {
        const got = this.pending.slice(0, nl);
        this.pending = this.pending.slice(nl + 1);
        if (got.startsWith("done ")) return got.slice(5);
        continue;
      }
      const { value, done } = await this.editorOut.read();
      if (done) throw new Error("the editor ended");
      this.pending += new TextDecoder().decode(value);
    }
  }

  /** Starts the editor's changes (`run`), which go on until `ask("stop")`. */
  async run(): Promise<void> {
    await this.ask(`run ${this.cls}`);
  }

  private async warmStatus(): Promise<{ state: string; reason: string | null } | undefined> {
    if (this.served) {
      const status = await rglobJson(["index", "--status", "--json"], this.outer, servedEnv(this.cache));
      const servers = (status.results as Array<{ servers: Array<{ state: string; root: string }> }>)[0]
        ?.servers;
      const mine = servers?.find((s) => s.root === this.root);
      return mine === undefined ? undefined : { state: mine.state, reason: null };
    }
    const res = await this.mcp.client.readResource({ uri: "rglob://capabilities" });
    return (
      JSON.parse((res.contents[0] as { text: string }).text) as {
        mcp: { warm?: Array<{ state: string; reason: string | null }> };
      }
    ).mcp.warm?.[0];
  }

  /** Waits (up to `polls` times 25 ms) until the root's warm state is no longer building. */
  async settledWarm(polls: number): Promise<{ state: string; reason: string | null } | undefined> {
    for (let i = 0; i < polls && (await this.warmStatus())?.state === "building"; i++) await Bun.sleep(25);
    return this.warmStatus();
  }

  /** The process id of the server that keeps the tree warm (rglob mcp's, or rglob serve's). */
  async serverPid(): Promise<number> {
    if (!this.served) {
      const pid = this.mcp.pid();
      if (pid === null) throw new Error("rglob mcp has ended");
      return pid;
    }
    const status = await rglobJson(["index", "--status", "--json"], this.outer, servedEnv(this.cache));
    const servers = (status.results as Array<{ servers: Array<{ pid: number; root: string }> }>)[0]?.servers;
    const pid = servers?.find((s) => s.root === this.root)?.pid;
    if (pid === undefined) throw new Error("no rglob serve for the tree");
    return pid;
  }

  /**
   * Makes the editor's changes while the server is stopped (SIGSTOP) after the tree's files were read until the
   * server's watch's queue overflowed (an open and a close event each read, half again the queue's limit): their
   * events are lost, and the server goes on (SIGCONT) to find what changed by itself.
   * @param line what the editor is asked
   * @returns its answer
   */
  async askOverflowed(line: string): Promise<string> {
    // Linux's inotify: elsewhere the server's watch has no such queue, and the changes are made as `mixed`'s.
    if (process.platform !== "linux") return await this.ask(line);
    const pid = await this.serverPid();
    const files = (
      await spawn(["find", ".", "-path", "./.git", "-prune", "-o", "-type", "f", "-print"], this.root)
    )
      .split("\n")
      .filter((f) => f.length > 0 && Buffer.byteLength(f) < 4000)
      .map((f) => join(this.root, f));
    process.kill(pid, "SIGSTOP");
    try {
      readPastQueue(files);
      return await this.ask(line);
    } finally {
      process.kill(pid, "SIGCONT");
    }
  }

  /** Ends the editor and the server and removes the tree (a tree only prepared too). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.editor?.kill();
    await this.mcp?.close();
    if (this.served) {
      mkdirSync(this.root, { recursive: true });
      await spawn([BIN, "serve", "--stop", "--base", this.root], this.outer, servedEnv(this.cache));
    }
    // `rm -rf`: the deep chain is past what a path may name.
    await spawn(["rm", "-rf", this.outer], tmpdir());
  }
}

/** Where two results differ, in a line: records missing and extra (by path and line), then other fields. */
function howTheyDiffer(got: Record<string, unknown>, cold: Record<string, unknown>): string {
  const key = (r: Record<string, unknown>) =>
    `${String(r.relative_path ?? r.path ?? "")}${r.line_number !== undefined ? `:${r.line_number}` : ""}${
      r.count !== undefined ? `=${r.count}` : r.lines !== undefined ? `=${r.lines}` : ""
    }`;
  const g = ((got.results as Array<Record<string, unknown>>) ?? []).map(key);
  const c = ((cold.results as Array<Record<string, unknown>>) ?? []).map(key);
  const gs = new Set(g);
  const cs = new Set(c);
  const missing = c.filter((k) => !gs.has(k));
  const extra = g.filter((k) => !cs.has(k));
  const parts: string[] = [];
  const short = (xs: string[]) =>
    xs
      .slice(0, 3)
      .map((x) => (x.length > 90 ? `${x.slice(0, 40)}…${x.slice(-40)}` : x))
      .join(", ") + (xs.length > 3 ? ` (+${xs.length - 3})` : "");
  if (missing.length > 0) parts.push(`missing ${short(missing)}`);
  if (extra.length > 0) parts.push(`extra ${short(extra)}`);
  if (missing.length === 0 && extra.length === 0 && JSON.stringify(g) !== JSON.stringify(c))
    parts.push("records in another order or with other fields");
  for (const k of new Set([...Object.keys(got), ...Object.keys(cold)])) {
    if (k === "results") continue;
    if (JSON.stringify(got[k]) !== JSON.stringify(cold[k]))
      parts.push(
        `${k}: ${JSON.stringify(got[k])?.slice(0, 160)} vs cold ${JSON.stringify(cold[k])?.slice(0, 160)}`,
      );
  }
  return parts.join("; ") || "equal";
}

/** An operation's agent defaults (what the MCP server applies to a call), written out for both sides. */
const agentDefaults = (opId: string): Record<string, unknown> => ({ ...findOperation(opId).agentDefaults });

/**
 * Runs one class: the tree set up, then `rounds` rounds of changes and queries, each answer compared with the
 * cold one.
 * @param cls the class
 * @param o the seed, rounds and sizes
 * @param onRound called after each round (progress of long runs)
 * @param prepared the class's tree, prepared ahead (FreshTree.prepare); else prepared now
 * @returns the counts and differences
 */
export async function runClass(
  cls: string,
  o: FreshOptions,
  onRound?: (report: ClassReport, round: number) => void,
  prepared?: FreshTree,
): Promise<ClassReport> {
  const t = prepared ?? (await prepareAll([cls], o.seed)).get(cls);
  if (t === undefined) throw new Error(`no tree for ${cls}`);
  t.served = o.served === true;
  t.servedByMcp = o.served === "mcp";
  const rand = prng(t.seed ^ 0x5eed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const report: ClassReport = {
    cls,
    rounds: o.rounds,
    compared: 0,
    changes: 0,
    sources: {},
    differences: [],
    log: [...t.log],
    repairs: null,
  };
  const base = {
    base: t.root,
    hidden: true,
    strict_base: true,
    limit: 5000,
    max_output_bytes: 5_000_000,
    timeout_seconds: 30,
  };
  // RGLOB_SERVE=0: a cold answer is never a served one (with `served`, a server keeps the tree).
  const coldEnv = { RGLOB_CACHE_DIR: t.cache, RGLOB_INDEX: "0", RGLOB_SERVE: "0" };
  let after = "setup";
  let round = -1;

  // Each comparison's cold answer runs beside the next calls; a round waits for them all before the next changes.
  let jobs: Array<Promise<void>> = [];
  /** The cold answer: the CLI (a fresh process, no index) with the same input. */
  const coldAnswer = (opId: string, input: Record<string, unknown>) =>
    rglobJson([opId, "--json", ...argvOf(findOperation(opId), input)], t.outer, coldEnv);
  /** The warm answer: an MCP tool call, or (served) the CLI run in the tree, answered by `rglob serve` or mcp. */
  const warmAnswer = async (opId: string, tool: string, input: Record<string, unknown>) =>
    o.served
      ? await rglobJson([opId, "--json", ...argvOf(findOperation(opId), input)], t.root, servedEnv(t.cache))
      : (((await t.mcp.client.callTool({ name: tool, arguments: input })) as CallToolResult)
          .structuredContent as Record<string, unknown>);
  const warmGrep = async (q: Record<string, unknown>, compare: boolean) => {
    const input = { ...agentDefaults("grep"), ...q, ...base };
    const coldRun = compare ? coldAnswer("grep", input) : null;
    const res = await warmAnswer("grep", "grep_content", input);
    if (coldRun === null) return;
    jobs.push(coldRun.then((cold) => compareGrep(q, res, cold)));
  };
  const compareGrep = (
    q: Record<string, unknown>,
    res: Record<string, unknown>,
    cold: Record<string, unknown>,
  ) => {
    const warm = { ...res };
    // A served call that ran cold (the server declined it) has no source.
    const source = `${o.served === "mcp" ? "mcp-served" : o.served ? "served" : "warm"}:${String(warm.source)}`;
    report.sources[source] = (report.sources[source] ?? 0) + 1;
    delete warm.source;
    if (typeof warm.bytes_read === "number" && warm.bytes_read <= (cold.bytes_read as number))
      warm.bytes_read = cold.bytes_read;
    note("warm", `grep_content ${JSON.stringify(q)}`, warm, cold);
  };
  const warmWalk = async ([opId, tool, extra]: readonly [string, string, Record<string, unknown>]) => {
    const input = { ...agentDefaults(opId), ...base, ...extra };
    // Once, or twice: the first may walk and remember, the second replays.
    const coldRun = coldAnswer(opId, input);
    for (let n = 0; n < (o.walkTwice ? 2 : 1); n++) {
      const res = await warmAnswer(opId, tool, input);
      jobs.push(coldRun.then((cold) => note("warm", `${tool} ${JSON.stringify(extra)}`, res, cold)));
    }
  };
  const indexGrep = (argv: readonly string[]) => {
    // The persisted index proves files unchanged by their stat words alone (ADR 0028): writes to a page a
    // mapping made before it dirtied change no time, a residual it documents.
    if (WARM_ONLY.has(cls)) return;
    const args = ["grep", "--json", ...argv];
    jobs.push(
      Promise.all([
        rglobJson(args, t.root, coldEnv),
        rglobJson(args, t.root, { RGLOB_CACHE_DIR: t.cache, RGLOB_SERVE: "0" }),
      ]).then(([cold, hot]) => compareIndex(args, cold, hot)),
    );
  };
  const compareIndex = (
    args: readonly string[],
    cold: Record<string, unknown>,
    hot: Record<string, unknown>,
  ) => {
    const source = `index:${String(hot.source)}`;
    report.sources[source] = (report.sources[source] ?? 0) + 1;
    delete hot.source;
    if (typeof hot.bytes_read === "number" && hot.bytes_read <= (cold.bytes_read as number))
      hot.bytes_read = cold.bytes_read;
    note("index", `rglob ${args.filter((x) => x !== "--json").join(" ")}`, hot, cold);
  };
  const note = (
    surface: Difference["surface"],
    query: string,
    got: Record<string, unknown>,
    cold: Record<string, unknown>,
  ) => {
    report.compared++;
    if (JSON.stringify(got) === JSON.stringify(cold)) return;
    report.differences.push({ cls, round, surface, query, after, how: howTheyDiffer(got, cold) });
  };

  const settle = async () => {
    const all = jobs;
    jobs = [];
    await Promise.all(all);
  };

  try {
    const t0 = performance.now();
    await t.start(report.log);
    report.log.push(`set up in ${Math.round(performance.now() - t0)} ms`);
    // Round -1: the answers before any change, which also leaves remembered walks to replay.
    for (const q of WARM_GREPS.slice(0, 2)) await warmGrep(q, true);
    await warmWalk(WARM_WALKS[0] as (typeof WARM_WALKS)[number]);
    indexGrep(INDEX_GREPS[0] as readonly string[]);
    await settle();
    for (round = 0; round < o.rounds; round++) {
      const n = 1 + Math.floor(rand() * (o.changes ?? 3));
      const greps = Array.from({ length: o.warmGreps ?? 2 }, () => pick(WARM_GREPS));
      const walks = Array.from({ length: o.warmWalks ?? 1 }, () => pick(WARM_WALKS));
      const indexed = Array.from({ length: o.indexGreps ?? 2 }, () => pick(INDEX_GREPS));
      if (o.concurrent) {
        // The editor changes the tree while these are answered (not compared: the tree moves under both).
        await t.run();
        // A served call runs in the root, which the editor may have moved away or deleted at that moment (the
        // root's and its ancestor's classes): the process cannot start there (posix_spawn says ENOENT, the
        // binary being there), and nothing is compared anyway.
        const unstarted = (err: unknown) => {
          if (!(o.served && (err as { code?: string }).code === "ENOENT" && existsSync(BIN))) throw err;
        };
        for (const q of greps) await warmGrep(q, false).catch(unstarted);
        for (const w of walks) await warmAnswer(w[0], w[1], { ...base, ...w[2] }).catch(unstarted);
        after = await t.ask("stop");
      } else if (cls === "overflow") after = await t.askOverflowed(`edit ${cls} ${n}`);
      else after = await t.ask(`edit ${cls} ${n}`);
      report.log.push(`round ${round}: ${after}`);
      report.changes += (JSON.parse(after) as unknown[]).length;
      if (after.length > 2000) after = `${after.slice(0, 2000)}…`;
      if (o.reindexEvery && round % o.reindexEvery === o.reindexEvery - 1) await t.index(report.log);
      for (const argv of indexed) indexGrep(argv);
      for (const q of greps) await warmGrep(q, true);
      for (const w of walks) await warmWalk(w);
      await settle();
      report.log.push(`round ${round} done at ${Math.round(performance.now() - t0)} ms`);
      onRound?.(report, round);
    }
  } finally {
    if (!t.served && t.mcp !== undefined)
      report.repairs =
        t.mcp.stderr().split("the watch's queue overflowed: the watch was repaired").length - 1;
    await t.stop();
  }
  return report;
}

/**
 * Prints a run's counts per class and surface.
 * @param reports the classes' reports
 * @returns the lines
 */
export function summary(reports: readonly ClassReport[]): string[] {
  const lines: string[] = [];
  for (const r of reports) {
    const warm = r.differences.filter((d) => d.surface === "warm").length;
    const index = r.differences.filter((d) => d.surface === "index").length;
    lines.push(
      `${r.cls.padEnd(17)} ${String(r.changes).padStart(5)} changes, ${String(r.compared).padStart(5)} compared, warm ${String(warm).padStart(4)} different, index ${String(index).padStart(4)} different  ${JSON.stringify(r.sources)}${r.repairs ? `, the watch repaired ${r.repairs} times` : ""}`,
    );
  }
  return lines;
}

/**
 * Prepares the trees of classes, a few at a time.
 * @param classes the classes
 * @param seed the run's seed
 * @returns each class's tree
 */
export async function prepareAll(classes: readonly string[], seed: number): Promise<Map<string, FreshTree>> {
  const trees = new Map<string, FreshTree>();
  const golden = await makeRepository(seed);
  try {
    for (let i = 0; i < classes.length; i += 4) {
      const some = classes.slice(i, i + 4).map((c) => new FreshTree(c, seed));
      await Promise.all(some.map((t) => t.prepare(golden)));
      for (const t of some) trees.set(t.cls, t);
    }
  } finally {
    rmSync(join(golden, ".."), { recursive: true, force: true });
  }
  return trees;
}
