/*! Human output of find: one path per line, or NUL-separated (-0), or a --format template; in colour, paths
 * coloured by LS_COLORS as fd colours them. It reads a record's size, mtime or kinds only when the template or the
 * colour asks for them (they cost a stat). */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { FileMatch } from "../../../contract/records.ts";
import { encodingOfOpen, eolOfOpen } from "../../../engine/filter/encoding.ts";
import { linkOf, linkStateWords } from "../../../engine/links.ts";
import type { Entry } from "../../../engine/walk.ts";
import { platform } from "../../../platform/platform.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { closest } from "../../suggest.ts";
import { UsageError } from "../flags.ts";
import type { Out } from "../output.ts";
import { colorPath, type LsColors, lsColorsFrom } from "./ls-colors.ts";
import { displayPath, escapeControls, type Style } from "./paths.ts";

/**
 * What follows a symlink's target text in human output when its chain ends at a directory: ` (directory)`. The
 * text itself is shown exactly as readlink gives it; ls -lF's `/` after it was read as part of the text (#37).
 * @param endType the link's link_target_type
 * @returns " (directory)" or ""
 */
export function dirMark(endType: string | null | undefined): string {
  return endType === "d" ? " (directory)" : "";
}

/** What a --format word reads: the record, its shown path and name, and the stats asked for once per record. */
interface WordContext {
  readonly r: FileMatch;
  /** The path as the listing shows it. */
  readonly shown: string;
  readonly name: string;
  /** The name without its extension. */
  readonly stem: string;
  /** The link count and inode, read when a word first asks. */
  readonly linkStat: () => LinkStat;
  /** -L: a followed link's target is read. */
  readonly follow: boolean;
  /** The rule that ignores a path when the record does not carry it (-u). */
  readonly ignoredBy: ((abs: string) => string) | null;
}

/**
 * Every --format word, what it prints for a record, in the order the help names them; fd's placeholders last. One
 * table for what prints and for what is refused (checkFormatWords).
 */
const FORMAT_WORDS: Readonly<Record<string, (c: WordContext) => string>> = {
  path: (c) => c.shown,
  rel: (c) => c.r.relative_path,
  abs: (c) => c.r.path,
  name: (c) => c.name,
  size: (c) => String(c.r.size),
  mtime: (c) => c.r.mtime,
  kinds: (c) => c.r.kinds.join(""),
  // stat(1)'s words (#37): %a, %u, %g; empty when the entry's stats could not be read.
  mode: (c) => c.r.mode ?? "",
  uid: (c) => (c.r.uid === undefined ? "" : String(c.r.uid)),
  gid: (c) => (c.r.gid === undefined ? "" : String(c.r.gid)),
  // find's %n and %i (#37): the hard link count and the inode, read when asked; empty when unreadable.
  nlink: (c) => String(c.linkStat()?.nlink ?? ""),
  inode: (c) => String(c.linkStat()?.ino ?? ""),
  // A regular file's encoding from its head, in grep --encoding auto's names (#37); else empty.
  encoding: (c) =>
    c.r.encoding ??
    (c.r.entry_type === "file" || (c.follow && c.r.entry_type === "symlink" && c.r.link_target_type === "f")
      ? encodingOf(c.r.path, c.follow)
      : ""),
  // A text file's line ends in git ls-files --eol's words, its whole text read (ADR 0048); else empty.
  eol: (c) =>
    c.r.eol ??
    (c.r.entry_type === "file" || (c.follow && c.r.entry_type === "symlink" && c.r.link_target_type === "f")
      ? encodingOf(c.r.path, c.follow, true)
      : ""),
  type: (c) => c.r.entry_type,
  target: (c) => c.r.link_target ?? "",
  resolved: (c) => c.r.link_resolved ?? "",
  // What a symlink's chain ends at, in --type's letters (#37); empty for a broken link and other entries.
  target_type: (c) => c.r.link_target_type ?? "",
  // A symlink's state, always a word (#37): ok for a working link inside the base; empty for other entries.
  // The words are --link's selectors (escaping, not outside: one word for one fact on every surface).
  link: (c) => linkStateWords(c.r).join(", "),
  // The rule that ignores it (FILE:LINE:PATTERN, as git check-ignore -v), -u included; else empty.
  ignored_by: (c) => c.r.ignored_by ?? c.ignoredBy?.(c.r.path) ?? "",
  // fd's placeholders: {} path, {/} name, {//} parent directory, {.} path without extension, {/.} stem.
  "": (c) => c.shown,
  "/": (c) => c.name,
  "//": (c) => {
    const slash = c.shown.lastIndexOf("/");
    return slash > 0 ? c.shown.slice(0, slash) : slash === 0 ? "/" : ".";
  },
  ".": (c) => c.shown.slice(0, c.shown.length - (c.name.length - c.stem.length)),
  "/.": (c) => c.stem,
};

