/*! Test helpers: run the compiled binary as a real process, and build trees in temp dirs (for what git cannot
 * hold: symlink loops, unreadable dirs, FIFOs, odd names). */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The repository root. */
export const ROOT = join(import.meta.dir, "..");
/** The compiled binary (built by `npm test` before the suite runs). */
export const BIN = process.env.RGLOB_BIN ?? join(ROOT, "dist", "rglob");
/** The golden fixture tree. */
export const FIXTURE = join(ROOT, "fixtures", "tree");

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
