/*! Engine: ignore rules as git applies them. One `ignore` instance per directory that has a .gitignore or
 * .ignore file, anchored at that directory; deeper files win over shallower ones, .ignore over .gitignore,
 * and both over .git/info/exclude and the global excludes file. Directories are tested with a trailing '/'.
 * The walker prunes ignored directories, so a parent's exclusion is never re-tested. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ignore, { type Ignore } from "ignore";
import { platform } from "../platform/platform.ts";

/** One ignore file, compiled. */
export interface IgnoreFile {
  /** Absolute path of the file (for explain). */
  readonly file: string;
  /** Repository-relative directory the patterns are anchored at: "" or "dir/sub/". */
  readonly prefix: string;
  readonly ig: Ignore;
  /** The raw lines, for explain. */
  readonly lines: readonly string[];
}

/** The verdict of the rules on one path, with the rule that decided it. */
export interface IgnoreVerdict {
  readonly ignored: boolean;
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
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
  const lines = text.split(/\r?\n/);
  return { file, prefix, ig: ignore({ ignorecase: false, allowRelativePaths: true }).add(lines), lines };
}

/**
 * Tests a path against a chain of ignore files (lowest priority first).
 * @param chain the ignore files that apply, lowest priority first
 * @param key the repository-relative path, with a trailing '/' for a directory
 * @returns true when ignored
 */
export function isIgnored(chain: readonly IgnoreFile[], key: string): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const f = chain[i] as IgnoreFile;
    if (!key.startsWith(f.prefix)) continue;
    const r = f.ig.test(key.slice(f.prefix.length));
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

/**
 * Explains which rule decides a path: the file, the line and the pattern.
 * @param chain the ignore files that apply, lowest priority first
 * @param key the repository-relative path, with a trailing '/' for a directory
 * @returns the verdict with its rule, or null when no rule matches
 */
export function explainIgnore(chain: readonly IgnoreFile[], key: string): IgnoreVerdict | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const f = chain[i] as IgnoreFile;
    if (!key.startsWith(f.prefix)) continue;
    const sub = key.slice(f.prefix.length);
    const r = f.ig.test(sub);
    if (!r.ignored && !r.unignored) continue;
    // The last line that matches on its own decides, as in git.
    for (let ln = f.lines.length - 1; ln >= 0; ln--) {
      const line = (f.lines[ln] as string).trimEnd();
      if (line === "" || line.startsWith("#")) continue;
      const one = ignore({ ignorecase: false, allowRelativePaths: true }).add(
        line.startsWith("!") ? line.slice(1) : line,
      );
      if (one.ignores(sub)) return { ignored: r.ignored, file: f.file, line: ln + 1, pattern: line };
    }
    return { ignored: r.ignored, file: f.file, line: 0, pattern: "" };
  }
  return null;
}

/** Where the walk sits relative to a git repository. */
export interface RepoContext {
  /** Absolute repository root (the directory that holds .git), or null outside a repository. */
  readonly root: string | null;
  /** Ignore files that apply from outside the walked roots: global, info/exclude, parents' .gitignore. */
  readonly outer: readonly IgnoreFile[];
}

function globalExcludesFile(): string | null {
  const home = os.homedir();
  const configs = [path.join(home, ".gitconfig")];
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, ".config");
  configs.push(path.join(xdg, "git", "config"));
  for (const cfg of configs) {
    let text: string;
    try {
      text = fs.readFileSync(cfg, "utf8");
    } catch {
      continue;
    }
    let inCore = false;
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line.startsWith("[")) inCore = /^\[core\]/i.test(line);
      else if (inCore) {
        const m = /^excludesfile\s*=\s*(.+)$/i.exec(line);
        if (m?.[1]) {
          const value = m[1].replace(/^"(.*)"$/, "$1");
          return value.startsWith("~/") ? path.join(home, value.slice(2)) : value;
        }
      }
    }
  }
  return path.join(xdg, "git", "ignore");
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
  const globalFile = globalExcludesFile();
  const g = globalFile ? loadIgnoreFile(globalFile, "") : null;
  if (g) outer.push(g);
  const info = loadIgnoreFile(path.join(root, ".git", "info", "exclude"), "");
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
