/*! Contract: the capability report (what this build supports on this platform). Model plus its builder. */
import * as v from "valibot";
import { runtimeVersion } from "../platform/runtime.ts";
import { AGENT_API_VERSION, BUILD_COMMIT, PACKAGE_VERSION, SCHEMA_VERSION } from "./versions.ts";

const support = v.picklist(["supported", "POSIX-only", "unsupported"]);

/** Creates the CapabilityReport model. */
export const CapabilityReportSchema = v.pipe(
  v.strictObject({
    agent_api_version: v.string(),
    schema_version: v.string(),
    package_version: v.string(),
    build_commit: v.pipe(
      v.nullable(v.string()),
      v.description(
        "The commit this build was made from ('abc1234', with '-dirty' when tracked files differed); null when built outside git or run from source.",
      ),
    ),
    platform: v.pipe(
      v.strictObject({ os: v.string(), arch: v.string(), runtime: v.string() }),
      v.description(
        "Where this process runs: os and arch as Node names them, runtime 'bun x.y.z' or 'node x.y.z'.",
      ),
    ),
    operations: v.pipe(v.array(v.string()), v.description("Operation ids, in documentation order.")),
    predicates: v.pipe(
      v.record(v.string(), support),
      v.description("Each walk predicate and whether this platform supports it."),
    ),
    mcp: v.strictObject({
      available: v.boolean(),
      transport: v.literal("stdio"),
      tools: v.pipe(v.array(v.string()), v.description("The tools `rglob mcp` serves (its tools/list).")),
      warm: v.optional(
        v.pipe(
          v.array(
            v.strictObject({
              root: v.string(),
              state: v.picklist(["building", "ready", "warm_list"]),
              watching: v.boolean(),
              reason: v.nullable(v.string()),
              files: v.nullable(v.number()),
              trigrams: v.nullable(v.number()),
              index_bytes: v.nullable(v.number()),
              text_bytes: v.nullable(v.number()),
              build_ms: v.nullable(v.number()),
              checks: v.optional(
                v.pipe(
                  v.strictObject({
                    mode: v.picklist(["watch", "stat"]),
                    given: v.number(),
                    suspects: v.number(),
                    stat_checks: v.number(),
                    proc_looks: v.number(),
                    selected: v.number(),
                  }),
                  v.description(
                    "How the last grep answered from the index was kept exact: mode 'watch' checks only the suspect files (open now, held open for writing or mapped when the watch began, or with other hard links), 'stat' every file the index rules out; given: files handed to the search; suspects: files read or checked because they were suspect; stat_checks: stat calls made; proc_looks: looks at every process's descriptors and mappings made on this call before it was answered (docs/decisions/0032-freshness-model.md); selected: entries of the remembered walk this call had to select, 0 when it shared a selection made before (docs/decisions/0034-warm-query-structure.md).",
                  ),
                ),
              ),
            }),
          ),
          v.description(
            "A running server's warm state per root (only from `rglob mcp`): 'ready' answers grep from its content index, 'building' and 'warm_list' (the index would not fit its memory budget) from the remembered file list; watching: whether the tree is watched (else files are checked per query).",
          ),
        ),
      ),
    }),
  }),
  v.title("CapabilityReport"),
  v.description("What this rglob build supports on this platform."),
);
export type CapabilityReport = v.InferOutput<typeof CapabilityReportSchema>;

/**
 * Creates the capability report of this process.
 * @param operations operation ids
 * @param mcpTools the names of the tools `rglob mcp` serves, as its tools/list gives them
 * @param warm a running MCP server's warm state per root
 * @returns the report
 */
export function capabilityReport(
  operations: ReadonlyArray<{ id: string }>,
  mcpTools: readonly string[],
  warm?: NonNullable<CapabilityReport["mcp"]["warm"]>,
): CapabilityReport {
  const posix = process.platform !== "win32";
  const runtime = runtimeVersion();
  return {
    agent_api_version: AGENT_API_VERSION,
    schema_version: SCHEMA_VERSION,
    package_version: PACKAGE_VERSION,
    build_commit: BUILD_COMMIT,
    platform: { os: process.platform, arch: process.arch, runtime },
    operations: operations.map((o) => o.id),
    predicates: {
      patterns: "supported",
      exclude: "supported",
      types: "supported",
      min_size: "supported",
      max_size: "supported",
      newer_than: "supported",
      older_than: "supported",
      newer_than_file: "supported",
      perm: posix ? "supported" : "unsupported",
      nlink: "supported",
      saved_as: "supported",
      uid: posix ? "POSIX-only" : "unsupported",
      gid: posix ? "POSIX-only" : "unsupported",
      max_depth: "supported",
      min_depth: "supported",
      hidden: "supported",
      respect_gitignore: "supported",
      follow_symlinks: "supported",
      strict_base: "supported",
    },
    mcp: {
      available: true,
      transport: "stdio",
      tools: [...mcpTools],
      ...(warm ? { warm } : {}),
    },
  };
}
