// The warm server's freshness model (#34, docs/decisions/0032-freshness-model.md): the watch only narrows what
// must be checked; a check at each call decides. Each case changes a real tree in a way the watch does not
// report (or reports for another name, or another directory object) while one `rglob mcp` serves it with its
// index ready, then asks the server and the cold CLI the same question: the answers must be the same.
import { afterEach, expect, test } from "bun:test";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { findOperation } from "../../src/ops/registry.ts";
import { BIN, rglobJson, skipWhen } from "../helpers.ts";
import { argvOf, type McpSession, startMcp } from "../surface/mcp-helpers.ts";

const linux = process.platform === "linux";
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh directory (real path), removed after the test. */
function scratch(prefix = "rglob-fresh-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files below a directory (making their directories). */
function put(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

/** Twenty ordinary files, so that the index has something to rule out. */
function filler(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < 20; i++) out[`fill/f${i}.txt`] = `ordinary words number ${i}\nnothing to see\n`;
  return out;
}

async function serve(root: string, extraArgs: readonly string[] = []): Promise<McpSession> {
  const mcp = await startMcp(["--root", root, ...extraArgs], { cwd: root });
  cleanups.push(() => mcp.close());
  return mcp;
}

interface WarmStatus {
  state: string;
  watching: boolean;
  reason: string | null;
}

async function status(mcp: McpSession): Promise<WarmStatus | undefined> {
  const res = await mcp.client.readResource({ uri: "rglob://capabilities" });
  return (JSON.parse((res.contents[0] as { text: string }).text) as { mcp: { warm?: WarmStatus[] } }).mcp
    .warm?.[0];
}

/** Waits until the index is ready and the tree watched (polling capabilities; no time limit is asserted). */
async function ready(mcp: McpSession): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const s = await status(mcp);
    if (s?.state === "ready" && s.watching) return;
    await Bun.sleep(25);
  }
  throw new Error(`the index never got ready: ${JSON.stringify(await status(mcp))}`);
}

const TOOLS: Record<string, string> = { grep: "grep_content", find: "find_files" };

/**
 * Asks the server and the cold CLI the same question and expects the same answer (but `source`, and the bytes
 * read, which the index lowers). Returns the server's answer.
 */
async function same(
  mcp: McpSession,
  opId: "grep" | "find",
  root: string,
  input: Record<string, unknown>,
  cwd = root,
): Promise<Record<string, unknown>> {
  const full = { base: root, hidden: true, strict_base: true, limit: 5000, timeout_seconds: 60, ...input };
  const res = (await mcp.client.callTool({ name: TOOLS[opId] as string, arguments: full })) as CallToolResult;
  const warm = { ...(res.structuredContent as Record<string, unknown>) };
  expect(res.isError ?? false).toBe(false);
  const { json: cold } = rglobJson([opId, "--json", ...argvOf(findOperation(opId), full)], { cwd });
  const answer = { ...warm };
  delete warm.source;
  if (opId === "grep") warm.bytes_read = cold.bytes_read;
  expect(warm).toEqual(cold);
  return answer;
}

const paths = (answer: Record<string, unknown>): string[] =>
  [...new Set((answer.results as Array<{ relative_path: string }>).map((r) => r.relative_path))].sort();

test.skipIf(!linux)(
  "a hard-linked file edited through a name outside the tree is searched again (skipped off Linux)",
  async () => {
    const root = scratch();
    const outside = scratch("rglob-fresh-out-");
    put(root, { ...filler(), "linked.txt": "plain text here\n" });
    linkSync(join(root, "linked.txt"), join(outside, "store.txt"));
    const mcp = await serve(root);
    await ready(mcp);
    // Ruled out by the index (no trigram of the needle).
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    // Rewritten in place through the other name: no event reaches the tree's watch.
    writeFileSync(join(outside, "store.txt"), "now a NEEDLEWORD here\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["linked.txt"]);
  },
);

test.skipIf(!linux)(
  "of two hard links inside the tree, the one not written to is searched again (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "a/one.txt": "plain text here\n" });
    mkdirSync(join(root, "b"));
    linkSync(join(root, "a/one.txt"), join(root, "b/two.txt"));
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    // The event names b/two.txt only; a/one.txt is the same inode.
    writeFileSync(join(root, "b/two.txt"), "now a NEEDLEWORD here\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "a/one.txt",
      "b/two.txt",
    ]);
  },
);

const python = Bun.which("python3");
/** Why the shared-mapping cases cannot run here, or null. */
const pythonWhy = !linux
  ? "off Linux"
  : python === null
    ? "no python3 to write through a shared mapping"
    : null;
