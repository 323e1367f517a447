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
    this.write(
      `${this.groups > 0 ? "\n" : ""}${plural(Number(summary.groups), "group")}, ${plural(Number(summary.duplicate_files), "duplicate file")}, ${summary.wasted_bytes} bytes wasted\n`,
    );
  }
}
