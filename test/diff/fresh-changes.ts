/*! The changes of the freshness differential (test/diff/fresh-lib.ts), one change class at a time, made by its
 * editor process (test/diff/fresh-editor.ts); the set-up of each class's tree is made by the test itself. The
 * tree is ROOT (below OUTER/work); OUTER also holds what lies outside the tree (the hard links' other names, the
 * root's template). Not a test file (no .test.ts). */
import type * as Ffi from "bun:ffi";
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { prng } from "../helpers.ts";
import { FRESH_WORDS } from "./fresh-words.ts";
import { WORDS } from "./index-corpus.ts";

/** What changes a tree: seeded, one per class. */
export interface Changer {
  /** Makes what the class needs before the index is built (hard links, odd names, a deep chain). */
  setup(cls: string): string;
  /** Puts every file's mtime an hour back (the persisted index leaves out files modified in the last 2 s). */
  age(): string;
  /** Makes one change of the class; returns what it did. */
  change(cls: string): string;
  /**
   * Made by the editor before the tree is indexed and served: what must already be there when they start (a
   * shared writable mapping, its page written, mmap-held). Returns what it did.
   */
  hold(cls: string): string;
  /** A random number of the changer's sequence. */
  rand(): number;
}

/**
 * Creates the changer of a tree.
 * @param outer the directory holding the tree's parent and what lies outside the tree
 * @param root the tree
 * @param seed the seed
 * @returns the changer
 */
