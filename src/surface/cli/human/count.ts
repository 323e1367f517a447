/*! Human output of count: one row per file (lines, code, bytes, path; with --by --files its breakdown key too)
 * as records arrive (with a breakdown only when asked for), then the breakdown table and the totals. Never
 * reads the file system. */
import type { ByKey } from "../../../contract/breakdown.ts";
import type { ErrorInfo } from "../../../contract/errors.ts";
import { breakdownKey } from "../../../engine/languages.ts";
import type { CountFile, CountGroup, CountTotals } from "../../../ops/count/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { UNKNOWN_NAMED, unknownRowNote } from "../../hints.ts";
import { breakdownTable, displayPath, paint, plural, type Style } from "./paths.ts";

const W = 10;
/** The width of a file row's breakdown key (a longer key widens its row only). */
const KEY = 12;
const num = (n: number) => String(n).padStart(W);

/** Human sink for count records. */
export class CountHumanSink implements Sink {
  private header = false;
  /** With a breakdown by language: the first files of no known language, for the `(unknown)` row's line. */
  private readonly unknown: string[] = [];

  /**
   * @param write where text goes
   * @param style colour and escaping
   * @param leftOut the kinds of line `lines` leaves out ("blank", "comment"), said in the totals: without it a
   * total of lines below the non-blank count reads as a mistake
   * @param perFile whether a row is printed per file
   * @param by the breakdown key, shown in each file's row (which files make `(unknown)`, `(none)`)
   * @param docsAsCode docstring lines were counted as code (--docstrings code), said in the totals
   */
  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly leftOut: readonly string[] = [],
    private readonly perFile = true,
    private readonly by: ByKey | undefined = undefined,
    private readonly docsAsCode = false,
  ) {}

  record(_kind: string, record: object): void {
    const r = record as CountFile;
    if (this.by === "language" && r.language === null && this.unknown.length <= UNKNOWN_NAMED)
      this.unknown.push(displayPath(r.path, this.style));
    if (!this.perFile) return;
    const p = paint(this.style);
    const by = this.by;
    if (!this.header) {
      this.header = true;
      const key = by === undefined ? "" : `  ${by.padEnd(KEY)}`;
      this.write(
        p.dim(
          `${"lines".padStart(W)}${"code".padStart(W)}${"comment".padStart(W)}${"blank".padStart(W)}${"bytes".padStart(W)}${key}  path\n`,
        ),
      );
    }
    const name = r.relative_path.slice(r.relative_path.lastIndexOf("/") + 1);
    const key =
      by === undefined ? "" : `  ${breakdownKey(by, r.relative_path, name, r.language).padEnd(KEY)}`;
    this.write(
      `${num(r.lines)}${num(r.code)}${num(r.comment)}${num(r.blank)}${num(r.bytes)}${key}  ${displayPath(r.path, this.style)}\n`,
    );
    // --classify (#37): the lines worth a check, each with its class and why, under the file's row, as grep -n
    // prints lines (a code line with nothing to say and a plain blank line are not shown; line_classes has all).
    if (r.line_notes !== undefined) {
      const shown = displayPath(r.path, this.style);
      for (const x of r.line_notes)
        this.write(`${shown}:${x.line}: ${x.class} (${x.why})${x.text === "" ? "" : `: ${x.text}`}\n`);
      if (r.line_notes.length >= 200)
        this.write(`${shown}: first 200 notes only (--json has every line's class)\n`);
    }
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const t = summary.totals as CountTotals | undefined;
    if (!t) return;
    const groups = summary.breakdown as CountGroup[] | null | undefined;
    // Docstring lines (#37) get their column when there are any: comment - docstring is tokei's comment count.
    const docs = t.docstring > 0;
    if (groups && groups.length > 0) {
      const { head, body } = breakdownTable(
        String(summary.by ?? "key"),
        ["files", "lines", "code", "comment", ...(docs ? ["docstring"] : []), "blank", "bytes"],
        groups.map((g) => [
          g.key,
          [g.files, g.lines, g.code, g.comment, ...(docs ? [g.docstring] : []), g.blank, g.bytes],
        ]),
      );
      this.write(`${this.header ? "\n" : ""}${head}${body}`);
      this.header = true;
      // Which files the (unknown) row holds, under the table (#37); the records' paths, when they all came.
      const unknown = unknownRowNote(summary, this.unknown, "cli");
      if (unknown !== null) this.write(`${paint(this.style).dim(unknown)}\n`);
    }
    const binary =
      t.binary_files > 0
        ? `; ${plural(t.binary_files, "binary file")} (${plural(t.binary_bytes, "byte")}) skipped`
        : "";
    const lines =
      this.leftOut.length === 0
        ? plural(t.lines, "line")
        : `${plural(t.lines, "line")} without ${this.leftOut.join(" or ")} lines`;
    const docLines = docs
      ? `; ${plural(t.docstring, "docstring line")} in ${this.docsAsCode ? "code" : "comment"}`
      : "";
    this.write(
      `${this.header ? "\n" : ""}total: ${plural(t.files, "file")}, ${lines} (${t.code} code, ${t.comment} comment, ${t.blank} blank; ${t.non_blank} non-blank${docLines}), ${plural(t.bytes, "byte")}${binary}\n`,
    );
  }
}

/** Human sink of lcount: only `Total lines: N`, as the original printed it. */
export class LcountHumanSink implements Sink {
  constructor(private readonly write: (text: string) => void) {}

  record(_kind: string, _record: object): void {}

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const t = summary.totals as CountTotals | undefined;
    this.write(`Total lines: ${t?.lines ?? 0}\n`);
  }
}

/** The names tsize prints its units by: powers of 1024 (the original printed "MB" for MiB). */
const IEC_UNITS: Readonly<Record<string, string>> = { kb: "KiB", mb: "MiB", gb: "GiB", tb: "TiB" };

/** Human sink of tsize: `Total size: X.XX MiB (N bytes)`, the original's line with the unit named right and the
 * exact bytes beside it (#37: it printed 3.55 MB for 3,727,361 bytes, which are 3.73 MB). */
export class TsizeHumanSink implements Sink {
  constructor(private readonly write: (text: string) => void) {}

  record(_kind: string, _record: object): void {}

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const size = typeof summary.total_size === "number" ? summary.total_size : 0;
    const bytes = (summary.totals as { bytes?: number } | undefined)?.bytes ?? 0;
    const unit = IEC_UNITS[String(summary.unit ?? "mb")] ?? "MiB";
    this.write(`Total size: ${size.toFixed(2)} ${unit} (${plural(bytes, "byte")})\n`);
  }
}
