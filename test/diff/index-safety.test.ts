// The persisted index never answers from a stale view nor takes a grep down with it (#34): paths longer than the
// system takes whole, a FIFO or a link to /dev/zero at the index path, an index truncated and rewritten in place
// while greps read it, a cache directory that cannot be made, a tree root re-created and an ancestor renamed
// with a copy at the old path. Each grep with the index is compared with the same grep without it
// (RGLOB_INDEX=0), through the compiled binary on real trees. No timing is asserted; each process has a kill
// time so that a hang fails the test instead of stalling the run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../helpers.ts";

let scratch: string;

interface Ran {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the binary, killed after 30 s (a hang is a failure, not a stalled run). */
function run(args: readonly string[], cwd: string, env: Record<string, string>): Ran {
  const r = Bun.spawnSync([BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  return {
    code: r.exitCode,
    signal: r.signalCode == null ? null : String(r.signalCode),
    stdout: r.stdout.toString(),
    stderr: r.stderr.toString(),
  };
}

function json(r: Ran): Record<string, unknown> {
  try {
    return JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(
      `not JSON (exit ${r.code}, signal ${r.signal}): ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`,
    );
  }
}

/** Puts the mtimes of everything below a directory (and its own) an hour back: fresh files are not indexed. */
function age(root: string): void {
  const past = new Date(Date.now() - 3600_000);
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      if (!e.isSymbolicLink()) utimesSync(p, past, past);
    }
  };
  visit(root);
  utimesSync(root, past, past);
}

/** A tree of a few files holding "needle" and other words. */
function smallTree(at: string): string {
  mkdirSync(join(at, "sub", "deeper"), { recursive: true });
  writeFileSync(join(at, "a.txt"), "needle in a\nother line\n");
  writeFileSync(join(at, "b.txt"), "nothing here\n");
  writeFileSync(join(at, "sub", "c.txt"), "a needle in c\n");
  writeFileSync(join(at, "sub", "deeper", "d.txt"), "plain words only\n");
  age(at);
  return at;
}

/**
 * Greps with the index and without it and expects one answer (bytes_read and `source` aside).
 * @returns the indexed run's source
 */
function sameAsCold(args: readonly string[], cwd: string, cache: string): unknown {
  const cold = run(["grep", "--json", ...args], cwd, { RGLOB_CACHE_DIR: cache, RGLOB_INDEX: "0" });
  const hot = run(["grep", "--json", ...args], cwd, { RGLOB_CACHE_DIR: cache });
  expect(hot.signal).toBeNull();
  expect(hot.code).toBe(cold.code);
  const c = json(cold);
  const h = json(hot);
  const source = h.source;
  delete h.source;
  h.bytes_read = c.bytes_read;
  expect(h).toEqual(c);
  return source;
}

function index(args: readonly string[], cwd: string, cache: string): Record<string, unknown> {
  const r = run(["index", "--json", ...args], cwd, { RGLOB_CACHE_DIR: cache });
  expect(r.signal).toBeNull();
  return (json(r).results as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "rglob-index-safety-"));
});

afterAll(() => {
  // rm(1) removes a tree deeper than PATH_MAX (it descends by descriptor).
  execFileSync("rm", ["-rf", scratch]);
});

describe("paths longer than PATH_MAX", () => {
  test("an indexed grep finds the match below them as the cold grep does", () => {
    const root = join(scratch, "long");
    const cache = join(scratch, "long-cache");
    mkdirSync(root);
    writeFileSync(join(root, "top.txt"), "needle at the top\n");
    // 45 directories of 98 bytes: the file's path is about 4,500 bytes, past what open(2) takes (4,096). Made
    // by bash one directory at a time from inside the previous one (no call takes the whole path), then aged
    // on the way back up.
    const script = `for i in $(seq 1 45); do n=$(printf 'd%097d' $i); mkdir $n && cd $n || exit 1; done
      printf 'needle deep\\n' > f.txt && printf 'other\\n' > g.txt && touch -d '1 hour ago' f.txt g.txt || exit 1
      for i in $(seq 45 -1 1); do cd .. && touch -d '1 hour ago' $(printf 'd%097d' $i) || exit 1; done`;
    const made = Bun.spawnSync(["bash", "-c", script], { cwd: root, stderr: "pipe" });
    expect(made.stderr.toString()).toBe("");
    expect(made.exitCode).toBe(0);
    const past = new Date(Date.now() - 3600_000);
    for (const p of [join(root, "top.txt"), root]) utimesSync(p, past, past);
    expect(index([], root, cache).state).toBe("built");
    expect(sameAsCold(["needle"], root, cache)).toBe("index");
    const hot = json(run(["grep", "--json", "needle"], root, { RGLOB_CACHE_DIR: cache }));
    expect(hot.errors).toEqual([]);
    expect((hot.results as unknown[]).length).toBe(2);
  }, 120_000);
});

