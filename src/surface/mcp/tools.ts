/*! MCP tools from the registry: one tool per operation with an `mcpTool` name (input and output schemas are
 * the generated ones in the Draft-07 subset), plus `describe_subcommand`. Pure data and text; it never runs
 * an operation (server.ts does, through the agent core). */
import { SCHEMAS } from "../../generated/schemas.ts";
import type { Operation } from "../../ops/operation.ts";
import { OPERATIONS } from "../../ops/registry.ts";

/** The name of the introspection tool (mirrors `rglob describe`). */
export const DESCRIBE_TOOL = "describe_subcommand";

/** Keywords that Draft-07 validators do not know and that MCP tool schemas therefore must not use. */
const NOT_DRAFT_07 = ["prefixItems", "$defs", "$ref", "dependentSchemas", "unevaluatedProperties", "$anchor"];

/** A JSON Schema as MCP carries it. */
export type ToolSchema = { type: "object"; [key: string]: unknown };

/** One tool as `tools/list` returns it. */
export interface ToolDef {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: ToolSchema;
  readonly outputSchema: ToolSchema;
  readonly annotations: Readonly<Record<string, unknown>>;
}

function findForbidden(node: unknown, where: string): string | null {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const hit = findForbidden(item, `${where}/${i}`);
      if (hit) return hit;
    }
    return null;
  }
  if (node === null || typeof node !== "object") return null;
  for (const [k, value] of Object.entries(node)) {
    if (NOT_DRAFT_07.includes(k)) return `${where}/${k}`;
    if (k === "items" && Array.isArray(value)) return `${where}/items (tuple)`;
    const hit = findForbidden(value, `${where}/${k}`);
    if (hit) return hit;
  }
  return null;
}

/**
 * Returns the MCP copy of a generated schema: without `$schema`, `$id` and `version`, checked to stay in the
 * subset that Draft-07 validators accept.
 * @param stem the schema stem, e.g. "find.input"
 * @returns the schema
 * @throws Error when the schema is missing or uses a keyword outside the Draft-07 subset (a build bug)
 */
export function mcpSchema(stem: string): ToolSchema {
  const doc = SCHEMAS[stem];
  if (!doc) throw new Error(`no generated schema '${stem}'`);
  const { $schema: _s, $id: _i, version: _v, ...rest } = doc;
  const bad = findForbidden(rest, stem);
  if (bad) throw new Error(`schema ${stem} is outside the Draft-07 subset at ${bad}`);
  if (rest.type !== "object") throw new Error(`schema ${stem} is not an object schema`);
  return rest as ToolSchema;
}

function describeBounds(op: Operation): string {
  const d = op.agentDefaults;
  const parts: string[] = [];
  if (typeof d.limit === "number") parts.push(`at most ${d.limit} records (limit)`);
  if (typeof d.max_output_bytes === "number")
    parts.push(`about ${d.max_output_bytes} bytes of records (max_output_bytes)`);
  if (typeof d.max_file_size === "number") parts.push(`files up to ${d.max_file_size} bytes (max_file_size)`);
  if (typeof d.timeout_seconds === "number") parts.push(`${d.timeout_seconds} s (timeout_seconds)`);
  return parts.length > 0
    ? `Bounds on this server unless you pass other values: ${parts.join(", ")}.`
    : "Bounds on this server: none beyond the operation's own.";
}

/**
 * Returns the description of an operation's tool, written for models: what it does and when to use it (from
 * the registry), the bounds, how paths are confined and how to page.
 * @param op the operation
 * @returns the description text
 */
export function toolDescription(op: Operation): string {
  return [
    op.description,
    describeBounds(op),
    "Paths: `base` defaults to the first root this server serves; relative paths are taken from it. A `base` or `paths` entry outside the server's roots (after resolving symlinks) is refused with PERM, and strict_base is always on.",
    "Paging: when the result has `truncated: true` and a string `next_cursor`, call this tool again with exactly the same arguments plus `cursor` set to that value; repeat until `next_cursor` is null. A cursor from other arguments is refused with BAD_PREDICATE. `errors` lists per-path problems (they never stop the other results).",
    "Read-only: it never changes a file.",
  ].join("\n\n");
}

/** The operations that are MCP tools, in registry order. */
export function toolOperations(): Operation[] {
  return OPERATIONS.filter((op) => op.mcpTool !== null);
}

/**
 * Returns the tool list: one tool per operation with an MCP name, then `describe_subcommand`.
 * @returns the tools
 */
export function buildTools(): ToolDef[] {
  const tools: ToolDef[] = toolOperations().map((op) => ({
    name: op.mcpTool as string,
    title: op.summary,
    description: toolDescription(op),
    inputSchema: mcpSchema(`${op.id}.input`),
    outputSchema: mcpSchema(`${op.id}.output`),
    annotations: { title: op.summary, ...op.annotations },
  }));
  tools.push({
    name: DESCRIBE_TOOL,
    title: "Describe an rglob operation",
    description:
      "Returns the machine-readable manifest of one rglob operation (the same as `rglob describe NAME`): its summary, description, CLI operands and flags, default limits for agents, the MCP tool name, examples and its input/output JSON Schemas. Use it to learn an operation's options before calling its tool.",
    inputSchema: {
      type: "object",
      properties: {
        name: {
          type: "string",
          enum: OPERATIONS.map((op) => op.id),
          description: "Operation id (the CLI subcommand), e.g. 'find'.",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        operation: { type: "string" },
        summary: { type: "string" },
        description: { type: "string" },
        mcp_tool: { type: ["string", "null"] },
      },
      required: ["operation", "summary", "description", "mcp_tool"],
    },
    annotations: {
      title: "Describe an rglob operation",
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
      destructiveHint: false,
    },
  });
  return tools;
}

function recordLine(record: Record<string, unknown>): string {
  const rel = record.relative_path;
  if (typeof rel === "string") {
    const line = record.line_number;
    const content = record.content;
    return typeof line === "number" && typeof content === "string" ? `${rel}:${line}:${content}` : rel;
  }
  const text = JSON.stringify(record);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * Creates the short text summary of a result for clients that ignore structured content: counts, truncation,
 * how to page, the errors, then one line per record.
 * @param op the operation
 * @param result the result object
 * @returns the text
 */
export function summaryText(op: Operation, result: Readonly<Record<string, unknown>>): string {
  const results = Array.isArray(result.results) ? (result.results as Array<Record<string, unknown>>) : [];
  const errors = Array.isArray(result.errors) ? (result.errors as Array<Record<string, unknown>>) : [];
  const head = [`${op.id}: ${results.length} record(s), ${result.total_files_searched} entries examined`];
  if (result.truncated) {
    head.push(`truncated (${result.truncated_reason})`);
    if (typeof result.next_cursor === "string") head.push(`next page: cursor=${result.next_cursor}`);
  }
  if (errors.length > 0) head.push(`${errors.length} error(s)`);
  const lines = [head.join("; ")];
  for (const e of errors.slice(0, 5)) lines.push(`error ${e.code}: ${e.path ?? ""} ${e.message}`.trim());
  for (const r of results) lines.push(recordLine(r));
  return lines.join("\n");
}
