/*! Human output of index: what the tree's index holds, one row a fact. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { IndexInfo } from "../../../ops/index/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { serverLine } from "../../serve/human.ts";
import { displayPath, type Style } from "./paths.ts";
import { humanSize } from "./top.ts";

/** What the state of the recorded walk means for a grep. */
const WALK_STATES = {
  fresh: "fresh (a plain grep replays it instead of walking)",
  stale: "stale (grep walks the tree; rglob index records it again)",
  none: "none kept (grep walks the tree)",
} as const;

/** Human sink for index records. */
export class IndexHumanSink implements Sink {
  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  record(_kind: string, record: object): void {
    const r = record as IndexInfo;
    const out: string[] = [];
    const row = (label: string, value: string) => out.push(`${label.padEnd(13)} ${value}`);
    row("index", `${r.state}${r.reason !== null ? ` (${r.reason})` : ""}`);
    row("tree", displayPath(r.root, this.style));
    row("file", r.index_path);
    if (r.files !== null) row("files", `${r.files} indexed, ${r.not_indexed ?? 0} not (always searched)`);
    if (r.text_bytes !== null) row("text", humanSize(r.text_bytes));
    if (r.index_bytes !== null) row("index size", humanSize(r.index_bytes));
    if (r.trigrams !== null) row("trigrams", String(r.trigrams));
    if (r.built_at !== null) row("built", `${r.built_at} in ${r.build_ms ?? 0} ms`);
    if (r.changed_files !== null) row("changed since", `${r.changed_files} files (searched)`);
    if (r.walk !== null) row("walk", WALK_STATES[r.walk]);
    if (r.servers !== null && r.servers.length === 0) row("servers", "none running");
    for (const s of r.servers ?? []) row("server", serverLine(s, this.style));
    this.write(`${out.join("\n")}\n`);
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