skipWhen(pythonWhy)(
  "a file written through a shared mapping (same size, no event) is searched again (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "mapped.dat": "hello world, plain text\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLE" }))).toEqual([]);
    // MAP_SHARED, written and msync'ed: no IN_MODIFY, the same size; the kernel updates mtime and ctime.
    const script =
      "import mmap,sys\nf=open(sys.argv[1],'r+b')\nm=mmap.mmap(f.fileno(),0,mmap.MAP_SHARED)\nm[0:6]=b'NEEDLE'\nm.flush()\nm.close()\nf.close()";
    const run = Bun.spawnSync([python as string, "-c", script, join(root, "mapped.dat")]);
    expect(run.exitCode).toBe(0);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLE" }))).toEqual(["mapped.dat"]);
  },
);

// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("a root removed and made again is watched again: later edits are seen (skipped off Linux)", async () => {
  const parent = scratch();
  const root = join(parent, "proj");
  put(root, { ...filler(), "old.txt": "old contents\n" });
  const mcp = await serve(root);
  await ready(mcp);
  expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
  rmSync(root, { recursive: true });
  put(root, { ...filler(), "new.txt": "fresh contents\n" });
  await same(mcp, "find", root, {});
  await ready(mcp);
  // Edits in the new directory: seen only if the watch follows the path, not the removed directory.
  writeFileSync(join(root, "fill/f3.txt"), "now a NEEDLEWORD here\n");
  put(root, { "added/later.txt": "another NEEDLEWORD\n" });
  expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
    "added/later.txt",
    "fill/f3.txt",
  ]);
  await same(mcp, "find", root, {});
});

test.skipIf(!linux)(
  "a root removed and made again with the same inode number (ext4 and tmpfs reuse it) is watched again (skipped off Linux)",
  async () => {
    const parent = scratch();
    const root = join(parent, "proj");
    put(root, { "a.txt": "plain words\n" });
    // Started from the parent: a server whose working directory is the removed root is another case.
    const mcp = await startMcp(["--root", root], { cwd: parent });
    cleanups.push(() => mcp.close());
    await ready(mcp);
    const before = statSync(root).ino;
    rmSync(root, { recursive: true });
    mkdirSync(root);
    // Where the file system gave the path its old inode number, only the watch's event for the root itself
    // says the directory is another one.
    console.log(`root re-made: inode ${before} -> ${statSync(root).ino}`);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    writeFileSync(join(root, "b.txt"), "a NEEDLEWORD\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["b.txt"]);
    await same(mcp, "find", root, {});
  },
);

test.skipIf(!linux)(
  "a directory above the root renamed and replaced by a copy: the copy is served (skipped off Linux)",
  async () => {
    const top = scratch();
    const root = join(top, "work", "proj");
    put(root, { ...filler(), "only-old.txt": "old NEEDLEWORD\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["only-old.txt"]);
    await same(mcp, "find", root, {});
    // No event reaches the watches (they are on the directories now under work.bak).
    renameSync(join(top, "work"), join(top, "work.bak"));
    put(root, { ...filler(), "only-new.txt": "new NEEDLEWORD\n" });
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["only-new.txt"]);
    await same(mcp, "find", root, {});
    await ready(mcp);
    writeFileSync(join(root, "fill/f1.txt"), "edited NEEDLEWORD\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "fill/f1.txt",
      "only-new.txt",
    ]);
  },
);

// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("a directory whose name is not UTF-8, made while serving, is watched (skipped off Linux)", async () => {
  const root = scratch();
  put(root, filler());
  const mcp = await serve(root);
  await ready(mcp);
  await same(mcp, "find", root, {});
  // mkdir with a raw 0xFE byte in the name (the shell writes the bytes as they are).
  expect(Bun.spawnSync(["bash", "-c", `mkdir "$1"/$'bad\\xfedir'`, "_", root]).exitCode).toBe(0);
  await same(mcp, "find", root, {}); // the directory's event is read here; its walk is remembered anew
  expect(
    Bun.spawnSync(["bash", "-c", `printf 'a NEEDLEWORD\\n' > "$1"/$'bad\\xfedir'/inside.txt`, "_", root])
      .exitCode,
  ).toBe(0);
  const found = await same(mcp, "find", root, { patterns: ["inside.txt"] });
  expect((found.results as unknown[]).length).toBe(1);
  expect(
    Bun.spawnSync(["bash", "-c", `printf 'b NEEDLEWORD\\n' > "$1"/$'\\xff'.txt`, "_", root]).exitCode,
  ).toBe(0);
  const grep = await same(mcp, "grep", root, { pattern: "NEEDLEWORD" });
  expect((grep.results as unknown[]).length).toBe(2);
});

