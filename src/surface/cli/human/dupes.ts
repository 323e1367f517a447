/*! Human output of dupes: one block per group (a header line, then one path per line), a blank line between
 * groups, and a closing summary line. Never reads the file system. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { Duplicate } from "../../../ops/dupes/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { displayPath, paint, plural, type Style } from "./paths.ts";

/** Human sink for dupes records. */
export class DupesHumanSink implements Sink {
  private groups = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  record(_kind: string, record: object): void {
    const r = record as Duplicate;
    const p = paint(this.style);
    if (this.groups++ > 0) this.write("\n");
    this.write(
      p.dim(
        `${r.count} files, ${r.size} bytes each, ${r.wasted_bytes} bytes wasted, ${r.digest.slice(0, 19)}`,
      ) + "\n",
    );
    for (const abs of r.paths) this.write(`${p.path(displayPath(abs, this.style))}\n`);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    if (typeof summary.groups !== "number") return;
    // The files in the groups and, of them, the copies beyond each group's first (duplicate_files): "9 duplicate
    // files" alone was read as the files in the groups.
    const groups = summary.groups;
    const copies = Number(summary.duplicate_files);
    const members = groups > 0 ? ` (${plural(groups + copies, "file")}, ${copies} of them extra copies)` : "";
    this.write(
      `${this.groups > 0 ? "\n" : ""}${plural(groups, "group")}${members}, ${summary.wasted_bytes} bytes wasted\n`,
    );
  }
}
