/*! tsize: the registry entry of the total-size alias of the original CLI (`Total size: X.XX MiB (N bytes)`). CLI
 * only. */
import { defineOperation, lazyRun, READ_ONLY } from "../operation.ts";
import { WALK_CLI_FLAGS } from "../walk-cli.ts";

/** The tsize operation (an alias of count that reads metadata only). */
export const tsize = defineOperation({
  id: "tsize",
  summary:
    "Total size of the files matching PATTERN (alias of count; prints `Total size: X.XX MiB (N bytes)`).",
  description:
    "The total-size command of the original CLI, kept as an alias of count that reads no contents: per-file sizes and the total in `unit` (powers of 1024: kb, mb, gb, tb are printed KiB, MiB, GiB, TiB), with the exact bytes. It sizes the regular files the query selects, as count does: directories and symlinks are entries, not files to size, and are left out without an error (with follow_symlinks a link is sized as the file it leads to). `-t l` sizes the symlinks themselves, as `du -b` and `stat -c %s` do: a link's own size is the length of its target text (`-t f -t l` sizes both; under follow_symlinks `-t l` is the links that lead nowhere); a FileSize record of a link has entry_type symlink. Other --type letters are refused: a directory's size is its files' (`tsize --base DIR`). No PATTERN sizes every file; the selection flags (-e, --lang, -t f, --size…) work as in count. Prefer count (totals.bytes).",
  models: async () => {
    const m = await import("./schema.ts");
    return { input: m.TsizeInputSchema, output: m.SizeResultSchema, records: { file: m.FileSizeSchema } };
  },
  cli: {
    synopsis: "[PATTERN...]",
    operands: ["patterns..."],
    flags: { ...WALK_CLI_FLAGS, unit: { short: "u", hint: "UNIT" } },
  },
  mcpTool: null,
  agentDefaults: { limit: 50, max_output_bytes: 60_000, timeout_seconds: 30, strict_base: true },
  annotations: READ_ONLY,
  examples: [
    {
      description: "Total size of the NetCDF files, in MiB and bytes",
      cli: "rglob tsize -e nc",
      input: { extensions: ["nc"] },
    },
    {
      description: "Total size of the logs in GiB",
      cli: "rglob tsize '*.log' --unit gb",
      input: { patterns: ["*.log"], unit: "gb" },
    },
  ],
  run: lazyRun(async () => (await import("../count/run.ts")).runTsize),
});
