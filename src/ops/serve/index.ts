/*! serve: the registry entry of the warm server (docs, CLI spelling, examples). Not an MCP tool: an MCP host
 * keeps its own server (`rglob mcp`). docs/decisions/0033-warm-server.md. */
import { defineOperation, lazyRun } from "../operation.ts";

/** The serve operation. */
export const serve = defineOperation({
  id: "serve",
  summary: "Keep a tree warm so that CLI calls made in it are answered by this server (or stop it).",
  description:
    "Keep the tree under --base warm (the watch, remembered walks and trigram index of `rglob mcp`) and answer the CLI calls made in it (find, grep, count, dupes, tree, top, stats, explain, lcount, tsize run in the tree or a directory below it) over a Unix socket only this user can reach: same stdout bytes, stderr notes and exit code as a cold run, faster (grep's JSON says source: index and counts bytes_read as read). A call that the server cannot take within 200 ms (RGLOB_SERVE_WAIT_MS), that reads standard input, names a tree outside it, or has other RGLOB_* settings runs cold, as does every call with RGLOB_SERVE=0. It runs in the foreground until Ctrl-C, --stop or --idle-seconds; --detach starts it in the background (exiting after 30 idle minutes unless --idle-seconds says otherwise). `rglob index --status` lists the running servers; `rglob serve --stop` stops the one of the current tree. Linux only.",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.ServeInputSchema,
      output: m.ServeResultSchema,
      records: { server: m.ServerInfoSchema },
    };
  },
  cli: {
    operands: [],
    flags: { base: { hint: "DIR" }, idle_seconds: { hint: "SECONDS" } },
  },
  mcpTool: null,
  agentDefaults: {},
  // It writes its socket in the user's runtime (or cache) directory, never in the tree.
  annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false, destructiveHint: false },
  examples: [
    {
      description: "Keep the current tree warm in the background",
      cli: "rglob serve --detach",
      input: { detach: true },
    },
    { description: "Stop it", cli: "rglob serve --stop", input: { stop: true } },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runServe),
});
