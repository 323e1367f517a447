/*! Engine: ignore rules as git applies them. One compiled rule set (ignore-rules.ts) per directory that has a
 * .gitignore or .ignore file, anchored at that directory; deeper files win over shallower ones, .ignore over
 * .gitignore, and both over .git/info/exclude and the global excludes file. Only the entry itself is tested:
 * the walker prunes ignored directories, so a parent's exclusion is never re-tested (and an explicit root
 * inside an ignored directory is still searched). It never walks. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ignore, { type Ignore } from "ignore";
import { platform } from "../platform/platform.ts";
import { type CompiledRules, compileRules, type IgnoreRule, lastMatchAt } from "./ignore-rules.ts";

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
}

/** The verdict of the rules on one path, with the rule that decided it. */
export interface IgnoreVerdict {
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
 * Reads and compiles one ignore file.
 * @param file the absolute path
 * @param prefix the repository-relative directory it anchors at ("" or ending in '/')
 * @returns the compiled file, or null when it cannot be read
 */
export function loadIgnoreFile(file: string, prefix: string): IgnoreFile | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  return ignoreFileOf(file, prefix, text);
}

/**
 * Creates an IgnoreFile from text already read.
 * @param file the absolute path it came from (for explain)
 * @param prefix the repository-relative directory it anchors at ("" or ending in '/')
 * @param text the file's content
 * @returns the compiled file
 */
export function ignoreFileOf(file: string, prefix: string, text: string): IgnoreFile {
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
  for (let i = chain.length - 1; i >= 0; i--) {
    const f = chain[i] as IgnoreFile;
    const pl = f.prefix.length;
    if (pl > 0 && !key.startsWith(f.prefix)) continue;
    const idx = lastMatchAt(f.rules, key, pl, name, isDir);
    if (idx >= 0) return !(f.rules.rules[idx] as IgnoreRule).negate;
  }
  return false;
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

/** Where the walk sits relative to a git repository. */
export interface RepoContext {
  /** Absolute repository root (the directory that holds .git), or null outside a repository. */
  readonly root: string | null;
  /** Ignore files that apply from outside the walked roots: global, info/exclude, parents' .gitignore. */
  readonly outer: readonly IgnoreFile[];
}

function configExcludesFile(cfg: string, home: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(cfg, "utf8");
  } catch {
    return null;
  }
  let found: string | null = null;
  let inCore = false;
  for (const raw of text.split(/\r?\n/)) {
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
 * Returns the git directory of a repository root: `.git` itself, or where a `.git` file (worktree,
 * submodule) points, and the common directory that holds info/exclude.
 */
function gitDirs(root: string): { gitDir: string; commonDir: string } {
  const dotGit = path.join(root, ".git");
  let gitDir = dotGit;
  try {
    if (!platform.lstat(dotGit).isDirectory()) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, "utf8"));
      if (m?.[1]) gitDir = path.resolve(root, m[1]);
    }
  } catch {}
  let commonDir = gitDir;
  try {
    commonDir = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, "commondir"), "utf8").trim());
  } catch {}
  return { gitDir, commonDir };
}

/** Git's core.excludesFile (system < XDG < ~/.gitconfig < repository config; last wins), else XDG's git/ignore. */
function globalExcludesFile(configDir: string): string | null {
  const home = os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, ".config");
  const configs: string[] = [];
  if (!process.env.GIT_CONFIG_NOSYSTEM) configs.push("/etc/gitconfig");
  configs.push(
    path.join(xdg, "git", "config"),
    path.join(home, ".gitconfig"),
    path.join(configDir, "config"),
  );
  let found: string | null = null;
  for (const cfg of configs) found = configExcludesFile(cfg, home) ?? found;
  return found ?? path.join(xdg, "git", "ignore");
}

/**
 * Finds the repository around a directory and the ignore files that apply to it from above.
 * @param dir the absolute directory a walk starts at
 * @returns the repository root and the outer ignore files, lowest priority first
 */
export function repoContext(dir: string): RepoContext {
  let root: string | null = null;
  for (let d = dir; ; ) {
    try {
      platform.lstat(path.join(d, ".git"));
      root = d;
      break;
    } catch {}
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  if (root === null) return { root: null, outer: [] };
  const outer: IgnoreFile[] = [];
  const dirs = gitDirs(root);
  const globalFile = globalExcludesFile(dirs.commonDir);
  const g = globalFile ? loadIgnoreFile(globalFile, "") : null;
  if (g) outer.push(g);
  const info = loadIgnoreFile(path.join(dirs.commonDir, "info", "exclude"), "");
  if (info) outer.push(info);
  // .gitignore files of the directories from the repository root down to (not including) dir.
  const rel = path.relative(root, dir);
  const parts = rel === "" ? [] : rel.split(path.sep);
  let prefix = "";
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    for (const name of IGNORE_FILE_NAMES) {
      const f = loadIgnoreFile(path.join(cur, name), prefix);
      if (f) outer.push(f);
    }
    cur = path.join(cur, parts[i] as string);
    prefix += `${parts[i]}/`;
  }
  return { root, outer };
}
