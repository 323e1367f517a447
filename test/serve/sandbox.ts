/*! The serve tests' sandbox: a temporary directory with its own cache directory (and so its own servers'
 * sockets) and a project folder, the compiled binary run there, and the servers `rglob index --status` lists.
 * Not a test file (no `.test.ts`). */
import { expect } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, readPastQueue } from "../helpers.ts";

/** What a run of the binary printed. */
export interface Out {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** A server as `rglob index --status --json` lists it. */
export type Info = Record<string, unknown>;

/**
 * Creates a sandbox under the system's temporary directory.
 * @param prefix the temporary directory's name prefix
 * @returns its directories, the environment that points the binary at its cache, and the two helpers
 */
export function serveSandbox(prefix: string) {
  const outer = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const cache = join(outer, "cache");
  const root = join(outer, "proj");
  const env = { RGLOB_CACHE_DIR: cache };
  /** Runs the binary in cwd with the sandbox's cache directory (and so its servers). */
  const run = (args: readonly string[], cwd = root, extra: Record<string, string> = {}): Out => {
    const res = Bun.spawnSync([BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "", ...env, ...extra },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: res.exitCode ?? -1, stdout: res.stdout, stderr: res.stderr.toString() };
  };
  /** The running servers `rglob index --status` lists. */
  const servers = (): Info[] => {
    const out = run(["index", "--status", "--json"]);
    const r = (JSON.parse(out.stdout.toString()) as { results: Array<{ servers: Info[] }> }).results[0];
    return r?.servers ?? [];
  };
  /**
   * Starts `rglob serve` in the root with these settings more (a test's gates), its log read as it comes.
   * @returns the process and its log so far
   */
  const serve = (extra: Record<string, string> = {}) => {
    const server = Bun.spawn([BIN, "serve"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "", ...env, ...extra },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    return { server, log: logOf(server.stderr) };
  };
  /** Ends a server `serve` started (also one a test left stopped) and removes the sandbox. */
  const end = (server: { readonly pid: number; kill(): void } | null, extra: Record<string, string> = {}) => {
    if (server !== null) {
      try {
        process.kill(server.pid, "SIGCONT");
      } catch {}
      run(["serve", "--stop"], root, extra);
      server.kill();
    }
    rmSync(outer, { recursive: true, force: true });
  };
  return { outer, cache, root, env, run, servers, serve, end };
}

/**
 * Polls (50 ms apart, up to `polls` times) until the condition holds.
 * @param cond the condition
 * @param polls how many times to look
 * @returns whether it held
 */
export async function until(cond: () => boolean, polls = 2400): Promise<boolean> {
  for (let i = 0; i < polls; i++) {
    if (cond()) return true;
    await Bun.sleep(50);
  }
  return cond();
}

/**
 * What a served and a cold run must print alike: grep's JSON (and its JSONL summary) says where the answer came
 * from and how much it read, the rest is the cold answer's.
 * @param args the call's arguments
 * @param stdout what it printed
 * @returns the output without grep's `source` and `bytes_read`, or as printed
 */
export function comparable(args: readonly string[], stdout: Buffer): string {
  const text = stdout.toString();
  if (args[0] !== "grep" || !(args.includes("--json") || args.includes("--jsonl"))) return text;
  const strip = (o: Record<string, unknown>) => {
    delete o.source;
    delete o.bytes_read;
    return o;
  };
  if (args.includes("--json")) return JSON.stringify(strip(JSON.parse(text) as Record<string, unknown>));
  return text
    .split("\n")
    .map((l) => (l.includes('"kind":"summary"') ? JSON.stringify(strip(JSON.parse(l))) : l))
    .join("\n");
}

/**
 * Makes the check that a call is served by the sandbox's server of `root` (its count of calls grows by one) and
 * answers as the cold run does (exit code, stderr, and stdout as `comparable` gives it).
 * @param box the sandbox
 * @param served the settings a served call runs with (a served call must share the server's)
 * @returns the check, which gives the served call's output
 */
export function sameAsColdIn(
  box: Pick<ReturnType<typeof serveSandbox>, "root" | "run" | "servers">,
  served: Record<string, string>,
): (args: readonly string[]) => Out {
  const calls = () => Number(box.servers().find((s) => s.root === box.root)?.calls ?? -1);
  return (args) => {
    const before = calls();
    const warm = box.run(args, box.root, served);
    expect({ args, calls: calls() }).toEqual({ args, calls: before + 1 });
    const cold = box.run(args, box.root, { RGLOB_SERVE: "0" });
    expect({ args, code: warm.code, stderr: warm.stderr, out: comparable(args, warm.stdout) }).toEqual({
      args,
      code: cold.code,
      stderr: cold.stderr,
      out: comparable(args, cold.stdout),
    });
    return warm;
  };
}

/**
 * The files a served `grep -l NEEDLE` lists (sorted), after checking it, its count and a find of `*.txt` against
 * the cold runs (sameAsColdIn's check).
 * @param sameAsCold the check
 * @param needle the literal
 * @returns the files, relative to the root
 */
export function foundBy(sameAsCold: (args: readonly string[]) => Out, needle: string): string[] {
  sameAsCold(["grep", "-c", needle]);
  sameAsCold(["find", "*.txt"]);
  return sameAsCold(["grep", "-l", needle]).stdout.toString().trim().split("\n").filter(Boolean).sort();
}

/**
 * Collects a server's stderr (its warm index's log lines) as it comes.
 * @param stream the server's stderr
 * @returns what it wrote so far, read at any time
 */
export function logOf(stream: ReadableStream<Uint8Array>): { readonly text: string } {
  const log = { text: "" };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) log.text += decoder.decode(chunk);
  })();
  return log;
}

