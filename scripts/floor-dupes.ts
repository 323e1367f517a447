/*! The floor of `rglob dupes` (#23): the smallest Bun program that does the same work in one thread:
 * floor-walk.ts's walk, a stat of each regular file (size, device and inode: a hard link to a file already
 * seen is the same file, as rglob counts it), files of one size grouped, empty files left out (rglob's default
 * and fdupes' -n); then, only in a group of two or more of one size, each file read whole and hashed with
 * Bun.hash (wyhash, 64 bits), the files that share a hash compared byte by byte with the first file of their
 * class (a hash is never trusted alone), and each group of identical files given rglob's digest, SHA-256 of its
 * first member's bytes. Groups are printed as rglob prints them: `N files, SIZE bytes each, … sha256:DIGEST12`,
 * then each member's path relative to the current directory, a blank line between groups, most wasted bytes
 * first, and rglob's closing line of totals. rglob reads less of a large file (a hash of its first and last 4 KiB, then a comparison that stops at
 * the first difference) and checks after hashing that no member changed (size, mtime, inode); this floor does
 * neither: whole reads are the simplest route and cost no more where most candidates are small.
 * bench-targets.ts compiles it with the binary's build flags and compares the groups (sets of paths) with
 * rglob's and fdupes -qrn's. With --engine, the same candidates go through rglob's own engine (engine/dupes.ts:
 * edges hashed first, files opened by the real path they must have without a symlink on the way, compared byte by
 * byte, each member checked unchanged after it was read): the floor of the same work as `rglob dupes`, as
 * floor-walk.ts is rglob's walk without its layers, with no dispatcher, records or options around it.
 * With --checked, the whole-file route makes rglob's checks: each file opened as rglob opens it (no symlink on
 * the way) and each member of a group stat'ed again after the reads.
 * Usage: floor-dupes [--no-ignore] [--hidden] [--engine | --checked] */
import * as fs from "node:fs";
import type { Candidate } from "../src/engine/dupes.ts";
import { floorWalk } from "./floor-walk.ts";

interface File {
  readonly abs: string;
  readonly rel: string;
  readonly order: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly inode: string;
}

const bySize = new Map<number, File[]>();
const inodes = new Set<string>();
let order = 0;
floorWalk(
  (abs, rel) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      return;
    }
    if (st.size === 0 || !st.isFile()) return;
    const inode = `${st.dev}:${st.ino}`;
    if (inodes.has(inode)) return;
    inodes.add(inode);
    const f = { abs, rel, order: order++, size: st.size, mtimeMs: st.mtimeMs, inode };
    const list = bySize.get(st.size);
    if (list) list.push(f);
    else bySize.set(st.size, [f]);
  },
  !process.argv.includes("--no-ignore"),
  process.argv.includes("--hidden"),
);

interface Group {
  readonly size: number;
  readonly digest: string;
  readonly members: File[];
}
const groups: Group[] = [];
if (process.argv.includes("--engine")) {
  const cwd = process.cwd();
  // Loaded only here: the whole-file floor does not pay for the engine's modules at start-up.
  const { findDuplicates } = await import("../src/engine/dupes.ts");
  const { quietContext } = await import("../src/engine/run.ts");
  const ctx = quietContext();
  const candidates: Candidate[] = [];
  for (const files of bySize.values()) if (files.length > 1) candidates.push(...files);
  candidates.sort((a, b) => a.order - b.order);
  const confine = { roots: [[cwd, fs.realpathSync(cwd)] as const], inside: null, follow: false };
  for (const g of (await findDuplicates(candidates, ctx, confine)).groups)
    groups.push({ size: g.size, digest: g.digest.slice(g.digest.indexOf(":") + 1), members: g.files.flat() });
} else {
  // --checked: each file opened as rglob opens it (openat2 with no symlink on the way, dir-fd.ts) and read
  // whole with one read, and each member of a group stat'ed again after the reads (statx, as rglob's check
  // that it is still the file the walk saw): the whole-file route with the checks rglob makes.
  const checked = process.argv.includes("--checked");
  const fds = checked ? (await import("../src/platform/dir-fd.ts")).dirFds() : null;
  const statFields = checked ? (await import("../src/platform/stat-words.ts")).statFields : null;
  const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;
  const read = (f: File): Buffer => {
    if (fds === null) return fs.readFileSync(f.abs);
    const fd = fds.openNoSymlinks(f.abs, flags);
    if (fd < 0) throw new Error(`cannot open ${f.abs}`);
    try {
      const bytes = Buffer.allocUnsafe(f.size);
      if (fs.readSync(fd, bytes, 0, f.size, 0) !== f.size) throw new Error(`short read of ${f.abs}`);
      return bytes;
    } finally {
      fds.close(fd);
    }
  };
  const unchanged = (f: File): boolean => {
    const st = statFields?.(f.abs, true);
    return st != null && st.size === f.size && st.mtimeMs === f.mtimeMs && `${st.dev}:${st.ino}` === f.inode;
  };
  for (const [size, files] of bySize) {
    if (files.length < 2) continue;
    // Classes of identical contents, found through a 64-bit hash and confirmed byte by byte.
    const byHash = new Map<bigint | number, Array<{ bytes: Buffer; members: File[] }>>();
    for (const f of files) {
      let bytes: Buffer;
      try {
        bytes = read(f);
      } catch {
        continue;
      }
      const h = Bun.hash(bytes);
      const classes = byHash.get(h);
      const same = classes?.find((c) => c.bytes.equals(bytes));
      if (same) same.members.push(f);
      else if (classes) classes.push({ bytes, members: [f] });
      else byHash.set(h, [{ bytes, members: [f] }]);
    }
    for (const classes of byHash.values())
      for (const c of classes) {
        if (checked) c.members = c.members.filter(unchanged);
        if (c.members.length > 1) {
          const digest = new Bun.CryptoHasher("sha256").update(c.bytes).digest("hex");
          groups.push({ size, digest, members: c.members });
        }
      }
  }
}
groups.sort(
  (a, b) =>
    b.size * (b.members.length - 1) - a.size * (a.members.length - 1) ||
    (a.members[0] as File).order - (b.members[0] as File).order,
);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
let text = "";
let files = 0;
let wasted = 0;
for (const g of groups) {
  const n = g.members.length;
  files += n - 1;
  wasted += g.size * (n - 1);
  text += `${text === "" ? "" : "\n"}${n} files, ${g.size} bytes each, ${g.size * (n - 1)} bytes wasted, sha256:${g.digest.slice(0, 12)}\n`;
  for (const m of g.members) text += `${m.rel}\n`;
}
const members =
  groups.length > 0 ? ` (${plural(groups.length + files, "file")}, ${files} of them extra copies)` : "";
text += `${groups.length > 0 ? "\n" : ""}${plural(groups.length, "group")}${members}, ${wasted} bytes wasted\n`;
fs.writeSync(1, text);
