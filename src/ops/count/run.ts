/*! count: plan → records, in walk order (lcount and tsize run here too). Totals cover the whole query: after a
 * bound stops the listing, the rest is still counted without output; a cursor resumes the listing only.
 * It never reads a file itself: engine/lines.ts does. */

import { type ErrorInfo, RglobError } from "../../contract/errors.ts";
import { breakdownKey } from "../../engine/languages.ts";
import {
  type CountOutcome,
  LineCounter,
  type LineCounterOptions,
  type TextWidth,
} from "../../engine/lines.ts";
import { compileWalk, gitOf } from "../../engine/plan.ts";
import type { RunContext } from "../../engine/run.ts";
import { tick, yielder } from "../../engine/run.ts";
import { compareNames, type Entry, walk } from "../../engine/walk.ts";
import { platform } from "../../platform/platform.ts";
import type { LcountInput } from "../lcount/schema.ts";
import type { Emitted } from "../operation.ts";
import type { FileSize, TsizeInput } from "../tsize/schema.ts";
import { classifyLines } from "./classify.ts";
import { type CountStage, countPipeline, type Item } from "./pipeline.ts";
import type { CountFile, CountGroup, CountInput, CountTotals } from "./schema.ts";

/** Records handed to the dispatcher at once (one await per batch instead of one per record). */
const BATCH = 256;

/** Bytes at the start of a file searched for a NUL byte (binary detection). */
const BINARY_PROBE = 8192;

/**
 * Returns the unit width of an encoding label.
 * @param label an encoding label ("utf-8", "latin1", "utf-16le", …)
 * @returns "bytes" for ASCII-compatible encodings, else the UTF-16 byte order
 * @throws RglobError BAD_PREDICATE for an unknown label
 */
function widthOfEncoding(label: string): TextWidth {
  let name: string;
  try {
    name = new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]).encoding;
  } catch {
    throw new RglobError("BAD_PREDICATE", `encoding: '${label}' is not a known encoding`);
  }
  return name === "utf-16le" ? "utf-16le" : name === "utf-16be" ? "utf-16be" : "bytes";
}

/**
 * Tells whether a walk key comes after another (walk order: root index, then path components by code point,
 * a directory before its contents).
 * @param key a key "root:rel"
 * @param after the key to compare with
 * @returns true when key is strictly after `after`
 */
export function keyAfter(key: string, after: string): boolean {
  const ca = key.indexOf(":");
  const cb = after.indexOf(":");
  const ra = Number(key.slice(0, ca));
  const rb = Number(after.slice(0, cb));
  if (ra !== rb) return ra > rb;
  const pa = key.slice(ca + 1).split("/");
  const pb = after.slice(cb + 1).split("/");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = compareNames(pa[i] as string, pb[i] as string);
    if (c !== 0) return c > 0;
  }
  return pa.length > pb.length;
}

/**
 * Pulls walk entries, maps each to a record (or null), and yields the records after the cursor in batches (one
 * await per batch); once the consumer stops pulling, the remaining entries are still mapped (for exact totals)
 * but not yielded. `map` reports per-path problems through `report`: a batch is handed over before a problem
 * is passed on, so records and error records keep walk order in the output.
 */
async function* drive<R extends object>(
  walkFrom: (ctx: RunContext) => Iterator<Entry>,
  ctx: RunContext,
  map: (e: Entry, report: (info: ErrorInfo) => void) => R | null,
  kind: string,
): AsyncGenerator<Emitted[]> {
  const resume = ctx.resumeAfter;
  let emitting = resume === null;
  const due = yielder(128);
  const problems: ErrorInfo[] = [];
  const report = (info: ErrorInfo): void => {
    problems.push(info);
  };
  // The walker's own problems (an unreadable directory) queue up the same way.
  const entries = walkFrom(Object.assign(Object.create(ctx) as RunContext, { error: report }));
  let batch: Emitted[] = [];
  let finished = false;
  try {
    for (let r = entries.next(); !r.done; r = entries.next()) {
      const e = r.value;
      const rec = map(e, report);
      if (problems.length > 0) {
        if (batch.length > 0) {
          const out = batch;
          batch = [];
          yield out;
        }
        for (const p of problems) ctx.error(p);
        problems.length = 0;
      }
      if (!emitting && keyAfter(e.key, resume as string)) emitting = true;
      if (rec !== null && emitting) batch.push({ kind, record: rec, key: e.key });
      if (batch.length >= BATCH || due()) {
        if (batch.length > 0) {
          const out = batch;
          batch = [];
          yield out;
        }
        await tick();
      }
    }
    if (batch.length > 0) yield batch;
    finished = true;
  } finally {
    if (!finished) {
      for (let r = entries.next(); !r.done && !ctx.shouldStop(); r = entries.next()) {
        map(r.value, report);
        for (const p of problems) ctx.error(p);
        problems.length = 0;
        if (due()) await tick();
      }
    }
  }
}