/**
 * Reads the inodes of the directories a server's inotify descriptor watches now (/proc/PID/fdinfo; Linux).
 * @param pid the server's process id
 * @returns the watched directories' inodes
 */
export function watchedInodes(pid: number): Set<number> {
  const out = new Set<number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link = "";
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {}
    if (link !== "anon_inode:inotify") continue;
    for (const m of readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8").matchAll(/ ino:([0-9a-f]+) /g))
      out.add(Number.parseInt(m[1] as string, 16));
  }
  return out;
}

/**
 * The descriptors of a server's inotify instances now (/proc/PID/fd; Linux): a watch repaired in place after an
 * overflow keeps its own.
 * @param pid the server's process id
 * @returns their numbers, in order
 */
export function inotifyFds(pid: number): number[] {
  const out: number[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === "anon_inode:inotify") out.push(Number(fd));
    } catch {}
  }
  return out.sort((x, y) => x - y);
}

/**
 * Overflows a server's watch queue for real: stops it (SIGSTOP), reads the files until half again the queue's
 * limit of events waits (two a read: open and close), runs `edit` while events are lost, and lets it go on.
 * @param pid the server's process id
 * @param files the files read, absolute
 * @param edit the changes made while the queue has overflowed
 */
export function overflowStopped(pid: number, files: readonly string[], edit: () => void): void {
  process.kill(pid, "SIGSTOP");
  try {
    readPastQueue(files);
    edit();
  } finally {
    process.kill(pid, "SIGCONT");
  }
}

/**
 * Writes a needle over the start of a file with its size and mtime kept: only the ctime says it changed, so an
 * index that rules the file out must have been told of the change.
 * @param path the file, absolute
 * @param needle the text written over its first bytes
 */
export function sneakNeedle(path: string, needle: string): void {
  const st = statSync(path);
  writeFileSync(path, `${needle}${readFileSync(path, "utf8").slice(needle.length)}`);
  expect(statSync(path).size).toBe(st.size);
  utimesSync(path, st.atime, st.mtime);
}

/**
 * Creates the overflow tests' tree: `tops` × `perTop` leaf directories (`pTT/dDD`), one small file each, enough
 * that one slice of a watch's set-up (20 ms) cannot watch them all.
 * @param root the project folder
 * @param needle the text a same-size change writes over the start of a file (`sneak`)
 * @param tops how many top directories
 * @param perTop how many leaves in each
 * @returns a leaf's path (relative), the files read to overflow a queue (absolute), the maker of the tree, the
 * leaves a server's inotify descriptor does not watch now (those that exist), and the same-size change of a file
 * (relative) with its mtime put back (sneakNeedle)
 */
export function leafTree(root: string, needle: string, tops = 80, perTop = 100) {
  const leaf = (t: number, d: number): string =>
    join(`p${String(t).padStart(2, "0")}`, `d${String(d).padStart(2, "0")}`);
  const leaves = (): string[] =>
    Array.from({ length: tops * perTop }, (_, i) => leaf(Math.floor(i / perTop), i % perTop));
  /** Writes every leaf and its file `f.txt` (`ordinary words T D`). */
  const make = (): void => {
    for (let t = 0; t < tops; t++)
      for (let d = 0; d < perTop; d++) {
        mkdirSync(join(root, leaf(t, d)), { recursive: true });
        writeFileSync(join(root, leaf(t, d), "f.txt"), `ordinary words ${t} ${d}\n`);
      }
  };
  const files = (): string[] => leaves().map((l) => join(root, l, "f.txt"));
  const unwatched = (pid: number): string[] => {
    const watched = watchedInodes(pid);
    return leaves().filter((l) => {
      const dir = join(root, l);
      return existsSync(dir) && !watched.has(statSync(dir).ino);
    });
  };
  const sneak = (rel: string): void => sneakNeedle(join(root, rel), needle);
  return { leaf, make, files, unwatched, sneak };
}

/**
 * Creates the overflow and overflow-build tests' tree: `dirs` × `perDir` ordinary files (`dD/fF.txt`), and in
 * keep/ the files edited while events are lost: same.txt (`quiet words here`), grows.txt (`plain words`), and
 * moved.txt, gone.txt and stays.txt, each with an OVFNEEDLE.
 * @param root the project folder
 * @param dirs how many directories
 * @param perDir how many files in each
 * @returns the maker of the tree, and the ordinary files (absolute), read to overflow a queue
 */
export function keepTree(root: string, dirs = 12, perDir = 100) {
  const files = (): string[] =>
    Array.from({ length: dirs * perDir }, (_, i) =>
      join(root, `d${Math.floor(i / perDir)}`, `f${i % perDir}.txt`),
    );
  const make = (): void => {
    for (let d = 0; d < dirs; d++) {
      mkdirSync(join(root, `d${d}`), { recursive: true });
      for (let f = 0; f < perDir; f++)
        writeFileSync(join(root, `d${d}`, `f${f}.txt`), `ordinary words ${d} ${f}\nnothing to see\n`);
    }
    mkdirSync(join(root, "keep"));
    writeFileSync(join(root, "keep", "same.txt"), "quiet words here\n");
    writeFileSync(join(root, "keep", "grows.txt"), "plain words\n");
    writeFileSync(join(root, "keep", "moved.txt"), "an OVFNEEDLE to move\n");
    writeFileSync(join(root, "keep", "gone.txt"), "an OVFNEEDLE to delete\n");
    writeFileSync(join(root, "keep", "stays.txt"), "an OVFNEEDLE that stays\n");
  };
  return { make, files };
}
