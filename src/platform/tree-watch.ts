/*! Platform: a recursive watch of a tree whose events are read when asked for (Linux under Bun; ADR 0028). One
 * inotify descriptor of its own, a watch on every directory of the tree but those in a VCS directory (`.git`,
 * `.hg`, `.svn`, `.bzr`, `.jj`, `.sl`, and the VCS directory itself: the walk lists nothing there, and reads
 * `.git`'s exclude file and config when each call's walk is planned), read without blocking by `drain()`. The kernel queues an event before
 * the system call that caused it returns, so a change made before `drain()` is called is in what it reads:
 * a server that drains before each call answers from a state that has seen every change its client made
 * before asking. (Bun's `fs.watch` reads inotify on a thread of its own and hands events over later, with no
 * way to wait for them.) A directory created or moved in is watched when its event is read, and reported as
 * a renamed directory, so what was made in it meanwhile is covered. A directory this process could not read
 * when it was met is tried again at each drain, and reported as renamed once watched. A name that is not valid
 * UTF-8 is given losslessly (names.ts), and joined so (never through Bun's path functions). An overflowed queue
 * lost events, not watches: the watch is repaired in place (each directory stat'ed against the words it had when
 * it was listed, those that differ listed again: `repair`). Anything unusual (no libc, a watch refused on a
 * directory that is there) is reported as such; never a partial watch that claims to be whole. */

import type * as Ffi from "bun:ffi";
import * as fs from "node:fs";
import { dirFds } from "./dir-fd.ts";
import { DirWords } from "./dir-words.ts";
import { openLibc } from "./libc.ts";
import type { DirListing } from "./listing.ts";
import { C_NAME_MAX, decodeNameIn, fsPath, joinPath, VCS_DIRS, writeCName } from "./names.ts";
import { platform } from "./platform.ts";
import { routes } from "./routes.ts";
import { STAT_WORDS, wordsAndLinks } from "./stat-words.ts";
import {
  dirOpenOnly,
  EVENT_HEAD,
  type EventRing,
  IN_CLOSE_NOWRITE,
  IN_CLOSE_WRITE,
  IN_ISDIR,
  IN_OPEN,
  OPEN_CLOSED,
  OPENS,
  RING_BYTES,
  startEventRing,
} from "./watch-ring.ts";

/** What a change was: `rename` (an entry created, deleted or moved) or `change` (contents or attributes). */
type TreeEvent = "rename" | "change";

/** A watch of a tree whose events are read synchronously. */
export interface TreeWatch {
  /** Reads every event queued so far, without blocking, and hands each to the watch's callback. */
  drain(): void;
  /**
   * Has a thread of its own read the events as soon as they are queued (watch-ring.ts), kept for the next drain in
   * order: the kernel's queue (16,384 events) lasts 25 ms of another process reading the tree, a ring ~170 ms.
   * @returns false where no thread can (then drains alone read them)
   */
  readOnThread(): boolean;
  /** Stops watching (the descriptor is closed). */
  close(): void;
  /**
   * The files of the tree open now, as far as the watch saw them opened and not yet closed (relative to the
   * root): a file open for writing, or mapped (a mapping keeps it open), can be written with no event. Opens
   * made before the watch was set up, or lost when its queue overflowed, are not here: `onReset` says when to
   * look for them (openForWriting).
   */
  openFiles(): Iterable<string>;
  /** The events read so far, by kind, and the overflows of the queue (scripts/bench-watch-events.ts). */
  counts(): WatchCounts;
  /**
   * How the last set-up (the first, or the one after an overflow) used the directories it was told of
   * (watchTreeInSlices's `known`), or null when it was told of none: how many of them did not stat as recorded
   * (each was listed), and how many were listed in all.
   */
  knownUse(): KnownUse | null;
  /**
   * How far a set-up told of known directories is (read between its slices): how many of them, in their order,
   * have had their watch added (or found gone), and how many times the set-up started again (its queue
   * overflowed: the watches added before were dropped).
   */
  knownProgress(): { readonly watched: number; readonly restarts: number };
  /** Whether every directory of the tree is watched: false while it is set up (and once closed). */
  whole(): boolean;
  /** What the last repair after an overflow did (null: none yet). */
  lastRepair(): Repair | null;
}

/** What a repair of the watch after an overflow did (TreeWatch.lastRepair). */
interface Repair {
  /** The directories watched, each stat'ed. */
  readonly dirs: number;
  /** Those listed again (their words differed, or were racy). */
  readonly listed: number;
  /** Directories found that were not watched (made or moved in while events were lost), each watched. */
  readonly added: number;
  /** How long it took (ms). */
  readonly ms: number;
}

/**
 * Directories a walk recorded, with the stats it saw (a restarted server's walk written with its index): the
 * set-up watches each without listing it when it still stats as recorded, since a directory's mtime and ctime
 * change when an entry is added, removed or renamed in it (docs/decisions/0035-index-at-scale.md).
 */
export interface KnownDirs {
  /** Their paths relative to the root ("" the root). */
  readonly rels: readonly string[];
  /** Per directory, STAT_WORDS words (stat-words.ts) as recorded, at i * STAT_WORDS. */
  readonly words: Uint32Array;
}

/** What a set-up told of known directories did (TreeWatch.knownUse). */
interface KnownUse {
  /** Known directories that did not stat as recorded (or could not be watched, or are gone). */
  readonly differ: number;
  /** Directories listed to find those the walk did not record (those that differ, and those with more links). */
  readonly listed: number;
}

