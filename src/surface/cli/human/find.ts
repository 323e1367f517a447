/*! Human output of find: one path per line, or NUL-separated (-0), or a --format template. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { FileMatch } from "../../../contract/records.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { displayPath, paint, type Style } from "./paths.ts";

/** Template fields of --format. */
export const FORMAT_FIELDS = ["path", "rel", "abs", "name", "size", "mtime", "kinds"] as const;

/** Human sink for find records. */
export class FindHumanSink implements Sink {
  private readonly sep: string;
  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly opts: { print0: boolean; format: string | undefined },
  ) {
    this.sep = opts.print0 ? "\0" : "\n";
  }

  record(_kind: string, record: object): void {
    const r = record as FileMatch;
    const shown = displayPath(r.path, this.opts.print0 ? { ...this.style, escape: false } : this.style);
    if (this.opts.format !== undefined) {
      const fields: Record<string, string> = {
        path: shown,
        rel: r.relative_path,
        abs: r.path,
        name: r.relative_path.split("/").pop() ?? "",
        size: String(r.size),
        mtime: r.mtime,
        kinds: r.kinds.join(""),
      };
      const text = this.opts.format
        .replace(/\\t/g, "\t")
        .replace(/\\n/g, "\n")
        .replace(/\{(\w+)\}/g, (m, k: string) => fields[k] ?? m);
      this.write(text + this.sep);
      return;
    }
    const p = paint(this.style);
    this.write((r.kinds.includes("d") ? p.dir(shown) : shown) + this.sep);
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
