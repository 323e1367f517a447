/*! Human output of find: one path per line, or NUL-separated (-0), or a --format template; in colour, paths
 * coloured by LS_COLORS as fd colours them. It reads a record's size, mtime or kinds only when the template or the
 * colour asks for them (they cost a stat). */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { FileMatch } from "../../../contract/records.ts";
import { isAbsoluteLinkText, linkOf } from "../../../engine/links.ts";
import { HEAD_BYTES, headEncoding } from "../../../engine/search/encoding.ts";
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

/** The words --format knows, in the order its help names them (record() says what each prints). */
const FORMAT_WORDS = [
  "path",
  "rel",
  "abs",
  "name",
  "size",
  "mtime",
  "kinds",
  "mode",
  "uid",
  "gid",
  "nlink",
  "inode",
  "encoding",
  "type",
  "target",
  "resolved",
  "target_type",
  "link",
  "ignored_by",
] as const;

/**
 * Refuses a --format word it does not know (#37: a mistyped '{link_status}' was printed as written on every line,
 * and the listing looked like an answer): a usage error naming the word, the closest known one and the rest.
 * @param template the --format text
 */
function checkFormatWords(template: string): void {
  const known: readonly string[] = FORMAT_WORDS;
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

/** A buffer for the heads read by {encoding}. */
let headBuf: Uint8Array | null = null;

/**
 * Names the encoding of a regular file from its head (the first 64 KiB), as grep's `--encoding auto` names it.
 * @param abs the absolute path
 * @param follow whether a symlink is followed to its file
 * @returns the name, or "" when it cannot be read
 */
function encodingOf(abs: string, follow: boolean): string {
  let fd = -1;
  try {
    fd = platform.open(abs, null, !follow);
    headBuf ??= new Uint8Array(HEAD_BYTES);
    let length = 0;
    while (length < HEAD_BYTES) {
      const n = platform.read(fd, headBuf.subarray(length), HEAD_BYTES - length, null);
      if (n <= 0) break;
      length += n;
    }
    const whole = length < HEAD_BYTES || platform.read(fd, new Uint8Array(1), 1, null) === 0;
    return headEncoding(headBuf, length, whole);
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
      const ls = (): LinkStat => {
        linkStat ??= linkStatOf(r.path, this.follow);
        return linkStat;
      };
      const text = this.template.replace(/\{(\w*|\/|\/\/|\.|\/\.)\}/g, (m, k: string) => {
        const name = r.relative_path.slice(r.relative_path.lastIndexOf("/") + 1);
        const dot = name.lastIndexOf(".");
        const stem = dot > 0 ? name.slice(0, dot) : name;
        switch (k) {
          case "":
            return shown;
          case "/":
            return name;
          case "//": {
            const slash = shown.lastIndexOf("/");
            return slash > 0 ? shown.slice(0, slash) : slash === 0 ? "/" : ".";
          }
          case ".":
            return shown.slice(0, shown.length - (name.length - stem.length));
          case "/.":
            return stem;
          case "path":
            return shown;
          case "rel":
            return r.relative_path;
          case "abs":
            return r.path;
          case "name":
            return r.relative_path.slice(r.relative_path.lastIndexOf("/") + 1);
          case "size":
            return String(r.size);
          case "mtime":
            return r.mtime;
          case "kinds":
            return r.kinds.join("");
          // stat(1)'s words (#37): %a, %u, %g; empty when the entry's stats could not be read.
          case "mode":
            return r.mode ?? "";
          case "uid":
            return r.uid === undefined ? "" : String(r.uid);
          case "gid":
            return r.gid === undefined ? "" : String(r.gid);
          // find's %n and %i (#37): the hard link count and the inode, read when asked; empty when unreadable.
          case "nlink":
            return String(ls()?.nlink ?? "");
          case "inode":
            return String(ls()?.ino ?? "");
          case "encoding":
            // A regular file's encoding from its head, in grep --encoding auto's names (#37); else empty.
            return r.entry_type === "file" ||
              (this.follow && r.entry_type === "symlink" && r.link_target_type === "f")
              ? encodingOf(r.path, this.follow)
              : "";
          case "type":
            return r.entry_type;
          case "target":
            return r.link_target ?? "";
          case "resolved":
            return r.link_resolved ?? "";
          case "ignored_by":
            // The rule that ignores it (FILE:LINE:PATTERN, as git check-ignore -v), -u included; else empty.
            return r.ignored_by ?? this.ignoredBy?.(r.path) ?? "";
          case "target_type":
            // What a symlink's chain ends at, in --type's letters (#37); empty for a broken link and other entries.
            return r.link_target_type ?? "";
          case "link":
            // A symlink's state, always a word (#37): ok for a working link inside the base; empty for other entries.
            // The words are --link's selectors (escaping, not outside: one word for one fact on every surface).
            return r.link_target === undefined
              ? ""
              : [
                  r.link_target_exists ? "" : "broken",
                  r.link_escapes ? "escaping" : "",
                  r.link_target_exists && !r.link_escapes ? "ok" : "",
                  isAbsoluteLinkText(r.link_target) ? "absolute" : "",
                ]
                  .filter((w) => w !== "")
                  .join(", ");
          default:
            return m;
        }
      });
      this.out.text(text);
    } else {
      this.out.text(this.ls !== null ? colorPath(this.ls, shown, r.kinds, r.path) : shown);
      if (r.entry_type === "symlink") this.arrow(r.link_target, r.link_target_type);
    }
    this.out.byte(this.sep);
    this.out.end();
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
