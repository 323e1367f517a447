/*! Engine: ignore rules as git applies them. One compiled rule set (ignore-rules.ts) per directory that has a
 * .gitignore or .ignore file, anchored at that directory; deeper files win over shallower ones, .ignore over
 * .gitignore, and both over .git/info/exclude and the global excludes file. Only the entry itself is tested:
 * the walker prunes ignored directories, so a parent's exclusion is never re-tested (and an explicit root
 * inside an ignored directory is still searched). Ignore files above a root are read as ripgrep reads them
 * (ADR 0018), and every file is read as ADR 0002 says: regular, non-blocking, at most 1 MiB, an in-tree one
 * never through a symlink. It never walks. */
import * as os from "node:os";
import * as path from "node:path";
import ignore, { type Ignore } from "ignore";
import { type ErrorInfo, fsErrorInfo } from "../contract/errors.ts";
import { joinPath } from "../platform/names.ts";
import { type Confinement, platform, typeOfStats, typeWord } from "../platform/platform.ts";
import { newestTime, STAT_OK } from "../platform/stat-words.ts";
import { type CompiledRules, compileRules, type IgnoreRule, lastMatchAt } from "./ignore-rules.ts";
import { recording, stillSo, type Witnessed, witness, witnessingInto, witnessKind } from "./witness.ts";

/** One ignore file, compiled. */
export interface IgnoreFile {
  /** Absolute path of the file (for explain). */
  readonly file: string;
  /** Repository-relative directory the patterns are anchored at: "" or "dir/sub/". */
  readonly prefix: string;
  /** The same lines in the `ignore` package (built on first use; the reference implementation in tests). */
  readonly ig: Ignore;
  /** The raw lines, for explain. */
  readonly lines: readonly string[];
  /** The compiled rules the walk uses. */
  readonly rules: CompiledRules;
  /** Where it applies (IgnoreScope). */
  readonly scope: IgnoreScope;
}

/**
 * Where an ignore file applies below its directory: "repo" for a repository's own files (.gitignore,
 * info/exclude), which end at a nested repository's root as git, rg and fd end them; "tree" for `.ignore`,
 * which applies through it; "outer" for the files given from outside (ignore_files, the global excludes file),
 * which apply everywhere and rank below every other (ADR 0059).
 */
type IgnoreScope = "repo" | "tree" | "outer";

/** The verdict of the rules on one path, with the rule that decided it. */
interface IgnoreVerdict {
  readonly ignored: boolean;
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
  /** The path the rule matched: the key itself, or the ignored parent directory (with a trailing '/'). */
  readonly path: string;
}

/** The file names read in every directory, lowest priority first. */
export const IGNORE_FILE_NAMES = [".gitignore", ".ignore"] as const;

/**
 * The largest ignore, config or `.git` file read (1 MiB). A larger one is not read at all (a TOO_LARGE record
 * says so, and its rules do not apply): a file that size is not a list of patterns someone wrote, and reading
 * a device or a growing file must end.
 */
const IGNORE_FILE_CAP = 1 << 20;

/** What reading a small file gave: its text, nothing (it does not exist), or why it was refused. */
type SmallRead = { readonly text: string } | { readonly error: ErrorInfo } | null;

/**
 * Reads a small configuration file (an ignore file, a git config, a `.git` file) so that nothing can block it
 * or make it balloon: opened non-blocking (and, with noFollow, without following a final symlink), read only
 * when the object opened is a regular file, and only up to IGNORE_FILE_CAP.
 * @param file the absolute path
 * @param noFollow refuse a symlink (in-tree ignore files, as git >= 2.32 does)
 * @param confine what the object opened must be (an in-tree file), or null
 * @returns the text, null when the file does not exist, or the refusal
 */