/**
 * Runs count (and lcount, which is count with a required pattern: the same selection, the regular files, so a
 * directory or a symlink its patterns match is an entry, not a file to count, as for tokei; -L counts a link as
 * the file it leads to, as wc does).
 * @param input validated count or lcount input
 * @param ctx the run context
 * @yields batches of "file" records (CountFile)
 */
export async function* runCountLines(
  input: CountInput | LcountInput,
  ctx: RunContext,
): AsyncGenerator<Emitted[]> {
  const width = widthOfEncoding(input.encoding);
  const { plan, rootErrors } = compileWalk(input, { filesOnly: true, ...gitOf(ctx), typeRejects: "keep" });
  const walker = ctx.warm?.walker(plan) ?? null;
  const by = "by" in input ? input.by : undefined;
  for (const e of rootErrors) ctx.error(e);
  const options: LineCounterOptions = { binaryProbe: BINARY_PROBE, width, confine: plan.confine };
  const counter = new LineCounter(options);
  const totals: CountTotals = {
    files: 0,
    lines: 0,
    bytes: 0,
    non_blank: 0,
    code: 0,
    comment: 0,
    docstring: 0,
    blank: 0,
    binary_files: 0,
    binary_bytes: 0,
  };
  // A docstring line is a comment line (cloc's convention) unless docstrings=code (tokei's); `docstring` counts
  // them either way (docs/decisions/0042-docstrings.md).
  const docsAsCode = input.docstrings === "code";
  const groups = new Map<string, CountGroup>();
  const { no_empty: noEmpty, no_comments: noComments } = input;
  const finish = (item: Item, out: CountOutcome, report: (info: ErrorInfo) => void): CountFile | null => {
    const e = item.e as Entry;
    if (out.kind === "error") {
      ctx.read(out.bytes);
      report(out.info);
      return null;
    }
    if (out.kind === "binary") {
      ctx.read(out.bytes);
      totals.binary_files++;
      // Their sizes are said beside them (#37: `0 bytes; 5 binary files skipped` left 3.7 MB unaccounted).
      totals.binary_bytes += e.stats()?.size ?? 0;
      report({
        code: "BINARY",
        message: "binary file (NUL byte in the first 8 KiB); not counted",
        path: e.abs,
      });
      return null;
    }
    const c = out.counts;
    // A name of no known language takes the one its `#!` line names (engine/lines.ts), as tokei and cloc do.
    const lang = item.lang ?? c.shebang;
    ctx.read(c.bytes);
    const code = docsAsCode ? c.code + c.docstring : c.code;
    let lines = c.lines;
    if (noEmpty) lines -= c.lines - c.nonBlank;
    if (noComments) lines -= c.nonBlank - code;
    const rec: CountFile = {
      path: e.abs,
      relative_path: e.rel,
      lines,
      bytes: c.bytes,
      non_blank: c.nonBlank,
      code,
      comment: c.nonBlank - code,
      blank: c.lines - c.nonBlank,
      language: lang?.name ?? null,
    };
    if ("classify" in input && input.classify === true) {
      if (width === "bytes" && c.bytes <= CLASSIFY_MAX) {
        const text = readText(e.abs, plan.confine);
        if (text !== null) {
          const view = classifyLines(text, lang, e.abs, NOTES_MAX, docsAsCode);
          rec.line_classes = view.classes;
          rec.line_notes = view.notes;
        }
      }
    }
    totals.files++;
    totals.lines += lines;
    totals.bytes += c.bytes;
    totals.non_blank += c.nonBlank;
    totals.code += code;
    totals.comment += rec.comment;
    totals.docstring += c.docstring;
    totals.blank += rec.blank;
    if (by !== undefined) {
      const key = breakdownKey(by, e.rel, e.name, rec.language);
      let g = groups.get(key);
      if (!g) {
        g = { key, files: 0, lines: 0, bytes: 0, non_blank: 0, code: 0, comment: 0, docstring: 0, blank: 0 };
        groups.set(key, g);
      }
      g.files++;
      g.lines += lines;
      g.bytes += c.bytes;
      g.non_blank += c.nonBlank;
      g.code += code;
      g.comment += rec.comment;
      g.docstring += c.docstring;
      g.blank += rec.blank;
    }
    return rec;
  };
  const stage: CountStage = {
    threads: "threads" in input ? (input.threads as number | undefined) : undefined,
    // A server's remembered walk when there is one (docs/decisions/0028-warm-index.md).
    walk: (c) => walker?.(c) ?? walk(plan, c),
    finish,
    counter,
    options,
    resumeAfter: ctx.resumeAfter,
    keyAfter,
  };
  try {
    yield* countPipeline(stage, ctx);
  } finally {
    counter.release();
    ctx.summary("totals", totals);
    ctx.summary("by", by ?? null);
    ctx.summary(
      "breakdown",
      by === undefined
        ? null
        : [...groups.values()].sort((a, b) => b.lines - a.lines || compareNames(a.key, b.key)),
    );
  }
}

