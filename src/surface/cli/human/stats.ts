/*! Human output of stats: the totals, the newest/oldest/largest file, then a table of extensions. It buffers
 * the (few) extension records so that the totals come first. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import { BASE_NOT_COUNTED, type ExtensionStat, type StatsResult } from "../../../ops/stats/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { displayPath, type Style } from "./paths.ts";
import { humanSize } from "./top.ts";

/** Human sink for stats records. */
export class StatsHumanSink implements Sink {
  private readonly rows: ExtensionStat[] = [];

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  record(_kind: string, record: object): void {
    this.rows.push(record as ExtensionStat);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const s = summary as Partial<StatsResult>;
    const out: string[] = [];
    const row = (label: string, value: string) => out.push(`${label.padEnd(12)} ${value}`);
    row("files", String(s.files ?? 0));
    row("directories", `${s.directories ?? 0} ${BASE_NOT_COUNTED}`);
    if (s.others) row("others", String(s.others));
    if (s.symlinks)
      row(
        "symlinks",
        `${s.symlinks} (${s.broken_symlinks ?? 0} broken, ${s.escaping_symlinks ?? 0} leading outside the base)`,
      );
    row("total size", `${humanSize(s.total_size ?? 0)} (${s.total_size ?? 0} bytes)`);
    if (s.newest) row("newest", `${s.newest.mtime}  ${displayPath(s.newest.path, this.style)}`);
    if (s.oldest) row("oldest", `${s.oldest.mtime}  ${displayPath(s.oldest.path, this.style)}`);
    if (s.largest) row("largest", `${humanSize(s.largest.size)}  ${displayPath(s.largest.path, this.style)}`);
    if (this.rows.length > 0) {
      const width = Math.max(9, ...this.rows.map((r) => (r.extension || "(none)").length));
      out.push("", `${"extension".padEnd(width)}  ${"files".padStart(7)}  ${"size".padStart(10)}`);
      for (const r of this.rows) {
        out.push(
          `${(r.extension || "(none)").padEnd(width)}  ${String(r.files).padStart(7)}  ${humanSize(r.size).padStart(10)}`,
        );
      }
      if (s.truncated) {
        out.push(
          `(${this.rows.length} of ${s.extensions ?? "?"} extensions; truncated: ${s.truncated_reason})`,
        );
      }
    }
    this.write(`${out.join("\n")}\n`);
  }
}