/** Why a tmpfs cannot be mounted here (tried once on a scratch directory when the file is collected), or null. */
const mountWhy = ((): string | null => {
  if (!linux) return "off Linux";
  const dir = mkdtempSync(join(tmpdir(), "rglob-mount-probe-"));
  try {
    const r = Bun.spawnSync(["mount", "-t", "tmpfs", "rglob-probe", dir]);
    if (r.exitCode !== 0) return `mount -t tmpfs is not permitted here (${r.stderr.toString().trim()})`;
    Bun.spawnSync(["umount", dir]);
    return null;
  } catch (err) {
    return `mount could not run (${String(err)})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

// biome-ignore format: the title, with why it may be skipped, stays on its line
skipWhen(mountWhy)("a file system mounted over a directory of the tree is noticed (skipped off Linux)", async () => {
  const root = scratch();
  put(root, { ...filler(), "sub/hidden-by-mount.txt": "a NEEDLEWORD\n" });
  const mcp = await serve(root);
  await ready(mcp);
  expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
    "sub/hidden-by-mount.txt",
  ]);
  await same(mcp, "find", root, {});
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "rglob-test", join(root, "sub")]);
  expect(mounted.stderr.toString()).toBe("");
  expect(mounted.exitCode).toBe(0);
  cleanups.push(() => void Bun.spawnSync(["umount", join(root, "sub")]));
  writeFileSync(join(root, "sub/on-tmpfs.txt"), "plain\n");
  expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
  await same(mcp, "find", root, {});
  await ready(mcp);
  writeFileSync(join(root, "sub/on-tmpfs.txt"), "now a NEEDLEWORD\n");
  expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["sub/on-tmpfs.txt"]);
  // Unmounted: the directory's own file is there again, at the next call (the mount table is read again only
  // when a poll of it says it changed: #36).
  expect(Bun.spawnSync(["umount", join(root, "sub")]).exitCode).toBe(0);
  expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
    "sub/hidden-by-mount.txt",
  ]);
  await same(mcp, "find", root, {});
});

// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("ignore files other than the tree's own are checked like them (skipped off Linux)", async () => {
  const root = scratch();
  const outside = scratch("rglob-fresh-out-");
  // A file given in ignore_files (the server takes it inside its roots), and the file core.excludesFile names.
  mkdirSync(join(root, "rules"));
  const extra = join(root, "rules", "extra-ignore");
  const excludes = join(outside, "excludes");
  writeFileSync(extra, "*.log\n");
  writeFileSync(excludes, "*.tmp\n");
  put(root, {
    ...filler(),
    "a.log": "log NEEDLEWORD\n",
    "b.tmp": "tmp NEEDLEWORD\n",
    "c.txt": "txt NEEDLEWORD\n",
    ".git/config": `[core]\n\texcludesFile = ${excludes}\n`,
  });
  mkdirSync(join(root, ".git/info"), { recursive: true });
  const mcp = await serve(root);
  await ready(mcp);
  const q = { pattern: "NEEDLEWORD", ignore_files: [extra] };
  const f = { ignore_files: [extra] };
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["c.txt"]);
  await same(mcp, "find", root, f);
  // The file given in ignore_files, edited.
  writeFileSync(extra, "# nothing\n");
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["a.log", "c.txt"]);
  await same(mcp, "find", root, f);
  // ... and the excludes file: both old rules gone.
  writeFileSync(excludes, "# nothing\n");
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["a.log", "b.tmp", "c.txt"]);
  await same(mcp, "find", root, f);
  // The file core.excludesFile names, edited.
  writeFileSync(excludes, "*.txt\n");
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["a.log", "b.tmp"]);
  await same(mcp, "find", root, f);
  // The repository's config, edited to name no excludes file.
  writeFileSync(join(root, ".git/config"), "[core]\n");
  await same(mcp, "grep", root, q);
  await same(mcp, "find", root, f);
});

// The watch names no file of a repository's metadata for the look at every process (tree-watch.ts VCS_MASK),
// though every call reads .git/config and .git/info/exclude: an edit of the exclude file still changes the walk.
// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("an edit of .git/info/exclude while serving changes the answer (skipped off Linux)", async () => {
  const root = scratch();
  put(root, {
    ...filler(),
    "a.log": "log NEEDLEWORD\n",
    "b.tmp": "tmp NEEDLEWORD\n",
    "c.txt": "txt NEEDLEWORD\n",
    ".git/config": "[core]\n",
    ".git/info/exclude": "*.log\n",
  });
  const mcp = await serve(root);
  await ready(mcp);
  const q = { pattern: "NEEDLEWORD" };
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["b.tmp", "c.txt"]);
  await same(mcp, "find", root, {});
  // Written in place (an editor's save): read before by every call, now other rules.
  writeFileSync(join(root, ".git/info/exclude"), "*.tmp\n");
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["a.log", "c.txt"]);
  await same(mcp, "find", root, {});
  // Replaced through a rename, as git writes its files (a lock file renamed over it).
  writeFileSync(join(root, ".git/info/exclude.lock"), "*.txt\n");
  renameSync(join(root, ".git/info/exclude.lock"), join(root, ".git/info/exclude"));
  expect(paths(await same(mcp, "grep", root, q))).toEqual(["a.log", "b.tmp"]);
  await same(mcp, "find", root, {});
});

// An exclude file is read by the walks that enter its repository, and each remembered walk stats what it read
// before it is replayed: an edit in one repository lets go of those walks only, not of every remembered walk.
// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("an exclude edit in one repository keeps another's walks remembered (skipped off Linux)", async () => {
  const root = scratch();
  const repo = (name: string): Record<string, string> => ({
    [`${name}/a.log`]: "log 42\n",
    [`${name}/b.tmp`]: "tmp 42\n",
    [`${name}/c.txt`]: "txt 42\n",
    [`${name}/.git/config`]: "[core]\n",
    [`${name}/.git/info/exclude`]: "*.log\n",
  });
  put(root, { ...filler(), ...repo("A"), ...repo("B") });
  const mcp = await serve(root);
  await ready(mcp);
  // A pattern with no literal: the index cannot narrow it, so `source` says whether the walk was remembered.
  const q = { pattern: "[0-9]{2}" };
  const inA = { ...q, base: join(root, "A") };
  const inB = { ...q, base: join(root, "B") };
  expect(paths(await same(mcp, "grep", root, inA))).toEqual(["b.tmp", "c.txt"]);
  expect(paths(await same(mcp, "grep", root, inB))).toEqual(["b.tmp", "c.txt"]);
  expect((await same(mcp, "grep", root, inB)).source).toBe("warm_list");
  expect((await same(mcp, "grep", root, inA)).source).toBe("warm_list");
  writeFileSync(join(root, "A/.git/info/exclude"), "*.tmp\n");
  const b = await same(mcp, "grep", root, inB);
  expect([paths(b), b.source]).toEqual([["b.tmp", "c.txt"], "warm_list"]);
  const a = await same(mcp, "grep", root, inA);
  expect([paths(a), a.source]).toEqual([["a.log", "c.txt"], "cold"]);
  // Replaced through a rename (git's lock file): the same.
  writeFileSync(join(root, "A/.git/info/exclude.lock"), "*.txt\n");
  renameSync(join(root, "A/.git/info/exclude.lock"), join(root, "A/.git/info/exclude"));
  const b2 = await same(mcp, "grep", root, inB);
  expect([paths(b2), b2.source]).toEqual([["b.tmp", "c.txt"], "warm_list"]);
  expect(paths(await same(mcp, "grep", root, inA))).toEqual(["a.log", "b.tmp"]);
  // And an edit in B changes B's answers, as cold; the whole tree's walk answers as cold all along.
  await same(mcp, "grep", root, q);
  writeFileSync(join(root, "B/.git/info/exclude"), "*.txt\n");
  expect(paths(await same(mcp, "grep", root, inB))).toEqual(["a.log", "b.tmp"]);
  await same(mcp, "grep", root, q);
});

skipWhen(
  !linux
    ? "off Linux"
    : (Bun.which("setpriv") === null || process.getuid?.() !== 0) &&
        "needs root and setpriv to run the server as another user (root reads any directory)",
)(
  "a directory unreadable when the watch was set up is watched once it is readable (skipped off Linux)",
  async () => {
    // The server runs as nobody (root reads any directory whatever its mode): the binary and the tree where
    // nobody can reach them.
    const root = scratch();
    chmodSync(root, 0o777);
    const bin = join(scratch("rglob-fresh-bin-"), "rglob");
    copyFileSync(BIN, bin);
    chmodSync(bin, 0o755);
    chmodSync(join(bin, ".."), 0o755);
    put(root, { ...filler(), "locked/old.txt": "old\n" });
    for (const d of ["fill", "locked"]) chmodSync(join(root, d), 0o777);
    chmodSync(join(root, "locked"), 0o000);
    const transport = new StdioClientTransport({
      command: "setpriv",
      args: ["--reuid=nobody", "--regid=nogroup", "--clear-groups", bin, "mcp", "--root", root],
      cwd: root,
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", HOME: root },
    });
    const client = new Client({ name: "rglob-tests", version: "1.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const mcp = { client } as unknown as McpSession;
    await ready(mcp);
    const ask = async () =>
      (
        (await client.callTool({
          name: "find_files",
          arguments: { base: root, hidden: true, strict_base: true, types: ["f"], patterns: ["locked/**"] },
        })) as CallToolResult
      ).structuredContent as { results: Array<{ relative_path: string }> };
    expect((await ask()).results).toEqual([]);
    chmodSync(join(root, "locked"), 0o777);
    expect((await ask()).results.map((r) => r.relative_path)).toEqual(["locked/old.txt"]);
    // Made after the directory became readable: seen only if it is watched now.
    writeFileSync(join(root, "locked/new.txt"), "new\n");
    expect((await ask()).results.map((r) => r.relative_path).sort()).toEqual([
      "locked/new.txt",
      "locked/old.txt",
    ]);
  },
);

// biome-ignore format: the title, with why it may be skipped, stays on its line
test.skipIf(!linux)("roots that change: the watches of roots no longer served are let go (skipped off Linux)", async () => {
  const dirs = Array.from({ length: 40 }, () => {
    const d = scratch();
    put(d, { "a.txt": "some text\n" });
    return d;
  });
  let current: string[] = [dirs[0] as string];
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp"],
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1" },
  });
  const client = new Client(
    { name: "rglob-tests", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: current.map((r) => ({ uri: pathToFileURL(r).href, name: r })),
  }));
  await client.connect(transport);
  cleanups.push(() => client.close());
  const pid = transport.pid as number;
  const inotify = () =>
    readdirSync(`/proc/${pid}/fd`).filter((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).includes("inotify");
      } catch {
        return false;
      }
    }).length;
  const call = (base: string) => client.callTool({ name: "find_files", arguments: { base } });
  await call(dirs[0] as string);
  const before = readdirSync(`/proc/${pid}/fd`).length;
  for (let i = 0; i < 200; i++) {
    current = [dirs[i % dirs.length] as string, dirs[(i + 1) % dirs.length] as string];
    await client.sendRootsListChanged();
    await call(current[0] as string);
  }
  // Two roots served: at most two watches' descriptors (one each), whatever was served before.
  expect(inotify()).toBeLessThanOrEqual(2);
  expect(readdirSync(`/proc/${pid}/fd`).length).toBeLessThanOrEqual(before + 4);
  // Each new root is looked at from every process (files mapped before it was watched): 12-14 s on an idle
  // 2-core machine for the 200 changes.
}, 120_000);

// ── The suspects (ADR 0032): what the watch cannot vouch for is read; the rest is not stat'ed ──

interface Checks {
  mode: string;
  given: number;
  suspects: number;
  stat_checks: number;
  proc_looks: number;
  selected: number;
}

async function checks(mcp: McpSession): Promise<Checks | undefined> {
  return ((await status(mcp)) as (WarmStatus & { checks?: Checks }) | undefined)?.checks;
}

/** mapper's script through mmap(2) (ctypes): the mapping alone holds the file once its descriptor is closed. */
const rawMapper = [
  "import ctypes,os,sys",
  "libc=ctypes.CDLL(None,use_errno=True)",
  "libc.mmap.restype=ctypes.c_void_p",
  "libc.mmap.argtypes=[ctypes.c_void_p,ctypes.c_size_t,ctypes.c_int,ctypes.c_int,ctypes.c_int,ctypes.c_long]",
  "f=os.open(sys.argv[1],os.O_RDWR)",
  "_=(os.close(os.open(sys.argv[1],os.O_RDONLY)) if sys.argv[3]=='1' else None)",
  "n=os.fstat(f).st_size",
  "p=libc.mmap(None,n,3,1,f,0)",
  "ctypes.memmove(p,ctypes.string_at(p,1),1)",
  "_=None if sys.argv[2]=='1' else os.close(f)",
  "print('ready',flush=True)",
  "for line in sys.stdin:",
  "  at,text=line.rstrip('\\n').split(' ',1)",
  "  ctypes.memmove(p+int(at),text.encode(),len(text))",
  "  print('ok',flush=True)",
].join("\n");

/**
 * A process that maps a file shared and writable (and writes its first byte back, so the page is dirty and
 * writable: later writes to it change no time), closes its descriptor or keeps it, then writes what it is sent:
 * `OFFSET TEXT` a line, answered `ok`.
 */
async function mapper(
  file: string,
  keepOpen: boolean,
  peek = false,
  raw = false,
): Promise<{ write(at: number, text: string): Promise<void> }> {
  // Python's mmap keeps a duplicate of the descriptor; mmap(2) itself (raw) keeps none once it is closed.
  const script = raw
    ? rawMapper
    : [
        "import mmap,sys",
        "f=open(sys.argv[1],'r+b')",
        // A reader's open and close right after the writer's: inotify merges the two identical unread opens.
        "_=(open(sys.argv[1],'rb').close() if sys.argv[3]=='1' else None)",
        "m=mmap.mmap(f.fileno(),0,mmap.MAP_SHARED)",
        "m[0:1]=m[0:1]",
        "keep=sys.argv[2]=='1'",
        "_=None if keep else f.close()",
        "print('ready',flush=True)",
        "for line in sys.stdin:",
        "  at,text=line.rstrip('\\n').split(' ',1)",
        "  m[int(at):int(at)+len(text)]=text.encode()",
        "  print('ok',flush=True)",
      ].join("\n");
  const proc = Bun.spawn([python as string, "-c", script, file, keepOpen ? "1" : "0", peek ? "1" : "0"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  cleanups.push(() => {
    proc.kill();
  });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let pending = "";
  const line = async (): Promise<string> => {
    for (;;) {
      const nl = pending.indexOf("\n");
      if (nl >= 0) {
        const got = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        return got;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the mapper ended");
      pending += new TextDecoder().decode(value);
    }
  };
  expect(await line()).toBe("ready");
  return {
    async write(at, text) {
      const stdin = proc.stdin as import("bun").FileSink;
      stdin.write(`${at} ${text}\n`);
      stdin.flush();
      expect(await line()).toBe("ok");
    },
  };
}

test.skipIf(!linux)(
  "a query the index rules out everywhere stats none of the files it rules out, and hands none to the search (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "a/b/c.txt": "plain text\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    expect(await checks(mcp)).toMatchObject({ mode: "watch", given: 0, suspects: 0, stat_checks: 0 });
    // A file that holds it: the one file handed over, still nothing stat'ed.
    writeFileSync(join(root, "fill/f7.txt"), "a NEEDLEWORD now\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["fill/f7.txt"]);
    expect(await checks(mcp)).toMatchObject({ mode: "watch", given: 1, suspects: 0, stat_checks: 0 });
  },
);

test.skipIf(!linux)(
  "queries of a remembered walk that differ in their pattern share its selection: a new literal selects no entry again (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "a/b/c.txt": "plain text\n", "a/b/d.md": "a NEEDLEWORD in markdown\n" });
    const mcp = await serve(root);
    await ready(mcp);
    // The first grep of the default walk may select its entries (unless the server made its selection while
    // idle); a grep of another literal, another limit or timeout selects none: it costs its candidates.
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["a/b/d.md"]);
    expect(
      paths(await same(mcp, "grep", root, { pattern: "OTHERWORD", limit: 7, timeout_seconds: 50 })),
    ).toEqual([]);
    // (The files the cold CLI just read for the comparison are suspects: given counts them.)
    expect(await checks(mcp)).toMatchObject({ mode: "watch", stat_checks: 0, selected: 0 });
    // A glob selects once, then is shared by the next literal with the same glob.
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD", patterns: ["*.md"] }))).toEqual([
      "a/b/d.md",
    ]);
    expect(paths(await same(mcp, "grep", root, { pattern: "plain", patterns: ["*.md"] }))).toEqual([]);
    expect(await checks(mcp)).toMatchObject({ mode: "watch", selected: 0 });
    expect(paths(await same(mcp, "grep", root, { pattern: "plain", patterns: ["*.txt"] }))).toEqual([
      "a/b/c.txt",
    ]);
    expect((await checks(mcp))?.selected).toBeGreaterThan(0);
  },
);

skipWhen(pythonWhy)(
  "a file mapped before the server started, its dirty page written again (no event, no time change), is read (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "mapped.dat": "hello world, plain text and more plain text\n" });
    const m = await mapper(join(root, "mapped.dat"), false);
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    await m.write(13, "NEEDLEWORD");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["mapped.dat"]);
    // Read because it was mapped when the watch began (found in /proc), not stat'ed; the files the cold run of
    // the same query read just before may be suspects too, until the server has been idle long enough to look.
    expect((await checks(mcp))?.suspects).toBeGreaterThanOrEqual(1);
    expect((await checks(mcp))?.stat_checks).toBe(0);
  },
);

skipWhen(pythonWhy)(
  "a file mapped while serving and kept open, written again and again through its mapping, is read (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "mapped.dat": "hello world, plain text and more plain text\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    const m = await mapper(join(root, "mapped.dat"), true);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    await m.write(13, "NEEDLEWORD");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["mapped.dat"]);
    await m.write(13, "QUILLWORDS");
    expect(paths(await same(mcp, "grep", root, { pattern: "QUILLWORDS" }))).toEqual(["mapped.dat"]);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
  },
);

skipWhen(pythonWhy)(
  "a file mapped while serving, a reader's open and close merged with the writer's open: its writes are read (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "mapped.dat": "hello world, plain text and more plain text\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    // The watch sees one open (two merged) and one close: a count of zero while the writer holds the file.
    const m = await mapper(join(root, "mapped.dat"), true, true);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    await m.write(13, "NEEDLEWORD");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["mapped.dat"]);
    await m.write(13, "QUILLWORDS");
    expect(paths(await same(mcp, "grep", root, { pattern: "QUILLWORDS" }))).toEqual(["mapped.dat"]);
  },
);

skipWhen(pythonWhy)(
  "a file mapped while serving after a reader's merged open, its descriptor closed, written once the server was idle: read (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "mapped.dat": "hello world, plain text and more plain text\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    // One open seen (the writer's and the reader's merged), the reader's close: no open left. The writer then
    // closes its descriptor and keeps the mapping: no descriptor holds the file, and no close comes until the
    // mapping goes. The look made while the server is idle must find the mapping.
    const m = await mapper(join(root, "mapped.dat"), false, true, true);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    await Bun.sleep(400);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    await Bun.sleep(400);
    await m.write(13, "NEEDLEWORD");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["mapped.dat"]);
    await m.write(13, "QUILLWORDS");
    expect(paths(await same(mcp, "grep", root, { pattern: "QUILLWORDS" }))).toEqual(["mapped.dat"]);
  },
);

skipWhen(pythonWhy)(
  "a file mapped while the index is built, after a reader's merged open, written before the first query: read (skipped off Linux)",
  async () => {
    const root = scratch();
    const gate = join(scratch("rglob-fresh-gate-"), "open");
    put(root, { ...filler(), "mapped.dat": "hello world, plain text and more plain text\n" });
    // The build waits at the gate with every file read: the mapping is made while it is under way.
    const mcp = await startMcp(["--root", root], { cwd: root, env: { RGLOB_TEST_BUILD_GATE: gate } });
    cleanups.push(() => mcp.close());
    for (let i = 0; i < 1200 && (await status(mcp))?.watching !== true; i++) await Bun.sleep(25);
    expect(await status(mcp)).toMatchObject({ state: "building", watching: true });
    // One open seen (the writer's and the reader's merged), the reader's close: no open left, and the writer's
    // descriptor closed with the mapping kept. The server makes no look at every process while it builds: the
    // one it makes after the build must find the mapping.
    const m = await mapper(join(root, "mapped.dat"), false, true, true);
    await Bun.sleep(200);
    expect((await status(mcp))?.state).toBe("building");
    writeFileSync(gate, "");
    await ready(mcp);
    // Written with no event and no time change, before any query could make the server read the file again.
    await m.write(13, "NEEDLEWORD");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["mapped.dat"]);
    await m.write(13, "QUILLWORDS");
    expect(paths(await same(mcp, "grep", root, { pattern: "QUILLWORDS" }))).toEqual(["mapped.dat"]);
  },
);

skipWhen(pythonWhy)(
  "right after a count that read hundreds of files, a file mapped behind a reader's merged open and one written through a hard link outside the tree are read (skipped off Linux)",
  async () => {
    // The server's own reads name every file they read (closes that leave no open seen): the look they wait
    // for begins as the answer goes out, and a query that comes while it is under way may finish it instead of
    // reading those files. Neither may hide a writer: one whose open merged with a reader's after that look
    // began, nor one writing through another name of a file the count read.
    const root = scratch();
    const outside = scratch("rglob-fresh-outside-");
    const files: Record<string, string> = {
      ...filler(),
      "mapped.dat": "hello world, plain text and more plain text\n",
    };
    for (let i = 0; i < 300; i++) files[`many/m${i}.txt`] = `a COUNTWORD in file ${i}\n`;
    files["linked.txt"] = "a COUNTWORD and plain text here\n";
    put(root, files);
    linkSync(join(root, "linked.txt"), join(outside, "other-name.txt"));
    const mcp = await serve(root);
    await ready(mcp);
    const count = async (n: number) => {
      const res = (await mcp.client.callTool({
        name: TOOLS.grep as string,
        arguments: { base: root, hidden: true, pattern: "COUNTWORD", count: true },
      })) as CallToolResult;
      expect((res.structuredContent as { total_matches?: number }).total_matches).toBe(n);
    };
    await count(301);
    const m = await mapper(join(root, "mapped.dat"), false, true, true);
    await m.write(13, "NEEDLEWORD");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["mapped.dat"]);
    await count(301);
    writeFileSync(join(outside, "other-name.txt"), "now a LINKWORD here\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "LINKWORD" }))).toEqual(["linked.txt"]);
    await count(300);
    await m.write(13, "QUILLWORDS");
    expect(paths(await same(mcp, "grep", root, { pattern: "QUILLWORDS" }))).toEqual(["mapped.dat"]);
  },
);

test.skipIf(!linux)(
  "a query after queries that read files makes no look at every process before it answers (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "a/one.txt": "a NEEDLEWORD here\n", "a/two.txt": "NEEDLEWORD again\n" });
    const mcp = await serve(root);
    await ready(mcp);
    // The server's own reads of the files that hold it: opens and closes that wrote nothing.
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "a/one.txt",
      "a/two.txt",
    ]);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "a/one.txt",
      "a/two.txt",
    ]);
    expect((await checks(mcp))?.proc_looks).toBe(0);
    expect(paths(await same(mcp, "grep", root, { pattern: "ordinary" })).length).toBe(20);
    expect(paths(await same(mcp, "grep", root, { pattern: "again" }))).toEqual(["a/two.txt"]);
    expect((await checks(mcp))?.proc_looks).toBe(0);
    // A close after writing still looks at everything before the next answer.
    writeFileSync(join(root, "fill/f3.txt"), "a NEEDLEWORD now\n");
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "a/one.txt",
      "a/two.txt",
      "fill/f3.txt",
    ]);
    expect((await checks(mcp))?.mode).toBe("watch");
  },
);

test.skipIf(!linux)(
  "a cold walk that gives few entries (a glob) through thousands of directories keeps the index: the watch is read as the walk goes (skipped off Linux)",
  async () => {
    // 8,000 directories listed without an entry given between them are 32,000 events (an open and a close on
    // each directory's watch and its parent's), past the queue's default 16,384: unread, it overflows into a
    // recrawl that forgets the index and every remembered walk.
    const root = scratch();
    put(root, { ...filler(), "x/a.mjs": "export const NEEDLEWORD = 1;\n" });
    for (let i = 0; i < 80; i++)
      for (let j = 0; j < 100; j++) mkdirSync(join(root, "d", `${i}`, `${j}`), { recursive: true });
    const mcp = await serve(root);
    await ready(mcp);
    // A walk of another key than the index build's (hidden entries left out): walked cold by the server.
    expect(paths(await same(mcp, "find", root, { patterns: ["*.mjs"], hidden: false }))).toEqual(["x/a.mjs"]);
    expect((await status(mcp))?.state).toBe("ready");
    const answer = await same(mcp, "grep", root, { pattern: "NEEDLEWORD" });
    expect(answer.source).toBe("index");
  },
);

test.skipIf(!linux)(
  "a hard link made in the tree while serving, written through its new name: the old name is read (skipped off Linux)",
  async () => {
    const root = scratch();
    put(root, { ...filler(), "a/one.txt": "plain text here\n" });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    mkdirSync(join(root, "b"));
    linkSync(join(root, "a/one.txt"), join(root, "b/two.txt"));
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    // Written in place through the new name: the event names b/two.txt only.
    writeFileSync(join(root, "b/two.txt"), "now a NEEDLEWORD here\n", { flag: "r+" });
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "a/one.txt",
      "b/two.txt",
    ]);
  },
);

/**
 * Asks a literal found nowhere until the server's answer read nothing (bytes_read 0: the binary file it reaches is
 * skipped from the verdict kept, unread), at most `tries` times (a verdict is kept once the file is 2 s old and
 * no close names it).
 */
async function readsNothing(mcp: McpSession, root: string, tries = 400): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const res = (await mcp.client.callTool({
      name: "grep_content",
      arguments: { base: root, hidden: true, pattern: `NOWHERE_${i}_QZX` },
    })) as CallToolResult;
    if ((res.structuredContent as { bytes_read: number }).bytes_read === 0) return true;
    await Bun.sleep(50);
  }
  return false;
}

test.skipIf(!linux)(
  "a binary file remembered as binary is searched again once a hard link made to it in the tree wrote text through it (skipped off Linux)",
  async () => {
    const root = scratch();
    const bin = join(root, "data/blob.dat");
    const binary = `\0${"x".repeat(40)} NEEDLEWORD inside a binary file\n`;
    put(root, { ...filler(), "data/blob.dat": binary });
    const mcp = await serve(root);
    await ready(mcp);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    // Remembered: skipped unread, its stats not taken again while the watch vouches for the tree (#36).
    expect(await readsNothing(mcp, root)).toBe(true);
    // Another name made in the tree, then text written in place through it: no event names data/blob.dat.
    linkSync(bin, join(root, "other.dat"));
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
    const fd = openSync(join(root, "other.dat"), "r+");
    writeSync(fd, "#", 0);
    closeSync(fd);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([
      "data/blob.dat",
      "other.dat",
    ]);
  },
);

test.skipIf(!linux)(
  "a binary file remembered as binary is searched again once it turns into text of the same size and mtime, and skipped again once back (skipped off Linux)",
  async () => {
    const root = scratch();
    const bin = join(root, "data/blob.dat");
    const binary = `\0${"x".repeat(40)} NEEDLEWORD inside a binary file\n`;
    const text = `#${"x".repeat(40)} NEEDLEWORD inside a binary file\n`;
    put(root, { ...filler(), "data/blob.dat": binary });
    const { atime, mtime } = statSync(bin);
    const mcp = await serve(root);
    await ready(mcp);
    // Read once, found binary: skipped (skipped.binary 1), then remembered and no longer read.
    const first = await same(mcp, "grep", root, { pattern: "NEEDLEWORD" });
    expect(paths(first)).toEqual([]);
    expect((first.skipped as { binary: number }).binary).toBe(1);
    expect(await readsNothing(mcp, root)).toBe(true);
    // Skipped unread, as a read skips it: its BINARY record with list_binary, its count without.
    const listed = await same(mcp, "grep", root, { pattern: "NEEDLEWORD", list_binary: true });
    expect((listed.errors as Array<{ code: string }>).map((e) => e.code)).toEqual(["BINARY"]);
    expect(listed.bytes_read).toBe(0);
    // Text now, of the same size, its mtime put back: searched (a verdict kept by the old stats would skip it).
    writeFileSync(bin, text);
    utimesSync(bin, atime, mtime);
    expect(statSync(bin).size).toBe(Buffer.byteLength(binary));
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["data/blob.dat"]);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual(["data/blob.dat"]);
    // And binary again, its mtime put back: skipped again.
    writeFileSync(bin, binary);
    utimesSync(bin, atime, mtime);
    const back = await same(mcp, "grep", root, { pattern: "NEEDLEWORD" });
    expect(paths(back)).toEqual([]);
    expect((back.skipped as { binary: number }).binary).toBe(1);
    expect(await readsNothing(mcp, root)).toBe(true);
    expect(paths(await same(mcp, "grep", root, { pattern: "NEEDLEWORD" }))).toEqual([]);
  },
);