describe("the index file", () => {
  let root: string;
  let cache: string;
  let file: string;
  beforeAll(() => {
    root = smallTree(join(scratch, "kinds"));
    cache = join(scratch, "kinds-cache");
    file = index([], root, cache).index_path as string;
  });

  test.each([
    ["a FIFO", (p: string) => execFileSync("mkfifo", [p])],
    ["a link to /dev/zero", (p: string) => symlinkSync("/dev/zero", p)],
    ["a link to the index itself", (p: string) => symlinkSync(`${p}.real`, p)],
    ["a directory", (p: string) => mkdirSync(p)],
    // Not read whole (its first bytes are not an index's), so not 4 GiB of memory.
    ["a 4 GiB sparse file", (p: string) => execFileSync("truncate", ["-s", "4G", p])],
  ])("%s at its path: grep answers cold, --status says why, neither hangs", (_what, make) => {
    rmSync(file, { recursive: true, force: true });
    if (_what === "a link to the index itself") {
      index([], root, cache);
      renameSync(file, `${file}.real`);
    }
    make(file);
    try {
      expect(sameAsCold(["needle"], root, cache)).toBeUndefined();
      const status = index(["--status"], root, cache);
      expect(status.state).toBe("unusable");
      expect(status.reason).toMatch(
        /^not an index file \(a (FIFO|symlink|directory)\)$|^not an rglob index$/,
      );
    } finally {
      rmSync(file, { recursive: true, force: true });
      rmSync(`${file}.real`, { force: true });
    }
    // Built again, it is used again.
    expect(index([], root, cache).state).toBe("built");
    expect(sameAsCold(["needle"], root, cache)).toBe("index");
  });

  test("truncated and rewritten in place while greps read it: no grep dies, every answer is the cold one", async () => {
    const big = join(scratch, "big");
    const bigCache = join(scratch, "big-cache");
    mkdirSync(join(big, "many"), { recursive: true });
    for (let i = 0; i < 3000; i++)
      writeFileSync(
        join(big, "many", `f${i}.txt`),
        `word${i} alpha beta gamma ${i * 7919} epsilon${i} zeta\n`,
      );
    age(big);
    const idx = index([], big, bigCache).index_path as string;
    const cold = json(run(["grep", "--json", "epsilon77"], big, { RGLOB_INDEX: "0" }));
    // Another process truncates the index to 64 bytes and writes it back, in place (same inode), again and
    // again; it stops when the stop file appears.
    const stop = join(scratch, "stop-truncating");
    const truncator = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const fs = require("node:fs");
         const [file, stop] = process.argv.slice(1);
         const orig = fs.readFileSync(file);
         while (!fs.existsSync(stop)) {
           const fd = fs.openSync(file, "r+");
           fs.ftruncateSync(fd, 64);
           fs.writeSync(fd, orig, 0, orig.length, 0);
           fs.closeSync(fd);
         }`,
        idx,
        stop,
      ],
      { stdout: "ignore", stderr: "inherit" },
    );
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 25; i++) {
        const r = run(["grep", "--json", "epsilon77"], big, { RGLOB_CACHE_DIR: bigCache });
        outcomes.push(`${r.code}/${r.signal}`);
        if (r.signal !== null) continue;
        const h = json(r);
        delete h.source;
        h.bytes_read = cold.bytes_read;
        expect(h).toEqual(cold);
      }
    } finally {
      writeFileSync(stop, "");
      await truncator.exited;
    }
    expect(outcomes).toEqual(Array.from({ length: 25 }, () => "0/null"));
  }, 240_000);
});

describe("a cache directory that cannot be made", () => {
  test("under a regular file: index fails with an envelope and a code, grep runs cold", () => {
    const root = smallTree(join(scratch, "nocache"));
    const blocker = join(scratch, "a-regular-file");
    writeFileSync(blocker, "");
    const cache = join(blocker, "cache");
    const r = run(["index", "--json"], root, { RGLOB_CACHE_DIR: cache });
    expect(r.code).toBe(2);
    const env = json(r) as { ok: boolean; error: { code: string; message: string; path: string } };
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("UNREADABLE");
    expect(env.error.message).toContain("cannot make the cache directory");
    expect(env.error.path.startsWith(cache)).toBe(true);
    expect(r.stderr).not.toContain("internal error");
    // Status and removal have nothing to report there; grep is the cold grep.
    expect(index(["--status"], root, cache).state).toBe("absent");
    expect(index(["--remove"], root, cache).state).toBe("absent");
    expect(sameAsCold(["needle"], root, cache)).toBeUndefined();
  });

  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(process.getuid?.() === 0)("read-only: index fails with PERM, grep runs cold (skipped as root: modes do not stop root)", () => {
    const root = smallTree(join(scratch, "rocache"));
    const cache = join(scratch, "read-only-cache");
    mkdirSync(cache);
    chmodSync(cache, 0o555);
    try {
      const r = run(["index", "--json"], root, { RGLOB_CACHE_DIR: cache });
      expect(r.code).toBe(2);
      expect((json(r).error as { code: string }).code).toBe("PERM");
      expect(sameAsCold(["needle"], root, cache)).toBeUndefined();
    } finally {
      chmodSync(cache, 0o755);
    }
  });
  // Root ignores a directory's modes, so as root the same case runs as another user (setpriv), with a copy of
  // the binary that user may run.
  const asNobody = process.getuid?.() === 0 && Bun.which("setpriv") !== null;
  // biome-ignore format: the title, with why it may be skipped, stays on its line
  test.skipIf(!asNobody)("read-only, as another user: index fails with PERM, grep runs cold (skipped unless root with setpriv)", () => {
    const home = join(scratch, "as-nobody");
    mkdirSync(home);
    chmodSync(scratch, 0o755);
    chmodSync(home, 0o755);
    const bin = join(home, "rglob");
    copyFileSync(BIN, bin);
    chmodSync(bin, 0o755);
    const root = smallTree(join(home, "tree"));
    execFileSync("chmod", ["-R", "a+rX", root]);
    const cache = join(home, "read-only-cache");
    mkdirSync(cache);
    chmodSync(cache, 0o555);
    const nobody = (args: readonly string[]) => {
      const r = Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, ...args], {
        cwd: root,
        env: { ...process.env, NO_COLOR: "1", HOME: "/nonexistent", RGLOB_CACHE_DIR: cache },
        stdout: "pipe",
        stderr: "pipe",
        timeout: 30_000,
      });
      return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
    };
    const built = nobody(["index", "--json"]);
    expect(built.code).toBe(2);
    const envelope = JSON.parse(built.stdout) as { ok: boolean; error: { code: string } };
    expect(envelope.ok).toBe(false);
    expect(envelope.error.code).toBe("PERM");
    expect(built.stderr).not.toContain("internal error");
    const grep = nobody(["grep", "-l", "needle"]);
    expect(grep.code).toBe(0);
    expect(grep.stdout.split("\n").filter(Boolean).sort()).toEqual(["a.txt", "sub/c.txt"]);
  });
});

describe("a tree replaced at the indexed path", () => {
  /**
   * Makes a copy of `from` at `to` (cp -a: contents, modes and times kept) with one more file holding the
   * needle, the directories' mtimes put back to the original's: only their inode and ctime say they changed.
   */
  function copyWithNewFile(from: string, to: string): void {
    execFileSync("cp", ["-a", from, to]);
    writeFileSync(join(to, "sub", "fresh.txt"), "needle fresh\n");
    const past = new Date(Date.now() - 3600_000);
    utimesSync(join(to, "sub", "fresh.txt"), past, past);
    for (const d of ["sub", "."]) {
      const st = statSync(join(from, d));
      utimesSync(join(to, d), st.atime, st.mtime);
    }
  }

  test("the root re-created (another directory at the same path): the recorded walk is not replayed", () => {
    const parent = join(scratch, "recreated");
    const root = smallTree(join(parent, "proj"));
    const cache = join(scratch, "recreated-cache");
    expect(index([], root, cache).walk).toBe("fresh");
    copyWithNewFile(root, join(parent, "proj.new"));
    rmSync(root, { recursive: true });
    renameSync(join(parent, "proj.new"), root);
    expect(index(["--status"], root, cache).walk).toBe("stale");
    sameAsCold(["needle"], root, cache);
    const hot = json(run(["grep", "--json", "-l", "needle"], root, { RGLOB_CACHE_DIR: cache }));
    expect((hot.results as Array<{ relative_path: string }>).map((r) => r.relative_path)).toContain(
      "sub/fresh.txt",
    );
  });

  test("a directory above the root renamed, a copy at the old path: the recorded walk is not replayed", () => {
    const top = join(scratch, "ancestor");
    const root = smallTree(join(top, "work", "proj"));
    const cache = join(scratch, "ancestor-cache");
    expect(index([], root, cache).walk).toBe("fresh");
    renameSync(join(top, "work"), join(top, "work.bak"));
    mkdirSync(join(top, "work"));
    copyWithNewFile(join(top, "work.bak", "proj"), root);
    expect(index(["--status"], root, cache).walk).toBe("stale");
    sameAsCold(["needle"], root, cache);
    const hot = json(run(["grep", "--json", "-l", "needle"], root, { RGLOB_CACHE_DIR: cache }));
    expect((hot.results as Array<{ relative_path: string }>).map((r) => r.relative_path)).toContain(
      "sub/fresh.txt",
    );
    unlinkSync(join(root, "sub", "fresh.txt"));
  });
});