/** The events a watch read, by kind (an event with several bits counts under its first kind here). */
interface WatchCounts {
  /** Every event read. */
  events: number;
  /** A file opened, closed after reading, closed after writing. */
  opens: number;
  closesRead: number;
  closesWrite: number;
  /** A directory opened or closed (every listing is two on it and two on its parent's watch). */
  dirOpens: number;
  /** Attributes changed: an access time updated by a read, chmod, chown, utimes, a link count. */
  attribs: number;
  modifies: number;
  /** Created, deleted or moved entries. */
  renames: number;
  /** The queue overflowed (events were lost, and the tree is watched again). */
  overflows: number;
}

/** Callbacks of a tree watch. */
interface TreeWatchHandlers {
  /**
   * A change below the root.
   * @param event what kind of change
   * @param rel the entry's path relative to the root, or null when the changes cannot be told (the queue
   * overflowed, the root itself went away): everything must be assumed changed
   */
  onEvent(event: TreeEvent, rel: string | null): void;
  /** The watch can no longer see every change (a directory could not be watched): it is closed. */
  onLost(reason: string): void;
  /**
   * The queue overflowed and the watch was repaired in place: every directory whose listing changed while events
   * were lost was reported (a `change` of it; a directory made or moved in, a `rename` of it, and watched now),
   * so the tree's shape is as reported; what the events of files would have said is lost (any file may have
   * changed). Without this handler an overflow is reported as `onEvent("rename", null)`.
   */
  onRepaired?(): void;
  /**
   * The root's directory itself was deleted or moved away: the watch follows a directory object that no longer
   * has the root's path (a directory made again at that path may even have the same inode number).
   */
  onRootGone?(): void;
  /**
   * What the watch knows of open files was lost or cannot be trusted (its queue overflowed, a file open now was
   * moved, or a file's last close was seen, which merged opens make no proof): the files held open for writing or
   * mapped should be looked for again (openForWriting).
   * @param rel given when a close that wrote nothing left no open seen (relative to the root): only that file can
   *   be held by a writer whose open merged with the reader's (ADR 0032); not given: look at everything
   */
  onReset?(rel?: string): void;
}

// inotify(7): flags of inotify_init1, the events asked for, and the bits of what is read (those the reader thread
// reads too are watch-ring.ts's).
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const IN_EXCL_UNLINK = 0x4000000;
const MASK =
  IN_MODIFY |
  IN_ATTRIB |
  IN_OPEN |
  IN_CLOSE_WRITE |
  IN_CLOSE_NOWRITE |
  IN_MOVED_FROM |
  IN_MOVED_TO |
  IN_CREATE |
  IN_DELETE |
  IN_DELETE_SELF |
  IN_MOVE_SELF |
  IN_ONLYDIR |
  IN_DONT_FOLLOW |
  IN_EXCL_UNLINK;
const RENAMES = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE;
/** How a directory is opened to be listed: read-only, a directory, not through a symlink, not blocking. */
const O_DIR =
  fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
/** How many reads of the descriptor a drain makes while it holds its reader thread off, before it parses them. */
const TAKE_READS = 4;

interface Libc {
  readonly ffi: typeof Ffi;
  readonly init: (flags: number) => number;
  readonly addWatch: (fd: number, path: number, mask: number) => number;
  readonly read: (fd: number, buf: number, n: number) => number;
  readonly close: (fd: number) => number;
}

let libc: Libc | null | undefined;

function loadLibc(): Libc | null {
  // RGLOB_TREE_WATCH=0: Bun's fs.watch instead (the other route, kept for platforms without this one).
  if (!routes().treeWatch) return null;
  const libc = openLibc((t) => ({
    inotify_init1: { args: [t.i32], returns: t.i32 },
    inotify_add_watch: { args: [t.i32, t.ptr, t.u32], returns: t.i32 },
    read: { args: [t.i32, t.ptr, t.u64], returns: t.i64_fast },
    close: { args: [t.i32], returns: t.i32 },
  }));
  if (libc === null) return null; // the caller takes fs.watch
  const s = libc.lib.symbols;
  return {
    ffi: libc.ffi,
    init: s.inotify_init1 as unknown as Libc["init"],
    addWatch: s.inotify_add_watch as unknown as Libc["addWatch"],
    read: (fd, buf, n) => Number(s.read(fd, buf, n)),
    close: s.close as unknown as Libc["close"],
  };
}

/**
 * Watches a tree (see the file header), or returns null where this route is not there (not Linux, not Bun, no
 * glibc) or the root cannot be watched: the caller then takes `fs.watch`.
 * @param root the root's real path
 * @param handlers where events and a lost watch go
 * @returns the watch, or null
 */
export function watchTree(root: string, handlers: TreeWatchHandlers): TreeWatch | null {
  if (libc === undefined) libc = loadLibc();
  if (libc === null) return null;
  const w = new InotifyTree(libc, root, handlers);
  return w.openWatch() ? w : null;
}

/** A turn of the event loop. */
const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Watches a tree as `watchTree` does, a slice of directories at a time between turns of the event loop: a server
 * answers while a large tree is being watched (babel's 13k directories take 170-470 ms; a tree of hundreds of
 * thousands, seconds). The first slice is watched before it returns. Events of directories already watched wait
 * in the descriptor; nothing built from the tree may rely on the watch before it resolves.
 * @param root the root's real path
 * @param handlers where events and a lost watch go
 * @param sliceMs how long a slice may take
 * @param stopped says when to give up (the watch is then closed and null given)
 * @param turn what is awaited between slices: a turn of the event loop, or longer (a server holds the set-up
 *   back while it answers a call)
 * @param started given the watch as its set-up begins: what a caller does between slices (reading the tree,
 *   answering calls) is events of the directories watched so far, which `drain()` reads meanwhile, or the queue
 *   overflows
 * @param limit a test's limit: adding a watch fails after this many (RGLOB_TEST_WATCH_LIMIT)
 * @param known directories a walk recorded: each is watched and stat'ed, and listed only when it does not stat
 *   as recorded or has more subdirectories than the walk knows (its link count); the others are found by
 *   listing as without it. A set-up that starts again (its queue overflowed meanwhile) starts from them too
 * @returns the watch, or null (this route is not there, or stopped); throws why the watch could not be set up
 */
