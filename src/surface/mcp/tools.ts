/*! MCP tools from the registry: one tool per operation with an `mcpTool` name, plus `describe_tool`. The tool
 * list answers ordinary questions alone (#37): each tool's description is its operation's (rules included), every
 * argument the server accepts is declared with a one-line description, and each output schema types the records
 * and the operation's summary fields all the way down (structure, no text). What every tool shares (bounds,
 * paging, paths, the long text of the walk arguments) is said once in the server instructions; CLI-only notions
 * (operands, flag spellings) stay out. `describe_tool` keeps the long text of every argument and record field.
 * Sizes: scripts/bench-mcp-size.ts. Pure data and text; it never runs an operation (server.ts does). */
import { budgetEntries, walkEntries } from "../../contract/walk-options.ts";
import { RECORD_SCHEMAS, SCHEMAS } from "../../generated/schemas.ts";
import type { Operation } from "../../ops/operation.ts";
import { OPERATIONS } from "../../ops/registry.ts";

/** The name of the introspection tool: the full argument and record reference of one tool. */
export const DESCRIBE_TOOL = "describe_tool";

/** Input keys that exist for the CLI only (positional operands and their parsing rule): never on MCP. */
export const CLI_ONLY_KEYS: ReadonlySet<string> = new Set(["operands"]);

/** The arguments every walking tool shares: described once, in the server instructions. */
const SHARED_KEYS: ReadonlySet<string> = new Set([
  ...Object.keys(walkEntries),
  ...Object.keys(budgetEntries),
]);

/**
 * The rarely needed arguments: strict_base (always on here: `const: true`), the ignore-file and file-system
 * switches of the CLI, fd's size form (min_size/max_size say the same) and execution details (threads,
 * binary_sniff_bytes). tools/list declares and describes them as every other; the instructions, which give the
 * long text of the shared arguments, only name them.
 */
export const NOT_OFFERED_KEYS: ReadonlySet<string> = new Set([
  "strict_base",
  "type_add",
  "one_file_system",
  "ignore_vcs",
  "ignore_dot",
  "ignore_parent",
  "global_ignore_file",
  "ignore_files",
  "size",
  "threads",
  "binary_sniff_bytes",
]);

/** The most characters of a shared argument's description in tools/list (each is repeated in every tool). */
const SHARED_TEXT = 72;
/** The most characters of an operation's own argument's description in tools/list. */
const OWN_TEXT = 90;

/** Keywords that Draft-07 validators do not know and that MCP tool schemas therefore must not use. */
const NOT_DRAFT_07 = ["prefixItems", "$defs", "$ref", "dependentSchemas", "unevaluatedProperties", "$anchor"];

/** A JSON Schema as MCP carries it. */
type ToolSchema = { type: "object"; [key: string]: unknown };

/** One tool as `tools/list` returns it. */
interface ToolDef {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolSchema;
  readonly outputSchema?: ToolSchema;
  readonly annotations: Readonly<Record<string, unknown>>;
}

type Json = Record<string, unknown>;

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
 * Returns a generated schema without `$schema`, `$id` and `version`, checked to stay in the subset that
 * Draft-07 validators accept.
 * @param stem the schema stem, e.g. "find.input"
 * @returns the schema
 * @throws Error when the schema is missing or uses a keyword outside the Draft-07 subset (a build bug)
 */
function mcpSchema(stem: string): ToolSchema {
  const doc = SCHEMAS[stem];
  if (!doc) throw new Error(`no generated schema '${stem}'`);
  const { $schema: _s, $id: _i, version: _v, ...rest } = doc;
  const bad = findForbidden(rest, stem);
  if (bad) throw new Error(`schema ${stem} is outside the Draft-07 subset at ${bad}`);
  if (rest.type !== "object") throw new Error(`schema ${stem} is not an object schema`);
  return rest as ToolSchema;
}

/** The type of a schema node alone (type, enum, const, union and item types): no text, no bounds. */
function typeOnly(node: unknown, depth: number): Json {
  if (node === null || typeof node !== "object") return {};
  const n = node as Json;
  const out: Json = {};
  if (n.type !== undefined) out.type = n.type;
  if (n.enum !== undefined) out.enum = n.enum;
  if (n.const !== undefined) out.const = n.const;
  if (Array.isArray(n.anyOf)) {
    const types = n.anyOf.map((a) => typeOnly(a, depth));
    // A union of plain types is one `type` list (["string", "null"]); anything richer stays a union.
    if (types.every((t) => Object.keys(t).length === 1 && typeof t.type === "string")) {
      out.type = [...new Set(types.map((t) => t.type as string))];
    } else out.anyOf = types;
  }
  if (n.items !== undefined && depth > 0) out.items = typeOnly(n.items, depth - 1);
  if (n.properties && typeof n.properties === "object" && depth > 0) {
    out.properties = Object.fromEntries(
      Object.entries(n.properties as Json).map(([k, v]) => [k, typeOnly(v, depth - 1)]),
    );
  }
  return out;
}

