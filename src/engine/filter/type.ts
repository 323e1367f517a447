/*! Filter: entry kinds (--type letters). f regular file, d directory, l symlink, x executable regular file,
 * e empty (file of size 0 or directory without entries), p fifo, s socket, b block device, c char device. */
import type { Kind } from "../../contract/records.ts";
import { platform } from "../../platform/platform.ts";
import type { Entry } from "../walk-types.ts";

/** Whether a directory entry was found empty, once per entry (the --type test and the record both ask). */
const emptyDirs = new WeakMap<Entry, boolean>();

function isEmptyDir(e: Entry): boolean {
  let empty = emptyDirs.get(e);
  if (empty === undefined) {
    try {
      empty = platform.listDir(e.abs).names.length === 0;
    } catch {
      empty = false; // a directory that cannot be listed is reported by the walk, not called empty
    }
    emptyDirs.set(e, empty);
  }
  return empty;
}

/**
 * Returns the kind letters of an entry.
 * @param e the entry
 * @param withEmptyDir whether to list a directory to decide 'e' (a readdir; records always do, so that an
 * empty directory says so whatever the query, and a --type test only when it asks for 'e')
 * @returns the letters, in the order of KINDS
 */
export function kindsOf(e: Entry, withEmptyDir = true): Kind[] {
  const out: Kind[] = [];
  const t = e.target;
  const st = t === "file" || (t === "dir" && withEmptyDir) ? e.stats() : null;
  if (t === "file") out.push("f");
  else if (t === "dir") out.push("d");
  if (e.type === "symlink") out.push("l");
  if (t === "file" && st && (st.mode & 0o111) !== 0) out.push("x");
  if (t === "file" && st && st.size === 0) out.push("e");
  if (t === "dir" && withEmptyDir && isEmptyDir(e)) out.push("e");
  if (t === "fifo") out.push("p");
  else if (t === "socket") out.push("s");
  else if (t === "block") out.push("b");
  else if (t === "char") out.push("c");
  return out;
}

/**
 * Compiles a --type test as fd combines its letters: the kinds (f d l p s b c) are OR'd; x and e are conditions
 * on top of them, AND'd (`-t f -t e` is empty files, `-t x` executable files, `-t d -t x` executable files and
 * directories with an execute bit); e alone means empty files and directories. With --follow, l is a link that
 * stays a link once followed (it leads nowhere), as `fd -L -t l` and `find -L -type l` list.
 * @param kinds the wanted letters
 * @param follow whether symlinks are followed
 * @returns a test of an entry
 */
export function compileTypes(kinds: readonly Kind[], follow = false): (e: Entry) => boolean {
  const want = new Set(kinds);
  const executable = want.has("x");
  const empty = want.has("e");
  const targets = new Set<string>();
  if (want.has("f") || executable) targets.add("file");
  if (want.has("d")) targets.add("dir");
  if (want.has("p")) targets.add("fifo");
  if (want.has("s")) targets.add("socket");
  if (want.has("b")) targets.add("block");
  if (want.has("c")) targets.add("char");
  const link = want.has("l");
  if (empty && targets.size === 0 && !link) {
    targets.add("file");
    targets.add("dir");
  }
  // A link not followed has itself as target ("symlink"): it is never a file or a directory here.
  const isLink = follow ? (e: Entry) => e.target === "symlink" : (e: Entry) => e.type === "symlink";
  let kind: (e: Entry) => boolean;
  if (!link && targets.size === 1) {
    const only = [...targets][0];
    kind = (e) => e.target === only;
  } else kind = (e) => (link && isLink(e)) || targets.has(e.target);
  if (!executable && !empty) return kind;
  return (e) => {
    if (!kind(e)) return false;
    if (e.target !== "file" && e.target !== "dir") return false;
    if (executable) {
      const st = e.stats();
      if (st === null || (st.mode & 0o111) === 0) return false;
    }
    if (empty) {
      if (e.target === "dir") return isEmptyDir(e);
      const st = e.stats();
      if (st === null || st.size !== 0) return false;
    }
    return true;
  };
}