/**
 * Refuses a --format word it does not know (#37: a mistyped '{link_status}' was printed as written on every line,
 * and the listing looked like an answer): a usage error naming the word, the closest known one and the rest.
 * @param template the --format text
 */
function checkFormatWords(template: string): void {
  const known = Object.keys(FORMAT_WORDS).filter((k) => /^\w+$/.test(k));
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    const word = m[1] ?? "";
    if (known.includes(word)) continue;
    const near = closest(word, known);
    throw new UsageError(
      `--format has no {${word}}${near === null ? "" : ` (did you mean {${near}}?)`}; its words are ${known.map((k) => `{${k}}`).join(" ")} and fd's {} {/} {//} {.} {/.}`,
    );
  }
}

/** The stat(2) fields of --format's {nlink} and {inode}, read for the words that ask (records do not carry them). */
type LinkStat = { readonly nlink: number; readonly ino: number } | null;

/**
 * Reads a record's link count and inode: its own (lstat), or its target's for a symlink that -L follows, as
 * find -L's %n and %i.
 * @param abs the absolute path
 * @param follow whether links are followed
 * @returns the fields, or null when the path cannot be stat'ed
 */
function linkStatOf(abs: string, follow: boolean): LinkStat {
  try {
    return follow ? platform.stat(abs) : platform.lstat(abs);
  } catch {
    try {
      return platform.lstat(abs); // -L and a link that leads nowhere: its own, as find -L
    } catch {
      return null;
    }
  }
}

/**
 * Names the encoding of a regular file from its head (the first 64 KiB), as grep's `--encoding auto` and
 * `--saved-as` name it (one function: encodingOfOpen), or with `eol` its line ends (its whole text, eolOfOpen).
 * @param abs the absolute path
 * @param follow whether a symlink is followed to its file
 * @param eol name the line ends instead ({eol}; empty for a binary file)
 * @returns the name, or "" when it cannot be read
 */
function encodingOf(abs: string, follow: boolean, eol = false): string {
  let fd = -1;
  try {
    fd = platform.open(abs, null, !follow);
    const name = encodingOfOpen(fd) ?? "";
    if (!eol) return name;
    return name === "" || name === "binary" ? "" : eolOfOpen(fd, name);
  } catch {
    return "";
  } finally {
    if (fd >= 0) platform.close(fd);
  }
}

/** Human sink for find records. */
export class FindHumanSink implements Sink {
  /** The byte after each path: newline, or NUL with -0. */
  private readonly sep: number;
  private readonly style: Style;
  private readonly template: string | undefined;
  /** The colours of paths (LS_COLORS, else fd's), when colour is on. */
  private readonly ls: LsColors | null;
  /** fd's -a: absolute paths. */
  private readonly absolute: boolean;
  /** -L: {nlink}, {inode} and {encoding} read a followed link's target. */
  private readonly follow: boolean;
  /** Whether it reads only the paths of records (no colour, no template field that costs a stat). */
  readonly pathsOnly: boolean;
  /** The rule that ignores a path, for {ignored_by} when a record does not carry it (set by the CLI when the
   * template asks: -u lists ignored entries, and their rule is what {ignored_by} asks for). */
  ignoredBy: ((abs: string) => string) | null = null;
  /** Writes a walk entry as its record's line, when a line is the path alone (no template, no colour). */
  readonly entry?: (e: Entry) => void;