function readSmallFile(file: string, noFollow: boolean, confine: Confinement | null = null): SmallRead {
  witness(file, !noFollow);
  let fd: number;
  try {
    fd = platform.open(file, confine, noFollow);
  } catch (err) {
    const code = (err as { code?: string } | null)?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "ELOOP" && noFollow) {
      return {
        error: {
          code: "PERM",
          message: "is a symlink: not read (as git >= 2.32 refuses a symlinked ignore file)",
          path: file,
        },
      };
    }
    return { error: fsErrorInfo(err, file) };
  }
  try {
    const st = platform.fstat(fd);
    if (!st.isFile()) {
      return {
        error: {
          code: "UNREADABLE",
          message: `is a ${typeWord(typeOfStats(st))}, not a regular file: not read`,
          path: file,
        },
      };
    }
    if (st.size > IGNORE_FILE_CAP) return { error: tooLarge(file) };
    const buf = new Uint8Array(Math.min(st.size, IGNORE_FILE_CAP) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) return { error: tooLarge(file) }; // it grew past the cap while being read
      const got = platform.read(fd, buf.subarray(n), buf.length - n, null);
      if (got <= 0) break;
      n += got;
    }
    return { text: new TextDecoder().decode(buf.subarray(0, n)) };
  } catch (err) {
    return { error: fsErrorInfo(err, file) };
  } finally {
    try {
      platform.close(fd);
    } catch {}
  }
}

function tooLarge(file: string): ErrorInfo {
  return {
    code: "TOO_LARGE",
    message: `over ${IGNORE_FILE_CAP} bytes: not read, its rules do not apply`,
    path: file,
  };
}

/**
 * Reads and compiles one ignore file found in a directory of the tree (a symlink, a FIFO, a device or a file
 * over the cap is refused and reported).
 * @param file the absolute path
 * @param prefix the directory it anchors at, in the chain's key space ("" or ending in '/')
 * @param report receives a refusal
 * @param confine what the object opened must be (the walk's confinement), or null
 * @returns the compiled file, or null when it does not exist or was refused
 */
export function loadTreeIgnoreFile(
  file: string,
  prefix: string,
  report: (info: ErrorInfo) => void,
  confine: Confinement | null = null,
): IgnoreFile | null {
  const r = readSmallFile(file, true, confine);
  if (r === null) return null;
  if ("error" in r) {
    report(r.error);
    return null;
  }
  return ignoreFileOf(file, prefix, r.text, file.endsWith("/.gitignore") ? "repo" : "tree");
}

/**
 * Reads and compiles one ignore file, quietly (a refusal is reported where the file was first met).
 * @param file the absolute path
 * @param prefix the directory it anchors at, in the chain's key space ("" or ending in '/')
 * @returns the compiled file, or null when it cannot be read
 */
export function loadIgnoreFile(file: string, prefix: string): IgnoreFile | null {
  return loadTreeIgnoreFile(file, prefix, () => {});
}

/**
 * Creates an IgnoreFile from text already read.
 * @param file the absolute path it came from (for explain)
 * @param prefix the repository-relative directory it anchors at ("" or ending in '/')
 * @param text the file's content
 * @param scope where it applies (IgnoreScope)
 * @returns the compiled file
 */
export function ignoreFileOf(file: string, prefix: string, text: string, scope: IgnoreScope): IgnoreFile {
  const lines = text.split(/\r?\n/);
  let ig: Ignore | null = null;
  return {
    file,
    prefix,
    get ig(): Ignore {
      ig ??= ignore({ ignorecase: false, allowRelativePaths: true }).add(lines);
      return ig;
    },
    lines,
    rules: compileRules(text),
    scope,
  };
}

/**
 * Tests one entry against a chain (the walk's hot path: no allocation when nothing matches).
 * @param chain the ignore files that apply, lowest priority first
 * @param key the entry's repository-relative path, without a trailing '/'
 * @param name the entry's basename
 * @param isDir whether the entry is a directory
 * @returns the deciding rule and its file, or null when no rule matches
 */
export function matchChain(
  chain: readonly IgnoreFile[],
  key: string,
  name: string,
  isDir: boolean,
): { file: IgnoreFile; rule: IgnoreRule } | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const f = chain[i] as IgnoreFile;
    const pl = f.prefix.length;
    if (pl > 0 && !key.startsWith(f.prefix)) continue;
    const idx = lastMatchAt(f.rules, key, pl, name, isDir);
    if (idx >= 0) return { file: f, rule: f.rules.rules[idx] as IgnoreRule };
  }
  return null;
}

