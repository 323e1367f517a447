/*! The floor of a restarted server's set-up (#36): the smallest programs that do what the freshness model needs
 * before a loaded index may trust its watch (docs/decisions/0035-index-at-scale.md), on the same tree, with none
 * of the server around them. Each part is timed alone, wall and CPU:
 * - read the index file from the cache (loadIndex: read, hash, header), as the server loads it;
 * - list every directory the server watches (readdirSync with types, depth first; `.git` internals left out as
 *   the watch leaves them), which is how a watch finds the directories below one;
 * - `inotify_add_watch` (bun:ffi, the server's mask) on each of those directories, the list known, the queue
 *   read every 256 watches; and the same interleaved with the listing, as the server's set-up does it;
 * - `lstat` of every indexed file (the index's own paths), and the same through the index's checks (fileChecks,
 *   which also compares the stats with those indexed);
 * - the restart that lists nothing it need not: `inotify_add_watch` on each directory the walk written with the
 *   index listed (its witnessed directories, no listing), then one statx of it compared with the words recorded
 *   (a directory whose mtime and ctime are as recorded had no entry added, removed or renamed) and its link count
 *   against its known subdirectories (two links and one a subdirectory); the directories that differ are those a
 *   server lists. This and the files' lstat are the floor of that order (watch, verify, stat the files).
 * Usage: bun scripts/floor-restart-scale.ts [--tree=DIR] [--listing=no] (the tree's index must be in the cache;
 * RGLOB_CACHE_DIR picks it; --listing=no leaves out the parts that list every directory, the slowest). The watch parts need as many inotify watches as the tree has directories: run it when no server of
 * the tree holds them. */

import { dlopen, FFIType, ptr } from "bun:ffi";
import { execSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { readConfig } from "../src/config.ts";
import { indexPathFor, loadIndex } from "../src/engine/index/persist.ts";
import { STAT_WORDS, wordsAndLinks } from "../src/platform/stat-words.ts";
import { benchArgs } from "./bench-args.ts";

const args = benchArgs(
  "bun scripts/floor-restart-scale.ts [--tree=DIR] [--listing=no]",
  { tree: "text", listing: "text" },
  1,
);
const tree = fs.realpathSync(args.get("tree") ?? process.env.RGLOB_BENCH_TREE ?? "/tmp/sc-babel-x10");
const load = () =>
  execSync("uptime")
    .toString()
    .trim()
    .replace(/.*load/, "load");

/** Runs a part and prints its wall and CPU time. */
function timed<T>(what: string, f: () => T): T {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = f();
  const wall = performance.now() - t;
  const cpu = process.cpuUsage(c);
  console.log(
    `${what}: ${wall.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU (${load()})`,
  );
  return r;
}

const libc = dlopen("libc.so.6", {
  inotify_init1: { args: [FFIType.i32], returns: FFIType.i32 },
  inotify_add_watch: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64_fast },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
}).symbols;
// The server's mask (tree-watch.ts): modify, attrib, open, closes, moves, create, delete, self events, onlydir,
// dont_follow, excl_unlink.
const MASK =
  0x2 |
  0x4 |
  0x20 |
  0x8 |
  0x10 |
  0x40 |
  0x80 |
  0x100 |
  0x200 |
  0x400 |
  0x800 |
  0x1000000 |
  0x2000000 |
  0x4000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const events = new Uint8Array(64 * 1024);
const name = Buffer.alloc(8192);

/** Whether the watch covers a directory (tree-watch.ts `watched`): not inside `.git` beyond `.git/info`. */
function watched(rel: string): boolean {
  const parts = rel.split("/");
  const git = parts.indexOf(".git");
  return git < 0 || git === parts.length - 1 || (git === parts.length - 2 && parts[git + 1] === "info");
}

/** Adds a watch; the queue is read every 256 (the listing's own opens and closes are events). */
function addWatch(fd: number, abs: string, n: number): number {
  name.write(`${abs}\0`, 0, "utf8");
  const wd = libc.inotify_add_watch(fd, ptr(name), MASK);
  if ((n & 255) === 0) while (Number(libc.read(fd, ptr(events), events.length)) > 0) {}
  return wd;
}

