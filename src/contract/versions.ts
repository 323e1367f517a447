/*! Contract versions: the agent API version, the schema version and the package version.
 * Pure constants; never reads the file system (the compiled binary holds what is imported). */
import pkg from "../../package.json" with { type: "json" };

/** The agent API version (ADR 0001): minor for additions, major for renames or removals. */
export const AGENT_API_VERSION = "1.4";
/** The version of every emitted JSON Schema document. */
export const SCHEMA_VERSION = "1.0";
/** The package version, as in package.json. */
export const PACKAGE_VERSION: string = pkg.version;
/** Set by `bun build --define` (scripts/build.ts: buildDefines): the commit, or "" for a build outside git. */
declare const RGLOB_BUILD_COMMIT: string | undefined;
/**
 * The commit this build was made from (`abc1234`, `abc1234-dirty` when tracked files differed from it), or null:
 * built outside a git checkout, or run from source without a build.
 */
export const BUILD_COMMIT: string | null =
  typeof RGLOB_BUILD_COMMIT === "string" && RGLOB_BUILD_COMMIT !== "" ? RGLOB_BUILD_COMMIT : null;
/** What `rglob --version` prints: `rglob 0.2.0 (abc1234)`. */
export const VERSION_LINE = `rglob ${PACKAGE_VERSION} (${
  BUILD_COMMIT ?? (typeof RGLOB_BUILD_COMMIT === "string" ? "built outside git" : "run from source")
})`;
/** The prefix of every schema `$id`. */
export const SCHEMA_ID_PREFIX = `urn:rglob:schema:${SCHEMA_VERSION}:`;