/**
 * Finds the rule that ignores a walk's root directory or one of its directories above it, as git check-ignore
 * names it for every path below (git tests the leading directories from the top and stops at the first one
 * excluded): the walk itself never tests them (a walk that starts inside an ignored directory lists what is below).
 * @param outer the root's ignore files from above it, lowest priority first (Root.outer)
 * @param repoPrefix the root's repository-relative prefix, "" or ending in '/' (Root.repoPrefix)
 * @returns the rule and its file, or null when no directory on the way is ignored
 */
export function ignoredAncestor(
  outer: readonly IgnoreFile[],
  repoPrefix: string,
): { file: IgnoreFile; rule: IgnoreRule } | null {
  if (outer.length === 0 || repoPrefix === "") return null;
  const parts = repoPrefix.slice(0, -1).split("/");
  for (let i = 0; i < parts.length; i++) {
    const m = matchChain(outer, parts.slice(0, i + 1).join("/"), parts[i] as string, true);
    if (m !== null && !m.rule.negate) return m;
  }
  return null;
}

/**
 * Tests one entry against a chain, returning only the verdict.
 * @param chain the ignore files that apply, lowest priority first
 * @param key the entry's repository-relative path, without a trailing '/'
 * @param name the entry's basename
 * @param isDir whether the entry is a directory
 * @returns true when ignored
 */
export function ignoredEntry(
  chain: readonly IgnoreFile[],
  key: string,
  name: string,
  isDir: boolean,
): boolean {
  const m = matchChain(chain, key, name, isDir);
  return m !== null && !m.rule.negate;
}

function splitKey(key: string): { path: string; name: string; isDir: boolean } {
  const isDir = key.endsWith("/");
  const p = isDir ? key.slice(0, -1) : key;
  return { path: p, name: p.slice(p.lastIndexOf("/") + 1), isDir };
}

/**
 * Tests a path against a chain of ignore files (lowest priority first), as git does: a path below an ignored
 * directory is ignored (the walk itself uses ignoredEntry, because it never enters ignored directories).
 * @param chain the ignore files that apply, lowest priority first
 * @param key the repository-relative path, with a trailing '/' for a directory
 * @returns true when ignored
 */
export function isIgnored(chain: readonly IgnoreFile[], key: string): boolean {
  return explainIgnore(chain, key)?.ignored === true;
}

/**
 * Explains which rule decides a path: the file, the line and the pattern. When a parent directory of the path
 * is ignored, that directory's rule is the answer (git cannot re-include below it) and `path` names it.
 * @param chain the ignore files that apply, lowest priority first
 * @param key the repository-relative path, with a trailing '/' for a directory
 * @returns the verdict with its rule, or null when no rule matches
 */
export function explainIgnore(chain: readonly IgnoreFile[], key: string): IgnoreVerdict | null {
  const k = splitKey(key);
  for (let i = k.path.indexOf("/"); i >= 0; i = k.path.indexOf("/", i + 1)) {
    const dir = k.path.slice(0, i);
    const m = matchChain(chain, dir, dir.slice(dir.lastIndexOf("/") + 1), true);
    if (m !== null && !m.rule.negate) {
      return {
        ignored: true,
        file: m.file.file,
        line: m.rule.line,
        pattern: m.rule.pattern,
        path: `${dir}/`,
      };
    }
  }
  const m = matchChain(chain, k.path, k.name, k.isDir);
  if (m === null) return null;
  return {
    ignored: !m.rule.negate,
    file: m.file.file,
    line: m.rule.line,
    pattern: m.rule.pattern,
    path: key,
  };
}

/**
 * Where git's config files and global excludes file are looked for, as the environment says (src/config.ts reads
 * it; a served call's is its client's).
 */
export interface GitPlaces {
  /** The user's home directory (HOME, else the system's). */
  readonly home: string;
  /** XDG_CONFIG_HOME as set (null: unset; unset or empty is `~/.config`). */
  readonly xdgConfigHome: string | null;
  /** GIT_CONFIG_NOSYSTEM as set (null: unset; set and not empty skips /etc/gitconfig). */
  readonly noSystem: string | null;
}

