/*! MCP tools from the registry (ADR 0037): one tool, `rglob`, whose `op` names the operation, plus
 * `describe_tool`. Every argument any operation takes is declared once, with a one-line text that names the ops
 * it belongs to (an argument of another op is a tool error, server.ts); the output schema types every result
 * field once and the records of each op in an anyOf; the description says how to pick `op`, how to page and
 * where the long rules are. `describe_tool {name: op}` gives one op's long texts (what every op shares: the
 * topics `walk` and `result`). The tool names of agent API 1.2 (find_files, …) still answer, unlisted, until 2.0.
 * Sizes: scripts/bench-mcp-size.ts. Pure data and text; it never runs an operation (server.ts does). */
import { RECORD_SCHEMAS, SCHEMAS } from "../../generated/schemas.ts";
import type { Operation } from "../../ops/operation.ts";
import { OPERATIONS } from "../../ops/registry.ts";

/** The bound of a whole response when the operation declares none (bytes). */
export const DEFAULT_RESPONSE_BYTES = 60_000;

/** The name of the introspection tool: the full argument and record reference of one tool. */
export const DESCRIBE_TOOL = "describe_tool";

/** Input keys that exist for the CLI only (positional operands and their parsing rule): never on MCP. */
export const CLI_ONLY_KEYS: ReadonlySet<string> = new Set(["operands"]);

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
/** The schemas checked so far, by stem: a call's argument check asks for its operation's at every call. */
const checkedSchemas = new Map<string, ToolSchema>();

function mcpSchema(stem: string): ToolSchema {
  const had = checkedSchemas.get(stem);
  if (had !== undefined) return had;
  const doc = SCHEMAS[stem];
  if (!doc) throw new Error(`no generated schema '${stem}'`);
  const { $schema: _s, $id: _i, version: _v, ...rest } = doc;
  const bad = findForbidden(rest, stem);
  if (bad) throw new Error(`schema ${stem} is outside the Draft-07 subset at ${bad}`);
  if (rest.type !== "object") throw new Error(`schema ${stem} is not an object schema`);
  checkedSchemas.set(stem, rest as ToolSchema);
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
    } else if (
      types.every((t) => Object.keys(t).length === 1 && (Array.isArray(t.enum) || t.type === "null"))
    ) {
      // A nullable enum is one enum with null in it (#37: the tool list's bytes).
      delete out.type;
      delete out.anyOf;
      out.enum = types.flatMap((t) => (Array.isArray(t.enum) ? t.enum : [null]));
    } else {
      delete out.type;
      out.anyOf = types;
    }
  }
  // An enum of strings says its type itself.
  if (Array.isArray(out.enum) && out.type === "string") delete out.type;
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
  return shortText(withoutCli(text).replace(/…/g, " and more"), max);
}

/** A registry text without the parentheses that name CLI spellings, which an MCP caller cannot use. */
function withoutCli(text: string): string {
  return text.replace(/ ?\([^()]*(?:--[a-z]|\bCLI\b)[^()]*\)/g, "").replace(/ ?\bCLI: [^;.)]*;?/g, "");
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

/** Result fields every result has: typed once in the tool's output schema, said once in the instructions. */
const COMMON_RESULT_KEYS: readonly string[] = [
  "results",
  "truncated",
  "truncated_reason",
  "next_cursor",
  "total_files_searched",
  "skipped",
  "bytes_read",
  "errors",
  "schema_version",
];

/** Pushes a schema node into a list unless an equal one is there already (JSON text equality). */
function pushOnce(list: Json[], node: Json): void {
  const text = JSON.stringify(node);
  if (!list.some((n) => JSON.stringify(n) === text)) list.push(node);
}

/**
 * Adds a record shape to the list: merged into a shape there whose fields of the same name have the same types
 * (find's, top's and tree's records share most of theirs: one shape with the union of their fields, the fields
 * all of them require required), else appended. The union stays open, so each record still validates, and every
 * field keeps its type.
 * @param list the record shapes so far (changed)
 * @param shape the shape to add
 */
