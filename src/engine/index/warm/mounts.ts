/*! Engine, warm index: what no watch reports about a root, taken at each call (verify): the identity of the
 * directory at its path and the mounts at or below it. Stats the root; reads /proc/self/mountinfo when a poll of
 * it says the mount table changed (at each call where that cannot be asked); never watches or forgets. */
import { readText, statPath } from "../../../platform/files.ts";
import { decodeName, fsPath } from "../../../platform/names.ts";
import { changesOf } from "../../../platform/poll.ts";

/**
 * The identity of the directory at the root's path (device and inode), or why there is none. Taken by path at
 * each call: the path is resolved through every directory above the root, so a root removed and made again, a
 * directory above it renamed and another put in its place, or a file system mounted over it gives another.
 * @param root the root's real path
 * @returns the identity
 */
export function identityOf(root: string): string {
  try {
    const st = statPath(fsPath(root));
    return st.isDirectory() ? `${st.dev}:${st.ino}` : "not a directory";
  } catch (err) {
    return `absent (${(err as NodeJS.ErrnoException).code ?? "error"})`;
  }
}

/**
 * The mounts at or below the root (id, device and mount point from /proc/self/mountinfo; "" where there is no
 * such file): a mount sends no inotify event, and one over a directory of the tree hides what the watch holds.
 * @param root the root's real path
 * @returns the mounts, one a line
 */
export function mountsAt(root: string): string {
  const text = mountTable();
  if (text === null) return "";
  // Parsed again only when it changed (#36: the parse was most of a call's check).
  const had = mountsParsed.get(root);
  if (had !== undefined && had.text === text) return had.mounts;
  const mounts = parseMounts(root, text);
  if (mountsParsed.size >= 64) mountsParsed.clear();
  mountsParsed.set(root, { text, mounts });
  return mounts;
}

const MOUNTINFO = "/proc/self/mountinfo";

/** Whether the mount table changed since the last ask (poll's POLLPRI on the file), made at the first read. */
let tableChanged: (() => boolean) | null | undefined;
/** The mount table's text as last read (null: no such file). */
let tableText: string | null = null;

/**
 * The mount table's text: read again only when a poll of the file says it changed (a mount or an unmount in this
 * process's namespace), where that can be asked; else read at each call (#36: the read was most of a call's
 * settle that was not its own).
 * @returns the text, or null where there is no such file
 */
function mountTable(): string | null {
  if (tableChanged === undefined) {
    // Opened, and its change taken, before the first read: a mount after this read is told to the next ask.
    tableChanged = changesOf(MOUNTINFO);
    tableChanged?.();
  } else if (tableChanged !== null && !tableChanged()) return tableText;
  try {
    tableText = readText(MOUNTINFO, "latin1");
  } catch {
    tableText = null;
  }
  return tableText;
}

/** The last mount table read per root and its mounts at or below the root. */
const mountsParsed = new Map<string, { readonly text: string; readonly mounts: string }>();

/**
 * The mounts at or below a root in a mount table (mountsAt).
 * @param root the root's real path
 * @param text /proc/self/mountinfo's text
 * @returns the mounts, one a line
 */
function parseMounts(root: string, text: string): string {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const f = line.split(" ");
    const escaped = f[4];
    if (escaped === undefined) continue;
    // The mount point's bytes, octal escapes undone, read as names are (names.ts).
    const raw = escaped.replace(/\\([0-7]{3})/g, (_, o: string) =>
      String.fromCharCode(Number.parseInt(o, 8)),
    );
    const at = decodeName(Buffer.from(raw, "latin1"));
    if (at === root || at.startsWith(prefix)) out.push(`${f[0]} ${f[2]} ${at}`);
  }
  return out.join("\n");
}
