/*! serve: input, record and output models of the warm server's command. Validation only; the server is
 * src/surface/serve/server.ts. */
import * as v from "valibot";
import { resultMetaEntries } from "../../contract/result.ts";

/** Creates the serve input model. */
export const ServeInputSchema = v.pipe(
  v.strictObject({
    base: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description(
          "The tree to keep warm (its real path names the server); with stop, a directory in the tree whose server to stop.",
        ),
      ),
      ".",
    ),
    detach: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Start the server in the background and return once it listens (idle_seconds defaults to 1800 then); a server already running for the tree is reported, not started again.",
        ),
      ),
      false,
    ),
    stop: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Stop the server that keeps the tree holding base warm (after the call it is answering).",
        ),
      ),
      false,
    ),
    idle_seconds: v.optional(
      v.pipe(
        v.number(),
        v.minValue(1),
        v.description(
          "Exit after this many seconds without a call (default: never in the foreground, 1800 with detach).",
        ),
      ),
    ),
  }),
  v.title("ServeInput"),
  v.description("Keep a tree warm for CLI calls made in it, or stop the server that does."),
);
export type ServeInput = v.InferOutput<typeof ServeInputSchema>;

/** States of a server. */
const SERVER_STATES = ["starting", "building", "ready", "warm_list", "stopped"] as const;

/** Creates the ServerInfo record model (JSONL kind "server"). */
export const ServerInfoSchema = v.pipe(
  v.strictObject({
    root: v.pipe(v.string(), v.description("The tree it keeps warm (a real path).")),
    pid: v.pipe(v.number(), v.integer(), v.description("Its process id.")),
    socket: v.pipe(v.string(), v.description("The Unix socket it answers on.")),
    since: v.pipe(v.string(), v.description("When it started, ISO 8601 UTC with Z.")),
    state: v.pipe(
      v.picklist(SERVER_STATES),
      v.description(
        "starting: the watch is being set up (calls are answered cold meanwhile); building: the index is being built (calls use the remembered walks); ready: calls use the index; warm_list: no index (over its memory budget), calls use the remembered walks; stopped: stopped now.",
      ),
    ),
    calls: v.pipe(v.number(), v.integer(), v.minValue(0), v.description("Calls it has answered.")),
    idle_seconds: v.pipe(
      v.nullable(v.number()),
      v.description("It exits after this many seconds without a call (null: it runs until stopped)."),
    ),
    started_by: v.pipe(
      v.picklist(["serve", "mcp"]),
      v.description(
        "The command that runs it: serve (rglob serve), or mcp (rglob mcp, which serves CLI and library calls in its roots and stops with its MCP session; serve --stop stops only its socket).",
      ),
    ),
  }),
  v.title("ServerInfo"),
  v.description("A running warm server."),
);
export type ServerInfo = v.InferOutput<typeof ServerInfoSchema>;

/** Creates the ServeResult model (the output of serve). */
export const ServeResultSchema = v.pipe(
  v.strictObject({
    results: v.array(ServerInfoSchema),
    ...resultMetaEntries,
  }),
  v.title("ServeResult"),
  v.description("The server started, found running, or stopped (none when there was none to stop)."),
);