  /**
   * Creates the sink.
   * @param write where text goes
   * @param style colour, escaping and cwd
   * @param opts -0 and --format
   */
  constructor(
    private readonly out: Out,
    style: Style,
    opts: { print0: boolean; format: string | undefined; absolute?: boolean; follow?: boolean },
  ) {
    this.absolute = opts.absolute === true;
    this.follow = opts.follow === true;
    this.sep = opts.print0 ? 0 : 10;
    this.style = opts.print0 ? { ...style, escape: false } : style;
    this.template = opts.format?.replace(/\\t/g, "\t").replace(/\\n/g, "\n");
    if (this.template !== undefined) checkFormatWords(this.template);
    this.ls = style.color ? lsColorsFrom(style.lsColors) : null;
    this.pathsOnly = this.ls === null && !/\{(size|mtime|kinds|mode|uid|gid)\}/.test(this.template ?? "");
    if (this.template === undefined && this.ls === null) this.entry = (e) => this.pathLine(e);
  }

  /** The line of an entry: what record() writes for its record (path = the entry's). */
  private pathLine(e: Entry): void {
    this.out.text(this.shown(e.abs));
    if (e.type === "symlink") {
      const link = linkOf(e);
      this.arrow(link?.target, link?.endType);
    }
    this.out.byte(this.sep);
    // Per line, as record() does: the output is flushed on the same lines (a pager sees them as soon).
    this.out.end();
  }

  /**
   * A symlink's ` -> target` after its path (not with -0: a NUL-separated list is for xargs), the text exactly as
   * written, then ` (directory)` when its chain ends at a directory.
   */
  private arrow(target: string | undefined, endType: string | null | undefined): void {
    if (target === undefined || this.sep === 0) return;
    this.out.text(` -> ${this.style.escape ? escapeControls(target) : target}${dirMark(endType)}`);
  }

  /** How a record's absolute path is shown. */
  private shown(abs: string): string {
    if (!this.absolute) return displayPath(abs, this.style, true);
    return this.style.escape ? escapeControls(abs) : abs;
  }

  record(_kind: string, record: object): void {
    const r = record as FileMatch;
    const shown = this.shown(r.path);
    if (this.template !== undefined) {
      let linkStat: LinkStat | undefined;
      const name = r.relative_path.slice(r.relative_path.lastIndexOf("/") + 1);
      const dot = name.lastIndexOf(".");
      const c: WordContext = {
        r,
        shown,
        name,
        stem: dot > 0 ? name.slice(0, dot) : name,
        linkStat: () => {
          linkStat ??= linkStatOf(r.path, this.follow);
          return linkStat;
        },
        follow: this.follow,
        ignoredBy: this.ignoredBy,
      };
      // Every {word} was checked when the sink was made; {} and fd's placeholders are in the same table.
      const text = this.template.replace(
        /\{(\w*|\/|\/\/|\.|\/\.)\}/g,
        (m, k: string) => FORMAT_WORDS[k]?.(c) ?? m,
      );
      this.out.text(text);
    } else {
      this.out.text(this.ls !== null ? colorPath(this.ls, shown, r.kinds, r.path) : shown);
      if (r.entry_type === "symlink") this.arrow(r.link_target, r.link_target_type);
      // --saved-as (#37): the encoding and line ends asked beside the path, as file(1) prints them; not with -0
      // (a list for xargs).
      const saved = [r.encoding, r.eol].filter((w) => w !== undefined);
      if (saved.length > 0 && this.sep !== 0) this.out.text(`: ${saved.join(", ")}`);
    }
    this.out.byte(this.sep);
    this.out.end();
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