function mergeRecord(list: Json[], shape: Json): void {
  const props = (shape.properties ?? {}) as Json;
  const same = (other: Json) => {
    const theirs = (other.properties ?? {}) as Json;
    const shared = Object.keys(props).filter((k) => k in theirs);
    // Most fields of each are fields of the other (find's and tree's records, not find's and explain's; find's
    // has its stat fields and saved_as's encoding and eol that tree's has not: 12 of 21 shared).
    const most = (n: number) => shared.length >= 0.55 * n;
    return (
      most(Object.keys(props).length) &&
      most(Object.keys(theirs).length) &&
      shared.every(
        (k) => JSON.stringify(props[k]) === JSON.stringify(theirs[k]) || plainTypes(props[k], theirs[k]),
      )
    );
  };
  const into = list.find(same);
  if (into === undefined) {
    list.push(shape);
    return;
  }
  const merged: Json = { ...(into.properties as Json) };
  for (const [k, node] of Object.entries(props)) {
    const had = merged[k] as Json | undefined;
    // A field of plain types in both (tree's size may be null, find's not): the union of the types.
    const types =
      had !== undefined && plainTypes(had, node)
        ? [...new Set([had.type, (node as Json).type].flat())]
        : null;
    merged[k] = types === null ? node : { type: types.length === 1 ? types[0] : types };
  }
  into.properties = merged;
  const req = Array.isArray(shape.required) ? (shape.required as string[]) : [];
  into.required = ((into.required ?? []) as string[]).filter((k) => req.includes(k));
}

/** Whether two schema nodes hold a type alone (`{"type": ...}`), whose union is one type list. */
function plainTypes(a: unknown, b: unknown): boolean {
  const plain = (n: unknown) =>
    n !== null && typeof n === "object" && Object.keys(n).length === 1 && "type" in (n as Json);
  return plain(a) && plain(b);
}

/**
 * Writes a schema node in fewer bytes with the same meaning, all the way down: a type list of one type is that
 * type, and a union of one typed shape with null is that shape with "null" added to its type (and to its enum),
 * as `["string", "null"]` says (#37: the bytes pay for fields added to the list).
 * @param node the node
 * @returns the node, rewritten
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json))
    out[k] = k === "enum" || k === "required" || k === "const" ? v : compact(v);
  if (Array.isArray(out.type) && out.type.length === 1) out.type = out.type[0];
  const any = out.anyOf;
  if (Array.isArray(any) && any.length === 2 && Object.keys(out).length === 1) {
    const isNull = (n: unknown) => JSON.stringify(n) === '{"type":"null"}';
    const other = (isNull(any[0]) ? any[1] : isNull(any[1]) ? any[0] : null) as Json | null;
    if (
      other !== null &&
      typeof other.type === "string" &&
      other.anyOf === undefined &&
      other.const === undefined
    ) {
      const merged: Json = { ...other, type: [other.type, "null"] };
      if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
      return merged;
    }
  }
  return out;
}

/** One node for the shapes a field has across operations: the shape, or an anyOf of the distinct ones. */
function unionOf(shapes: readonly Json[]): Json {
  if (shapes.length === 1) return shapes[0] as Json;
  return { anyOf: shapes };
}

/**
 * Returns the output schema of the `rglob` tool: the result fields of every operation typed all the way down,
 * once (a field whose shape differs between operations is an anyOf of its shapes), and `results` an array whose
 * items are one of the record shapes of the operations (an anyOf of open objects: a field added in a minor
 * version validates). No descriptions: describe_tool has them. Draft-07 only (the SDK client validates
 * structuredContent with it).
 * @returns the schema
 */
function oneToolOutputSchema(): ToolSchema {
  const records: Json[] = [];
  const fields = new Map<string, Json[]>();
  let required: string[] | null = null;
  for (const op of toolOperations()) {
    const doc = mcpSchema(`${op.id}.output`);
    for (const [key, node] of Object.entries((doc.properties ?? {}) as Json)) {
      if (key === "results") {
        const items = structure((node as Json).items);
        for (const variant of Array.isArray(items.anyOf) ? (items.anyOf as Json[]) : [items])
          mergeRecord(records, variant);
        continue;
      }
      const shapes = fields.get(key) ?? [];
      pushOnce(shapes, structure(node));
      fields.set(key, shapes);
    }
    const req = Array.isArray(doc.required) ? (doc.required as string[]) : [];
    required = required === null ? req : required.filter((k) => req.includes(k));
  }
  // The fields every result has first, then each operation's own, in registry order.
  const keys = [...fields.keys()].sort((a, b) => rank(COMMON_RESULT_KEYS, a) - rank(COMMON_RESULT_KEYS, b));
  const props: Json = { results: { type: "array", items: { anyOf: records } } };
  for (const key of keys) props[key] = unionOf(fields.get(key) as Json[]);
  return {
    type: "object",
    properties: compact(props) as Json,
    required: required ?? ["results", "truncated", "next_cursor"],
  };
}