export async function watchTreeInSlices(
  root: string,
  handlers: TreeWatchHandlers,
  sliceMs: number,
  stopped: () => boolean,
  turn: () => Promise<void> = nextTurn,
  started?: (w: TreeWatch) => void,
  limit: number | null = null,
  known: KnownDirs | null = null,
): Promise<TreeWatch | null> {
  if (libc === undefined) libc = loadLibc();
  if (libc === null) return null;
  const w = new InotifyTree(libc, root, handlers, limit, known);
  if (await w.openInSlices(sliceMs, stopped, turn, started)) return w;
  w.close(); // and its reader thread, if it had one
  // A watch that could not be made whole is no watch (never Bun's fs.watch instead, which would meet the same
  // limit more slowly): the caller says why and checks files per query.
  if (w.failure !== null && !stopped()) throw new Error(w.failure);
  return null;
}

/** How many inotify watches this user may hold (fs.inotify.max_user_watches), or null where it cannot be read. */
function watchLimit(): number | null {
  try {
    const n = Number.parseInt(fs.readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8"), 10);
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/** How many times a set-up starts again after its queue overflowed before the watch is given up. */
const SETUP_OVERFLOWS = 3;

class InotifyTree implements TreeWatch {
  private fd = -1;
  /** Each watch's directory, relative to the root ("" for the root). */
  private readonly dirs = new Map<number, string>();
  private readonly pathBuf = Buffer.alloc(C_NAME_MAX * 3 + 1);
  private readonly pathPtr: number;
  private readonly events = new Uint8Array(64 * 1024);
  private readonly eventsPtr: number;
  private closed = false;
  /** Directories of the tree that could not be watched because this process may not read them (relative). */
  private readonly unwatched = new Set<string>();
  /** Events are being read (readEvents is not entered again). */
  private reading = false;
  /** The queue overflowed: drain repairs the watch. */
  private overflowed = false;
  /** Each watched directory's words as of the listing the watch took into account, by watch descriptor. */
  private readonly words = new DirWords();
  private readonly scratch = new Uint32Array(STAT_WORDS);
  private repaired: Repair | null = null;
  /** Why the watch could not be set up (a directory not watched, the queue overflowing), or null. */
  failure: string | null = null;
  /** The set-up (openInSlices) is under way: an overflowed queue makes it start again, not repair. */
  private settingUp = false;
  /** What the last set-up did with the known directories (null: none given). */
  private knownDone: KnownUse | null = null;
  /** The set-up's place among the known directories, and how many times it started again (knownProgress). */
  private knownNow: KnownSetUp | null = null;
  private restarts = 0;
  /** The thread that reads the descriptor as soon as events are queued (readOnThread), or null. */
  private ring: EventRing | null = null;
  /** What a drain took from the ring and the descriptor, to parse, and its address (made with the ring). */
  private taken: { readonly bytes: Uint8Array; readonly ptr: number } | null = null;
  /** Files opened and not yet closed since the watch was set up, and how many times (relative). */
  private readonly open = new Map<string, number>();
  private readonly counted: WatchCounts = {
    events: 0,
    opens: 0,
    closesRead: 0,
    closesWrite: 0,
    dirOpens: 0,
    attribs: 0,
    modifies: 0,
    renames: 0,
    overflows: 0,
  };

  constructor(
    private readonly lib: Libc,
    private readonly root: string,
    private readonly handlers: TreeWatchHandlers,
    private readonly limit: number | null = null,
    private readonly known: KnownDirs | null = null,
  ) {
    this.pathPtr = lib.ffi.ptr(this.pathBuf);
    this.eventsPtr = lib.ffi.ptr(this.events);
  }

  /** The descriptor changed (a new instance, or none): the reader thread reads the new one, from empty. */
  private setFd(fd: number): void {
    this.fd = fd;
    this.ring?.setFd(fd);
  }

  readOnThread(): boolean {
    if (this.closed || this.fd < 0) return false;
    if (this.ring === null) this.ring = startEventRing(this.fd);
    return this.ring !== null;
  }

  /** Opens the descriptor and watches the whole tree; false when the root cannot be watched. */
  openWatch(): boolean {
    this.setFd(this.lib.init(IN_NONBLOCK | IN_CLOEXEC));
    if (this.fd < 0) return false;
    const lost = this.watchBelow("");
    if (lost === null) return true;
    this.failure = lost;
    return this.unopened();
  }

  /** The same, a slice of directories at a time between turns of the event loop (watchTreeInSlices). */
  async openInSlices(
    sliceMs: number,
    stopped: () => boolean,
    turn: () => Promise<void>,
    started?: (w: TreeWatch) => void,
  ): Promise<boolean> {
    this.setFd(this.lib.init(IN_NONBLOCK | IN_CLOEXEC));
    if (this.fd < 0) {
      this.failure = "no inotify instance could be made (the user's limit fs.inotify.max_user_instances?)";
      return false;
    }
    started?.(this);
    this.settingUp = true;
    // Started again after an overflow from the same known directories (#36): a directory that still stats as the
    // walk recorded it had no entry added, removed or renamed since, however long ago that was; the others are
    // listed. A stat each instead of a listing (the files' changes are the check of every file that follows).
    const given = this.known;
    try {
      let known = given === null ? null : new KnownSetUp(given);
      this.knownNow = known;
      let pending = known === null ? [""] : [];
      for (let restarts = 0; ; ) {
        // What came in since the last slice (the listings' opens and closes, a call's reads): a slice of a loaded
        // machine may end before its 256th directory, where it reads them itself.
        this.readEvents();
        const until = performance.now() + sliceMs;
        let lost = known === null ? null : this.watchKnown(known, pending, until);
        if (lost === null && (known === null || known.done))
          lost = this.watchPending(pending, until, known?.watchedRels ?? null);
        if (lost !== null) {
          this.failure = lost;
          return this.unopened();
        }
        if (this.overflowed) {
          // Events of the directories watched so far were lost (a directory made in one may be unwatched): the
          // set-up starts again on a new descriptor, a slice at a time, rather than watching the whole tree again
          // in one go (seconds on a large tree). Its caller checks every file after the set-up in any case.
          this.overflowed = false;
          if (++restarts > SETUP_OVERFLOWS) {
            this.failure = `the watch's queue overflowed ${restarts} times while it was set up (fs.inotify.max_queued_events; something else reading the tree?)`;
            return this.unopened();
          }
          this.dropWatches();
          this.setFd(this.lib.init(IN_NONBLOCK | IN_CLOEXEC));
          if (this.fd < 0) {
            this.failure = "no inotify instance could be made again after its queue overflowed";
            return this.unopened();
          }
          this.handlers.onReset?.();
          this.restarts = restarts;
          known = given === null ? null : new KnownSetUp(given);
          this.knownNow = known;
          pending = known === null ? [""] : [];
        }
        if (pending.length === 0 && (known === null || known.done)) {
          if (known !== null) this.knownDone = { differ: known.differ, listed: known.listed };
          return true;
        }
        await turn();
        if (stopped() || this.closed) return this.unopened();
      }
    } finally {
      this.settingUp = false;
    }
  }

  private unopened(): false {
    this.dropWatches();
    return false;
  }

  /** Closes the inotify descriptor and forgets what its watches said: directories, unwatched, open files. */
  private dropWatches(): void {
    const fd = this.fd;
    this.setFd(-1);
    if (fd >= 0) this.lib.close(fd);
    this.dirs.clear();
    this.words.clear();
    this.unwatched.clear();
    this.open.clear();
  }

  /**
   * Watches a directory and every directory below it (a watch is added before the directory is listed, so an
   * entry made after the listing has its event).
   * @returns null, or why a directory that is there could not be watched
   */
  private watchBelow(rel: string): string | null {
    if (!watched(rel)) return null;
    return this.watchPending([rel], Number.POSITIVE_INFINITY);
  }

  /**
   * Watches the directories of `pending` and those below them (pushed on it as they are listed) until it is
   * empty or the time is past `until` (the rest stays on it).
   * @param skip directories watched already (the known ones), not pushed again
   * @returns null, or why a directory that is there could not be watched
   */
  private watchPending(
    pending: string[],
    until: number,
    skip: ReadonlySet<string> | null = null,
  ): string | null {
    for (let n = 1; pending.length > 0; n++) {
      if ((n & 15) === 0 && performance.now() > until) return null;
      // Listing a directory is an open and a close event on it and on its parent: read them as the set-up goes,
      // or a large tree's own set-up overflows the queue (16,384 events by default).
      if ((n & 255) === 0) this.readEvents();
      const dir = pending.pop() as string;
      const abs = this.absOf(dir);
      const wd = this.addWatchOf(dir, abs);
      if (typeof wd === "string") return wd;
      if (wd === null) continue;
      this.dirs.set(wd, dir);
      // Its words before its listing: a change after them is an event, one before is in the listing.
      this.words.keep(wd, this.scratch, 0, wordsAndLinks(abs, this.scratch, 0) > 0);
      this.pushSubdirs(dir, abs, pending, skip);
    }
    return null;
  }

  /**
   * Adds the watch of one directory.
   * @returns its watch descriptor; null when there is nothing to watch (gone, not a directory any more, or one
   *   this process may not read, kept to be tried again); or why a directory that is there could not be watched
   */
  private addWatchOf(dir: string, abs: string): number | string | null {
    if (!writeCName(abs, this.pathBuf)) return `a path too long to watch: ${abs}`;
    // A test's limit (RGLOB_TEST_WATCH_LIMIT) fails as inotify_add_watch fails at the user's limit (ENOSPC).
    const wd =
      this.limit !== null && this.dirs.size >= this.limit
        ? -1
        : this.lib.addWatch(this.fd, this.pathPtr, MASK);
    if (wd >= 0) return wd;
    // Gone, or not a directory any more (its event says so): nothing to watch. One this process may not read
    // (the walk cannot list it either) is tried again at each drain, and watched once it can be.
    if (!watchable(abs)) {
      if (isDir(abs)) this.unwatched.add(dir);
      return null;
    }
    const limit = watchLimit();
    return `a directory could not be watched after ${this.dirs.size} were (the user's inotify watches${limit === null ? "" : `, fs.inotify.max_user_watches ${limit},`} taken by other watches?): ${abs}`;
  }

  /**
   * Lists a directory just watched and pushes its subdirectories on `pending`, those not watched already.
   * @param skip directories watched already, not pushed
   */
  private pushSubdirs(dir: string, abs: string, pending: string[], skip: ReadonlySet<string> | null): void {
    const listing = listed(abs);
    if (listing === null) return; // vanished or unreadable since: its parent's watch reports it
    for (const name of listing.names) {
      const sub = dir === "" ? name : `${dir}/${name}`;
      if (!watched(sub) || skip?.has(sub) === true) continue;
      const type = listing.others?.get(name);
      if (type === "dir" || (type === "unknown" && isDir(joinPath(abs, name)))) pending.push(sub);
    }
  }

  /**
   * The set-up's part for the known directories, until `until` (it goes on where it stopped): each is watched,
   * then stat'ed once (its words and link count); then each that does not stat as recorded, or whose links are
   * not two and one per known subdirectory watched (a subdirectory the walk did not record: ignored, `.git`), is
   * listed, its unknown subdirectories pushed on `pending` (watched and listed as without known directories).
   * The watch comes before the stat, so a change after the stat is an event and one before it shows in it.
   * @returns null, or why a directory that is there could not be watched
   */
  private watchKnown(k: KnownSetUp, pending: string[], until: number): string | null {
    const rels = k.dirs.rels;
    for (let n = 1; k.next < rels.length; n++) {
      if ((n & 15) === 0 && performance.now() > until) return null;
      if ((n & 255) === 0) this.readEvents();
      const i = k.next++;
      const dir = rels[i] as string;
      if (!watched(dir)) continue;
      const abs = this.absOf(dir);
      const wd = this.addWatchOf(dir, abs);
      if (typeof wd === "string") return wd;
      if (wd === null) {
        // Gone (its parent no longer stats as recorded, and is listed), or not a directory any more.
        k.differ++;
        continue;
      }
      this.dirs.set(wd, dir);
      k.watchedRels.add(dir);
      if (dir !== "") {
        const parent = dir.lastIndexOf("/") < 0 ? "" : dir.slice(0, dir.lastIndexOf("/"));
        k.children.set(parent, (k.children.get(parent) ?? 0) + 1);
      }
      const links = wordsAndLinks(abs, k.scratch, 0);
      // Taken after its watch was added and before any listing of it (relist): as watchPending's.
      this.words.keep(wd, k.scratch, 0, links > 0);
      let same = links > 0;
      for (let w = 0; same && w < STAT_WORDS; w++) same = k.scratch[w] === k.dirs.words[i * STAT_WORDS + w];
      if (same) k.links[i] = links;
      else k.differ++;
    }
    if (k.relist === null) {
      // Every known directory is watched: those whose listing may hold a directory not watched yet.
      k.relist = [];
      for (let i = 0; i < rels.length; i++) {
        const rel = rels[i] as string;
        if (!k.watchedRels.has(rel)) continue;
        const links = k.links[i] as number;
        if (links === 0 || links - 2 !== (k.children.get(rel) ?? 0)) k.relist.push(rel);
      }
      // The root not among them (a walk that recorded none): watched and listed as without known directories.
      if (!k.watchedRels.has("")) pending.push("");
    }
    for (let n = 1; k.relist.length > 0; n++) {
      if ((n & 15) === 0 && performance.now() > until) return null;
      if ((n & 255) === 0) this.readEvents();
      const dir = k.relist.pop() as string;
      k.listed++;
      this.pushSubdirs(dir, this.absOf(dir), pending, k.watchedRels);
    }
    k.done = true;
    return null;
  }

  knownUse(): KnownUse | null {
    return this.knownDone;
  }

  knownProgress(): { readonly watched: number; readonly restarts: number } {
    return { watched: this.knownNow?.next ?? 0, restarts: this.restarts };
  }

  whole(): boolean {
    return !this.settingUp && !this.closed && this.fd >= 0;
  }

  lastRepair(): Repair | null {
    return this.repaired;
  }

  drain(): void {
    this.readEvents();
    // During the set-up an overflowed queue makes the set-up start again (openInSlices).
    if (this.settingUp) return;
    // Repaired here, once every event queued so far is read, not while they are read (the repair reads too).
    if (this.overflowed && !this.closed) {
      this.overflowed = false;
      this.repair();
    }
    this.retryUnwatched();
  }

  /**
   * After the queue overflowed: the watches are all there (an overflow drops events, never watches), but what
   * the lost events said is not known. Every watched directory is stat'ed: one whose words are those kept when
   * it was listed had no entry added, removed or renamed since; one gone lets its watch's path go (its parent's
   * listing changed, and the parent is listed); each other one has its watch added again, and when that gives
   * another watch (another directory at its path, whatever its inode number) the old watch's path is let go and
   * the directory there is watched as a directory made is, and reported renamed; else it is listed again, the
   * directories in it whose watch is not the one kept for their path (made or moved in meanwhile) are watched so,
   * and it is reported changed. The events lost ended before the overflow was read, so before these stats: a
   * change since is an event. Then the open files are looked for again (onReset) and onRepaired says that any
   * file may have changed. One pass, on the calling thread (a server's: babel's 13k directories 41 ms, the 277k
   * tree's 130k 370-379 ms), rather than the tree watched again a slice at a time while calls walk cold (ADR 0066).
   */
  private repair(): void {
    const start = performance.now();
    const scratch = this.scratch;
    /** The directories to look at again: their paths, watch descriptors and words now (none: not stat'ed). */
    const differ: { readonly rel: string; readonly wd: number; readonly words: Uint32Array | null }[] = [];
    const gone: number[] = [];
    let dirs = 0;
    for (const [wd, rel] of this.dirs) {
      dirs++;
      const abs = this.absOf(rel);
      if (wordsAndLinks(abs, scratch, 0) > 0) {
        if (!this.words.same(wd, scratch)) differ.push({ rel, wd, words: scratch.slice() });
      } else if (isDir(abs))
        differ.push({ rel, wd, words: null }); // there, but not stat'ed: looked at
      else if (rel === "") {
        this.repaired = { dirs, listed: 0, added: 0, ms: performance.now() - start };
        this.rootGone();
        return;
      } else gone.push(wd);
    }
    for (const wd of gone) this.forgetWatch(wd);
    let listed = 0;
    /** The directories watched afresh (made, moved in, or another at a watched path), with those below them. */
    const made: string[] = [];
    const watchNew = (rel: string): boolean => {
      const lost = this.watchPending([rel], Number.POSITIVE_INFINITY);
      if (lost !== null) this.lose(lost);
      else made.push(rel);
      return lost === null;
    };
    for (const { rel, wd, words } of differ) {
      if (this.closed) return;
      if (this.dirs.get(wd) !== rel) continue; // moved meanwhile (an event read while one was listed)
      const abs = this.absOf(rel);
      const now = this.addWatchOf(rel, abs);
      if (typeof now === "string") {
        this.lose(now);
        return;
      }
      if (now === null) {
        // Gone since, or not a directory now (its parent says so), or one this process may not read now (tried
        // again at each drain, as at the set-up: unwatched).
        this.forgetWatch(wd);
        continue;
      }
      if (now !== wd) {
        // Another directory at its path (a directory removed and made again can even have its inode number).
        this.forgetWatch(wd);
        if (rel === "") {
          this.rootGone();
          return;
        }
        // Watched afresh already when its parent was listed first, or by a directory above it watched afresh.
        if (this.dirs.get(now) !== rel && !watchNew(rel)) return;
        continue;
      }
      this.words.keep(wd, words ?? scratch, 0, words !== null);
      listed++;
      const subs: string[] = [];
      this.pushSubdirs(rel, abs, subs, null);
      for (const sub of subs) {
        const known = this.addWatchOf(sub, this.absOf(sub));
        if (typeof known === "string") {
          this.lose(known);
          return;
        }
        if (known !== null && this.dirs.get(known) !== sub && !watchNew(sub)) return;
      }
    }
    this.repaired = { dirs, listed, added: made.length, ms: performance.now() - start };
    if (this.closed) return;
    this.open.clear();
    this.handlers.onReset?.();
    for (const rel of made) this.handlers.onEvent("rename", rel);
    for (const { rel } of differ) this.handlers.onEvent("change", rel);
    if (this.handlers.onRepaired !== undefined) this.handlers.onRepaired();
    else this.handlers.onEvent("rename", null);
  }

  /** A directory of the tree's path (joined losslessly: names.ts). */
  private absOf(rel: string): string {
    return rel === "" ? this.root : joinPath(this.root, rel);
  }

  /** Lets a watch's path go (its directory moved or went away; the kernel's watch may live on, unnamed). */
  private forgetWatch(wd: number): void {
    this.dirs.delete(wd);
    this.words.drop(wd);
  }

  /** The root itself went away, moved or was replaced: nothing below it is where it was. */
  private rootGone(): void {
    this.handlers.onEvent("rename", null);
    this.handlers.onRootGone?.();
  }

  /**
   * Watches the directories that could not be read when they were met and can be now (a chmod, or another
   * user's rights): each is reported as renamed, so what is in it is taken as changed. One that is gone is
   * dropped (its parent's event said so).
   */
  private retryUnwatched(): void {
    if (this.unwatched.size === 0 || this.closed) return;
    for (const rel of [...this.unwatched]) {
      const abs = joinPath(this.root, rel);
      if (!isDir(abs)) {
        this.unwatched.delete(rel);
        continue;
      }
      if (!watchable(abs)) continue;
      this.unwatched.delete(rel);
      const lost = this.watchBelow(rel);
      if (lost !== null) {
        this.lose(lost);
        return;
      }
      this.handlers.onEvent("rename", rel);
    }
  }

  private readEvents(): void {
    // Not within itself: a directory made is watched while its event is read, and a set-up reads events.
    if (this.reading) return;
    this.reading = true;
    try {
      this.readQueued();
    } finally {
      this.reading = false;
    }
  }

  private readQueued(): void {
    const ring = this.ring;
    if (ring === null) {
      this.readDescriptor();
      return;
    }
    // What the reader thread read (older), then what is queued still, copied under one lock that keeps the
    // order, and parsed once the thread may read again; until the descriptor had nothing left.
    if (this.taken === null) {
      const bytes = new Uint8Array(RING_BYTES + TAKE_READS * this.events.length);
      this.taken = { bytes, ptr: this.lib.ffi.ptr(bytes) };
    }
    const { bytes: taken, ptr: takenPtr } = this.taken;
    for (;;) {
      let n = 0;
      let empty = false;
      ring.locked((held, leftOut, folded) => {
        taken.set(held, 0);
        n = held.length;
        this.counted.events += leftOut + folded;
        this.counted.dirOpens += leftOut;
        this.counted.closesRead += folded;
        for (let reads = 0; reads < TAKE_READS; reads++) {
          const got = this.fd < 0 ? 0 : this.lib.read(this.fd, takenPtr + n, this.events.length);
          if (got <= 0) {
            empty = true; // EAGAIN: nothing queued (or an error: the next call tries again)
            return;
          }
          n += got;
        }
      });
      // A view made after the reads (as readDescriptor's).
      if (n > 0) this.parse(Buffer.from(taken.buffer, taken.byteOffset, n));
      if (empty || this.closed || this.fd < 0) return;
    }
  }

  private readDescriptor(): void {
    while (!this.closed && this.fd >= 0) {
      const got = this.lib.read(this.fd, this.eventsPtr, this.events.length);
      if (got <= 0) return; // EAGAIN: nothing queued (or an error: the next call tries again)
      // A view made after the call (the optimising JIT may keep an element read before a native call wrote it).
      this.parse(Buffer.from(this.events.buffer, this.events.byteOffset, got));
    }
  }

  /** Hands each event of what read(2) returned (whole events) to `event`, in order. */
  private parse(buf: Buffer): void {
    const got = buf.length;
    // Not past a change of descriptor (the rest are the old instance's, whose watch numbers mean nothing now).
    const fd = this.fd;
    for (let off = 0; off + EVENT_HEAD <= got && !this.closed && this.fd === fd; ) {
      const wd = buf.readInt32LE(off);
      const mask = buf.readUInt32LE(off + 4);
      const len = buf.readUInt32LE(off + 12);
      let end = off + EVENT_HEAD;
      const limit = end + len;
      this.counted.events++;
      // A directory opened or closed (every listing does both): nothing to count, no name to decode.
      if (dirOpenOnly(mask)) {
        this.counted.dirOpens++;
        off = limit;
        continue;
      }
      this.count(mask);
      while (end < limit && buf[end] !== 0) end++;
      const name = len > 0 ? decodeNameIn(buf, off + EVENT_HEAD, end) : "";
      off = limit;
      this.event(wd, mask, name);
    }
  }

  private count(mask: number): void {
    const c = this.counted;
    if (mask & IN_Q_OVERFLOW) c.overflows++;
    else if (mask & IN_OPEN) c.opens++;
    else if (mask & IN_CLOSE_NOWRITE) c.closesRead++;
    else if (mask & IN_CLOSE_WRITE) c.closesWrite++;
    else if (mask & IN_ATTRIB) c.attribs++;
    else if (mask & IN_MODIFY) c.modifies++;
    else if (mask & RENAMES) c.renames++;
  }

  counts(): WatchCounts {
    return { ...this.counted };
  }

  private event(wd: number, mask: number, name: string): void {
    if (mask & IN_Q_OVERFLOW) {
      // Events were lost (not watches): the watch is repaired once every event queued is read (drain).
      this.overflowed = true;
      return;
    }
    const dir = this.dirs.get(wd);
    if (mask & IN_IGNORED) {
      this.forgetWatch(wd);
      return;
    }
    if (dir === undefined) return; // a watch already dropped (its directory moved or went away)
    if (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
      if (dir === "") this.rootGone();
      return;
    }
    const rel = dir === "" ? name : `${dir}/${name}`;
    if (mask & OPENS) {
      if (name === "") return; // the directory itself
      // A `.git` file (a worktree's, a submodule's) is never listed, indexed or read as a query's candidate, and
      // every call reads it: nobody's suspect, not counted, not named; written, it has changed.
      if (VCS_DIRS.has(name)) {
        if (mask & IN_CLOSE_WRITE) this.handlers.onEvent("change", rel);
        return;
      }
      const n = this.open.size === 0 ? 0 : (this.open.get(rel) ?? 0);
      if ((mask & OPEN_CLOSED) === OPEN_CLOSED) {
        // An open and the close that followed it, folded into one by the reader thread (watch-ring.ts): as the two
        // in turn, the count is as it was, and a close to no open seen says so below.
        if (n === 0) this.handlers.onReset?.(rel);
        return;
      }
      if (mask & IN_OPEN) this.open.set(rel, n + 1);
      else if (n > 1) this.open.set(rel, n - 1);
      else {
        // A close that leaves no open seen proves nothing: inotify merges two identical unread events, so two
        // opens close together may have come as one (a reader's close would then drop a file a writer still
        // holds or maps), and a close without an open seen was opened before the watch. Whoever holds it is
        // looked for again (onReset: openForWriting). A close that wrote nothing names its file: a writer hidden
        // by the merge still holds that file (by a descriptor or a mapping, which keeps it open and sends its
        // close when it goes), and that is all there is to find. A close after writing, from zero, is looked at
        // as everything.
        this.open.delete(rel);
        this.handlers.onReset?.(mask & IN_CLOSE_NOWRITE ? rel : undefined);
      }
      // Closed after writing: what was written (through a mapping too: the mapping held the file open until it
      // went) is there now; the file has changed.
      if (mask & IN_CLOSE_WRITE) this.handlers.onEvent("change", rel);
      return;
    }
    // A file open now moved away: it is open under another name (or none), which the counts cannot follow.
    if (mask & IN_MOVED_FROM && this.openBelow(rel)) this.handlers.onReset?.();
    if (mask & IN_ISDIR) {
      // A directory moved away or deleted: its watches (and those below it) no longer name their paths.
      if (mask & (IN_MOVED_FROM | IN_DELETE)) this.forgetBelow(rel);
      // A directory made or moved in: watched now; what was made in it meanwhile is covered by reporting the
      // directory as renamed (everything below it is taken as changed).
      if (mask & (IN_MOVED_TO | IN_CREATE)) {
        const lost = this.watchBelow(rel);
        if (lost !== null) {
          this.lose(lost);
          return;
        }
      }
    }
    this.handlers.onEvent(mask & RENAMES ? "rename" : "change", rel);
  }

  /** Whether a file open now is the entry or below it. */
  private openBelow(rel: string): boolean {
    if (this.open.has(rel)) return true;
    const prefix = `${rel}/`;
    for (const f of this.open.keys()) if (f.startsWith(prefix)) return true;
    return false;
  }

  openFiles(): Iterable<string> {
    return this.open.keys();
  }

  /** Drops the watches of a directory and of those below it (their paths moved or went away). */
  private forgetBelow(rel: string): void {
    const prefix = `${rel}/`;
    for (const [wd, dir] of this.dirs) if (dir === rel || dir.startsWith(prefix)) this.forgetWatch(wd);
    for (const dir of this.unwatched) if (dir === rel || dir.startsWith(prefix)) this.unwatched.delete(dir);
  }

  private lose(reason: string): void {
    this.close();
    this.handlers.onLost(reason);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ring?.stop();
    this.ring = null;
    if (this.fd >= 0) this.lib.close(this.fd);
    this.fd = -1;
    this.dirs.clear();
    this.words.clear();
  }
}

/** Where a set-up with known directories stands (InotifyTree.watchKnown). */
class KnownSetUp {
  /** The next known directory to watch. */
  next = 0;
  /** Per known directory: its link count when it stat'ed as recorded, else 0. */
  readonly links: Uint32Array;
  /** Known subdirectories watched, by their parent's relative path. */
  readonly children = new Map<string, number>();
  /** The known directories watched. */
  readonly watchedRels = new Set<string>();
  /** The directories to list, once every known one is watched (null before). */
  relist: string[] | null = null;
  differ = 0;
  listed = 0;
  done = false;
  readonly scratch = new Uint32Array(STAT_WORDS);

  constructor(readonly dirs: KnownDirs) {
    this.links = new Uint32Array(dirs.rels.length);
  }
}

/**
 * Lists a directory to watch what is below it: through its descriptor (getdents64, no object per entry) where
 * that route is there, else by path.
 * @param abs the directory's path
 * @returns its listing, or null when it cannot be listed (gone, or unreadable)
 */
function listed(abs: string): DirListing | null {
  const fds = dirFds();
  if (fds !== null) {
    const fd = fds.openNoSymlinks(abs, O_DIR);
    if (fd >= 0) {
      try {
        const got = fds.list(fd);
        if (got !== null) return got;
      } finally {
        fds.close(fd);
      }
    }
  }
  try {
    return platform.listDir(abs);
  } catch {
    return null;
  }
}

/**
 * Whether a directory of the tree is watched: all but a VCS directory and those inside it. The walk never lists
 * them and reads nothing there (a `.git` directory's exclude file, config and commondir are read when each
 * call's walk is planned, and a remembered walk's key holds the rules so read), and a repository's tools write
 * there all the time: each file a watch, events and opens to read for nothing.
 * @param rel the directory relative to the root
 * @returns whether it is watched
 */
function watched(rel: string): boolean {
  if (!rel.includes(".")) return true;
  return !rel.split("/").some((part) => VCS_DIRS.has(part));
}

/** Whether a path is a directory this process may list (one it should have been able to watch). */
function watchable(abs: string): boolean {
  try {
    fs.accessSync(fsPath(abs), fs.constants.R_OK | fs.constants.X_OK);
    return isDir(abs);
  } catch {
    return false;
  }
}

function isDir(abs: string): boolean {
  try {
    return platform.lstat(abs).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The regular files on the root's device that a process of this user holds open for writing, or maps shared and
 * writable, now (from /proc: each process's descriptors, their flags, and its mappings), by inode: such a file
 * can be written with no event for its name (a mapping sends none; a name outside the tree, none in it). Read
 * when a watch is set up (what it cannot have seen opened) and again when its queue overflowed. Processes this
 * user may not inspect are not seen (ADR 0032).
 * @param root the root's real path
 * @returns the inodes, or null where /proc cannot be read (not Linux)
 */
export function openForWriting(root: string): Set<number> | null {
  const look = lookForWriting(root);
  for (;;) {
    const r = look.next();
    if (r.done === true) return r.value;
  }
}

/**
 * openForWriting a process at a time: yields before each process's descriptors and mappings are read, so that
 * the look can be spread over idle turns of the event loop.
 * @param root the root's real path
 * @returns the inodes (as openForWriting), or null where /proc cannot be read
 */
export function* lookForWriting(root: string): Generator<void, Set<number> | null, void> {
  let dev: number;
  let pids: string[];
  try {
    dev = fs.statSync(fsPath(root)).dev;
    pids = fs.readdirSync("/proc").filter((p) => /^[0-9]+$/.test(p));
  } catch {
    return null;
  }
  // glibc's makedev: the major and minor numbers the maps lines give in hexadecimal.
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  const minor = (dev & 0xff) | ((dev >>> 12) & 0xfff00);
  const out = new Set<number>();
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const pid of pids) {
    yield;
    let maps = "";
    try {
      maps = fs.readFileSync(`/proc/${pid}/maps`, "latin1");
    } catch {}
    // address perms offset dev inode path: perms "?w?s" is a shared writable mapping. Only the lines holding
    // "w-s " or "wxs " can be one (a path may hold them too: each such line is parsed whole), so the text of a
    // process's private mappings (nearly all of it) is not split into lines and fields at each rescan.
    for (const mark of ["w-s ", "wxs "])
      for (let at = maps.indexOf(mark); at >= 0; at = maps.indexOf(mark, at + 4)) {
        const start = maps.lastIndexOf("\n", at) + 1;
        const stop = maps.indexOf("\n", at);
        const f = maps.slice(start, stop < 0 ? maps.length : stop).split(" ", 5);
        const perms = f[1];
        if (perms === undefined || perms[1] !== "w" || perms[3] !== "s") continue;
        const [maj, min] = (f[3] ?? "").split(":");
        if (Number.parseInt(maj ?? "", 16) !== major || Number.parseInt(min ?? "", 16) !== minor) continue;
        const ino = Number(f[4]);
        if (ino > 0) out.add(ino);
      }
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        // Only descriptors of the tree's names: a file of the tree held open through a name outside it has
        // another hard link, and such files are read at each query anyway.
        if (!fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(prefix)) continue;
        const st = fs.statSync(`/proc/${pid}/fd/${fd}`);
        if (!st.isFile() || st.dev !== dev) continue;
        const info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, "latin1");
        const flags = /flags:\s*([0-7]+)/.exec(info)?.[1];
        // O_WRONLY or O_RDWR (a descriptor whose flags cannot be read is taken as writable).
        if (flags === undefined || (Number.parseInt(flags, 8) & 3) !== 0) out.add(st.ino);
      } catch {}
    }
  }
  return out;
}
