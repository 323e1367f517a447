/*! Human output of serve: one line per server, and how to stop it. */
import type { ErrorInfo } from "../../contract/errors.ts";
import type { ServerInfo } from "../../ops/serve/schema.ts";
import type { Sink, Summary } from "../../sink/sink.ts";
import { displayPath, type Style } from "../cli/human/paths.ts";

/**
 * The line that shows a server: its tree, process, state and socket.
 * @param r the server
 * @param style paths relative to the current directory when under it
 */
export function serverLine(r: ServerInfo, style: Style): string {
  const idle = r.idle_seconds === null ? "" : `, exits after ${r.idle_seconds} s idle`;
  const by = r.started_by === "mcp" ? " by rglob mcp" : "";
  return `${r.state === "stopped" ? "stopped" : "serving"} ${displayPath(r.root, style)}${by} (pid ${r.pid}, since ${r.since}, ${r.state}, ${r.calls} calls${idle}; socket ${r.socket})`;
}

/** Human sink for server records. */
export class ServeHumanSink implements Sink {
  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  record(_kind: string, record: object): void {
    const r = record as ServerInfo;
    const stop = r.state === "stopped" ? "" : `\nstop it: rglob serve --stop --base ${r.root}`;
    this.write(`${serverLine(r, this.style)}${stop}\n`);
  }

  error(_info: ErrorInfo): void {}

  end(_summary: Summary): void {}
}
