/*! The CLI spelling of the shared walk and budget options (short letters and aliases only: types, defaults and
 * descriptions come from the models in contract/walk-options.ts). */
import type { CliFlag, PresentationFlag } from "./operation.ts";

/** Flag spellings shared by every operation that walks. */
export const WALK_CLI_FLAGS: Readonly<Record<string, CliFlag>> = {
  base: { hint: "DIR" },
  paths: { aliases: ["path"], hint: "PATH" },
  patterns: { short: "g", aliases: ["glob"], hint: "GLOB" },
  exclude: { short: "E", hint: "GLOB" },
  types: { short: "t", aliases: ["type"], hint: "KIND" },
  // rg's -t/--type is --lang here: -t is fd's entry kind (f, d, l…). rg's --type-not (-T) and --type-add keep
  // rg's spelling; rg's `-t py` is a usage error naming --lang (surface/cli/foreign.ts).
  file_types: { long: "lang", aliases: ["file-type"], hint: "NAME" },
  file_types_not: { long: "type-not", short: "T", aliases: ["lang-not"], hint: "NAME" },
  type_add: { long: "type-add", hint: "NAME:GLOB" },
  min_size: { hint: "SIZE", once: "give the larger minimum, or --size, which takes several" },
  max_size: { hint: "SIZE", once: "give the smaller maximum, or --size, which takes several" },
  size: { hint: "SIZE" },
  // fd's spellings of the same filters.
  newer_than: { aliases: ["changed-within"], hint: "WHEN", once: "give the later time" },
  older_than: { aliases: ["changed-before"], hint: "WHEN", once: "give the earlier time" },
  // fd's -e on every walking operation (grep gives -e to its patterns, as rg and grep do).
  extensions: { long: "extension", short: "e", hint: "EXT" },
  newer_than_file: { hint: "FILE", once: "give the newer file" },
  // Repeated --perm tests are AND'd, as GNU find's (#37); the other predicates below hold one value each.
  perm: { hint: "MODE" },
  // Not --encoding: grep's --encoding says how to decode; this selects files by what they are saved in (#37).
  saved_as: { hint: "ENC" },
  uid: { once: "an entry has one owner" },
  gid: { once: "an entry has one group" },
  links: { long: "link", hint: "WHICH" },
  nlink: { long: "links", hint: "N", once: "give one link count" },
  max_depth: { short: "d", hint: "N", once: "give one maximum depth" },
  min_depth: { hint: "N", once: "give one minimum depth" },
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

/** rg's --type-list: prints the file types and their globs (with --type-add applied) and exits. */
export const TYPE_LIST_FLAG: Readonly<Record<string, PresentationFlag>> = {
  type_list: {
    type: "boolean",
    description: "Print the file types (--lang, --type-not) with their globs, and exit (rg's --type-list).",
  },
};

/** rg's and fd's -u/--unrestricted on the walking operations: -u (and -uu) is --no-ignore with hidden entries. */
export const UNRESTRICTED_FLAG: Readonly<Record<string, PresentationFlag>> = {
  unrestricted: {
    type: "boolean",
    short: "u",
    description:
      "Search what ignore rules leave out: -u (and -uu) is --no-ignore --hidden, as rg's -uu and fd's -u.",
    sets: [{ respect_gitignore: false, hidden: true }],
  },
};
