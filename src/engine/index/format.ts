/*! Engine, persisted index: the index file's format, in one place (after zoekt's index/toc.go). A file is a
 * 32-byte prefix, a JSON header, then its sections; the header holds a table of contents, one row per section
 * (name, kind, version, offset, length), which the writer fills from SECTIONS and every reader finds sections by:
 * the loader (persist.ts) and the stat worker's job (stat-job.ts). What each section holds, how long it must be
 * and how it is aligned is said once, below. docs/decisions/0040-walk-columns-and-index-sections.md. */
import { platform } from "../../platform/platform.ts";
import { STAT_WORDS } from "../../platform/stat-words.ts";

/**
 * The format's version (in the prefix and the header): a file of another version is not read, and the index is
 * built again (`rglob index`, or a warm server's build). 5: the header holds the table of contents. 6: the
 * 4-gram bitsets of the large files (`quadids`, `quads`).
 */
export const INDEX_FORMAT = 6;
const MAGIC = "RGLOBIDX";
/** Bytes before the header's JSON: magic (8), format (u32), JSON length (u32), the body's hash (16 hex digits). */
export const PREFIX = 32;

/** How a section's bytes are read: little-endian typed arrays, UTF-8 text (NUL between items), or JSON. */
type SectionKind = "u32" | "i32" | "u8" | "text" | "json";

/** The header's counts that size the sections (persist.ts's IndexHeader holds them). */
interface SectionCounts {
  readonly files: number;
  readonly trigrams: number;
  readonly path_bytes: number;
  readonly posting_bytes: number;
  /** Files with a 4-gram bitset (quads.ts) and the bytes of those bitsets. */
  readonly quad_files: number;
  readonly quad_bytes: number;
  readonly walk: WalkSectionCounts | null;
}

/** The recorded walk's counts that size its sections (persist.ts's stored walk header adds its key). */
export interface WalkSectionCounts {
  readonly entries: number;
  readonly steps: number;
  /** Paths whose stats it depends on (directories listed, ignore, config and .git files read or looked for). */
  readonly witnessed: number;
  readonly rel_bytes: number;
  readonly witness_bytes: number;
  readonly payload_bytes: number;
}

interface SectionSpec {
  readonly name: string;
  readonly kind: SectionKind;
  /** The section's own version: a file whose row says another is not read. */
  readonly version: number;
  /** The boundary its offset is on (typed arrays are viewed in place). */
  readonly align: number;
  /** Its length in bytes, from the header's counts. */
  readonly bytes: (c: SectionCounts) => number;
}

/**
 * The sections of an index file, in the order they are written. The recorded walk's (`walk.*` counts; none when
 * no walk is kept) are the columns of src/engine/walk-columns.ts.
 *
 * | section   | kind | align | bytes                            | holds                                                    |
 * |-----------|------|-------|----------------------------------|----------------------------------------------------------|
 * | facts     | u32  | 8     | files × STAT_WORDS × 4           | per file id: size, mtime, ctime (ns), inode (stat words) |
 * | keys      | u32  | 4     | trigrams × 4                     | exact-case trigram keys, ascending                       |
 * | starts    | u32  | 4     | (trigrams + 1) × 4               | where each key's list starts in `data`, then the end     |
 * | flags     | u8   | 1     | files                            | per file id: changed since indexed (1), holds K or ſ (2), |
 * |           |      |       |                                  | other hard links when read (4)                           |
 * | paths     | text | 1     | path_bytes                       | relative paths in id order (paths-section.ts)            |
 * | data      | u8   | 1     | posting_bytes                    | posting lists: file ids as delta varints                 |
 * | quadids   | u32  | 4     | quad_files × 8                   | per large file: its id and its bitset's bytes, ascending |
 * | quads     | u8   | 8     | quad_bytes                       | the large files' 4-gram bitsets, end to end (quads.ts)   |
 * | seen      | u32  | 8     | walk.witnessed × STAT_WORDS × 4  | recorded walk: stat words of each path it depends on     |
 * | args      | i32  | 4     | walk.steps × 4                   | recorded walk: each step's argument                      |
 * | ids       | i32  | 4     | walk.entries × 4                 | recorded walk: each entry's file id (-1: not indexed)    |
 * | ops       | u8   | 1     | walk.steps                       | recorded walk: each step's kind                          |
 * | types     | u8   | 1     | walk.entries                     | recorded walk: each entry's type code                    |
 * | follow    | u8   | 1     | walk.witnessed                   | recorded walk: how each witnessed path was stat'ed       |
 * | rels      | text | 1     | walk.rel_bytes                   | recorded walk: relative paths ("" for an indexed file)   |
 * | witness   | text | 1     | walk.witness_bytes               | recorded walk: the witnessed paths                       |
 * | payloads  | json | 1     | walk.payload_bytes               | recorded walk: its calls and skip counts                 |
 */
