/*! MCP surface (stdio). Placeholder until the MCP issue lands: it refuses to start with a clear error. */
import { RglobError } from "../../contract/errors.ts";

/**
 * Serves the registry over MCP stdio.
 * @param _argv the arguments after `mcp`
 * @returns the exit code
 */
export async function serveMcp(_argv: string[]): Promise<number> {
  throw new RglobError("UNSUPPORTED_PLATFORM", "the MCP server is not available in this build yet");
}