/** Position of a key in a list, the keys not in it after every listed one (stable). */
function rank(list: readonly string[], key: string): number {
  const at = list.indexOf(key);
  return at < 0 ? list.length : at;
}

/**
 * The annotations of every tool: read-only and closed-world (the MCP spec gives destructiveHint and
 * idempotentHint a meaning only when readOnlyHint is false, so they are left out).
 */
const TOOL_ANNOTATIONS: Readonly<Record<string, unknown>> = { readOnlyHint: true, openWorldHint: false };

/** The operations that are MCP operations (the `op` values), in registry order. */
export function toolOperations(): Operation[] {
  return OPERATIONS.filter((op) => op.mcpTool !== null);
}

/** The tool that serves every operation, with `op` naming it (ADR 0037). */
export const ONE_TOOL = "rglob";

/**
 * Returns the operation an `op` value or a tool name of agent API 1.2 (`find_files`, …: still answered,
 * no longer listed, until 2.0) names.
 * @param name the op id or old tool name
 * @returns the operation, or undefined
 */
export function operationNamed(name: unknown): Operation | undefined {
  return toolOperations().find((op) => op.id === name || op.mcpTool === name);
}

/**
 * The arguments the server accepts for an operation: its input keys but the CLI-only ones, in the input
 * model's order. The one list both the declaration (tools/list) and the check of a call come from.
 * @param op the operation
 * @returns the argument names
 */
export function argumentKeys(op: Operation): string[] {
  let keys = argumentKeysOf.get(op.id);
  if (keys === undefined) {
    const doc = mcpSchema(`${op.id}.input`);
    keys = Object.keys((doc.properties ?? {}) as Json).filter((k) => !CLI_ONLY_KEYS.has(k));
    argumentKeysOf.set(op.id, keys);
  }
  return [...keys];
}

/** argumentKeys by operation id, made once. */
const argumentKeysOf = new Map<string, readonly string[]>();

/** The default of an argument on this server for an operation (its agent default, else the model's). */
function serverDefault(op: Operation, key: string): unknown {
  if (key === "base") return undefined; // the first root here, not "."
  if (key in op.agentDefaults) return op.agentDefaults[key];
  if (key === "max_output_bytes") return DEFAULT_RESPONSE_BYTES;
  return ((mcpSchema(`${op.id}.input`).properties as Json)[key] as Json | undefined)?.default;
}

/** Whether a default is worth declaring (a false switch or an empty list is the obvious default). */
function declaredDefault(def: unknown): boolean {
  return def !== undefined && def !== false && !(Array.isArray(def) && def.length === 0);
}

/** Every argument of the one tool, with the operations that take it, in registry order. */
function argumentOwners(): Map<string, Operation[]> {
  const owners = new Map<string, Operation[]>();
  for (const op of toolOperations())
    for (const key of argumentKeys(op)) owners.set(key, [...(owners.get(key) ?? []), op]);
  return owners;
}

/**
 * The defaults that differ between operations, as one line each (`limit`: find 150, grep 100, …), for the tool
 * description: the input schema can declare one default per argument only.
 * @returns the lines
 */
function perOpDefaults(): string[] {
  const lines: string[] = [];
  for (const [key, takers] of argumentOwners()) {
    const defs = takers
      .map((op) => [op.id, serverDefault(op, key)] as const)
      .filter(([, d]) => declaredDefault(d));
    const votes = new Map<string, number>();
    for (const [, d] of defs) votes.set(JSON.stringify(d), (votes.get(JSON.stringify(d)) ?? 0) + 1);
    if (votes.size === 0 || (votes.size === 1 && defs.length === takers.length)) continue;
    // The most common default first, then the operations that differ from it ("timeout_seconds 30, dupes 60").
    const [common, n] = [...votes].reduce((a, b) => (b[1] > a[1] ? b : a));
    const others = defs
      .filter(([, d]) => JSON.stringify(d) !== common)
      .map(([id, d]) => `${id} ${JSON.stringify(d)}`);
    const head = n > 1 ? [common] : [];
    const said = n > 1 ? others : defs.map(([id, d]) => `${id} ${JSON.stringify(d)}`);
    lines.push(`${key} ${[...head, ...said].join(", ")}`);
  }
  return lines;
}

