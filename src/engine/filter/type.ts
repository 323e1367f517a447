/*! Filter: entry kinds (--type letters). f regular file, d directory, l symlink, x executable regular file,
 * e empty (file of size 0 or directory without entries), p fifo, s socket, b block device, c char device. */
import type { Kind } from "../../contract/records.ts";
import { platform } from "../../platform/platform.ts";
import type { Entry } from "../walk.ts";

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
 * Compiles a --type test (the letters are OR'd).
 * @param kinds the wanted letters
 * @returns a test of an entry
 */
export function compileTypes(kinds: readonly Kind[]): (e: Entry) => boolean {
  const want = new Set(kinds);
  const needEmptyDir = want.has("e");
  if (!want.has("x") && !want.has("e")) {
    // Every other letter is decided by the listed type: no stat in the hot loop.
    const targets = new Set<string>();
    if (want.has("f")) targets.add("file");
    if (want.has("d")) targets.add("dir");
    if (want.has("p")) targets.add("fifo");
    if (want.has("s")) targets.add("socket");
    if (want.has("b")) targets.add("block");
    if (want.has("c")) targets.add("char");
    const link = want.has("l");
    if (!link && targets.size === 1) {
      const only = [...targets][0];
      return (e) => e.target === only;
    }
    return (e) => (link && e.type === "symlink") || targets.has(e.target);
  }
  return (e) => kindsOf(e, needEmptyDir).some((k) => want.has(k));
}