/**
 * Returns the places of a process whose environment says nothing of them (no XDG_CONFIG_HOME, no
 * GIT_CONFIG_NOSYSTEM): for a caller that passes none (a test of the engine); every entry passes its Config's.
 * @returns the places
 */
export function defaultGitPlaces(): GitPlaces {
  return { home: os.homedir(), xdgConfigHome: null, noSystem: null };
}

/** Which ignore files apply (the walk options, resolved). */
export interface IgnoreSettings {
  /** Ignore files are read at all (respect_gitignore). */
  readonly respect: boolean;
  /** .gitignore, .git/info/exclude and the global excludes file (ignore_vcs). */
  readonly vcs: boolean;
  /** .ignore files (ignore_dot). */
  readonly dot: boolean;
  /** Ignore files in the directories above a root (ignore_parent). */
  readonly parent: boolean;
  /** git's core.excludesFile (global_ignore_file). */
  readonly global: boolean;
  /** Extra ignore files (ignore_files), absolute, lowest priority, anchored at `extraAnchor`; read even when
   * respect is false, as ripgrep's --ignore-file is. */
  readonly extra: readonly string[];
  /** The directory the extra files' patterns are relative to (the base). */
  readonly extraAnchor: string;
  /** Where git's config files are looked for (default: defaultGitPlaces()). */
  readonly git?: GitPlaces;
}

/** The settings of a walk that reads every kind of ignore file. */
const ALL_IGNORE_FILES: IgnoreSettings = {
  respect: true,
  vcs: true,
  dot: true,
  parent: true,
  global: true,
  extra: [],
  extraAnchor: "/",
};

/**
 * Returns the names of the ignore files read in each directory walked.
 * @param s the settings
 * @returns the names, lowest priority first
 */
export function ignoreNamesOf(s: IgnoreSettings): readonly string[] {
  if (!s.respect) return [];
  return IGNORE_FILE_NAMES.filter((n) => (n === ".gitignore" ? s.vcs : s.dot));
}

/** Where the walk of one directory sits: its repository, and the ignore files that apply from above it. */
export interface RepoContext {
  /** Absolute repository root (the directory that holds .git), or null outside a repository (or when no
   * version-control file is read). */
  readonly root: string | null;
  /** The directory the chain's keys are relative to: the highest of the directory, the repository root and the
   * directories whose ignore files apply from above. */
  readonly anchor: string;
  /** Ignore files that apply from outside the walked directory, lowest priority first. */
  readonly outer: readonly IgnoreFile[];
  /** Files that were refused (a FIFO, a symlinked ignore file, one over the cap). */
  readonly errors: readonly ErrorInfo[];
}

function configExcludesFile(cfg: string, home: string, errors: ErrorInfo[]): string | null {
  const r = readSmallFile(cfg, false);
  if (r === null) return null;
  if ("error" in r) {
    errors.push(r.error);
    return null;
  }
  let found: string | null = null;
  let inCore = false;
  for (const raw of r.text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) inCore = /^\[core\]/i.test(line);
    else if (inCore) {
      const m = /^excludesfile\s*=\s*(.+)$/i.exec(line);
      if (m?.[1]) {
        const value = m[1].replace(/^"(.*)"$/, "$1");
        found = value.startsWith("~/") ? path.join(home, value.slice(2)) : value;
      }
    }
  }
  return found;
}

/**
 * Tells what a `.git` entry makes of its directory: a repository (a directory, or a regular file naming one),
 * or nothing (it does not exist; or it is a FIFO, a socket or a device, which is never opened: git goes on
 * looking above it, and so does the walk, with a record saying why).
 */
function gitEntry(dotGit: string, errors: ErrorInfo[]): "dir" | "file" | null {
  witnessKind(dotGit);
  let st: ReturnType<typeof platform.stat>;
  try {
    st = platform.stat(dotGit);
  } catch {
    return null;
  }
  if (st.isDirectory()) return "dir";
  if (st.isFile()) return "file";
  errors.push({
    code: "UNREADABLE",
    message: `is a ${typeWord(typeOfStats(st))}, not a directory or a regular file: not read, not taken as a repository`,
    path: dotGit,
  });
  return null;
}

