/*! The walk of the floor programs (floor-find.ts, floor-grep.ts; #23): pre-order from the current directory,
 * siblings by code point, rglob's own ignore engine (the repository's outer files, then each directory's
 * .gitignore and .ignore), VCS directories and (unless asked) dot names skipped, but for those an ignore file
 * whitelists, as rglob walks them; directories listed through descriptors where rglob lists them so (dir-fd.ts).
 * It calls back with each
 * regular file's absolute and relative path and builds nothing else. Benchmarks only; never shipped. */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  IGNORE_FILE_NAMES,
  type IgnoreFile,
  ignoredEntry,
  loadIgnoreFile,
  repoContext,
} from "../src/engine/ignore.ts";
import { compareNames, whitelisted } from "../src/engine/walk.ts";
import { dirFds } from "../src/platform/dir-fd.ts";

const VCS = new Set([".git", ".hg", ".svn", ".bzr", ".jj", ".sl"]);

/**
 * Walks the current directory, calling `onFile` for every regular file the walk selects, in walk order.
 * @param onFile called with the absolute path and the path relative to the current directory
 * @param respectIgnore whether ignore files apply
 * @param hidden whether dot names are walked
 * @param skip entries left out, with all below them (floor-find-threads.ts splits a walk between two threads)
 */
export function floorWalk(
  onFile: (abs: string, rel: string) => void,
  respectIgnore: boolean,
  hidden: boolean,
  skip: ((rel: string) => boolean) | null = null,
): void {
  // Directories are listed as rglob lists them where it can (dir-fd.ts: openat from the parent's descriptor,
  // getdents64 through bun:ffi), else with readdir.
  const fds = dirFds();
  const walk = (
    abs: string,
    rel: string,
    key: string,
    chain: readonly IgnoreFile[],
    parentFd: number,
  ): void => {
    let names: string[];
    let isDirName: (n: string) => boolean;
    let isFileName: (n: string) => boolean;
    let fd = -1;
    const listing = (() => {
      if (fds === null) return null;
      fd = parentFd >= 0 ? fds.openAt(parentFd, abs.slice(abs.lastIndexOf("/") + 1)) : -1;
      if (fd < 0) {
        try {
          fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        } catch {
          return null;
        }
      }
      return fds.list(fd);
    })();
    if (listing !== null) {
      names = listing.names;
      const others = listing.others;
      isDirName = (n) => others?.get(n) === "dir";
      isFileName = (n) => others === null || !others.has(n);
    } else {
      let dirents: fs.Dirent[];
      try {
        dirents = fs.readdirSync(abs, { withFileTypes: true });
      } catch {
        return;
      }
      names = dirents.map((d) => d.name);
      const dirs = new Set<string>();
      const files = new Set<string>();
      for (const d of dirents) {
        if (d.isDirectory()) dirs.add(d.name);
        else if (d.isFile()) files.add(d.name);
      }
      isDirName = (n) => dirs.has(n);
      isFileName = (n) => files.has(n);
    }
    names.sort(/[\ud800-\udfff]/.test(names.join("")) ? compareNames : undefined);
    let next = chain;
    if (respectIgnore)
      for (const f of IGNORE_FILE_NAMES)
        if (names.includes(f) && isFileName(f)) {
          const loaded = loadIgnoreFile(path.join(abs, f), key);
          if (loaded) next = [...next, loaded];
        }
    for (const name of names) {
      if (VCS.has(name)) continue;
      const isDir = isDirName(name);
      const k = key + name;
      if (!hidden && name.charCodeAt(0) === 46) {
        if (!(respectIgnore && next.length > 0 && whitelisted(next, k, name, isDir))) continue;
      } else if (respectIgnore && next.length > 0 && ignoredEntry(next, k, name, isDir)) continue;
      const r = rel === "" ? name : `${rel}/${name}`;
      if (skip?.(r)) continue;
      if (isDir) walk(`${abs}/${name}`, r, `${k}/`, next, fd);
      else if (isFileName(name)) onFile(`${abs}/${name}`, r);
    }
    if (fd >= 0) fds?.close(fd);
  };
  const base = process.cwd();
  const repo = respectIgnore ? repoContext(base) : { root: null, outer: [] };
  const keyPrefix = repo.root === null || repo.root === base ? "" : `${path.relative(repo.root, base)}/`;
  walk(base, "", keyPrefix, repo.outer, -1);
}
