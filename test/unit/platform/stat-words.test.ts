// stat-words.ts: the words statx gives (bun:ffi, Linux) are those Node's bigint stats give, for each of many
// paths in turn, in a loop long enough for the optimising JIT; absent paths and errors are told apart. The
// persisted index compares words written at build time with words read at grep time (#24).
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  closeSync,
  constants as fsConstants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeName, fsPath } from "../../../src/platform/names.ts";
import {
  lstatAt,
  newestTime,
  pathsChecker,
  STAT_ABSENT,
  STAT_OK,
  STAT_WORDS,
  sameWords,
  statBytesInto,
  statFields,
  statInto,
  statKindInto,
  wordsOfStats,
} from "../../../src/platform/stat-words.ts";

let dir: string;
const files: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-statwords-"));
  mkdirSync(join(dir, "sub"));
  for (let i = 0; i < 40; i++) {
    const f = join(dir, i % 2 ? "sub" : "", `f${i}.txt`);
    // Same size and times for every file: only the inode tells them apart.
    writeFileSync(f, "abcdef");
    utimesSync(f, new Date(1_600_000_000_000), new Date(1_600_000_000_000));
    files.push(f);
  }
  // A time before 1970 (negative seconds, nanoseconds still in [0, 1e9)).
  expect(Bun.spawnSync(["touch", "-m", "-d", "@-1.25", files[0] as string]).exitCode).toBe(0);
  expect(lstatSync(files[0] as string, { bigint: true }).mtimeNs).toBe(-1_250_000_000n);
  symlinkSync(files[1] as string, join(dir, "link"));
  files.push(join(dir, "link"), join(dir, "sub"), join(dir, "sub", "f1.txt"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("statx words equal Node's for every path, in turn, many times over", () => {
  const read = statInto();
  const a = new Uint32Array(STAT_WORDS);
  const b = new Uint32Array(STAT_WORDS);
  const inodes = new Set<number>();
  for (let round = 0; round < 300; round++) {
    for (const f of files) {
      for (const follow of [false, true]) {
        expect(read(f, follow, a, 0)).toBe(STAT_OK);
        wordsOfStats(follow ? statSync(f, { bigint: true }) : lstatSync(f, { bigint: true }), b, 0);
        if (a.some((w, i) => w !== b[i]))
          expect({ f, follow, got: [...a] }).toEqual({ f, follow, got: [...b] });
        if (round === 0) inodes.add(a[8] as number);
      }
    }
  }
  expect(inodes.size).toBeGreaterThan(40);
});

test("a path given as bytes (a prefix and a slice) reads the same words", () => {
  const a = new Uint32Array(STAT_WORDS);
  const b = new Uint32Array(STAT_WORDS);
  const prefix = Buffer.from(`${dir}/`);
  const rels = Buffer.from(files.map((f) => f.slice(dir.length + 1)).join("\0"));
  for (let round = 0; round < 200; round++) {
    let from = 0;
    for (const f of files) {
      const to = rels.indexOf(0, from) < 0 ? rels.length : rels.indexOf(0, from);
      expect(statBytesInto()(prefix, rels, from, to, false, a, 0)).toBe(STAT_OK);
      statInto()(f, false, b, 0);
      if (a.some((w, i) => w !== b[i])) expect({ f, got: [...a] }).toEqual({ f, got: [...b] });
      from = to + 1;
    }
  }
  expect(statBytesInto()(prefix, Buffer.from("nope"), 0, 4, false, a, 0)).toBe(STAT_ABSENT);
});

test("pathsChecker: each path of a byte array, relative to a directory or absolute, has its own words only", () => {
  // Node's words for every path; each path is checked against its own (same) and the next path's (not: the
  // inode differs), in turn, in a loop long enough for the optimising JIT. The last path has no NUL after it.
  const words = new Uint32Array(files.length * STAT_WORDS);
  for (const [i, f] of files.entries()) wordsOfStats(lstatSync(f, { bigint: true }), words, i * STAT_WORDS);
  const next = (i: number) => ((i + 1) % files.length) * STAT_WORDS;
  for (const [base, paths] of [
    [dir, files.map((f) => f.slice(dir.length + 1))],
    [null, files],
  ] as const) {
    const bytes = Buffer.from(paths.join("\0"));
    const checker = pathsChecker(base, bytes);
    try {
      for (let round = 0; round < 300; round++) {
        let from = 0;
        for (let i = 0; i < paths.length; i++) {
          const end = bytes.indexOf(0, from);
          const to = end < 0 ? bytes.length : end;
          const got = [
            checker.same(from, to, false, words, i * STAT_WORDS),
            checker.same(from, to, false, words, next(i)),
          ];
          if (!got[0] || got[1])
            expect({ path: paths[i], got }).toEqual({ path: paths[i], got: [true, false] });
          from = to + 1;
        }
      }
      // Followed, the link has its target's words; a path that is not there has none.
      const link = paths.indexOf(base === null ? join(dir, "link") : "link");
      const at = bytes.indexOf(Buffer.from(`${paths[link]}\0`));
      const target = files.indexOf(files[1] as string) * STAT_WORDS;
      expect(checker.same(at, at + (paths[link] as string).length, true, words, target)).toBe(true);
      expect(checker.same(at, at + (paths[link] as string).length, false, words, target)).toBe(false);
      const absent = Buffer.from(base === null ? `${dir}/nope\0` : "nope\0");
      const other = pathsChecker(base, absent);
      expect(other.same(0, absent.length - 1, false, words, 0)).toBe(false);
      other.close();
    } finally {
      checker.close();
    }
  }
});

test("sameWords: unchanged, changed by a write of the same size, absent", () => {
  const f = files[2] as string;
  const w = new Uint32Array(STAT_WORDS);
  expect(statInto()(f, false, w, 0)).toBe(STAT_OK);
  expect(sameWords(f, false, w, 0)).toBe(true);
  writeFileSync(f, "ABCDEF");
  expect(sameWords(f, false, w, 0)).toBe(false);
  expect(statInto()(join(dir, "nope"), false, w, 0)).toBe(STAT_ABSENT);
  expect(statInto()(join(files[3] as string, "under-a-file"), false, w, 0)).toBe(STAT_ABSENT);
  expect(sameWords(join(dir, "nope"), false, w, 0)).toBe(false);
});

test("statKindInto: a directory, a regular file, anything else (a final link followed), from one stat, in turn", () => {
  const at = mkdtempSync(join(tmpdir(), "rglob-statkind-"));
  try {
    mkdirSync(join(at, "dir"));
    writeFileSync(join(at, "file"), "x");
    expect(Bun.spawnSync(["mkfifo", join(at, "fifo")]).exitCode).toBe(0);
    symlinkSync("dir", join(at, "to-dir"));
    symlinkSync("file", join(at, "to-file"));
    symlinkSync("nowhere", join(at, "dangling"));
    const want: Record<string, number> = { dir: 1, file: 2, fifo: 3, "to-dir": 1, "to-file": 2 };
    const w = new Uint32Array(STAT_WORDS);
    const node = new Uint32Array(STAT_WORDS);
    for (let round = 0; round < 300; round++) {
      for (const [name, kind] of Object.entries(want)) {
        expect(statKindInto(join(at, name), w)).toBe(STAT_OK);
        // The kind in the first word, the other words those of the followed path's stat.
        wordsOfStats(statSync(join(at, name), { bigint: true }), node, 0);
        if (w[0] !== kind || w.slice(1).join() !== node.slice(1).join())
          expect({ name, words: [...w] }).toEqual({ name, words: [kind, ...node.slice(1)] });
      }
      expect(statKindInto(join(at, "dangling"), w)).toBe(STAT_ABSENT);
      expect(statKindInto(join(at, "file", "below"), w)).toBe(STAT_ABSENT);
    }
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
});

test("newestTime reads the later of mtime and ctime, before 1970 too", () => {
  const w = new Uint32Array(STAT_WORDS);
  statInto()(files[0] as string, false, w, 0);
  const st = lstatSync(files[0] as string);
  expect(newestTime(w, 0)).toBeCloseTo(Math.max(st.mtimeMs, st.ctimeMs) / 1000, 3);
  // The mtime, -1.25 s: -2 seconds (both words) and 750,000,000 nanoseconds, as the kernel's timespec.
  expect([w[2], w[3], w[4]]).toEqual([0xffff_fffe, 0xffff_ffff, 750_000_000]);
  const old = new Uint32Array(STAT_WORDS);
  statInto()(files[4] as string, false, old, 0);
  expect(newestTime(old, 0)).toBeCloseTo(lstatSync(files[4] as string).ctimeMs / 1000, 3);
});

test("lstatAt and statFields: an entry's fields (relative to its directory, or by path, a link followed or not) equal Node's, every kind, in turn", () => {
  const at = mkdtempSync(join(tmpdir(), "rglob-lstatat-"));
  try {
    // Times with nanoseconds, before 1970, sizes, modes, a directory, symlinks (one dangling), a FIFO, and names
    // in UTF-8 and not (a byte that is no UTF-8 is held as names.ts holds it).
    const names = ["plain.txt", "ünï.txt", "old", "dir", "link", "dangling", "fifo", "big.bin"];
    writeFileSync(join(at, "plain.txt"), "x".repeat(1234));
    writeFileSync(join(at, "ünï.txt"), "y");
    writeFileSync(join(at, "old"), "");
    mkdirSync(join(at, "dir"));
    symlinkSync("plain.txt", join(at, "link"));
    symlinkSync("nowhere", join(at, "dangling"));
    expect(Bun.spawnSync(["mkfifo", join(at, "fifo")]).exitCode).toBe(0);
    writeFileSync(join(at, "big.bin"), Buffer.alloc(70_000, 7));
    expect(
      Bun.spawnSync(["touch", "-h", "-m", "-d", "@1600000000.123456789", join(at, "plain.txt")]).exitCode,
    ).toBe(0);
    expect(Bun.spawnSync(["touch", "-m", "-d", "@-1.25", join(at, "old")]).exitCode).toBe(0);
    expect(Bun.spawnSync(["chmod", "0751", join(at, "big.bin")]).exitCode).toBe(0);
    const raw = Buffer.concat([Buffer.from("raw-"), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]);
    writeFileSync(Buffer.concat([Buffer.from(`${at}/`), raw]), "z");
    names.push(decodeName(raw));
    const fd = openSync(at, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
    try {
      for (let round = 0; round < 300; round++) {
        for (const name of names) {
          const got = lstatAt(fd, name);
          const want = lstatSync(fsPath(`${at}/${name}`));
          const pick = (s: typeof want) => ({
            size: s.size,
            mtimeMs: s.mtimeMs,
            mode: s.mode,
            uid: s.uid,
            gid: s.gid,
            dev: s.dev,
            ino: s.ino,
          });
          if (got === null || JSON.stringify({ name, ...got }) !== JSON.stringify({ name, ...pick(want) }))
            expect({ name, ...got }).toEqual({ name, ...pick(want) });
          // statFields by the absolute path: the link itself, or what it leads to (nothing for a dangling one).
          const own = statFields(`${at}/${name}`, false);
          if (own === null || JSON.stringify(own) !== JSON.stringify(pick(want)))
            expect({ name, own }).toEqual({ name, own: pick(want) });
          const target = statSync(fsPath(`${at}/${name}`), { throwIfNoEntry: false });
          const followed = statFields(`${at}/${name}`, true);
          const wantFollowed = target === undefined ? null : pick(target);
          if (JSON.stringify(followed) !== JSON.stringify(wantFollowed))
            expect({ name, followed }).toEqual({ name, followed: wantFollowed });
        }
      }
      expect(lstatAt(fd, "absent")).toBeNull();
      expect(statFields(`${at}/absent`, true)).toBeNull();
      expect(statFields(`${at}/link`, true)?.size).toBe(1234);
      expect(statFields(`${at}/link`, false)?.size).toBe("plain.txt".length);
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
});