/** The most characters of an argument's one-line description in the one tool (the ops it belongs to included). */
const ONE_LINE = 90;

/**
 * Returns the input schema of the `rglob` tool: `op`, then every argument any operation takes, declared once
 * with its type, the default this server applies when every operation that takes it agrees, and a one-line
 * text that names the operations it belongs to unless every one takes it.
 * @returns the schema
 */
function oneToolInputSchema(): ToolSchema {
  const ops = toolOperations();
  const props: Json = {
    op: {
      type: "string",
      enum: ops.map((op) => op.id),
      description: "The operation",
    },
  };
  for (const [key, takers] of argumentOwners()) {
    const first = takers[0] as Operation;
    const node = (mcpSchema(`${first.id}.input`).properties as Json)[key] as Json;
    if (key === "strict_base") {
      props[key] = { type: "boolean", const: true, description: "Always on: nothing leaves the roots" };
      continue;
    }
    const out = typeOnly(node, 1);
    // A list of strings says so in its text; the item type of a list of choices is kept.
    if (out.type === "array" && !(out.items as Json | undefined)?.enum) delete out.items;
    // A value or a list of them (perm): its types, the list's items said by its text too.
    const alts = out.anyOf as Json[] | undefined;
    if (alts?.every((a) => typeof a.type === "string" && (a.items as Json | undefined)?.enum === undefined)) {
      out.type = alts.map((a) => a.type);
      delete out.anyOf;
    }
    const defs = new Set(takers.map((op) => JSON.stringify(serverDefault(op, key))));
    const def = serverDefault(first, key);
    if (defs.size === 1 && declaredDefault(def)) out.default = def;
    const owners = takers.length === ops.length ? "" : ` (${takers.map((op) => op.id).join(", ")})`;
    if (typeof node.description === "string")
      out.description = `${toolText(node.description, ONE_LINE - owners.length)}${owners}`;
    props[key] = out;
  }
  return { type: "object", properties: props, required: ["op"], additionalProperties: false };
}

/** The sentences every operation's description repeats (said once in the tool's description): paging, and the
 * walk's selection rules. */
const REPEATED_SENTENCES = [
  /;? ?[Ww]hen `truncated` is true[^.]*(?:\.(?! )[^.]*)*\.?/g,
  /(?:Respects \.gitignore\/\.ignore;|\.gitignore\/\.ignore are respected,) hidden entries \(dot names\) are included \(hidden=false skips them\) and VCS directories \([^)]*\) are never listed[;.]? ?/g,
];

/**
 * An operation's rules for the one tool's description: its description without what every operation says.
 * @param op the operation
 * @returns the text
 */
function opRules(op: Operation): string {
  let text = op.description;
  for (const re of REPEATED_SENTENCES) text = text.replace(re, (m) => (m.startsWith(";") ? "." : ""));
  return text.replace(/\s+$/, "");
}

/**
 * Returns the description of the `rglob` tool: how to pick `op`, each operation's rules, paging, the defaults
 * that differ per operation, and where the long texts are.
 * @returns the description
 */
function oneToolDescription(): string {
  return [
    "Read-only recursive file search under the served roots. Pick `op`; each argument's text names its ops.",
    ...toolOperations().map((op) => `- ${op.id}: ${op.summary}`),
    "Walks respect .gitignore/.ignore, include hidden entries, never list VCS directories; records in pre-order, names by code point.",
    "Paging: while `next_cursor` is a string, call again with the same arguments plus `cursor`.",
    `Defaults per op: ${perOpDefaults().join("; ")}.`,
    `${DESCRIBE_TOOL} {name: op}: an op's full texts.`,
  ].join("\n");
}

/**
 * Returns the tool list: `rglob` (every operation, `op` picks one) and `describe_tool`. The tool names of agent
 * API 1.2 (find_files, …) are still answered but not listed (ADR 0037).
 * @returns the tools
 */
export function buildTools(): ToolDef[] {
  const ops = toolOperations();
  return [
    {
      name: ONE_TOOL,
      description: oneToolDescription(),
      inputSchema: oneToolInputSchema(),
      outputSchema: oneToolOutputSchema(),
      annotations: TOOL_ANNOTATIONS,
    },
    {
      name: DESCRIBE_TOOL,
      description: "Ops' full argument, result and record texts.",
      inputSchema: {
        type: "object",
        properties: {
          name: {
            type: "string",
            description: `Ops or topics, comma-separated: ${[...ops.map((op) => op.id), ...DESCRIBE_TOPICS].join(",")}`,
          },
        },
        required: ["name"],
        additionalProperties: false,
      },
      annotations: TOOL_ANNOTATIONS,
    },
  ];
}

