/*! Human output of top: one line per entry, "rank  size  path" (full paths relative to the current
 * directory, never bare names; a size of 1 KiB or more also in exact bytes: "1.5 KiB (1536 B)"); directories end in
 * '/' and show how many files they hold. */
import type { ErrorInfo } from "../../../contract/errors.ts";
import type { TopDirectory, TopFile } from "../../../ops/top/schema.ts";
import type { Sink, Summary } from "../../../sink/sink.ts";
import { colorPath, type LsColors, lsColorsFrom } from "./ls-colors.ts";
import { displayPath, type Style } from "./paths.ts";

/**
 * Formats a byte count for people (binary units, one decimal).
 * @param bytes the size
 * @returns e.g. "182 B", "1.5 KiB", "3.0 GiB"
 */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB", "PiB"];
  let value = bytes / 1024;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${value.toFixed(1)} ${units[i]}`;
}

/** Human sink for top records. */
export class TopHumanSink implements Sink {
  /** The colours of paths (LS_COLORS, else fd's), when colour is on. */
  private readonly ls: LsColors | null;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {
    this.ls = style.color ? lsColorsFrom(style.lsColors) : null;
  }

  record(kind: string, record: object): void {
    const r = record as TopFile | TopDirectory;
    // The exact bytes beside a rounded size (a question that asks for bytes needs no second call, #37).
    const size = (r.size < 1024 ? `${r.size} B` : `${humanSize(r.size)} (${r.size} B)`).padStart(10);
    const rank = String(r.rank).padStart(4);
    if (kind === "directory") {
      const d = r as TopDirectory;
      const text = `${displayPath(d.path, this.style)}/`;
      const shown = this.ls === null ? text : colorPath(this.ls, text, ["d"], d.path);
      this.write(`${rank}  ${size}  ${shown}  (${d.files} ${d.files === 1 ? "file" : "files"})\n`);
      return;
    }
    const text = displayPath(r.path, this.style);
    const f = r as TopFile;
    this.write(`${rank}  ${size}  ${this.ls === null ? text : colorPath(this.ls, text, f.kinds, f.path)}\n`);
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