/**
 * Returns the git directory of a repository root: `.git` itself, or where a `.git` file (worktree,
 * submodule) points, and the common directory that holds info/exclude.
 */
function gitDirs(
  root: string,
  kind: "dir" | "file",
  errors: ErrorInfo[],
): { gitDir: string; commonDir: string } {
  const dotGit = path.join(root, ".git");
  let gitDir = dotGit;
  if (kind === "file") {
    const r = readSmallFile(dotGit, false);
    if (r !== null && "error" in r) errors.push(r.error);
    else if (r !== null) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(r.text);
      if (m?.[1]) gitDir = path.resolve(root, m[1]);
    }
  }
  let commonDir = gitDir;
  const c = readSmallFile(path.join(gitDir, "commondir"), false);
  if (c !== null && "error" in c) errors.push(c.error);
  else if (c !== null) commonDir = path.resolve(gitDir, c.text.trim());
  return { gitDir, commonDir };
}

/**
 * Git's core.excludesFile (system < XDG < ~/.gitconfig < repository config; last wins), else XDG's git/ignore.
 * A relative value is taken from the top of the work tree, as git does.
 */
function globalExcludesFile(
  configDir: string,
  workTree: string,
  git: GitPlaces,
  errors: ErrorInfo[],
): string | null {
  const home = git.home;
  const xdg = git.xdgConfigHome || path.join(home, ".config");
  const configs: string[] = [];
  if (!git.noSystem) configs.push("/etc/gitconfig");
  configs.push(
    path.join(xdg, "git", "config"),
    path.join(home, ".gitconfig"),
    path.join(configDir, "config"),
  );
  let found: string | null = null;
  for (const cfg of configs) found = configExcludesFile(cfg, home, errors) ?? found;
  if (found !== null) return path.resolve(workTree, found);
  return path.join(xdg, "git", "ignore");
}

/** Reads a file of outside configuration (global excludes, info/exclude, --ignore-file): symlinks followed. */
function loadOuter(file: string, prefix: string, errors: ErrorInfo[], scope: IgnoreScope): IgnoreFile | null {
  const r = readSmallFile(file, false);
  if (r === null) return null;
  if ("error" in r) {
    errors.push(r.error);
    return null;
  }
  return ignoreFileOf(file, prefix, r.text, scope);
}

