/*! Human output of grep: `path:line:content` for matches, `path-line-content` for context lines, `--`
 * between groups that are not adjacent, `path` for file lists and `path:count` for counts. Colour only when
 * the style says so. --stats prints totals on stderr at the end. As rg prints them: a line of the after-context
 * of a file's last match that matches too (after a -m stop) is a match line (`:`), and a binary file named on
 * the command line, or met with -uuu (--binary), is one line, `path: binary file matches (found "\0" byte around
 * offset N)` (its record's binary_offset; -a shows its lines). */
import type { ErrorInfo } from "../../../contract/errors.ts";
import { SKIP_REASONS } from "../../../contract/result.ts";
import type { LineEvents } from "../../../engine/events.ts";
import { codePointCount } from "../../../engine/search/code-points.ts";
import { encodingKey } from "../../../engine/search/encoding.ts";
import { regionTag } from "../../../ops/grep/region-tag.ts";
import type { GrepFile, GrepGroup, LineMatch } from "../../../ops/grep/schema.ts";
import { encodeName } from "../../../platform/names.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { eprint, type Out } from "../output.ts";
import { breakdownTable, displayPath, escapeControls, paint, plural, type Style } from "./paths.ts";

/** Presentation options of grep's human output. */
interface GrepHumanOptions {
  readonly lineNumber: boolean;
  /** true/false forced, or null for grep's rule (shown unless the only root is one file). */
  readonly withFilename: boolean | null;
  readonly stats: boolean;
  /** Whether file records are counts (-c, --count-matches): a count of 0 (--include-zero) is printed too. */
  readonly counting?: boolean;
  /** Whether file records are a list of files (-l, --files-without-match): a binary file is then its path. */
  readonly listing?: boolean;
  /** --files-without-match: with --by, the total says how many files the rows (files that match) leave out. */
  readonly withoutMatch?: boolean;
  /** Tells whether a line is selected (a match, or a non-match with -v): given when -m may leave matching
   * lines in an after-context. */
  readonly selects?: ((line: string) => boolean) | undefined;
  /** rg's -0/--null: a NUL after each file name instead of ':'. */
  readonly nul?: boolean;
  /** rg's --column: the column (1-based, in bytes) of a line's first match after its number. */
  readonly column?: boolean;
  /** rg's --vimgrep: one `path:line:column:content` line per match. */
  readonly vimgrep?: boolean;
  /** --no-column given: --vimgrep leaves the column out, as rg does. */
  readonly noColumn?: boolean;
  /** rg's --heading: the file name on a line of its own above its lines, a blank line between files. */
  readonly heading?: boolean;
  /** rg's -r/--replace (as --replace): how a line shows with each match replaced, or undefined. */
  readonly replace?: ((line: string, r: LineMatch) => string) | undefined;
  /** --by: the answer is the breakdown table and the totals (as count's), not the lines. */
  readonly by?: string | undefined;
  /** --encoding named a label (not auto): every file is decoded as asked, so no file's encoding is said. */
  readonly encodingNamed?: boolean;
}

/** How many files not in plain UTF-8 the note after grep's lines names. */
const DECODED_NAMED = 10;

const COLON = 58;
const DASH = 45;
const NEWLINE = 10;

/** Human sink for grep records. */
export class GrepHumanSink implements Sink {
  private lastPath: string | null = null;
  private lastLine = 0;
  private printedGroup = false;
  /** File records met (--files-without-match: the files without a match). */
  private files = 0;
  /** The file whose heading was printed last (--heading). */
  private headed = "";
  private readonly p: ReturnType<typeof paint>;
  /** The last path shown, and its text as bytes (records of one file come together). */
  private shownFor = "";
  private shown: Uint8Array = new Uint8Array(0);
  /** The files shown that are not plain UTF-8, the first DECODED_NAMED with their encodings, and how many. */
  private readonly decoded: string[] = [];
  private decodedCount = 0;
  private decodedLast = "";

