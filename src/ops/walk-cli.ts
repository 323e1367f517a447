/*! The CLI spelling of the shared walk and budget options (short letters and aliases only: types, defaults and
 * descriptions come from the models in contract/walk-options.ts). */
import type { CliFlag } from "./operation.ts";

/** Flag spellings shared by every operation that walks. */
export const WALK_CLI_FLAGS: Readonly<Record<string, CliFlag>> = {
  base: { hint: "DIR" },
  paths: { aliases: ["path"], hint: "PATH" },
  patterns: { short: "g", aliases: ["glob"], hint: "GLOB" },
  exclude: { short: "E", hint: "GLOB" },
  types: { short: "t", aliases: ["type"], hint: "KIND" },
  min_size: { hint: "SIZE" },
  max_size: { hint: "SIZE" },
  newer_than: { hint: "WHEN" },
  older_than: { hint: "WHEN" },
  newer_than_file: { hint: "FILE" },
  perm: { hint: "MODE" },
  max_depth: { short: "d", hint: "N" },
  min_depth: { hint: "N" },
  hidden: { short: "H" },
  respect_gitignore: { aliases: ["ignore"] },
  global_ignore_file: { aliases: ["ignore-global"] },
  ignore_files: { aliases: ["ignore-file"], hint: "PATH" },
  follow_symlinks: { short: "L", aliases: ["follow"] },
  case_sensitive: { short: "s", negations: ["case-insensitive"] },
  // No short letter here: `-n` means line numbers to grep users; `top` gives it to its N (see top/index.ts).
  limit: { hint: "N" },
  max_output_bytes: { hint: "BYTES" },
  timeout_seconds: { aliases: ["timeout"], hint: "SECONDS" },
  cursor: { hint: "TOKEN" },
};