export function changer(outer: string, root: string, seed: number): Changer {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

  // ── libc through bun:ffi: what Bun's fs cannot do (paths past PATH_MAX, shared mappings, times to the ns) ──
  const ffi = process.getBuiltinModule("bun:ffi") as typeof Ffi;
  const T = ffi.FFIType;
  const libc = ffi.dlopen("libc.so.6", {
    open: { args: [T.ptr, T.i32, T.i32], returns: T.i32 },
    openat: { args: [T.i32, T.ptr, T.i32, T.i32], returns: T.i32 },
    mkdirat: { args: [T.i32, T.ptr, T.i32], returns: T.i32 },
    close: { args: [T.i32], returns: T.i32 },
    write: { args: [T.i32, T.ptr, T.u64], returns: T.i64 },
    ftruncate: { args: [T.i32, T.i64], returns: T.i32 },
    mmap: { args: [T.ptr, T.u64, T.i32, T.i32, T.i32, T.i64], returns: T.ptr },
    msync: { args: [T.ptr, T.u64, T.i32], returns: T.i32 },
    munmap: { args: [T.ptr, T.u64], returns: T.i32 },
    utimensat: { args: [T.i32, T.ptr, T.ptr, T.i32], returns: T.i32 },
  });
  const C = libc.symbols;
  const O_RDONLY = 0;
  const O_RDWR = 2;
  const O_WRONLY = 1;
  const O_CREAT = 0o100;
  const O_TRUNC = 0o1000;
  const O_APPEND = 0o2000;
  const O_DIRECTORY = 0o200000;
  const PROT_RW = 3;
  const MAP_SHARED = 1;
  const MS_SYNC = 4;
  const AT_FDCWD = -100;
  const cstr = (s: string | Buffer) =>
    Buffer.concat([typeof s === "string" ? Buffer.from(s) : s, Buffer.from([0])]);
  const must = (r: number | bigint, what: string) => {
    if (Number(r) < 0) throw new Error(`${what} failed`);
    return Number(r);
  };

  /** Opens the directory at a path relative to ROOT one component at a time (no path past PATH_MAX is formed). */
  function openDirChain(parts: readonly string[], make: boolean): number {
    let fd = must(C.open(cstr(root), O_RDONLY | O_DIRECTORY, 0), `open ${root}`);
    for (const p of parts) {
      if (make) C.mkdirat(fd, cstr(p), 0o755);
      const next = must(C.openat(fd, cstr(p), O_RDONLY | O_DIRECTORY, 0), `openat ${p}`);
      C.close(fd);
      fd = next;
    }
    return fd;
  }

  /** Writes (or appends) a file in a deep directory through descriptors; its mtime an hour back when `old`. */
  function writeDeep(
    parts: readonly string[],
    name: string,
    text: string,
    append: boolean,
    old = false,
  ): void {
    const dfd = openDirChain(parts, true);
    try {
      const flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
      const fd = must(C.openat(dfd, cstr(name), flags, 0o644), `openat ${name}`);
      const bytes = Buffer.from(text);
      C.write(fd, bytes, bytes.length);
      C.close(fd);
      if (old) {
        const past = BigInt(Math.floor(Date.now() / 1000) - 3600);
        const times = new BigInt64Array([past, 0n, past, 0n]);
        C.utimensat(dfd, cstr(name), times, 0);
      }
    } finally {
      C.close(dfd);
    }
  }

  /** Puts a file's atime and mtime back to those of a stat taken before (to the nanosecond, as `touch -r`). */
  function restoreTimes(file: string | Buffer, before: { atimeNs: bigint; mtimeNs: bigint }): void {
    const ns = 1_000_000_000n;
    const times = new BigInt64Array([
      before.atimeNs / ns,
      before.atimeNs % ns,
      before.mtimeNs / ns,
      before.mtimeNs % ns,
    ]);
    must(C.utimensat(AT_FDCWD, cstr(file), times, 0), "utimensat");
  }

  /** A shared writable mapping this process keeps (mmap-held, mmap-open): its file, view and descriptor. */
  interface Held {
    readonly file: Buffer;
    readonly view: Uint8Array;
    readonly ptr: ReturnType<typeof C.mmap>;
    readonly size: number;
    fd: number;
  }
  const held: Held[] = [];

  /**
   * Maps a file shared and writable and keeps the mapping, its first byte written back as it was (the page is
   * now dirty and writable: later writes to it fault no more, so the kernel updates no time for them); its
   * descriptor is kept open or closed (the mapping holds the file open anyway).
   */
  function holdMapping(file: Buffer, keepOpen: boolean): Held | null {
    const size = statSync(file).size;
    if (size < 16) return null;
    const fd = must(C.open(cstr(file), O_RDWR, 0), "open");
    const p = C.mmap(null, size, PROT_RW, MAP_SHARED, fd, 0);
    if (p === null || Number(p) === -1 || Number(p) === 0) throw new Error("mmap failed");
    const view = new Uint8Array(ffi.toArrayBuffer(p, 0, size));
    view[0] = view[0] as number;
    const h: Held = { file, view, ptr: p, size, fd };
    if (!keepOpen) {
      C.close(fd);
      h.fd = -1;
    }
    held.push(h);
    return h;
  }

  /** Writes a token into a kept mapping (no msync: the page stays dirty), at a random place. */
  function heldWrite(h: Held): string {
    const token = Buffer.from(pick(["zeta42", "quartz"]));
    const at = Math.floor(rand() * (h.size - token.length - 1));
    h.view.set(token, at);
    return `${rel(h.file)} @${at} ${token}`;
  }

  /** Overwrites a file's bytes in place through a shared mapping, then msync: no write(2), so no IN_MODIFY. */
  function mmapWrite(file: string | Buffer, at: number, bytes: Uint8Array): void {
    const size = statSync(file).size;
    if (at + bytes.length > size) return;
    const fd = must(C.open(cstr(file), O_RDWR, 0), "open");
    try {
      const p = C.mmap(null, size, PROT_RW, MAP_SHARED, fd, 0);
      if (p === null || Number(p) === -1 || Number(p) === 0) throw new Error("mmap failed");
      const view = new Uint8Array(ffi.toArrayBuffer(p, 0, size));
      view.set(bytes, at);
      must(C.msync(p, size, MS_SYNC), "msync");
      C.munmap(p, size);
    } finally {
      C.close(fd);
    }
  }

  // ── Text ──

  /** A few random lines of words, the new ones (zeta42, quartz) among them. */
  function text(): string {
    // One of the words no file holds before a change first (the queries ask for them), on a random line.
    const lines: string[] = [pick(["zeta42", "quartz", "caf\u00e9 zeta42", "Needle quartz"])];
    for (let i = 0, n = Math.floor(rand() * 5); i < n; i++) {
      const w: string[] = [];
      for (let j = 0, m = 1 + Math.floor(rand() * 6); j < m; j++) w.push(pick(FRESH_WORDS));
      lines.push(w.join(" "));
    }
    const at = Math.floor(rand() * lines.length);
    [lines[0], lines[at]] = [lines[at] as string, lines[0] as string];
    return `${lines.join("\n")}\n`;
  }

  /** The text of a file made before the index (set-up): the tree's words only, none of the new ones. */
  function baseText(): string {
    const lines: string[] = [];
    for (let i = 0, n = 1 + Math.floor(rand() * 5); i < n; i++) {
      const w: string[] = [];
      for (let j = 0, m = 1 + Math.floor(rand() * 6); j < m; j++) w.push(pick(WORDS));
      lines.push(w.join(" "));
    }
    const at = Math.floor(rand() * lines.length);
    [lines[0], lines[at]] = [lines[at] as string, lines[0] as string];
    return `${lines.join("\n")}\n`;
  }

  /** Text of exactly n bytes (words, cut or padded with spaces), for same-size rewrites. */
  function sameSize(n: number): Buffer {
    let t = `${pick(["zeta42", "quartz"])} `;
    while (Buffer.byteLength(t) < n) t += `${pick(FRESH_WORDS.filter((w) => /^[\x20-\x7e]+$/.test(w)))} `;
    const b = Buffer.from(t).subarray(0, n);
    if (n > 0) b[n - 1] = 10;
    return Buffer.from(b);
  }

  // ── The tree ──

  const SKIP_DIRS = new Set([".git", "deep"]);

  /** Files (not ignore files) and directories below ROOT, in name order, as Buffers (names need not be UTF-8). */
  function listAll(): { files: Buffer[]; dirs: Buffer[] } {
    const files: Buffer[] = [];
    const dirs: Buffer[] = [];
    const visit = (d: Buffer) => {
      let names: Buffer[];
      try {
        names = readdirSync(d, { encoding: "buffer" }) as Buffer[];
      } catch {
        return;
      }
      for (const n of names.sort(Buffer.compare)) {
        const s = n.toString("latin1");
        if (SKIP_DIRS.has(s)) continue;
        const abs = Buffer.concat([d, Buffer.from("/"), n]);
        const st = lstatSync(abs);
        if (st.isDirectory()) {
          dirs.push(abs);
          visit(abs);
        } else if (st.isFile() && !s.endsWith("ignore")) files.push(abs);
      }
    };
    visit(Buffer.from(root));
    return { files, dirs };
  }

  const rel = (p: string | Buffer): string =>
    JSON.stringify(relative(root, typeof p === "string" ? p : p.toString("latin1")));
  let made = 0;
  const EXTS = [".txt", ".md", ".js", ".log"];
  const freshName = (d: Buffer | string) =>
    join(String(d instanceof Buffer ? d.toString() : d), `n${made++}${pick(EXTS)}`);
  const anyDir = (dirs: Buffer[]): Buffer =>
    dirs.length > 0 && rand() < 0.7 ? pick(dirs) : Buffer.from(root);
  const plainDirs = (dirs: Buffer[]) => dirs.filter((d) => Buffer.from(d.toString()).equals(d));
  const plainFiles = (files: Buffer[]) => files.filter((f) => Buffer.from(f.toString()).equals(f));
  const sh = (cmd: string[], cwd = outer) => {
    const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  };

  /** Deep chain: ROOT/deep and 24 directories of 180-byte names below it, a path of over 4,400 bytes. */
  const DEEP = [
    "deep",
    ...Array.from({ length: 24 }, (_, i) => `L${String(i).padStart(2, "0")}-${"d".repeat(176)}`),
  ];
  const STORE = () => join(outer, "store");
  const LINKS = () => join(root, "links");
  const TWINS = 6;

  // ── Set-up per class ──

  function setup(cls: string): string {
    switch (cls) {
      case "hardlink-outside": {
        mkdirSync(STORE(), { recursive: true });
        mkdirSync(LINKS(), { recursive: true });
        // pnpm's store, `cp -al`: each file has a second name outside the tree.
        for (let i = 0; i < 6; i++) {
          const s = join(STORE(), `s${i}.txt`);
          writeFileSync(s, baseText());
          sh(["ln", s, join(LINKS(), `ext${i}.txt`)]);
        }
        return "store of 6 files linked into links/";
      }
      case "hardlink-inside": {
        mkdirSync(LINKS(), { recursive: true });
        for (let i = 0; i < TWINS; i++) {
          const x = join(LINKS(), `twin${i}.txt`);
          writeFileSync(x, baseText());
          mkdirSync(join(root, "dir1"), { recursive: true });
          sh(["ln", x, join(root, "dir1", `twin${i}-b.txt`)]);
        }
        return `${TWINS} pairs links/twinN.txt = dir1/twinN-b.txt`;
      }
      case "non-utf8": {
        for (let i = 0; i < 3; i++) {
          writeFileSync(badName(root, i, ".txt"), baseText());
          const d = badName(root, i + 10, "");
          mkdirSync(d, { recursive: true });
          writeFileSync(Buffer.concat([d, Buffer.from(`/in${i}.txt`)]), baseText());
        }
        return "3 files and 3 directories with names not UTF-8";
      }
      case "long-paths": {
        writeDeep(DEEP, "bottom.txt", "needle at the bottom haystack\n", false);
        writeDeep(DEEP.slice(0, 12), "middle.txt", "alpha beta needle\n", false);
        return `deep chain of ${DEEP.length} directories (${Buffer.byteLength(join(root, ...DEEP))} bytes)`;
      }
      // Not the deep chain: a directory past what inotify may be given is not watched, and the watch is then
      // no watch at all (the server checks files per query): there is no queue to overflow.
      case "overflow":
        return [setup("hardlink-outside"), setup("hardlink-inside"), setup("non-utf8")].join("; ");
      case "mixed":
        return [
          setup("hardlink-outside"),
          setup("hardlink-inside"),
          setup("non-utf8"),
          setup("long-paths"),
        ].join("; ");
      default:
        return "nothing";
    }
  }

  /** What must be there before the tree is indexed and served (the editor makes it: it must stay alive). */
  function hold(cls: string): string {
    if (cls !== "mmap-held") return "nothing";
    const plain = plainFiles(listAll().files).filter((f) => !f.toString().startsWith(LINKS()));
    const did: string[] = [];
    for (let i = 0; i < 3 && plain.length > 0; i++) {
      const h = holdMapping(pick(plain), false);
      if (h !== null) did.push(rel(h.file));
    }
    return `mapped shared and written, descriptors closed: ${did.join(" ")}`;
  }

  /** A name with bytes that are not UTF-8 (a lone 0xff, a cut sequence, a Latin-1 é). */
  function badName(dir: string | Buffer, i: number, ext: string): Buffer {
    const bad = [
      Buffer.from([0xff]),
      Buffer.from([0xc3]),
      Buffer.from([0xe9]),
      Buffer.from([0xed, 0xa0, 0x80]),
    ][i % 4] as Buffer;
    return Buffer.concat([
      typeof dir === "string" ? Buffer.from(dir) : dir,
      Buffer.from(`/bad${i}-`),
      bad,
      Buffer.from(ext),
    ]);
  }

  /** Every file's mtime an hour back (the deep chain's were made so; a path past PATH_MAX cannot be named). */
  function age(): string {
    const past = new Date(Date.now() - 3600_000);
    let n = 0;
    for (const base of [root, STORE()]) {
      if (!existsSync(base)) continue;
      const visit = (d: Buffer) => {
        for (const name of readdirSync(d, { encoding: "buffer" }) as Buffer[]) {
          if (name.toString() === "deep" || name.toString() === ".git") continue;
          const p = Buffer.concat([d, Buffer.from("/"), name]);
          const st = lstatSync(p);
          if (st.isDirectory()) visit(p);
          else if (st.isFile()) {
            utimesSync(p, past, past);
            n++;
          }
        }
      };
      visit(Buffer.from(base));
    }
    // The deep chain: each file's times through its directory's descriptor.
    if (existsSync(join(root, "deep"))) {
      const pastS = BigInt(Math.floor(past.getTime() / 1000));
      for (const [parts, name] of deepFiles) {
        try {
          const dfd = openDirChain(parts, false);
          C.utimensat(dfd, cstr(name), new BigInt64Array([pastS, 0n, pastS, 0n]), 0);
          C.close(dfd);
          n++;
        } catch {}
      }
    }
    return `aged ${n} files`;
  }
  const deepFiles: Array<[string[], string]> = [
    [DEEP, "bottom.txt"],
    [DEEP.slice(0, 12), "middle.txt"],
  ];

  // ── Changes per class ──

  /** One change of the class; returns what it did. */
  function change(cls: string): string {
    const { files, dirs } = listAll();
    const plain = plainFiles(files).filter((f) => !f.toString().startsWith(LINKS()));
    if (plain.length === 0 && !["create-delete", "git-checkout"].includes(cls)) return "none";
    switch (cls) {
      case "edit": {
        const f = pick(plain);
        writeFileSync(f, text());
        return `edit ${rel(f)}`;
      }
      case "append": {
        const f = pick(plain);
        appendFileSync(f, text());
        return `append ${rel(f)}`;
      }
      case "truncate": {
        const f = pick(plain);
        const size = statSync(f).size;
        const to = rand() < 0.3 ? 0 : Math.floor(rand() * size);
        truncateSync(f, to);
        return `truncate ${rel(f)} ${size}->${to}`;
      }
      case "rename-replace": {
        // An editor's save: a temporary file written, then renamed over the original.
        const f = pick(plain);
        const tmp = join(root, `.save-${made++}.tmp`);
        writeFileSync(tmp, text());
        renameSync(tmp, f);
        return `save ${rel(f)}`;
      }
      case "same-size": {
        // Rewritten twice in the same second with the same size, its atime and mtime put back (`touch -r`).
        const f = pick(plain);
        const before = statSync(f, { bigint: true });
        const size = Number(before.size);
        writeFileSync(f, sameSize(size));
        writeFileSync(f, sameSize(size));
        restoreTimes(f, before);
        return `same-size ${rel(f)} (${size} bytes, mtime kept)`;
      }
      case "hardlink-outside": {
        // The store's name is edited in place (same inode): the tree's name shows the new text.
        const i = Math.floor(rand() * 6);
        const s = join(STORE(), `s${i}.txt`);
        if (rand() < 0.5) {
          const before = statSync(s, { bigint: true });
          writeFileSync(s, sameSize(Number(before.size)));
          restoreTimes(s, before);
          return `store s${i}.txt rewritten, same size, mtime kept (links/ext${i}.txt)`;
        }
        writeFileSync(s, text());
        return `store s${i}.txt rewritten (links/ext${i}.txt)`;
      }
      case "hardlink-inside": {
        // One name of a pair edited in place (mostly the same one: the other is then never named by an event);
        // the other shows it too.
        const i = Math.floor(rand() * TWINS);
        const [x, y] =
          rand() < 0.8
            ? [join(root, "dir1", `twin${i}-b.txt`), join(LINKS(), `twin${i}.txt`)]
            : [join(LINKS(), `twin${i}.txt`), join(root, "dir1", `twin${i}-b.txt`)];
        if (!existsSync(x)) return "none";
        writeFileSync(x, text(), { flag: rand() < 0.3 ? "a" : "w" });
        return `edit ${rel(x)} (also ${rel(y)})`;
      }
      case "mmap": {
        // Written through a shared mapping and msync'd: same size, no write(2).
        const f = pick(plain);
        const size = statSync(f).size;
        if (size < 8) return "none";
        const token = Buffer.from(pick(["zeta42", "quartz"]));
        const at = Math.floor(rand() * (size - token.length - 1));
        mmapWrite(f, at, token);
        return `mmap ${rel(f)} @${at} ${token}`;
      }
      case "mmap-held": {
        // Through a mapping made (and its page written) before the server started, descriptor closed: no event,
        // and no time changes while the page stays dirty.
        const h = held.length > 0 ? pick(held) : null;
        return h === null ? "none" : `held mapping ${heldWrite(h)}`;
      }
      case "mmap-open": {
        // Through a mapping made while serving and kept (its descriptor open): no event until it is closed. Now
        // and then one is let go (munmap and close: the file is closed after writing) and another made.
        if (held.length > 0 && rand() < 0.2) {
          const h = held.splice(Math.floor(rand() * held.length), 1)[0] as Held;
          C.munmap(h.ptr, h.size);
          if (h.fd >= 0) C.close(h.fd);
          return `let go of the mapping of ${rel(h.file)}`;
        }
        if (held.length < 3) {
          const h = holdMapping(pick(plain), true);
          if (h === null) return "none";
          return `mapped ${rel(h.file)}, then ${heldWrite(h)}`;
        }
        return `open mapping ${heldWrite(pick(held))}`;
      }
      case "hardlink-later": {
        // A hard link made in the tree while serving, then written through the new name in place: the event
        // names the new name only; the old one shows the text too.
        const f = pick(plain);
        mkdirSync(LINKS(), { recursive: true });
        const link = join(LINKS(), `late${made++}.txt`);
        sh(["ln", f.toString(), link]);
        writeFileSync(link, text(), { flag: "r+" });
        return `linked ${rel(f)} as ${rel(link)}, written through it`;
      }
      case "create-delete": {
        const r = rand();
        if (r < 0.35) {
          const f = freshName(anyDir(plainDirs(dirs)));
          writeFileSync(f, text());
          return `create ${rel(f)}`;
        }
        if (r < 0.55) {
          const d = join(anyDir(plainDirs(dirs)).toString(), `sub${made++}`);
          mkdirSync(d, { recursive: true });
          for (let i = 0; i < 3; i++) writeFileSync(freshName(d), text());
          return `create-dir ${rel(d)}`;
        }
        if (r < 0.85 && plain.length > 10) {
          const f = pick(plain);
          rmSync(f);
          return `delete ${rel(f)}`;
        }
        const pd = plainDirs(dirs);
        if (pd.length < 3) return "none";
        const d = pick(pd);
        rmSync(d, { recursive: true });
        return `delete-dir ${rel(d)}`;
      }
      case "dir-rename": {
        const pd = plainDirs(dirs);
        if (pd.length === 0) return "none";
        const d = pick(pd).toString();
        const r = rand();
        if (r < 0.3) {
          // Two top-level directories swap places: the same paths hold other files.
          const top = pd.map(String).filter((x) => !relative(root, x).includes("/"));
          if (top.length < 2) return "none";
          const x = pick(top);
          const y = pick(top.filter((t) => t !== x));
          const tmp = join(root, `swap${made++}`);
          renameSync(x, tmp);
          renameSync(y, x);
          renameSync(tmp, y);
          return `swap ${rel(x)} ${rel(y)}`;
        }
        const into = r < 0.6 ? root : anyDir(pd).toString();
        const to = join(into, `d${made++}`);
        if (to.startsWith(`${d}/`)) return "none";
        renameSync(d, to);
        return `rename-dir ${rel(d)} ${rel(to)}`;
      }
      case "ancestor-rename": {
        // The directory above the root moved away, a fresh copy put at its path (cp -a keeps the times), and a
        // file of the copy edited: the root's path now names another directory.
        const work = join(outer, "work");
        const away = join(outer, `work.bak${made++}`);
        renameSync(work, away);
        sh(["cp", "-a", away, work]);
        const again = listAll();
        const f = pick(plainFiles(again.files));
        writeFileSync(f, text());
        const n = freshName(root);
        writeFileSync(n, text());
        return `mv work ${relative(outer, away)}; cp -a back; edit ${rel(f)}; create ${rel(n)}`;
      }
      case "root-recreate": {
        // The root deleted and made again from the template (as `rm -rf proj && git clone … proj`), or moved
        // away and copied back; then a file of it edited.
        const how = rand() < 0.5 ? "rm" : "mv";
        if (how === "rm") {
          rmSync(root, { recursive: true, force: true });
          sh(["cp", "-a", join(outer, "template"), root]);
        } else {
          const away = join(outer, `proj.old${made++}`);
          renameSync(root, away);
          sh(["cp", "-a", away, root]);
        }
        const again = listAll();
        const f = pick(plainFiles(again.files));
        writeFileSync(f, text());
        const n = freshName(root);
        writeFileSync(n, text());
        return `${how} root, made again; edit ${rel(f)}; create ${rel(n)}`;
      }
      case "gitignore": {
        // Nested ignore files with negated rules, and files their negations bring back.
        const d = rand() < 0.3 ? root : anyDir(plainDirs(dirs)).toString();
        const rules = [
          "*.md",
          "!keep*.md",
          "*.log",
          "!*.log",
          "inner*/",
          "!inner1/",
          "f1*",
          "/f2*",
          "!important.txt",
          "*.txt",
          "sub*/",
        ];
        const body = rules.filter(() => rand() < 0.3).join("\n");
        const name = rand() < 0.8 ? ".gitignore" : ".ignore";
        if (rand() < 0.15 && existsSync(join(d, name))) {
          rmSync(join(d, name));
          return `remove ${rel(join(d, name))}`;
        }
        writeFileSync(join(d, name), body === "" ? "" : `${body}\n`);
        if (rand() < 0.5) writeFileSync(join(d, pick(["keep1.md", "important.txt", "keep.log"])), text());
        return `ignore ${rel(join(d, name))}: ${body.replace(/\n/g, " ")}`;
      }
      case "git-checkout": {
        // The other branch checked out (local changes dropped), sometimes a file then edited.
        const to = rand() < 0.5 ? "other" : "main";
        sh(["git", "checkout", "-qf", to], root);
        if (rand() < 0.5) {
          const again = plainFiles(listAll().files);
          if (again.length > 0) {
            const f = pick(again);
            writeFileSync(f, text());
            return `git checkout ${to}; edit ${rel(f)}`;
          }
        }
        return `git checkout ${to}`;
      }
      case "non-utf8": {
        const r = rand();
        const i = made++;
        if (r < 0.3) {
          const f = badName(root, i, pick([".txt", ".md"]));
          writeFileSync(f, text());
          return `create ${rel(f)}`;
        }
        if (r < 0.5) {
          const d = badName(root, i, "");
          mkdirSync(d);
          writeFileSync(Buffer.concat([d, Buffer.from(`/in${i}.txt`)]), text());
          return `create-dir ${rel(d)}`;
        }
        const bad = files.filter((f) => !Buffer.from(f.toString()).equals(f));
        if (bad.length === 0) return "none";
        const f = pick(bad);
        if (r < 0.85) {
          writeFileSync(f, text(), { flag: rand() < 0.5 ? "a" : "w" });
          return `edit ${rel(f)}`;
        }
        const to = badName(root, i, ".txt");
        renameSync(f, to);
        return `rename ${rel(f)} ${rel(to)}`;
      }
      case "long-paths": {
        const r = rand();
        const [parts, name] = pick(deepFiles);
        if (r < 0.5) {
          writeDeep(parts, name, text(), rand() < 0.4);
          return `edit deep ${parts.length}/${name}`;
        }
        const depth = 16 + Math.floor(rand() * (DEEP.length - 15));
        const n = `new${made++}.txt`;
        writeDeep(DEEP.slice(0, depth), n, text(), false);
        deepFiles.push([DEEP.slice(0, depth), n]);
        return `create deep ${depth}/${n}`;
      }
      case "mixed": {
        const c = pick(MIXED);
        return `${c}: ${change(c)}`;
      }
      // The changes of `mixed` but the deep chain's (its set-up), made while the server is stopped and its
      // watch's queue overflows (fresh-lib.ts).
      case "overflow": {
        const c = pick(MIXED.filter((m) => m !== "long-paths"));
        return `${c}: ${change(c)}`;
      }
      default:
        throw new Error(`unknown class ${cls}`);
    }
  }
  /** The classes `mixed` draws from (not the root's and its ancestor's re-creation: they reset the set-up). */
  const MIXED = [
    "edit",
    "append",
    "truncate",
    "rename-replace",
    "same-size",
    "hardlink-outside",
    "hardlink-inside",
    "mmap",
    "create-delete",
    "dir-rename",
    "gitignore",
    "non-utf8",
    "long-paths",
  ];

  return { setup, age, change, hold, rand };
}