  /** Whether lines start with their file's name (grep's rule unless forced). */
  private readonly showName: boolean;
  /**
   * Writes matching lines as the search finds them, when a line shows nothing but its name, number and text
   * (decided when the query is heard, since --replace shows more).
   */
  lines?: LineEvents;
  private opts: GrepHumanOptions;

  /**
   * @param out stdout
   * @param style colour, escaping and cwd
   * @param opts the presentation options
   * @param contextShown whether context lines are shown (`--` between groups)
   * @param singleFile whether the only root is one file (grep's rule for the file name)
   * @param extrasOf what the options take from the compiled query (selected lines, --replace)
   */
  constructor(
    private readonly out: Out,
    private readonly style: Style,
    opts: GrepHumanOptions,
    private readonly contextShown: boolean,
    singleFile: boolean,
    private readonly extrasOf?: (query: object) => Partial<GrepHumanOptions>,
  ) {
    this.opts = opts;
    this.p = paint(style);
    this.showName = opts.withFilename ?? !singleFile;
  }

  /** Hears the compiled query: the options it decides, and whether lines can be written as they are found. */
  begin(query: object): void {
    if (this.extrasOf !== undefined) this.opts = { ...this.opts, ...this.extrasOf(query) };
    const opts = this.opts;
    const style = this.style;
    const plain =
      !style.color &&
      !style.escape &&
      !opts.nul &&
      !opts.column &&
      !opts.heading &&
      !opts.vimgrep &&
      opts.replace === undefined &&
      !this.contextShown &&
      opts.by === undefined;
    if (!plain) return;
    // What put() writes for a match record without colour (no escaping off a terminal): `name:line:text`, a
    // text through put() itself, bytes as put() would write their text. The name is made at the file's first
    // line (most files searched have none).
    const out = this.out;
    let file = "";
    this.lines = {
      fileStart: (abs) => {
        file = abs;
      },
      line: (line, buf, from, to) =>
        out.lineBytes(
          this.showName ? this.nameBytes(file) : null,
          COLON,
          opts.lineNumber ? line : -1,
          buf,
          from,
          to,
        ),
      lineText: (line, text) => this.put(file, line, COLON, text),
      fileDecoded: (abs, encoding) => this.noteDecoded(abs, encoding),
    };
  }

  /**
   * Remembers a file shown that is not plain UTF-8, for the note at the end (#36: both trial agents made a second
   * call to learn which file had which encoding); the lines stay `path:line:text`, as grep and rg print them.
   */
  private noteDecoded(path: string, encoding: string): void {
    if (this.opts.encodingNamed === true || path === this.decodedLast) return;
    this.decodedLast = path;
    this.decodedCount++;
    if (this.decoded.length < DECODED_NAMED)
      this.decoded.push(`${displayPath(path, this.style)} (${encoding})`);
  }

  /** A record's file encoding when it is not plain UTF-8 (not a binary file's), as the summary's keys name it. */
  private recordDecoded(r: {
    readonly path: string;
    readonly encoding?: string | undefined;
    readonly bom?: true | undefined;
    readonly binary_offset?: number | undefined;
  }): void {
    if (r.encoding === undefined || r.binary_offset !== undefined) return;
    const key = encodingKey(r.encoding, r.bom === true);
    if (key !== "utf-8") this.noteDecoded(r.path, key);
  }

  /** The name shown for a path, as bytes (kept while the records of one file come). */
  private nameBytes(path: string): Uint8Array {
    if (path !== this.shownFor) {
      this.shownFor = path;
      this.shown = encodeName(this.p.path(displayPath(path, this.style, true)));
    }
    return this.shown;
  }