/**
 * The server instructions: what to call first, how to pick `op`, how to page, and where the long rules are, in
 * a few lines (the arguments are declared in the tool's input schema, each with its one-line text).
 * @returns the text
 */
export function instructions(): string {
  return [
    `rglob: read-only recursive file search (it never changes a file). One tool, \`${ONE_TOOL}\`: pick \`op\` (find: files by glob and metadata; grep: contents, \`pattern\` is the regex and \`patterns\` file globs; count: lines, code, comments; dupes; tree; top: largest; stats: totals per extension; explain: why a path is or is not selected), then that op's arguments.`,
    "Paths: `base` defaults to the first root; relative `base` and `paths` are taken from it; anything outside the roots is refused with PERM (strict_base is always on). Records carry `path` (absolute) and `relative_path` (POSIX, from base).",
    'Selection arguments are AND\'d, the values of one OR\'d: extensions ["php"] with patterns ["Gemfile"] keeps nothing; patterns ["*.php","Gemfile"] keeps either.',
    "Bounds and paging: each op has a small default `limit`, `max_output_bytes` and `timeout_seconds`; when `truncated` is true and `next_cursor` is a string, call again with the same arguments plus `cursor` (limit may change). `errors` lists per-path problems; skipped files are counted in `skipped` by reason.",
    `Long rules: ${DESCRIBE_TOOL} {name: op} gives the full text of that op's arguments and result fields; several at once: {name: "find,grep,walk"} (walk: what every op takes; result: what every result holds). The tool names find_files, grep_content, count_lines, find_duplicates, directory_tree, largest_files, file_stats and explain_path still answer, unlisted, until agent API 2.0.`,
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

/** The topics describe_tool answers besides the operations: what every operation shares, said once. */
export const DESCRIBE_TOPICS = ["walk", "result"] as const;

/** The arguments every operation takes (the walk's selection, ignore and budget arguments). */
function sharedArguments(): string[] {
  const all = toolOperations().length;
  return [...argumentOwners()].filter(([, takers]) => takers.length === all).map(([k]) => k);
}

/** The result fields every operation's result has, with their text (from find's result). */
function sharedResultFields(): Record<string, string> {
  const results = toolOperations().map((op) => fieldTexts(SCHEMAS[`${op.id}.output`]));
  const first = results[0] ?? {};
  return Object.fromEntries(
    Object.entries(first).filter(([k, d]) => k !== "results" && results.every((r) => r[k] === d)),
  );
}

/** The record fields that several record kinds share with the same text (path, relative_path, the link fields). */
function sharedRecordFields(): Record<string, string> {
  const seen = new Map<string, { text: string; n: number }>();
  for (const op of toolOperations())
    for (const stem of Object.values(RECORD_SCHEMAS[op.id] ?? {}))
      for (const [k, d] of Object.entries(fieldTexts(SCHEMAS[stem]))) {
        const had = seen.get(`${k}\u0000${d}`);
        seen.set(`${k}\u0000${d}`, { text: d, n: (had?.n ?? 0) + 1 });
      }
  // Each field's most common text, when three record kinds or more share it.
  const best = new Map<string, { text: string; n: number }>();
  for (const [key, entry] of seen) {
    const k = key.slice(0, key.indexOf("\u0000"));
    if (entry.n >= 3 && entry.n > (best.get(k)?.n ?? 0)) best.set(k, entry);
  }
  return Object.fromEntries([...best].map(([k, { text }]) => [k, text]));
}

/** One argument's line: name, type, default on this server (for every op when `op` is null), full text. */
function argumentLine(op: Operation | null, key: string): string {
  if (op === null) {
    const ops = toolOperations();
    const defaults = new Set(ops.map((o) => JSON.stringify(serverDefault(o, key))));
    const line = argumentLine(ops[0] as Operation, key);
    // A default that differs between ops is said by describe_tool {name: op}, not here.
    return defaults.size === 1 ? line : line.replace(/, default [^)]*\)/, ")");
  }
  const node = ((mcpSchema(`${op.id}.input`).properties as Json)[key] ?? {}) as Json;
  const t = typeOnly(node, 1);
  const type = Array.isArray(t.type) ? t.type.join("|") : String(t.type ?? "");
  const items = (t.items as Json | undefined)?.enum ?? (t.items as Json | undefined)?.type;
  const choices = Array.isArray(t.enum) ? ` ${t.enum.join("|")}` : "";
  const def = key === "strict_base" ? true : key === "base" ? "the first root" : serverDefault(op, key);
  const said = declaredDefault(def) ? `, default ${JSON.stringify(def)}` : "";
  const of = items === undefined ? "" : ` of ${Array.isArray(items) ? items.join("|") : String(items)}`;
  const text = typeof node.description === "string" ? withoutCli(node.description) : "";
  return `- ${key} (${type}${of}${choices}${said}): ${text}`;
}

