/*! Human output of grep: `path:line:content` for matches, `path-line-content` for context lines, `--`
 * between groups that are not adjacent, `path` for file lists and `path:count` for counts. Colour only when
 * the style says so. --stats prints totals on stderr at the end. Never reads files. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import { codePointCount } from "../../../engine/search/code-points.ts";
import type { GrepFile, LineMatch } from "../../../ops/grep/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { eprint, type Out } from "../output.ts";
import { displayPath, escapeControls, paint, type Style } from "./paths.ts";

/** Presentation options of grep's human output. */
export interface GrepHumanOptions {
  readonly lineNumber: boolean;
  /** true/false forced, or null for grep's rule (shown unless the only root is one file). */
  readonly withFilename: boolean | null;
  readonly stats: boolean;
}

const COLON = 58;
const DASH = 45;
const NEWLINE = 10;

/** Human sink for grep records. */
export class GrepHumanSink implements Sink {
  private lastPath: string | null = null;
  private lastLine = 0;
  private printedGroup = false;
  private readonly p: ReturnType<typeof paint>;
  /** The last path shown, and its text as bytes (records of one file come together). */
  private shownFor = "";
  private shown: Uint8Array = new Uint8Array(0);

  /** Whether lines start with their file's name (grep's rule unless forced). */
  private readonly showName: boolean;

  constructor(
    private readonly out: Out,
    private readonly style: Style,
    private readonly opts: GrepHumanOptions,
    private readonly contextShown: boolean,
    singleFile: boolean,
  ) {
    this.p = paint(style);
    this.showName = opts.withFilename ?? !singleFile;
  }

  /** The name shown for a path, as bytes (kept while the records of one file come). */
  private nameBytes(path: string): Uint8Array {
    if (path !== this.shownFor) {
      this.shownFor = path;
      this.shown = Buffer.from(this.p.path(displayPath(path, this.style, true)));
    }
    return this.shown;
  }

  /**
   * Writes one output line: `path<sep>line<sep>text` (`:` for a match, `-` for context), with the name and the
   * number as the options ask. Without colour (output to a pipe or a file) it is one call.
   * @param text the text as shown (highlighted or escaped by the caller when the style asks)
   */
  private put(path: string, line: number, sep: number, text: string): void {
    const name = this.showName ? this.nameBytes(path) : null;
    const n = this.opts.lineNumber ? line : -1;
    if (!this.style.color) {
      this.out.line(name, sep, n, text);
      return;
    }
    const out = this.out;
    if (name !== null) {
      out.bytes(name);
      out.byte(sep);
    }
    if (n >= 0) {
      out.text(this.p.line(String(n)));
      out.byte(sep);
    }
    out.text(text);
    out.byte(NEWLINE);
    out.end();
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
      // A count goes without the name where lines would (one file searched), as grep -c prints it.
      if (f.count !== null && f.count > 0)
        this.out.write(this.showName ? `${shown}:${f.count}\n` : `${f.count}\n`);
      else this.out.write(`${shown}\n`);
      return;
    }
    const r = record as LineMatch;
    if (this.contextShown) {
      const first = r.before?.[0]?.line_number ?? r.line_number;
      if (this.printedGroup && (r.path !== this.lastPath || first > this.lastLine + 1))
        this.out.write("--\n");
      for (const c of r.before ?? []) this.put(r.path, c.line_number, DASH, this.text(c.content));
    }
    let spanned = 1;
    if (r.content.includes("\n")) {
      // A multiline match (-U): each line it spans gets its own `path:line:`, as ripgrep prints them, so every
      // output line can be traced to its file and line.
      const lines = r.content.split("\n");
      spanned = lines.length;
      for (let i = 0; i < lines.length; i++)
        this.put(r.path, r.line_number + i, COLON, this.text(lines[i] as string));
    } else this.put(r.path, r.line_number, COLON, this.highlight(r));
    if (r.clipped)
      this.out.write(this.p.dim(`[… line clipped to ${codePointCount(r.content)} characters]\n`));
    let last = r.line_number + spanned - 1;
    for (const c of r.after ?? []) {
      this.put(r.path, c.line_number, DASH, this.text(c.content));
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
