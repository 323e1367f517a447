/*! dupes: the registry entry (docs, CLI spelling, MCP tool, examples). */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { UNRESTRICTED_FLAG, WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The dupes operation. */
export const dupes = defineOperation({
  id: "dupes",
  summary:
    "Find groups of files with identical contents (SHA-256 digest); empty files are left out by default.",
  description:
    "Find duplicate files: files are grouped by size, then by a hash of their first and last 4 KiB, then by a full-content digest (reported as 'sha256:…'). Every path of a group is listed; hard links of one file are marked in hard_links and counted once (files, wasted_bytes); a file with no copy but its own hard links is counted in hard_link_only_files (listed with include_hard_links); symlinks are not followed unless follow_symlinks; empty files are skipped unless include_empty. Groups come most wasted bytes first; the summary's groups, duplicate_files and wasted_bytes cover the whole query. Respects .gitignore/.ignore; hidden entries (dot names) are included (hidden=false skips them) and VCS directories (.git, .hg, .svn, .bzr, .jj, .sl) are never listed. When `truncated` is true and `next_cursor` is set, call again with `cursor` for the next groups.",
  models: async () => {
    const m = await import("./schema.ts");
    return {
      input: m.DupesInputSchema,
      output: m.DuplicateSearchResultSchema,
      records: { duplicate: m.DuplicateSchema },
    };
  },
  cli: {
    synopsis: "[GLOB...]",
    operands: ["patterns..."],
    flags: { ...WALK_CLI_FLAGS },
    presentation: UNRESTRICTED_FLAG,
  },
  mcpTool: "find_duplicates",
  agentDefaults: { limit: 50, max_output_bytes: 60_000, timeout_seconds: 60, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Duplicate files under the current directory",
      question: "Identical files, and the bytes the extra copies waste (hard links apart)?",
      cli: "rglob dupes",
      input: {},
    },
    {
      description: "Duplicates among ignored files too, and files with hard links only, as groups",
      cli: "rglob dupes -u --include-hard-links",
      input: { respect_gitignore: false, hidden: true, include_hard_links: true },
    },
    {
      description:
        "Which of our .scss and .js files (not ignored) have an identical copy anywhere, ignored places and other names included?",
      cli: "rglob dupes -e scss -e js --anywhere",
      input: { extensions: ["scss", "js"], anywhere: true },
    },
    {
      description: "Duplicate images of 1 MiB (1M = 1048576 bytes) or more, as JSON",
      cli: "rglob dupes '*.png' '*.jpg' --min-size 1M --json",
      input: { patterns: ["*.png", "*.jpg"], min_size: "1M" },
    },
  ],
  run: lazyRun(async () => (await import("./run.ts")).runDupes),
});
