/*! Engine: what every stage of a walk shares, the bottom of the walk's modules: a root, the compiled plan and
 * what it was compiled from, and the entry the walk meets (its stats read lazily, once). The plan compiles it
 * (plan.ts), the walk loops over it (walk.ts), predicates test it (filter/), runs and warm providers take it. */
import type { WalkOptions } from "../contract/walk-options.ts";
import type { EntryType } from "../platform/listing.ts";
import { type Confinement, type FileStats, platform } from "../platform/platform.ts";
import { lstatAt } from "../platform/stat-words.ts";
import type { TypeRejects } from "./filter/type-rejects.ts";
import type { GitPlaces, IgnoreFile } from "./ignore.ts";

/** A root of a walk: a directory to walk or a file to yield. */
export interface Root {
  readonly abs: string;
  /** Its real path (symlinks resolved). */
  readonly real: string;
  /** POSIX path relative to the base ("" for the base itself). */
  readonly rel: string;
  readonly type: EntryType;
  /** Ignore files that apply from above this root, lowest priority first. */
  readonly outer: readonly IgnoreFile[];
  /** Repository-relative prefix of this root ("" or ending in '/'), the key space of `outer`. */
  readonly repoPrefix: string;
}

/** The compiled walk: everything the per-entry loop needs, decided once. */
export interface WalkPlan {
  readonly base: string;
  /** Real path of the base, for strict-base containment. */
  readonly baseReal: string;
  readonly roots: readonly Root[];
  /** What every directory listed and file opened must be (the objects opened are checked, not the paths). */
  readonly confine: Confinement;
  readonly hidden: boolean;
  readonly respectIgnore: boolean;
  /** The ignore files read in each directory walked (none when ignore files are not respected). */
  readonly ignoreNames: readonly string[];
  /** Whether a directory holding `.git` below a root changes the ignore files that apply (ignore.ts's
   * nestedRepoChain): version-control ignore files are respected. */
  readonly nestedRepos: boolean;
  readonly follow: boolean;
  readonly strictBase: boolean;
  readonly maxDepth: number;
  readonly minDepth: number;
  /** True when an entry should be skipped and, for a directory, not entered (isDir: by the target's type). */
  readonly exclude: ((rel: string, name: string, isDir: boolean) => boolean) | null;
  /** True when an entry is selected (patterns and predicates). */
  readonly select: (e: Entry) => boolean;
  /** Whether directories themselves can ever be selected (false lets the walk skip testing them). */
  readonly selectDirs: boolean;
  /** Device of each root (one_file_system: a directory on another device is not entered), or null. */
  readonly rootDevices?: readonly (number | null)[] | null;
  /** Whether select reads the stats of the entries it tests (size, time, permission, owner, x or e). */
  readonly readsStats: boolean;
  /** In the calling thread, with file types and `typeRejects`: false for a file that select let through only as
   * one of no known type, which it keeps in typeRejects (filter/type-rejects.ts); else null. */
  readonly admit: ((e: Entry) => boolean) | null;
  /** The files of no known type the types left out, kept by admit for the --lang shebang note, or null. */
  readonly typeRejects: TypeRejects | null;
  /** What the plan was compiled from, so that a walk worker can compile the same plan. */
  readonly source: PlanSource;
}

/** Options of the plan that the operation decides (not the caller). */
export interface PlanOptions {
  /** Only regular files are ever selected (grep, count, dupes). */
  readonly filesOnly?: boolean;
  /**
   * A file named as a root is taken whatever the globs say (grep, as ripgrep searches a named file): its
   * operands mix paths and globs, and a glob meant for the walk must not hide a file asked for by name.
   */
  readonly namedFilesPastGlobs?: boolean;
  /** The directory relative bases resolve against (default: the process's). */
  readonly cwd?: string;
  /** The instant relative times ('7d') count back from (default: now). */
  readonly now?: number;
  /** Where git's config files are looked for (the Config's `git`; default: ignore.ts defaultGitPlaces()). */
  readonly git?: GitPlaces;
  /** With file types: keep the files they leave out that are of no known type, for the --lang shebang note
   * ("keep"), or let them through for the calling thread to keep ("pass", a walk worker's plan). */
  readonly typeRejects?: "keep" | "pass";
}

/** The inputs of compileWalk, in full (cwd and the instant relative times count from are fixed). */
export interface PlanSource {
  readonly options: WalkOptions;
  readonly plan: PlanOptions & { readonly cwd: string; readonly now: number; readonly git: GitPlaces };
}

/** The stats of an entry that the operations use (what a walk worker sends along with an entry). */
export type EntryStats = Pick<FileStats, "size" | "mtimeMs" | "mode" | "uid" | "gid" | "dev" | "ino">;

/** One entry met by the walk. Stats are read lazily, once. */
export class Entry {
  private st: EntryStats | null | undefined;
  /** Why stats() returned null (e.g. the entry vanished after it was listed), or why saved_as could not read its
   * head, for the walk to report. */
  statError: unknown = undefined;
  /** The directory it was listed in while the walk is in it (its descriptor is -1 once closed): its stats are read
   * and its file opened (platform.openListed) relative to it. */
  listedDir: { readonly fd: number } | null = null;
  /** Its encoding once saved_as has read its head (filter/encoding.ts; null: not a regular file). */
  encoding: string | null | undefined = undefined;
  /** Its line ends once saved_as has read its text (filter/encoding.ts fileEol; null: binary or not a file). */
  eol: string | null | undefined = undefined;

  constructor(
    readonly abs: string,
    readonly rel: string,
    readonly name: string,
    readonly depth: number,
    /** The listed type (a symlink stays "symlink" even when followed). */
    readonly type: EntryType,
    /** The type after following a symlink (equals type when not a followed link). */
    readonly target: EntryType,
    readonly root: number,
    private readonly followLinks: boolean,
  ) {}

  /** Returns the entry's stats (of the target for a followed symlink, of the link itself for a dangling one), or
   * null when they cannot be read. */
  stats(): EntryStats | null {
    if (this.st === undefined) {
      // While the walk is in its directory, the entry's own stats are read relative to it (not for a symlink
      // that is followed: its target's are wanted). A failure takes the path, which reports the error.
      const dir = this.listedDir;
      if (dir !== null && dir.fd >= 0 && !(this.followLinks && this.type === "symlink")) {
        const st = lstatAt(dir.fd, this.name);
        if (st !== null) {
          this.st = st;
          return st;
        }
      }
      try {
        this.st =
          this.followLinks && this.type === "symlink" && this.target !== "symlink"
            ? platform.stat(this.abs)
            : platform.lstat(this.abs); // a dangling link has only its own stats
      } catch (err) {
        this.st = null;
        this.statError = err;
      }
    }
    return this.st;
  }

  /** Whether stats() was called (it then answers without a system call). */
  get statted(): boolean {
    return this.st !== undefined;
  }

  /**
   * Gives the entry stats read elsewhere (by a walk worker), so stats() answers without a system call.
   * @param st the stats, or null when they could not be read
   * @param err why they could not be read
   */
  preset(st: EntryStats | null, err: unknown): void {
    this.st = st;
    this.statError = err;
  }

  /** The order key of this entry, for cursors. */
  get key(): string {
    return `${this.root}:${this.rel}`;
  }
}
