/*! Introspection: describe, schema, capabilities and agent-version, built from the registry and the generated
 * schemas. Pure data; the CLI prints it as JSON and the MCP server serves it. */
import { type CapabilityReport, capabilityReport } from "../contract/capabilities.ts";
import { AGENT_API_VERSION, PACKAGE_VERSION, SCHEMA_VERSION } from "../contract/versions.ts";
import { RECORD_SCHEMAS, SCHEMAS } from "../generated/schemas.ts";
import { type Operation, operandKey } from "../ops/operation.ts";
import { OPERATIONS } from "../ops/registry.ts";
import { flagsOf } from "./cli/flags.ts";
import { buildTools } from "./mcp/tools.ts";

/**
 * Returns the input and output schemas of an operation.
 * @param op the operation
 * @returns { input, output }
 */
export function schemaOf(op: Operation): { input: unknown; output: unknown } {
  return { input: SCHEMAS[`${op.id}.input`], output: SCHEMAS[`${op.id}.output`] };
}

/**
 * Returns the operands as help shows them: the CliSpec's synopsis, else a required one as NAME, an optional one
 * as [NAME], a variadic one as [NAME...].
 * @param op the operation
 * @returns the synopsis
 */
export function synopsisOf(op: Operation): string {
  return (
    op.cli.synopsis ??
    op.cli.operands
      .map((raw) => {
        const name = operandKey(raw).toUpperCase();
        if (raw.endsWith("...")) return `[${name}...]`;
        return raw.endsWith("?") ? `[${name}]` : name;
      })
      .join(" ")
  );
}

/**
 * Returns the machine-readable manifest of an operation: operands, flags, schemas, limits, examples.
 * @param op the operation
 * @returns the manifest
 */
export function describeOp(op: Operation): Record<string, unknown> {
  return {
    operation: op.id,
    summary: op.summary,
    description: op.description,
    usage: `rglob ${op.id} ${synopsisOf(op)} [FLAGS]`.replace(/\s+/g, " "),
    operands: op.cli.operands.map((raw) => ({
      name: operandKey(raw),
      variadic: raw.endsWith("..."),
      required: !raw.endsWith("...") && !raw.endsWith("?"),
    })),
    flags: flagsOf(op).map((f) => ({
      name: `--${f.long}`,
      short: f.short ? `-${f.short}` : null,
      aliases: f.aliases.map((a) => `--${a}`),
      negations: f.negations.map((n) => `--${n}`),
      // A flag that builds a list of objects names the field it fills (grep's --also: also[].pattern).
      input_key: f.item !== undefined ? `${f.item.key}[].${f.item.field}` : f.presentation ? null : f.key,
      type: f.kind,
      choices: f.choices ?? null,
      default: f.default ?? null,
      negatable: f.kind === "boolean",
      repeatable:
        f.kind === "strings" || f.kind === "enums" || (f.item !== undefined && f.item.onLast !== true),
      description: f.description,
    })),
    record_kinds: Object.keys(RECORD_SCHEMAS[op.id] ?? {}),
    default_limits: { cli: {}, agent: op.agentDefaults },
    mcp_tool: op.mcpTool,
    annotations: op.annotations,
    examples: op.examples,
    schemas: schemaOf(op),
    exit_codes: op.exitCodes ?? {
      "0": "results found",
      "1": "nothing found",
      "2": "error: usage, bad input, or a per-path error (unreadable file, missing root) even with results, as rg; a binary or too large file skipped is not one",
    },
  };
}

/** Returns the capability report of this process. */
export function capabilities(warm?: NonNullable<CapabilityReport["mcp"]["warm"]>): CapabilityReport {
  // The tool list is the build's: made once, not at each read of a server's capabilities.
  toolNames ??= buildTools().map((t) => t.name);
  return capabilityReport(OPERATIONS, toolNames, warm);
}

/** The MCP tool names, once made (capabilities). */
let toolNames: string[] | null = null;

/** Returns the agent version document. */
export function agentVersion(): Record<string, string> {
  return {
    agent_api_version: AGENT_API_VERSION,
    schema_version: SCHEMA_VERSION,
    package_version: PACKAGE_VERSION,
  };
}
