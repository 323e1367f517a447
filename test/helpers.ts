/*! Test helpers: run the compiled binary as a real process, and build trees in temp dirs (for what git cannot
 * hold: symlink loops, unreadable dirs, FIFOs, odd names). */
import { test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The repository root. */
export const ROOT = join(import.meta.dir, "..");
/** The compiled binary (built by `npm test` before the suite runs). */
export const BIN = process.env.RGLOB_BIN ?? join(ROOT, "dist", "rglob");
/** The golden fixture tree. */
export const FIXTURE = join(ROOT, "fixtures", "tree");

/** A test's declaration: its title, its body and its time limit. */
export type TestDeclaration = (name: string, fn: Parameters<typeof test>[1], timeout?: number) => void;

/**
 * Declares a test that cannot run here for a reason known when the file is collected (a peer tool missing, a
 * platform): skipped, with the reason in its title, so that bun's report and the summary of `npm test`
 * (scripts/test.ts lists each skipped test by title) say what did not run and why; else an ordinary test. A test
 * never returns early having asserted nothing.
 * @param why the reason it cannot run, or a falsy value when it can
 * @returns the function to declare the test with
 */
export function skipWhen(why: string | false | null | undefined): TestDeclaration {
  if (!why) return (name, fn, timeout) => test(name, fn, timeout);
  return (name, fn, timeout) => test.skip(`${name} [skipped: ${why}]`, fn, timeout);
}

/** What a process run returned. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the compiled binary.
 * @param args its arguments
 * @param opts cwd, env and stdin
 * @returns exit code and output
 */
export function rglob(
  args: readonly string[],
  opts: { cwd?: string; env?: Record<string, string>; stdin?: string; bin?: string } = {},
): Run {
  const res = Bun.spawnSync([opts.bin ?? BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : Buffer.from(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: res.exitCode ?? -1, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

/**
 * Runs the binary and parses its stdout as JSON.
 * @param args its arguments
 * @param opts as for rglob()
 * @returns the parsed JSON and the run
 */
export function rglobJson<T = Record<string, unknown>>(
  args: readonly string[],
  opts: Parameters<typeof rglob>[1] = {},
): { json: T; run: Run } {
  const run = rglob(args, opts);
  try {
    return { json: JSON.parse(run.stdout) as T, run };
  } catch {
    throw new Error(
      `not JSON (exit ${run.code}): ${run.stdout.slice(0, 500)}\nstderr: ${run.stderr.slice(0, 500)}`,
    );
  }
}

/**
 * Parses JSON Lines.
 * @param text the output
 * @returns one object per line
 */
export function jsonl(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A file tree spec: path → content (string), or { symlink: target }, or null for an empty directory. */
export type TreeSpec = Record<string, string | Uint8Array | { symlink: string } | null>;

/**
 * Creates a temp dir holding a tree.
 * @param spec the tree
 * @returns the directory and a cleanup function
 */
export function tempTree(spec: TreeSpec): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "rglob-test-"));
  for (const [rel, content] of Object.entries(spec)) {
    const abs = join(dir, rel);
    if (content === null) {
      mkdirSync(abs, { recursive: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    if (typeof content === "object" && !(content instanceof Uint8Array)) symlinkSync(content.symlink, abs);
    else writeFileSync(abs, content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Creates a seeded pseudo-random generator (mulberry32), so that a failure names the seed that reproduces it.
 * @param seed the seed
 * @returns a function returning numbers in [0, 1)
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a random walk tree is made of (randomWalkTree). */
export interface RandomWalkTree {
  /** Directories to try to make (each under a random earlier one). */
  readonly dirs: number;
  /** No directory is made below one this many levels deep (none: no limit). */
  readonly maxDepth?: number;
  /** Files to make (each in a random directory). */
  readonly files: number;
  /** Names of directories and files (a number is appended). */
  readonly names: readonly string[];
  /** A file's content. */
  content(rnd: () => number, i: number): string;
  /** Adds a directory's ignore files, if any, to the spec. */
  ignoreFiles(spec: TreeSpec, d: string, rnd: () => number, pick: <T>(xs: readonly T[]) => T): void;
  /** Adds entries to the spec before the tree is made (a deep chain). */
  more?(spec: TreeSpec): void;
  /** Adds entries once the tree exists (a bad name, a FIFO): `some` are its directories but the root. */
  after(dir: string, some: readonly string[], pick: <T>(xs: readonly T[]) => T): void;
}

/**
 * Makes a seeded random tree for the walk differentials: random directories and files with ignore files, a
 * `.git` directory, a symlink to a directory, a dangling one and a loop, plus what `o` adds.
 * @param seed the seed
 * @param o what the tree is made of
 * @returns its directory
 */
export function randomWalkTree(seed: number, o: RandomWalkTree): string {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const spec: TreeSpec = {};
  const dirs = [""];
  const exts = [".ts", ".log", ".txt", "", ".tmp", ".md"];
  for (let i = 0; i < o.dirs; i++) {
    const parent = pick(dirs);
    if (o.maxDepth !== undefined && parent.split("/").length > o.maxDepth) continue;
    const d = parent === "" ? `${pick(o.names)}${i}` : `${parent}/${pick(o.names)}${i}`;
    dirs.push(d);
    spec[d] = null;
  }
  for (let i = 0; i < o.files; i++) {
    const parent = pick(dirs);
    const f = `${pick(o.names)}${i % 7}${pick(exts)}`;
    spec[parent === "" ? f : `${parent}/${f}`] = o.content(rnd, i);
  }
  for (const d of dirs) o.ignoreFiles(spec, d, rnd, pick);
  o.more?.(spec);
  const { dir } = tempTree(spec);
  mkdirSync(join(dir, ".git"));
  const some = dirs.filter((d) => d !== "");
  symlinkSync(join(dir, pick(some)), join(dir, "link-to-dir"));
  symlinkSync("nowhere", join(dir, pick(some), "dangling"));
  symlinkSync("..", join(dir, pick(some), "loop"));
  o.after(dir, some, pick);
  return dir;
}

/**
 * Reads files until half again the kernel's limit of events queued on one inotify instance
 * (fs.inotify.max_queued_events) were made, an open and a close a read: a watcher that reads none meanwhile (a
 * server stopped with SIGSTOP) has its queue overflow. A file that cannot be read is passed over. Linux.
 * @param files the files, absolute
 */
export function readPastQueue(files: readonly string[]): void {
  const max = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"));
  for (let events = 0; events < max * 1.5 && files.length > 0; )
    for (const f of files) {
      try {
        readFileSync(f);
      } catch {}
      events += 2;
    }
}
