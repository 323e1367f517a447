/*! Human output of tree: draws the branches (├── └── │) like tree(1), then "N directories, M files"; in colour,
 * names coloured by LS_COLORS as fd colours them.
 * It buffers the records because a branch can only be drawn once it is known whether a later sibling follows. */
import * as path from "node:path";
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { TreeEntry } from "../../../ops/tree/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { dirMark } from "./find.ts";
import { colorPath, lsColorsFrom } from "./ls-colors.ts";
import { displayPath, escapeControls, type Style } from "./paths.ts";

interface Node {
  readonly rec: TreeEntry;
  readonly children: Node[];
}

/** Human sink for tree records. */
export class TreeHumanSink implements Sink {
  private readonly top: Node[] = [];
  private readonly byRel = new Map<string, Node>();
  /** How many directories were drawn folded. */
  private folded = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly base: string,
  ) {}

  record(_kind: string, record: object): void {
    const rec = record as TreeEntry;
    const node: Node = { rec, children: [] };
    const slash = rec.relative_path.lastIndexOf("/");
    const parent = slash < 0 ? undefined : this.byRel.get(rec.relative_path.slice(0, slash));
    if (parent) parent.children.push(node);
    else this.top.push(node);
    if (rec.kinds.includes("d")) this.byRel.set(rec.relative_path, node);
  }

  error(_info: ErrorInfo): void {}

  end(summary: Summary): void {
    const ls = this.style.color ? lsColorsFrom(this.style.lsColors) : null;
    const root = displayPath(path.resolve(this.style.cwd, this.base), this.style);
    const lines: string[] = [ls === null ? root : colorPath(ls, root, ["d"], root)];
    const name = (n: Node, full: boolean) => {
      const text = full ? n.rec.relative_path : (n.rec.relative_path.split("/").pop() ?? "");
      const shown = this.style.escape ? escapeControls(text) : text;
      const target = n.rec.link_target;
      const arrow =
        target === undefined
          ? ""
          : ` -> ${this.style.escape ? escapeControls(target) : target}${dirMark(n.rec.link_target_type)}`;
      // A directory folded at --fold-depth (#37): what it holds below, as tree --du sums it.
      const below = n.rec.entries_inside;
      const fold =
        below === undefined
          ? ""
          : ` [${below} ${below === 1 ? "entry" : "entries"}, ${n.rec.size ?? 0} bytes below]`;
      this.folded += below === undefined ? 0 : 1;
      return (ls === null ? shown : colorPath(ls, shown, n.rec.kinds, n.rec.path)) + arrow + fold;
    };
    const draw = (nodes: readonly Node[], prefix: string, full: boolean) => {
      nodes.forEach((n, i) => {
        const last = i === nodes.length - 1;
        lines.push(`${prefix}${last ? "└── " : "├── "}${name(n, full)}`);
        draw(n.children, prefix + (last ? "    " : "│   "), false);
      });
    };
    draw(this.top, "", true);
    const dirs = Number(summary.directories ?? 0);
    const files = Number(summary.files ?? 0);
    const links = Number(summary.symlinks ?? 0);
    let footer = `${dirs} ${dirs === 1 ? "directory" : "directories"}, ${files} ${files === 1 ? "file" : "files"}`;
    // Symlinks apart from files (#37), as find's -type l; said when there are some.
    if (links > 0) footer += `, ${links} ${links === 1 ? "symlink" : "symlinks"}`;
    if (this.folded > 0)
      footer += `; ${this.folded} folded (--fold-depth: counted, not listed; --fold-depth 0 lists them)`;
    if (summary.truncated === true) footer += ` (truncated: ${String(summary.truncated_reason)})`;
    this.write(`${lines.join("\n")}\n\n${footer}\n`);
  }
}