/**
 * Returns describe_tool's answer for one operation, as text (no structuredContent: the answer would say it
 * twice): its full description, every argument it takes (its own with type, default on this server and full
 * text; those every operation shares named, their text under `walk`), its own result fields and each record
 * kind's fields (the fields several kinds share named, their text under `result`).
 * @param op the operation
 * @returns the text
 */
export function describeTool(op: Operation): string {
  // A shared argument whose text differs for this op (top's limit) is said here in full.
  const text = (o: Operation, k: string) =>
    ((mcpSchema(`${o.id}.input`).properties as Json)[k] as Json | undefined)?.description;
  const walkOp = toolOperations()[0] as Operation;
  const shared = new Set(sharedArguments().filter((k) => text(op, k) === text(walkOp, k)));
  const own = argumentKeys(op).filter((k) => !shared.has(k));
  const common = sharedResultFields();
  const commonRecord = sharedRecordFields();
  const lines = [
    `${op.id} (until agent API 2.0 also the tool ${op.mcpTool}): ${opRules(op)}`,
    "",
    `arguments of ${op.id} alone or of a few ops:`,
    ...own.map((k) => argumentLine(op, k)),
    "",
    `arguments every op takes (each one's full text: ${DESCRIBE_TOOL} {name: "walk"}): ${[...shared].join(", ")}`,
    `their defaults for ${op.id} (the rest as under "walk"): ${[...shared]
      .filter((k) => declaredDefault(serverDefault(op, k)) && typeof serverDefault(op, k) !== "boolean")
      .map((k) => `${k} ${JSON.stringify(serverDefault(op, k))}`)
      .join(", ")}`,
    "",
    `result fields of ${op.id} (besides those of every result: ${DESCRIBE_TOOL} {name: "result"}, which also has the record fields named after "also"):`,
  ];
  for (const [k, d] of Object.entries(fieldTexts(SCHEMAS[`${op.id}.output`])))
    if (!(k in common) && k !== "results") lines.push(`- ${k}: ${d}`);
  for (const [kind, stem] of Object.entries(RECORD_SCHEMAS[op.id] ?? {})) {
    const fields = fieldTexts(SCHEMAS[stem]);
    // A field whose text is the shared one, or its start (grep's relative_path), is named only.
    const named = Object.keys(fields).filter(
      (k) => commonRecord[k]?.startsWith((fields[k] ?? "").replace(/\.$/, "")) === true,
    );
    lines.push("", `record '${kind}' (${stem}; also ${named.join(", ")}):`);
    for (const [k, d] of Object.entries(fields)) if (!named.includes(k)) lines.push(`- ${k}: ${d}`);
  }
  return lines.join("\n");
}

/**
 * Returns describe_tool's answer for a topic every operation shares: `walk` (the arguments every op takes, each
 * with its type and full text) or `result` (the result fields every result has, and the record fields several
 * record kinds share).
 * @param topic the topic
 * @returns the text
 */
export function describeTopic(topic: (typeof DESCRIBE_TOPICS)[number]): string {
  if (topic === "walk") {
    return [
      "Arguments every op takes (defaults of this server per op: describe_tool {name: op}):",
      ...sharedArguments().map((k) => argumentLine(null, k)),
    ].join("\n");
  }
  return [
    "Fields of every result:",
    ...Object.entries(sharedResultFields()).map(([k, d]) => `- ${k}: ${d}`),
    "",
    "Record fields several record kinds share:",
    ...Object.entries(sharedRecordFields()).map(([k, d]) => `- ${k}: ${d}`),
  ].join("\n");
}