  /**
   * Writes one output line: `path<sep>line<sep>text` (`:` for a match, `-` for context), with the name and the
   * number as the options ask. Without colour (output to a pipe or a file) it is one call.
   * @param text the text as shown (highlighted or escaped by the caller when the style asks)
   */
  private put(path: string, line: number, sep: number, text: string, col = -1): void {
    const o = this.opts;
    if (o.nul || o.column || o.heading || o.vimgrep) {
      const ch = String.fromCharCode(sep);
      let s = "";
      if (o.heading && this.showName) {
        if (path !== this.headed) {
          if (this.headed !== "") s += "\n";
          this.headed = path;
          s += `${this.p.path(displayPath(path, this.style, true))}${o.nul ? "\0" : "\n"}`;
        }
      } else if (this.showName || o.vimgrep)
        s += `${this.p.path(displayPath(path, this.style, true))}${o.nul ? "\0" : ch}`;
      if (o.lineNumber) s += `${this.p.line(String(line))}${ch}`;
      if (col >= 0) s += `${col}${ch}`;
      this.out.write(`${s}${text}\n`);
      return;
    }
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

  /** A match line as shown: with --replace applied, else highlighted. */
  private shownText(r: LineMatch): string {
    return regionTag(r) + this.body(r);
  }

  /** A match line's text as shown (highlighted, or with --replace applied), without its regions field. */
  private body(r: LineMatch): string {
    const replace = this.opts.replace;
    return replace === undefined ? this.highlight(r) : this.text(replace(r.content, r));
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
    if (kind === "file") this.files++;
    if (this.opts.by !== undefined) return; // the answer is the breakdown (end)
    if (kind === "file" || kind === "match") this.recordDecoded(record as LineMatch | GrepFile);
    if (kind === "file") {
      const f = record as GrepFile;
      const shown = this.p.path(displayPath(f.path, this.style));
      // A count goes without the name where lines would (one file searched), as grep -c prints it.
      const after = this.opts.nul ? "\0" : ":";
      // A binary file searched as binary (-uuu) where lines would be: one line, as rg prints it.
      if (f.binary_offset !== undefined && f.count === null && !this.opts.listing) {
        const name = this.showName ? `${shown}: ` : "";
        this.out.write(`${name}binary file matches (found "\\0" byte around offset ${f.binary_offset})\n`);
        return;
      }
      if (f.count !== null && (f.count > 0 || this.opts.counting))
        this.out.write(this.showName ? `${shown}${after}${f.count}\n` : `${f.count}\n`);
      else this.out.write(this.opts.nul ? `${shown}\0` : `${shown}\n`);
      return;
    }
    const r = record as LineMatch;
    if (this.contextShown) {
      const first = r.before?.[0]?.line_number ?? r.line_number;
      const otherFile = r.path !== this.lastPath;
      if (this.printedGroup && (otherFile ? !this.opts.heading : first > this.lastLine + 1))
        this.out.write("--\n");
      for (const c of r.before ?? []) this.put(r.path, c.line_number, DASH, this.text(c.content));
    }
    if (this.opts.vimgrep) {
      this.vimgrepLines(r);
      this.lastPath = r.path;
      this.lastLine = r.line_number;
      this.printedGroup = true;
      return;
    }
    let spanned = 1;
    if (r.content.includes("\n")) {
      // A multiline match (-U): each line it spans gets its own `path:line:`, as ripgrep prints them, so every
      // output line can be traced to its file and line; --replace applies to the whole match first, as in rg.
      spanned = r.content.split("\n").length;
      const replace = this.opts.replace;
      const lines = (replace === undefined ? r.content : replace(r.content, r)).split("\n");
      const tag = regionTag(r);
      for (let i = 0; i < lines.length; i++)
        this.put(r.path, r.line_number + i, COLON, tag + this.text(lines[i] as string));
    } else
      this.put(
        r.path,
        r.line_number,
        COLON,
        this.shownText(r),
        this.opts.column ? (r.submatches[0]?.byte_start ?? 0) + 1 : -1,
      );
    if (r.clipped)
      this.out.write(this.p.dim(`[… line clipped to ${codePointCount(r.content)} characters]\n`));
    let last = r.line_number + spanned - 1;
    const selects = this.opts.selects;
    for (const c of r.after ?? []) {
      this.put(r.path, c.line_number, selects?.(c.content) ? COLON : DASH, this.text(c.content));
      last = c.line_number;
    }
    this.lastPath = r.path;
    this.lastLine = last;
    this.printedGroup = true;
  }

  /**
   * rg's --vimgrep: one line per match, with its column (1-based, in bytes, as rg counts it) unless --no-column,
   * and its line number unless -N; context is not shown. A match of a multiline record is given on the line it
   * starts on, with that line only, as rg prints only a match's first line.
   */
  private vimgrepLines(r: LineMatch): void {
    const noColumn = this.opts.noColumn === true;
    if (!r.content.includes("\n")) {
      for (const m of r.submatches)
        this.put(
          r.path,
          r.line_number,
          COLON,
          regionTag({ submatches: [m] }) + this.body(r), // each match's own region
          noColumn ? -1 : m.byte_start + 1,
        );
      if (r.submatches.length === 0)
        this.put(r.path, r.line_number, COLON, this.shownText(r), noColumn ? -1 : 1);
      return;
    }
    const bytes = Buffer.from(r.content, "utf8");
    const lines = r.content.split("\n");
    for (const m of r.submatches) {
      let k = 0;
      let lineStart = 0;
      for (
        let nl = bytes.indexOf(NEWLINE);
        nl >= 0 && nl < m.byte_start;
        nl = bytes.indexOf(NEWLINE, nl + 1)
      ) {
        k++;
        lineStart = nl + 1;
      }
      const text = regionTag({ submatches: [m] }) + this.text(lines[k] ?? "");
      this.put(r.path, r.line_number + k, COLON, text, noColumn ? -1 : m.byte_start - lineStart + 1);
    }
  }

  error(_info: ErrorInfo): void {}

  /** --by: one row per key (files, matching lines, matches), most lines first, then the totals. */
  private breakdown(summary: Summary): void {
    const groups = (summary.breakdown as GrepGroup[] | undefined) ?? [];
    let text = "";
    if (groups.length > 0) {
      const { head, body } = breakdownTable(
        this.opts.by ?? "key",
        ["files", "lines", "matches"],
        groups.map((g) => [g.key, [g.files_with_matches, g.matched_lines, g.total_matches]]),
      );
      text += `${this.p.dim(head.slice(0, -1))}\n${body}\n`;
    }
    const n = (k: string) => (typeof summary[k] === "number" ? (summary[k] as number) : 0);
    // --files-without-match (a trial agent read the rows as the files asked for): the rows are the files that match.
    text += this.opts.withoutMatch
      ? `total: ${plural(this.files, "file")} without a match (listed without --by); the rows count the ${plural(n("files_with_matches"), "file")} that match\n`
      : `total: ${plural(n("matched_lines"), "matching line")} (${plural(n("total_matches"), "match", "matches")}) in ${plural(n("files_with_matches"), "file")}\n`;
    this.out.write(text);
  }

  end(summary: Summary): void {
    if (this.opts.by !== undefined) this.breakdown(summary);
    if (this.decodedCount > 0) {
      const more = this.decodedCount - this.decoded.length;
      eprint(
        `rglob: note: ${this.decodedCount === 1 ? "1 file shown is" : `${this.decodedCount} files shown are`} not saved as UTF-8 (searched decoded): ${this.decoded.join(", ")}${more > 0 ? ` and ${more} more (--json: each record's encoding)` : ""}`,
      );
    }
    if (!this.opts.stats) return;
    const s = summary as Record<string, unknown>;
    const skipped = (s.skipped ?? {}) as Record<string, number>;
    eprint(
      [
        `${s.total_matches} matches`,
        `${s.matched_lines} matched lines`,
        `${s.files_with_matches} files contained matches`,
        `${s.total_files_searched} files searched`,
        `${s.bytes_read} bytes read`,
        `skipped: ${SKIP_REASONS.map((r) => `${skipped[r] ?? 0} ${r.replace("_", " ")}`).join(", ")}`,
        ...(s.truncated ? [`truncated: ${s.truncated_reason}`] : []),
      ].join("\n"),
    );
  }
}