export const SECTIONS = [
  { name: "facts", kind: "u32", version: 1, align: 8, bytes: (c) => c.files * STAT_WORDS * 4 },
  { name: "keys", kind: "u32", version: 1, align: 4, bytes: (c) => c.trigrams * 4 },
  { name: "starts", kind: "u32", version: 1, align: 4, bytes: (c) => (c.trigrams + 1) * 4 },
  // Version 2: bit 4, other hard links when read (a file of version 1 does not say, and is not read).
  { name: "flags", kind: "u8", version: 2, align: 1, bytes: (c) => c.files },
  { name: "paths", kind: "text", version: 1, align: 1, bytes: (c) => c.path_bytes },
  { name: "data", kind: "u8", version: 1, align: 1, bytes: (c) => c.posting_bytes },
  { name: "quadids", kind: "u32", version: 1, align: 4, bytes: (c) => c.quad_files * 8 },
  { name: "quads", kind: "u8", version: 1, align: 8, bytes: (c) => c.quad_bytes },
  {
    name: "seen",
    kind: "u32",
    version: 1,
    align: 8,
    bytes: (c) => (c.walk?.witnessed ?? 0) * STAT_WORDS * 4,
  },
  { name: "args", kind: "i32", version: 1, align: 4, bytes: (c) => (c.walk?.steps ?? 0) * 4 },
  { name: "ids", kind: "i32", version: 1, align: 4, bytes: (c) => (c.walk?.entries ?? 0) * 4 },
  { name: "ops", kind: "u8", version: 1, align: 1, bytes: (c) => c.walk?.steps ?? 0 },
  { name: "types", kind: "u8", version: 1, align: 1, bytes: (c) => c.walk?.entries ?? 0 },
  { name: "follow", kind: "u8", version: 1, align: 1, bytes: (c) => c.walk?.witnessed ?? 0 },
  { name: "rels", kind: "text", version: 1, align: 1, bytes: (c) => c.walk?.rel_bytes ?? 0 },
  { name: "witness", kind: "text", version: 1, align: 1, bytes: (c) => c.walk?.witness_bytes ?? 0 },
  { name: "payloads", kind: "json", version: 1, align: 1, bytes: (c) => c.walk?.payload_bytes ?? 0 },
] as const satisfies readonly SectionSpec[];

type SectionName = (typeof SECTIONS)[number]["name"];

/** A row of the table of contents as the header holds it: name, kind, version, offset (from the file's
 * start), length in bytes. */
export type TocRow = readonly [
  name: SectionName,
  kind: SectionKind,
  version: number,
  offset: number,
  length: number,
];

/** Where each section lies in a file (offsets from the file's start), and where the file ends. */
export interface Toc {
  readonly offset: Readonly<Record<SectionName, number>>;
  readonly length: Readonly<Record<SectionName, number>>;
  readonly end: number;
}

/** Lays the sections out after a header of `jsonLength` bytes. */
function laidOut(counts: SectionCounts, jsonLength: number): { rows: TocRow[]; end: number } {
  const rows: TocRow[] = [];
  let end = PREFIX + jsonLength;
  for (const s of SECTIONS) {
    end = (end + s.align - 1) & ~(s.align - 1);
    const length = s.bytes(counts);
    rows.push([s.name, s.kind, s.version, end, length]);
    end += length;
  }
  return { rows, end };
}

