/*! Human output of grep: `path:line:content` for matches, `path-line-content` for context lines, `--`
 * between groups that are not adjacent, `path` for file lists and `path:count` for counts. Colour only when
 * the style says so. --stats prints totals on stderr at the end. Never reads files. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { GrepFile, LineMatch } from "../../../ops/grep/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { eprint } from "../output.ts";
import { displayPath, escapeControls, paint, type Style } from "./paths.ts";

/** Presentation options of grep's human output. */
export interface GrepHumanOptions {
  readonly lineNumber: boolean;
  /** true/false forced, or null for grep's rule (shown unless the only root is one file). */
  readonly withFilename: boolean | null;
  readonly stats: boolean;
}

/** Human sink for grep records. */
export class GrepHumanSink implements Sink {
  private lastPath: string | null = null;
  private lastLine = 0;
  private printedGroup = false;
  private readonly p: ReturnType<typeof paint>;
  /** The last path shown and how (records of one file come together). */
  private shownFor = "";
  private shown = "";

  /** Whether lines start with their file's name (grep's rule unless forced). */
  private readonly showName: boolean;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly opts: GrepHumanOptions,
    private readonly contextShown: boolean,
    singleFile: boolean,
  ) {
    this.p = paint(style);
    this.showName = opts.withFilename ?? !singleFile;
  }

  private prefix(path: string, line: number, sep: string): string {
    let out = "";
    if (this.showName) {
      if (path !== this.shownFor) {
        this.shownFor = path;
        this.shown = this.p.path(displayPath(path, this.style));
      }
      out = this.shown + sep;
    }
    if (this.opts.lineNumber) out += `${this.style.color ? this.p.line(String(line)) : line}${sep}`;
    return out;
  }

  private text(content: string): string {
    return this.style.escape
      ? content.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => escapeControls(c))
      : content;
  }

  private highlight(r: LineMatch): string {
    if (!this.style.color || r.submatches.length === 0) return this.text(r.content);
    // Submatch columns count code points from the line start; content may start later (clipped).
    const cps = Array.from(r.content);
    let out = "";
    let at = 0;
    for (const s of r.submatches) {
      const a = Math.max(at, s.start - r.content_offset);
      const b = Math.min(cps.length, s.end - r.content_offset);
      if (b <= a) continue;
      out += this.text(cps.slice(at, a).join("")) + this.p.match(this.text(cps.slice(a, b).join("")));
      at = b;
    }
    return out + this.text(cps.slice(at).join(""));
  }

  record(kind: string, record: object): void {
    if (kind === "file") {
      const f = record as GrepFile;
      const shown = this.p.path(displayPath(f.path, this.style));
      this.write(f.count !== null && f.count > 0 ? `${shown}:${f.count}\n` : `${shown}\n`);
      return;
    }
    const r = record as LineMatch;
    if (this.contextShown) {
      const first = r.before[0]?.line_number ?? r.line_number;
      if (this.printedGroup && (r.path !== this.lastPath || first > this.lastLine + 1)) this.write("--\n");
      for (const c of r.before)
        this.write(`${this.prefix(r.path, c.line_number, "-")}${this.text(c.content)}\n`);
    }
    const spanned = r.content.includes("\n") ? r.content.split("\n").length : 1;
    this.write(
      `${this.prefix(r.path, r.line_number, ":")}${spanned > 1 ? this.text(r.content) : this.highlight(r)}\n`,
    );
    if (r.clipped) this.write(this.p.dim(`[… line clipped to ${r.content.length} characters]\n`));
    let last = r.line_number + spanned - 1;
    for (const c of r.after) {
      this.write(`${this.prefix(r.path, c.line_number, "-")}${this.text(c.content)}\n`);
      last = c.line_number;
    }
    this.lastPath = r.path;
    this.lastLine = last;
    this.printedGroup = true;
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    if (!this.opts.stats) return;
    const s = summary as Record<string, unknown>;
    const skipped = (s.files_skipped ?? {}) as Record<string, number>;
    eprint(
      [
        `${s.total_matches} matches`,
        `${s.matched_lines} matched lines`,
        `${s.files_with_matches} files contained matches`,
        `${s.total_files_searched} entries searched`,
        `${s.bytes_read} bytes read`,
        `skipped: ${skipped.binary ?? 0} binary, ${skipped.too_large ?? 0} too large, ${skipped.unreadable ?? 0} unreadable`,
        ...(s.truncated ? [`truncated: ${s.truncated_reason}`] : []),
      ].join("\n"),
    );
  }
}