/** The largest file whose lines classify shows, and the most notes it gives per file. */
const CLASSIFY_MAX = 16 * 1024 * 1024;
const NOTES_MAX = 200;

/**
 * Reads a whole file as UTF-8 text (a byte order mark dropped), for classify.
 * @param abs its path
 * @param confine what it must be (the walk plan's)
 * @returns its text, or null when it cannot be read (count reported that already)
 */
function readText(abs: string, confine: Parameters<typeof platform.open>[1]): string | null {
  let fd: number;
  try {
    fd = platform.open(abs, confine);
  } catch {
    return null;
  }
  try {
    const parts: Buffer[] = [];
    for (;;) {
      const buf = Buffer.alloc(1 << 16);
      const k = platform.read(fd, buf, buf.length, null);
      if (k <= 0) break;
      parts.push(buf.subarray(0, k));
    }
    const text = Buffer.concat(parts).toString("utf8");
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return null;
  } finally {
    try {
      platform.close(fd);
    } catch {}
  }
}

const UNIT_POWER = { kb: 1, mb: 2, gb: 3, tb: 4 } as const;

/** The --type letters tsize takes: f, and l for the links themselves; x and e AND'd on top, as for count. */
const TSIZE_TYPES = new Set(["f", "l", "x", "e"]);

/**
 * Runs tsize: the sizes of the regular files matching the patterns (from metadata; no contents are read), and with
 * `-t l` of the symlinks themselves, as `du -b` and `stat -c %s` give a link's own size (the length of its text).
 * @param input validated tsize input
 * @param ctx the run context
 * @yields batches of "file" records (FileSize)
 * @throws RglobError BAD_PREDICATE for a --type letter other than f, l, x and e
 */
export async function* runTsize(input: TsizeInput, ctx: RunContext): AsyncGenerator<Emitted[]> {
  const other = input.types.filter((t) => !TSIZE_TYPES.has(t));
  if (other.length > 0) {
    throw new RglobError(
      "BAD_PREDICATE",
      `types: tsize sizes regular files (-t f) and symlinks themselves (-t l), not '${other.join(",")}' (a directory's size is its files': tsize --base DIR)`,
    );
  }
  // Regular files only, as count selects them (#37): a directory or a symlink the patterns match is an entry, not
  // a file to size, and is no error (du does not fail on a link either; -L sizes what a link leads to). `-t l` asks
  // for the links themselves (one that leads nowhere under -L, as find -L -type l lists them).
  const links = input.types.includes("l");
  const { plan, rootErrors } = compileWalk(input, { filesOnly: !links, ...gitOf(ctx) });
  const walker = ctx.warm?.walker(plan) ?? null;
  for (const e of rootErrors) ctx.error(e);
  const totals = { files: 0, bytes: 0 };
  const map = (e: Entry, report: (info: ErrorInfo) => void): FileSize | null => {
    // A link not followed (or one that leads nowhere) has itself as target: stats() are the link's own.
    const link = e.target === "symlink";
    if (e.target !== "file" && !link) return null;
    const st = e.stats();
    if (st === null) {
      report({ code: "UNREADABLE", message: "cannot read its metadata; skipped", path: e.abs });
      return null;
    }
    totals.files++;
    totals.bytes += st.size;
    return {
      path: e.abs,
      relative_path: e.rel,
      bytes: st.size,
      ...(link ? { entry_type: "symlink" as const } : {}),
    };
  };
  try {
    yield* drive((c) => walker?.(c) ?? walk(plan, c), ctx, map, "file");
  } finally {
    ctx.summary("totals", totals);
    ctx.summary("unit", input.unit);
    ctx.summary("total_size", totals.bytes / 1024 ** UNIT_POWER[input.unit]);
  }
}
