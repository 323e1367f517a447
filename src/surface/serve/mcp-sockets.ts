/*! `rglob mcp` serves the CLI (and the library) in its roots: one socket per root, answered from the MCP server's
 * own warm state (one warm state per tree, whichever surface asks), with the same protocol, checks and discovery
 * as `rglob serve` (server.ts). Who answers when two servers want one tree: the one already listening keeps it
 * (a new `rglob mcp` or `rglob serve` for the tree does not take its socket); an `rglob mcp` that found the
 * socket held tries again every few seconds and takes over when the other has gone. `rglob serve --stop` stops
 * an MCP server's socket (the MCP session goes on), and that server does not listen there again. The sockets
 * close with the MCP session. docs/decisions/0033-warm-server.md. */
import type { Config } from "../../config.ts";
import type { WarmSet } from "../../engine/index/warm/set.ts";
import { type Turns, WarmServer } from "./server.ts";

/** How often a root whose socket another server holds is tried again (ms). */
const RETRY_MS = 5_000;

/** The CLI sockets of one `rglob mcp`. */
export class McpSockets {
  private readonly servers = new Map<string, WarmServer>();
  /** Roots whose socket a user stopped (`rglob serve --stop`): not listened on again by this server. */
  private readonly released = new Set<string>();
  /** Roots whose socket another server holds, with why (logged once). */
  private readonly held = new Map<string, string>();
  private roots: readonly string[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;
  private syncing: Promise<void> = Promise.resolve();

  /**
   * @param warm the MCP server's warm state (its roots are kept by the MCP server)
   * @param turns the MCP server's turns (tool calls shared, served calls alone)
   * @param log a line to stderr
   * @param started the MCP server's Config and environment (read once at its start), its sockets' servers' too
   */
  constructor(
    private readonly warm: WarmSet,
    private readonly turns: Turns,
    private readonly log: (line: string) => void,
    private readonly started: { readonly config: Config; readonly env: Readonly<Record<string, string>> },
  ) {}

  /**
   * Listens for the CLI in each root (those not held by another server nor stopped by a user) and stops
   * listening in roots no longer served.
   * @param roots the MCP server's roots (real paths)
   */
  sync(roots: readonly string[]): Promise<void> {
    this.roots = [...roots];
    this.syncing = this.syncing.then(() => this.apply());
    if (this.timer === null && !this.closed) {
      this.timer = setInterval(() => {
        if (this.roots.some((r) => !this.servers.has(r) && !this.released.has(r)))
          this.syncing = this.syncing.then(() => this.apply());
      }, RETRY_MS);
      this.timer.unref?.();
    }
    return this.syncing;
  }

  private async apply(): Promise<void> {
    if (this.closed) return;
    for (const [root, server] of this.servers)
      if (!this.roots.includes(root)) {
        this.servers.delete(root);
        server.stop();
      }
    for (const root of this.roots) {
      if (this.servers.has(root) || this.released.has(root)) continue;
      try {
        const server = await WarmServer.start(root, null, this.started, {
          warm: this.warm,
          turns: this.turns,
          startedBy: "mcp",
          owned: false,
          stopped: (s, asked) => this.gone(s, asked),
        });
        if (this.closed || !this.roots.includes(root)) {
          server.stop();
          continue;
        }
        this.servers.set(root, server);
        this.held.delete(root);
        this.log(`CLI calls in ${root} are answered by this server (socket ${server.socket})`);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        if (this.held.get(root) !== why) this.log(`not serving CLI calls in ${root}: ${why}`);
        this.held.set(root, why);
      }
    }
  }

  private gone(server: WarmServer, asked: boolean): void {
    if (this.servers.get(server.root) === server) this.servers.delete(server.root);
    if (asked) {
      this.released.add(server.root);
      this.log(`stopped serving CLI calls in ${server.root} (rglob serve --stop); MCP tools go on`);
    }
  }

  /**
   * Stops every socket (the MCP session ended): no call is taken any more, and the one being answered ends first.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.syncing;
    const all = [...this.servers.values()];
    this.servers.clear();
    for (const s of all) s.stop();
    await Promise.all(all.map((s) => s.done));
  }
}
