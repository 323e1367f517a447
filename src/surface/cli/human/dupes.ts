/*! Human output of dupes: one block per group (a header line, then one path per line, then a `hard links: a = b`
 * line per file of several paths), a blank line between groups, and a closing summary line. Never reads the file
 * system. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { Duplicate } from "../../../ops/dupes/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { hardLinkOnlyWords } from "../../hints.ts";
import { displayPath, paint, plural, type Style } from "./paths.ts";

/** Human sink for dupes records. */
export class DupesHumanSink implements Sink {
  private groups = 0;
  /** Groups of one file (its hard links) seen: include_hard_links listed them. */
  private linkedOnly = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  record(_kind: string, record: object): void {
    const r = record as Duplicate;
    const p = paint(this.style);
    if (this.groups++ > 0) this.write("\n");
    if (r.files === 1) this.linkedOnly++;
    // "3 paths, 2 files" when hard links make fewer files than paths; wasted bytes count the files.
    const what = r.files === r.count ? `${r.count} files` : `${r.count} paths, ${plural(r.files, "file")}`;
    this.write(
      p.dim(`${what}, ${r.size} bytes each, ${r.wasted_bytes} bytes wasted, ${r.digest.slice(0, 19)}`) + "\n",
    );
    const shown = (abs: string) => p.path(displayPath(abs, this.style));
    // --anywhere (#37): the copies the query did not select (ignored, other names) are marked.
    const picked = r.selected === undefined ? null : new Set(r.selected);
    r.paths.forEach((abs, i) => {
      const other = picked !== null && !picked.has(r.relative_paths[i] as string);
      this.write(`${shown(abs)}${other ? p.dim("  (not selected)") : ""}\n`);
    });
    if (r.hard_links.length === 0) return;
    const absOf = new Map(r.relative_paths.map((rel, i) => [rel, r.paths[i] as string]));
    for (const set of r.hard_links)
      this.write(`${p.dim("hard links:")} ${set.map((rel) => shown(absOf.get(rel) ?? rel)).join(" = ")}\n`);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    if (typeof summary.groups !== "number") return;
    // The files in the groups and, of them, the copies beyond each group's first (duplicate_files): "9 duplicate
    // files" alone was read as the files in the groups.
    const groups = summary.groups;
    const copies = Number(summary.duplicate_files);
    const members = groups > 0 ? ` (${plural(groups + copies, "file")}, ${copies} of them extra copies)` : "";
    // Files whose only identical paths are their own hard links: listed (include_hard_links) or named here.
    // Files whose only identical paths are their own hard links: listed (include_hard_links) or named here
    // when few (#37), else counted with the flag that lists them.
    const only = Number(summary.hard_link_only_files ?? 0);
    const words =
      this.linkedOnly >= only
        ? null
        : hardLinkOnlyWords(
            summary,
            (_rel, abs) => paint(this.style).path(displayPath(abs, this.style)),
            "cli",
          );
    const linked = words === null ? "" : `; ${words}`;
    this.write(
      `${this.groups > 0 ? "\n" : ""}${plural(groups, "group")}${members}, ${summary.wasted_bytes} bytes wasted${linked}\n`,
    );
  }
}