/**
 * The structure of a schema node, all the way down: types, enums, consts, unions, items, properties and their
 * required lists, without text or bounds (what a client validates structuredContent with, #37). Open objects
 * stay open: a field added in a minor version validates.
 */
function structure(node: unknown): Json {
  const out = typeOnly(node, 0);
  if (node === null || typeof node !== "object") return out;
  const n = node as Json;
  if (Array.isArray(n.anyOf)) {
    const types = n.anyOf.map(structure);
    if (types.every((t) => Object.keys(t).length === 1 && typeof t.type === "string")) {
      out.type = [...new Set(types.map((t) => t.type as string))];
      delete out.anyOf;
    } else {
      delete out.type;
      out.anyOf = types;
    }
  }
  if (n.items !== undefined && !Array.isArray(n.items)) out.items = structure(n.items);
  if (n.properties && typeof n.properties === "object") {
    out.properties = Object.fromEntries(
      Object.entries(n.properties as Json).map(([k, v]) => [k, structure(v)]),
    );
    if (Array.isArray(n.required) && n.required.length > 0) out.required = n.required;
  }
  if (n.additionalProperties !== undefined && typeof n.additionalProperties === "object")
    out.additionalProperties = structure(n.additionalProperties);
  return out;
}

/**
 * A registry text for the tool list: without the parentheses that name CLI spellings (`(rg's --type-not)`),
 * which an MCP caller cannot use, then cut to one line by shortText.
 * @param text the description
 * @param max the most characters
 * @returns the one-line text
 */
function toolText(text: string, max: number): string {
  // A list the registry ends with "…" ('md'…) is said with "and more": an ellipsis reads as a cut text (#37).
  const plain = text.replace(/ ?\([^()]*(?:--[a-z]|\bCLI\b)[^()]*\)/g, "").replace(/…/g, " and more");
  return shortText(plain, max);
}

/**
 * Returns the first sentence of a description, cut further at a parenthesis or semicolon when it is long.
 * @param text the description
 * @param max the most characters
 * @returns the short text, without a final period
 */