/** Lists the watched directories depth first; with `fd`, watches each before it is listed (the server's order). */
function listDirs(fd: number | null): string[] {
  const dirs: string[] = [];
  const pending = [tree];
  let failed = 0;
  while (pending.length > 0) {
    const abs = pending.pop() as string;
    if (fd !== null && addWatch(fd, abs, dirs.length) < 0) failed++;
    dirs.push(abs);
    let ents: fs.Dirent[];
    try {
      ents = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of ents) {
      if (!e.isDirectory()) continue;
      const sub = path.join(abs, e.name);
      if (watched(path.relative(tree, sub))) pending.push(sub);
    }
  }
  if (failed > 0) console.log(`  ${failed} directories could not be watched (the user's inotify limit?)`);
  return dirs;
}

console.log(`${tree}: ${load()}`);
const loaded = timed("read the index file (loadIndex)", () =>
  loadIndex(tree, indexPathFor(tree, readConfig().indexDir)),
);
if (loaded.index === null) {
  console.error(`no usable index of ${tree} in the cache (${loaded.reason})`);
  process.exit(1);
}
const idx = loaded.index;
const stored = idx.walk;
if (stored === null) console.log("  the index holds no walk: the stored directories' part is left out");
else {
  const dirs = timed("the stored directories (the walk written with the index, no listing)", () => {
    const prefix = `${tree}/`;
    return stored
      .witnesses()
      .filter(
        (w) =>
          w.follow &&
          !w.kindOnly &&
          w.outcome === 0 &&
          (w.path === tree || (w.path.startsWith(prefix) && watched(w.path.slice(prefix.length)))),
      );
  });
  console.log(`  ${dirs.length} directories`);
  const fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  const words = new Uint32Array(STAT_WORDS);
  timed("inotify_add_watch on each stored directory, then statx compared with the recorded words", () => {
    let failed = 0;
    let differ = 0;
    let listed = 0;
    const children = new Map<string, number>();
    const links = new Array<number>(dirs.length);
    for (let i = 0; i < dirs.length; i++) {
      const d = dirs[i] as (typeof dirs)[number];
      if (addWatch(fd, d.path, i) < 0) {
        failed++;
        links[i] = -1;
        continue;
      }
      const parent = path.dirname(d.path);
      children.set(parent, (children.get(parent) ?? 0) + 1);
      const n = wordsAndLinks(d.path, words, 0);
      let same = n > 0;
      for (let k = 0; same && k < STAT_WORDS; k++) same = words[k] === d.words[k];
      if (!same) differ++;
      links[i] = same ? n : -1;
    }
    for (let i = 0; i < dirs.length; i++) {
      const n = links[i] as number;
      if (n < 0 || n - 2 !== (children.get((dirs[i] as (typeof dirs)[number]).path) ?? 0)) listed++;
    }
    console.log(
      `  ${differ} differ from the recorded words, ${failed} not watched, ${listed} to list (differ, or links not those of the known subdirectories)`,
    );
  });
  libc.close(fd);
}
if (args.get("listing") !== "no") {
  const dirs = timed("list every watched directory (readdirSync, types)", () => listDirs(null));
  console.log(`  ${dirs.length} directories`);
  let fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  timed("inotify_add_watch on each directory (list known)", () => {
    let failed = 0;
    for (let i = 0; i < dirs.length; i++) if (addWatch(fd, dirs[i] as string, i) < 0) failed++;
    if (failed > 0) console.log(`  ${failed} directories could not be watched (the user's inotify limit?)`);
  });
  libc.close(fd);
  fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  timed("watch and list each directory (the server's set-up, in one go)", () => listDirs(fd));
  libc.close(fd);
}
const paths = timed("the indexed files' paths (decoded)", () => idx.paths.map((p) => path.join(tree, p)));
timed(`lstat of every indexed file (${paths.length})`, () => {
  let gone = 0;
  for (const p of paths) if (fs.lstatSync(p, { throwIfNoEntry: false }) === undefined) gone++;
  if (gone > 0) console.log(`  ${gone} gone`);
});
timed("the same through the index's checks (fileChecks: lstat and compare)", () => {
  const checks = idx.fileChecks();
  let changed = 0;
  try {
    for (let id = 0; id < idx.header.files; id++) if (!checks.unchanged(id)) changed++;
  } finally {
    checks.close();
  }
  console.log(`  ${changed} changed`);
});
process.exit(0);
