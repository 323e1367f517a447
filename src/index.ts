/*! The package entry `rglob`: re-exports the agent library (the stable surface). Explicit named exports only. */

export type {
  AgentOpId,
  AgentOps,
  CallArgs,
  CallControl,
  CapabilityReport,
  ErrorCode,
  ErrorInfo,
  Failure,
  FileMatch,
  FileSearchResult,
  FindOptions,
  RecordStream,
  ResultMeta,
  TruncatedReason,
} from "./agent/index.ts";
export {
  AGENT_API_VERSION,
  allSchemas,
  capabilities,
  runAll,
  SCHEMA_VERSION,
  schemaFor,
  search,
  searchAll,
} from "./agent/index.ts";