export function shortText(text: string, max = 100): string {
  const sentence = text.search(/(?<=[a-z0-9')\]`])\. /);
  let head = (sentence > 0 ? text.slice(0, sentence) : text).replace(/\.$/, "");
  // Parentheses go, the longest first, until the text fits (a short one, "(empty)", often says the most).
  for (;;) {
    if (head.length <= max) break;
    const groups = [...head.matchAll(/ \([^()]*\)/g)].map((m) => m[0]);
    if (groups.length === 0) break;
    const longest = groups.reduce((a, b) => (b.length > a.length ? b : a));
    head = head.replace(longest, "");
  }
  if (head.length > max) {
    const cut = head.slice(20).search(/; /);
    if (cut >= 0) head = head.slice(0, cut + 20);
  }
  if (head.length <= max) return head;
  // Cut at the last clause boundary (a comma, a colon, a dash) that keeps a readable clause; never mid-word and
  // never with an ellipsis (#37: a cut text read as a broken one).
  const clause = Math.max(
    head.lastIndexOf(", ", max),
    head.lastIndexOf(": ", max),
    head.lastIndexOf(" - ", max),
    head.lastIndexOf(" or ", max),
  );
  if (clause > max / 3) return head.slice(0, clause);
  // No boundary within the limit: the first clause that ends after it, when it is still one line (100).
  const later = [", ", ": ", " - "]
    .map((b) => head.indexOf(b, Math.floor(max / 3)))
    .filter((i) => i > 0 && i <= 100);
  return later.length > 0 ? head.slice(0, Math.min(...later)) : head;
}

/**
 * Returns the MCP input schema of an operation: every argument with its type, the defaults this server
 * applies, and a short description for the operation's own arguments (the shared ones are described once in
 * the instructions). CLI-only keys are left out; every other key the server accepts is declared.
 * @param op the operation
 * @returns the schema
 */
export function toolInputSchema(op: Operation): ToolSchema {
  const doc = mcpSchema(`${op.id}.input`);
  const props: Json = {};
  for (const [key, raw] of Object.entries((doc.properties ?? {}) as Json)) {
    if (CLI_ONLY_KEYS.has(key)) continue;
    const node = raw as Json;
    const out = typeOnly(node, 1);
    // Every argument the server accepts is declared with a one-line description (#37); strict_base is always on.
    if (key === "strict_base") {
      props[key] = { type: "boolean", const: true, description: "Always on here: nothing outside the roots" };
      continue;
    }
    // A list of strings says so; the item type of an enum list is kept.
    if (SHARED_KEYS.has(key) && out.type === "array" && !(out.items as Json | undefined)?.enum)
      delete out.items;
    // `base` defaults to the first root here, not to ".".
    const def = key === "base" ? undefined : key in op.agentDefaults ? op.agentDefaults[key] : node.default;
    if (def !== undefined && !(Array.isArray(def) && def.length === 0) && def !== false) out.default = def;
    if (typeof node.description === "string")
      out.description = toolText(node.description, SHARED_KEYS.has(key) ? SHARED_TEXT : OWN_TEXT);
    props[key] = out;
  }
  const required = Array.isArray(doc.required) ? doc.required.filter((k) => !CLI_ONLY_KEYS.has(k)) : [];
  return {
    type: "object",
    properties: props,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * Returns the MCP output schema of an operation: the result's fields with their types, the record fields with
 * theirs, no descriptions (describe_tool has them). It stays open (no additionalProperties: false), so every
 * structuredContent the server sends validates with a Draft-07 validator.
 * @param op the operation
 * @returns the schema
 */
function toolOutputSchema(op: Operation): ToolSchema {
  const doc = mcpSchema(`${op.id}.output`);
  const props: Json = {};
  for (const [key, node] of Object.entries((doc.properties ?? {}) as Json)) {
    // The metadata every result has is typed at its top level (the instructions say what it holds); the records
    // and the operation's own summary fields are typed all the way down.
    props[key] = COMMON_RESULT_KEYS.has(key) ? typeOnly(node, 0) : structure(node);
  }
  return {
    type: "object",
    properties: props,
    required: ["results", "truncated", "next_cursor"],
  };
}

/** Result fields every tool's result has (said once in the instructions, not in each output schema). */
const COMMON_RESULT_KEYS: ReadonlySet<string> = new Set([
  "skipped",
  "truncated",
  "truncated_reason",
  "total_files_searched",
  "bytes_read",
  "errors",
  "schema_version",
  "next_cursor",
]);

/**
 * Returns the description of an operation's tool: what it does and its rules (the registry's description). The
 * bounds this server applies are the defaults in its input schema; paging and paths are in the instructions.
 * @param op the operation
 * @returns the description text
 */
function toolDescription(op: Operation): string {
  // The operation's full description (count's counting rules, explain's verdicts: #37), without its sentence on
  // paging, which the instructions say once for every tool.
  return op.description
    .replace(/;? ?[Ww]hen `truncated` is true[^.]*(?:\.(?! )[^.]*)*\.?/g, (m) =>
      m.startsWith(";") ? "." : "",
    )
    .replace(/\s+$/, "");
}

/**
 * The annotations of every tool: read-only and closed-world (the MCP spec gives destructiveHint and
 * idempotentHint a meaning only when readOnlyHint is false, so they are left out).
 */
const TOOL_ANNOTATIONS: Readonly<Record<string, unknown>> = { readOnlyHint: true, openWorldHint: false };

/** The operations that are MCP tools, in registry order. */
export function toolOperations(): Operation[] {
  return OPERATIONS.filter((op) => op.mcpTool !== null);
}

/**
 * Returns the tool list: one tool per operation with an MCP name, then `describe_tool`.
 * @returns the tools
 */
export function buildTools(): ToolDef[] {
  const ops = toolOperations();
  const tools: ToolDef[] = ops.map((op) => ({
    name: op.mcpTool as string,
    description: toolDescription(op),
    inputSchema: toolInputSchema(op),
    outputSchema: toolOutputSchema(op),
    annotations: TOOL_ANNOTATIONS,
  }));
  tools.push({
    name: DESCRIBE_TOOL,
    description:
      "The long text of one tool's arguments and of every field of its records and result (tools/list already gives each argument a one-line description and each result its schema).",
    inputSchema: {
      type: "object",
      properties: {
        name: {
          type: "string",
          enum: ops.map((op) => op.mcpTool as string),
          description: "The tool to describe",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
    annotations: TOOL_ANNOTATIONS,
  });
  return tools;
}

/** The shared arguments, described once (in the instructions), from the contract's own descriptions. */
function sharedArguments(): string {
  const doc = SCHEMAS["find.input"]?.properties as Json | undefined;
  const lines: string[] = [];
  for (const key of SHARED_KEYS) {
    const d = (doc?.[key] as Json | undefined)?.description;
    if (!NOT_OFFERED_KEYS.has(key) && typeof d === "string") lines.push(`- ${key}: ${shortText(d, 400)}.`);
  }
  const more = [...NOT_OFFERED_KEYS].filter((k) => k !== "strict_base");
  lines.push(`- rarely needed (each described in the tool's input schema): ${more.join(", ")}.`);
  return lines.join("\n");
}

/**
 * The server instructions: what is true of every tool, said once.
 * @returns the text
 */
export function instructions(): string {
  return [
    "rglob: read-only recursive file search (it never changes a file). find_files lists files by glob and metadata; grep_content searches contents (its `pattern` is the regex; `patterns` are file globs); the other tools count lines, find duplicates, show a tree, the largest files, totals per extension, and explain why a path is or is not selected.",
    "Paths: `base` defaults to the first root this server serves; relative `base` and `paths` are taken from it. Anything outside the roots (after resolving symlinks) is refused with PERM; strict_base is always on. Records carry `path` (absolute) and `relative_path` (POSIX, relative to base).",
    "Selection: ignore rules (.gitignore, .ignore, git excludes) apply; hidden entries (dot names) are included, `hidden: false` skips them; VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed or searched.",
    "Bounds: every tool has a small default limit, max_output_bytes (it bounds the whole response, text and errors included), and timeout_seconds; pass larger values to get more. Paging: when `truncated` is true and `next_cursor` is a string, call the same tool with the same arguments plus `cursor` (limit may change between pages); a cursor from other arguments is refused with BAD_PREDICATE. `errors` lists per-path problems; they never stop the other results.",
    "Every result has `results`, `truncated`, `truncated_reason` (limit, max_count, max_bytes, max_output_bytes, timeout, cancelled or null), `next_cursor`, `total_files_searched`, `bytes_read`, `errors` ([{code, message, path}]; codes PERM UNREADABLE BINARY TIMEOUT REGEX BAD_PREDICATE UNSUPPORTED_PLATFORM NOT_FOUND TOO_LARGE), `skipped` (counts by reason: ignored, hidden, excluded, too_deep, binary, too_large, unreadable, vcs, unknown_language; a skipped binary file is counted, not listed, unless list_binary) and `schema_version`; its output schema types the records and the tool's own fields.",
    "Arguments shared by the tools that walk (paths, patterns, exclude and types are lists of strings):",
    sharedArguments(),
    `${DESCRIBE_TOOL} {name} gives the long text of a tool's arguments and record fields, rarely needed.`,
  ].join("\n");
}

/** The field descriptions of a schema's properties (one level), for describe_tool. */
function fieldTexts(schema: unknown): Record<string, string> {
  const props = (schema as Json | undefined)?.properties as Json | undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    const d = (v as Json).description;
    out[k] = typeof d === "string" ? d : "";
  }
  return out;
}

/**
 * Returns the full reference of one tool, for describe_tool: description, every argument with its type,
 * default on this server and full text, and the fields of its result and of each record kind.
 * @param op the operation
 * @returns the reference
 */
export function describeTool(op: Operation): Record<string, unknown> {
  const input = mcpSchema(`${op.id}.input`);
  const args: Json = {};
  for (const [key, raw] of Object.entries((input.properties ?? {}) as Json)) {
    if (CLI_ONLY_KEYS.has(key)) continue;
    const node = raw as Json;
    const entry: Json = { type: typeOnly(node, 1).type ?? typeOnly(node, 1) };
    const def =
      key === "strict_base"
        ? true
        : key === "base"
          ? "the first root this server serves"
          : key in op.agentDefaults
            ? op.agentDefaults[key]
            : node.default;
    if (def !== undefined) entry.default = def;
    if (typeof node.description === "string") entry.description = node.description;
    args[key] = entry;
  }
  const records: Json = {};
  for (const [kind, stem] of Object.entries(RECORD_SCHEMAS[op.id] ?? {}))
    records[kind] = fieldTexts(SCHEMAS[stem]);
  return {
    tool: op.mcpTool,
    description: op.description,
    arguments: args,
    result: fieldTexts(SCHEMAS[`${op.id}.output`]),
    records,
  };
}
