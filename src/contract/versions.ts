/*! Contract versions: the agent API version, the schema version and the package version.
 * Pure constants; never reads the file system (the compiled binary holds what is imported). */
import pkg from "../../package.json" with { type: "json" };

/** The agent API version (ADR 0001): minor for additions, major for renames or removals. */
export const AGENT_API_VERSION = "1.1";
/** The version of every emitted JSON Schema document. */
export const SCHEMA_VERSION = "1.0";
/** The package version, as in package.json. */
export const PACKAGE_VERSION: string = pkg.version;
/** The prefix of every schema `$id`. */
export const SCHEMA_ID_PREFIX = `urn:rglob:schema:${SCHEMA_VERSION}:`;
