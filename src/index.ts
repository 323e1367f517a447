/*! The package entry `rglob`: re-exports the agent library (the stable surface). Explicit named exports only. */

export type {
  ErrorCode,
  ErrorInfo,
  FileMatch,
  FileSearchResult,
  FindInput,
  GrepFile,
  GrepInput,
  LineMatch,
  LineSearchResult,
} from "./agent/index.ts";
export {
  AGENT_API_VERSION,
  allSchemas,
  capabilities,
  grepAll,
  SCHEMA_VERSION,
  schemaFor,
  searchAll,
} from "./agent/index.ts";