function isAncestor(dir: string, of: string): boolean {
  return dir === of || of.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

function prefixOf(anchor: string, dir: string): string {
  const rel = path.relative(anchor, dir);
  return rel === "" ? "" : `${rel.split(path.sep).join("/")}/`;
}

/**
 * Finds the repository around a directory and the ignore files that apply to it from above: the extra files,
 * the global excludes file and info/exclude (in a repository), then the directories above it from the top
 * down: `.ignore` up to the file system root and `.gitignore` up to the repository root, as ripgrep reads them.
 * @param dir the absolute directory a walk starts at
 * @param s which files apply
 * @returns the repository root, the key anchor, the outer ignore files (lowest priority first) and refusals
 */
export function repoContext(dir: string, s: IgnoreSettings = ALL_IGNORE_FILES): RepoContext {
  // A recording must witness every read itself: no memo then.
  if (recording()) return readRepoContext(dir, s);
  const key = repoKey(dir, s);
  const kept = repoMemo.get(key);
  if (kept?.seen.every(stillSo)) return kept.context;
  const seen = new Map<string, Witnessed>();
  const context = witnessingInto(seen, () => readRepoContext(dir, s));
  repoMemo.delete(key);
  const racy = Date.now() / 1000 - RACY_S;
  const settled = [...seen.values()].every(
    (w) => w.kindOnly || w.outcome !== STAT_OK || newestTime(w.words, 0) < racy,
  );
  if (context.errors.length === 0 && settled) {
    repoMemo.set(key, { context, seen: [...seen.values()] });
    if (repoMemo.size > REPO_MEMO_MAX) repoMemo.delete(repoMemo.keys().next().value as string);
  }
  return context;
}

/**
 * The repository contexts read before, by directory and settings (repoKey), each kept with every path it read or
 * looked for as witness.ts saw it (a `.git` entry by its kind): used again while each of them stats the same, so
 * an edit of an ignore file above, of info/exclude, of a git config or the excludes file it names, or a `.git`
 * made or removed is read at the next call, as before (#36: a served call read them all at each call).
 */
const repoMemo = new Map<string, { readonly context: RepoContext; readonly seen: readonly Witnessed[] }>();
/** The most contexts kept (a server's roots and the directories of the paths its calls name). */
const REPO_MEMO_MAX = 64;
/**
 * A context that read a file changed less than this before is not kept: a later write in the same tick of the
 * file system's clock, of the same size, would leave its stats as they were (as binary-verdicts.ts's RACY_S).
 */
const RACY_S = 2;

/** What identifies a repository context: the directory and every setting that changes what is read. */
function repoKey(dir: string, s: IgnoreSettings): string {
  const g = s.git ?? defaultGitPlaces();
  const flags = `${+s.respect}${+s.vcs}${+s.dot}${+s.parent}${+s.global}`;
  return [
    dir,
    flags,
    s.extraAnchor,
    g.home,
    g.xdgConfigHome ?? "\u0001",
    g.noSystem ?? "\u0001",
    ...s.extra,
  ].join("\0");
}

/** Reads what repoContext answers (see there), every file read again. */
function readRepoContext(dir: string, s: IgnoreSettings): RepoContext {
  const errors: ErrorInfo[] = [];
  let root: string | null = null;
  let gitKind: "dir" | "file" | null = null;
  if (s.respect && s.vcs) {
    for (let d = dir; ; ) {
      gitKind = gitEntry(path.join(d, ".git"), errors);
      if (gitKind !== null) {
        root = d;
        break;
      }
      const up = path.dirname(d);
      if (up === d) break;
      d = up;
    }
  }
  // The directories above dir whose files are read, from the top down, with the names read in each.
  const above: Array<{ dir: string; names: string[] }> = [];
  if (s.respect && s.parent && (s.dot || root !== null)) {
    for (let d = path.dirname(dir), prev = dir; d !== prev; prev = d, d = path.dirname(d)) {
      const names: string[] = [];
      if (root !== null && isAncestor(root, d)) names.push(".gitignore");
      if (s.dot) names.push(".ignore");
      if (names.length > 0) above.unshift({ dir: d, names });
    }
  }
  const files: Array<{ dir: string; file: string; text: string }> = [];
  for (const a of above) {
    for (const name of a.names) {
      const file = path.join(a.dir, name);
      const r = readSmallFile(file, true);
      if (r !== null && "error" in r) errors.push(r.error);
      else if (r !== null) files.push({ dir: a.dir, file, text: r.text });
    }
  }
  let anchor = dir;
  if (root !== null) anchor = root;
  if (files.length > 0 && (files[0] as { dir: string }).dir.length < anchor.length) {
    anchor = (files[0] as { dir: string }).dir;
  }
  if (s.extra.length > 0) {
    while (!isAncestor(anchor, s.extraAnchor)) anchor = path.dirname(anchor);
  }
  const outer: IgnoreFile[] = [];
  const extraPrefix = prefixOf(anchor, s.extraAnchor);
  for (const x of s.extra) {
    const f = loadOuter(x, extraPrefix, errors, "outer");
    if (f) outer.push(f);
  }
  if (root !== null && gitKind !== null) {
    const rootPrefix = prefixOf(anchor, root);
    const dirs = gitDirs(root, gitKind, errors);
    if (s.global) {
      const globalFile = globalExcludesFile(dirs.commonDir, root, s.git ?? defaultGitPlaces(), errors);
      const g = globalFile ? loadOuter(globalFile, rootPrefix, errors, "outer") : null;
      if (g) outer.push(g);
    }
    // info/exclude belongs to the repository root: without parents it applies only walking from there (rg).
    if (s.parent || root === dir) {
      const info = loadOuter(path.join(dirs.commonDir, "info", "exclude"), rootPrefix, errors, "repo");
      if (info) outer.push(info);
    }
  }
  for (const f of files)
    outer.push(
      ignoreFileOf(f.file, prefixOf(anchor, f.dir), f.text, f.file.endsWith("/.gitignore") ? "repo" : "tree"),
    );
  return { root, anchor, outer, errors };
}

/**
 * Returns the ignore files that apply below a directory of a walk (not its root: repoContext placed that) when it
 * holds a `.git` entry, a nested repository's root, before its own ignore files are read: those of the repository
 * around it (its .gitignore files and info/exclude) end there, as rg, fd and git inside it end them, and its
 * info/exclude (from its common git directory: a worktree's, or a submodule's `gitdir:`) begins, ranked as the
 * root's is, below every `.ignore` file and above the files given from outside (ADR 0059). What it reads is
 * witnessed (readSmallFile), so a recorded walk is checked against it.
 * @param chain the ignore files that apply to the directory's entries so far, lowest priority first
 * @param dir the directory's absolute path
 * @param keyPrefix its prefix in the chain's key space ("" or ending in '/')
 * @param report receives a refusal (a `.git` that is a FIFO, an unreadable `.git` file or exclude file)
 * @returns the chain for its entries (the same array when `.git` makes no repository of it)
 */
function nestedRepoChain(
  chain: readonly IgnoreFile[],
  dir: string,
  keyPrefix: string,
  report: (info: ErrorInfo) => void,
): readonly IgnoreFile[] {
  const errors: ErrorInfo[] = [];
  const kind = gitEntry(path.join(dir, ".git"), errors);
  let next = chain;
  if (kind !== null) {
    const dirs = gitDirs(dir, kind, errors);
    const info = loadOuter(path.join(dirs.commonDir, "info", "exclude"), keyPrefix, errors, "repo");
    const kept = chain.filter((f) => f.scope !== "repo");
    let at = 0;
    while (at < kept.length && (kept[at] as IgnoreFile).scope === "outer") at++;
    next = info === null ? kept : [...kept.slice(0, at), info, ...kept.slice(at)];
  }
  for (const e of errors) report(e);
  return next;
}

/** Reads one of a directory's ignore files: the walk's own reader, or explain's, which remembers what it read. */
export type IgnoreFileLoader = (
  file: string,
  keyPrefix: string,
  report: (info: ErrorInfo) => void,
) => IgnoreFile | null;

/**
 * Returns the ignore files that apply to a listed directory's entries, as the walk, explain and explain --rules
 * each take them: a nested repository's step first (nestedRepoChain, below a root only), then the directory's own
 * ignore files (`.gitignore`, `.ignore`, in the plan's order) that its listing holds, each read by `load`.
 * @param plan whether nested repositories count (`nestedRepos`) and the ignore files' names (`ignoreNames`)
 * @param names the directory's listed names
 * @param dir the directory's absolute path
 * @param below whether the directory is below a root (a root's repository is placed by the plan: repoContext)
 * @param chain the ignore files that apply to the directory itself, lowest priority first
 * @param keyPrefix the directory's prefix in the chain's key space ("" or ending in '/')
 * @param load reads an ignore file (null when there is none to read or it was refused)
 * @param report receives a refusal
 * @returns the chain for the directory's entries (the same array when nothing applies there)
 */
export function dirChain(
  plan: { readonly nestedRepos: boolean; readonly ignoreNames: readonly string[] },
  names: readonly string[],
  dir: string,
  below: boolean,
  chain: readonly IgnoreFile[],
  keyPrefix: string,
  load: IgnoreFileLoader,
  report: (info: ErrorInfo) => void,
): readonly IgnoreFile[] {
  let next = chain;
  if (below && plan.nestedRepos && names.includes(".git"))
    next = nestedRepoChain(next, dir, keyPrefix, report);
  for (const fileName of plan.ignoreNames) {
    if (!names.includes(fileName)) continue;
    const f = load(joinPath(dir, fileName), keyPrefix, report);
    if (f !== null) next = [...next, f];
  }
  return next;
}
