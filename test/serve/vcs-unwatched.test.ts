/*! A warm server watches no directory inside a VCS directory (`.git`, `.hg`, `.svn`, `.bzr`, `.jj`, `.sl`) nor
 * the VCS directory itself: no query lists or reads them, and a repository's tools write there all the time.
 * The test reads which directories the server's inotify descriptor watches (/proc/PID/fdinfo) in a tree whose
 * VCS directories hold many directories, and checks that the served answers stay the cold run's while those
 * directories change and an exclude file is edited. Linux only (inotify). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sameAsColdIn, serveSandbox, until, watchedInodes } from "./sandbox.ts";

const linux = process.platform === "linux";
const { root, run, servers, serve, end } = serveSandbox("rglob-vcs-unwatched-");
/** A served call waits for the server rather than running cold. */
const sameAsCold = sameAsColdIn({ root, run, servers }, { RGLOB_SERVE_WAIT_MS: "120000" });
/** The directories of each VCS directory's store. */
const STORE = 40;
/** Where each VCS directory lies, and its store's directory. */
const VCS: ReadonlyArray<readonly [string, string]> = [
  [".git", "objects"],
  ["hgrepo/.hg", "store/data"],
  ["svnwc/.svn", "pristine"],
  ["bzrbranch/.bzr", "repository/packs"],
  ["jjrepo/.jj", "repo/op_store"],
  ["slrepo/.sl", "store/data"],
];
/** The ordinary directories (the root's relative path is ""). */
const ORDINARY = ["", "src", "src/lib", "hgrepo", "svnwc", "bzrbranch", "jjrepo", "slrepo"];

let server: ReturnType<typeof Bun.spawn> | null = null;

/** Every directory below the VCS directories, and they themselves, relative to the root. */
function vcsDirs(): string[] {
  const out: string[] = [];
  const below = (rel: string) => {
    out.push(rel);
    for (const e of readdirSync(join(root, rel), { withFileTypes: true }))
      if (e.isDirectory()) below(`${rel}/${e.name}`);
  };
  for (const [vcs] of VCS) below(vcs);
  return out;
}

const ino = (rel: string) => statSync(join(root, rel)).ino;

const QUESTIONS: readonly (readonly string[])[] = [
  ["find"],
  ["grep", "VCSNEEDLE"],
  ["grep", "-c", "VCSNEEDLE", "--json"],
];

beforeAll(async () => {
  if (!linux) return;
  mkdirSync(join(root, "src", "lib"), { recursive: true });
  writeFileSync(join(root, "src", "a.txt"), "a VCSNEEDLE in src\n");
  writeFileSync(join(root, "src", "lib", "b.log"), "a VCSNEEDLE in a log\n");
  for (const [vcs, store] of VCS)
    for (let d = 0; d < STORE; d++) {
      const dir = join(root, vcs, store, `d${d}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "f"), "a VCSNEEDLE in the metadata\n");
    }
  mkdirSync(join(root, ".git", "info"));
  writeFileSync(join(root, ".git", "info", "exclude"), "*.log\n");
  writeFileSync(join(root, ".git", "config"), "[core]\n");
  ({ server } = serve());
  expect(await until(() => servers().find((s) => s.root === root)?.state === "ready")).toBe(true);
}, 300_000);

afterAll(() => end(server));

test.skipIf(!linux)(
  "no directory in a VCS directory is watched, and served answers stay the cold run's as they change (skipped off Linux)",
  () => {
    const pid = (server as { pid: number }).pid;
    const dirs = vcsDirs();
    expect(dirs.length).toBeGreaterThan(VCS.length * STORE);
    const watched = watchedInodes(pid);
    expect(ORDINARY.filter((rel) => !watched.has(ino(rel)))).toEqual([]);
    expect(dirs.filter((rel) => watched.has(ino(rel)))).toEqual([]);
    for (const q of QUESTIONS) sameAsCold(q);
    // A repository's tools at work: directories and files made in its metadata, the exclude file edited.
    for (const [vcs, store] of VCS) {
      mkdirSync(join(root, vcs, store, "new"));
      writeFileSync(join(root, vcs, store, "new", "g"), "a VCSNEEDLE made later\n");
    }
    writeFileSync(join(root, ".git", "info", "exclude"), "*.txt\n");
    for (const q of QUESTIONS) sameAsCold(q);
    expect(sameAsCold(["grep", "-l", "VCSNEEDLE"]).stdout.toString()).toBe("src/lib/b.log\n");
    // A walk of a base inside a VCS directory (walked when named) is stat'ed where no watch is: an entry made
    // there, or in the VCS directory itself, is in the next answer.
    for (const base of ["hgrepo/.hg", ".git"]) {
      sameAsCold(["find", "--base", base]);
      sameAsCold(["find", "--base", base]);
      writeFileSync(join(root, base, "made-at-the-top"), "x\n");
      expect(sameAsCold(["find", "--base", base]).stdout.toString()).toContain("made-at-the-top");
      writeFileSync(
        join(root, base, VCS[0]?.[0] === base ? "objects/d0/made-below" : "store/data/d0/made-below"),
        "x\n",
      );
      expect(sameAsCold(["find", "--base", base]).stdout.toString()).toContain("made-below");
    }
    // A VCS directory made later is not watched inside either; an ordinary one is.
    mkdirSync(join(root, "src", "lib", ".hg", "store", "data"), { recursive: true });
    mkdirSync(join(root, "src", "lib", "more"));
    sameAsCold(["find"]);
    const later = watchedInodes(pid);
    expect(later.has(ino("src/lib/more"))).toBe(true);
    expect(
      ["src/lib/.hg", "src/lib/.hg/store", "src/lib/.hg/store/data"].filter((r) => later.has(ino(r))),
    ).toEqual([]);
    expect(later.size).toBe(watched.size + 1);
  },
  120_000,
);