/** The bytes of an array, as written. */
const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Whether a string holds a lone surrogate (a name's undecodable byte): its UTF-8 would not read back as it. */
export const notUtf8Exactly = (s: string): boolean => /\p{Cs}/u.test(s);

/**
 * A text section's items (NUL between them), encoded as UTF-8 straight into the file's bytes when it is written:
 * no joined string and no encoded copy is made beside the file (on 277k paths those were 80 MB at the server's
 * peak). The items must be UTF-8 exactly (notUtf8Exactly false).
 */
export class JoinedText {
  /** Its length in UTF-8 bytes, NULs included. */
  readonly byteLength: number;

  /** @param items the items, in order */
  constructor(private readonly items: readonly string[]) {
    let n = items.length > 0 ? items.length - 1 : 0;
    for (const item of items) n += Buffer.byteLength(item, "utf8");
    this.byteLength = n;
  }

  /** Writes the items into `out` from `at` (byteLength bytes). */
  writeInto(out: Buffer, at: number): void {
    let p = at;
    for (let i = 0; i < this.items.length; i++) {
      if (i > 0) out[p++] = 0;
      p += out.write(this.items[i] as string, p, "utf8");
    }
  }
}

/**
 * Writes an index file's bytes: the prefix, the header with its table of contents (key `sections`), the
 * sections, and the hash of everything after the prefix.
 * @param header the header (its counts size the sections)
 * @param sections each section's bytes, or its text items (absent: empty; its length must be what the counts say)
 * @returns the file's bytes
 * @throws Error when a section's length is not what the header's counts say (a bug, not bad input)
 */
export function writeIndexBytes(
  header: SectionCounts & Readonly<Record<string, unknown>>,
  sections: Partial<Record<SectionName, ArrayBufferView | JoinedText>>,
): Buffer {
  // The table's offsets depend on the header's length, which depends on the offsets' digits: laid out with the
  // header's length until it stays the same (twice at most: a longer header moves every offset by as much).
  let json = Buffer.alloc(0);
  let layout = laidOut(header, 0);
  for (let i = 0; i < 4; i++) {
    const next = Buffer.from(JSON.stringify({ ...header, sections: layout.rows }), "utf8");
    const same = next.length === json.length;
    json = next;
    if (same) break;
    layout = laidOut(header, json.length);
  }
  const out = Buffer.alloc(layout.end);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(INDEX_FORMAT, 8);
  out.writeUInt32LE(json.length, 12);
  json.copy(out, PREFIX);
  for (const [name, , , offset, length] of layout.rows) {
    const data = sections[name];
    const got = data === undefined ? 0 : data.byteLength;
    if (got !== length) throw new Error(`index section ${name}: ${got} bytes, the header says ${length}`);
    if (data instanceof JoinedText) data.writeInto(out, offset);
    else if (data !== undefined) out.set(bytesOf(data), offset);
  }
  out.write(platform.hash64(out.subarray(PREFIX)), 16, "latin1");
  return out;
}

/**
 * Checks the prefix of an index file's first bytes (magic, format) and returns the length of its JSON header.
 * @param b the bytes
 * @param length how many of them were read
 * @returns the header's length, or why the file is not used
 */
export function headerLength(b: Uint8Array, length: number): number | string {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (length < PREFIX || buf.toString("latin1", 0, 8) !== MAGIC) return "not an rglob index";
  const format = buf.readUInt32LE(8);
  if (format !== INDEX_FORMAT) return `format ${format}, not ${INDEX_FORMAT}`;
  const jsonLen = buf.readUInt32LE(12);
  return PREFIX + jsonLen > length ? "truncated" : jsonLen;
}

/** The body's hash as a file's prefix holds it. */
export function prefixHash(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, PREFIX).toString("latin1", 16, 32);
}

/** Whether a file's bytes hash to what its prefix says. */
export function hashHolds(b: Uint8Array): boolean {
  return prefixHash(b) === platform.hash64(b.subarray(PREFIX));
}

/**
 * Reads a header's table of contents and checks it against SECTIONS and the header's counts: every section
 * there, of its kind and version, aligned, as long as the counts say, in order after the header and within
 * the file.
 * @param header the parsed header
 * @param jsonLength the header's length in bytes
 * @param fileLength the file's length (the last section ends there)
 * @returns where the sections lie, or why the file is not used
 */
export function tocOf(
  header: SectionCounts & { readonly sections?: unknown },
  jsonLength: number,
  fileLength: number,
): Toc | string {
  const rows = header.sections;
  if (!Array.isArray(rows) || rows.length !== SECTIONS.length) return "corrupt table of sections";
  const offsets = {} as Record<SectionName, number>;
  const lengths = {} as Record<SectionName, number>;
  let end = PREFIX + jsonLength;
  for (let i = 0; i < SECTIONS.length; i++) {
    const s = SECTIONS[i] as SectionSpec;
    const row = rows[i] as unknown;
    if (!Array.isArray(row) || row.length !== 5 || row[0] !== s.name) return "corrupt table of sections";
    const [, kind, version, offset, length] = row as [string, unknown, unknown, number, number];
    if (kind !== s.kind) return `section ${s.name} of kind ${String(kind)}, not ${s.kind}`;
    if (version !== s.version) return `section ${s.name} version ${String(version)}, not ${s.version}`;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || length < 0 || offset < end)
      return "corrupt table of sections";
    if (offset % s.align !== 0 || length !== s.bytes(header)) return "corrupt sections";
    end = offset + length;
    if (end > fileLength) return "truncated";
    offsets[s.name as SectionName] = offset;
    lengths[s.name as SectionName] = length;
  }
  if (end !== fileLength) return "truncated";
  return { offset: offsets, length: lengths, end };
}
