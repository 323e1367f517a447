/*! Shared by the metadata operations: turning walk entries into FileMatch records, and a cooperative yield
 * so that timers, cancellation and output flushing run during a long synchronous walk. */
import type { EntryTypeName, FileMatch } from "../contract/records.ts";
import { kindsOf } from "../engine/filter/type.ts";
import { type LinkEndType, type LinkInfo, linkOf } from "../engine/links.ts";
import type { Entry } from "../engine/walk.ts";
import { hasRawBytes } from "../platform/names.ts";
import { RECORD_JSON } from "../sink/sink.ts";
import { wireRecord } from "./wire-names.ts";

const EPOCH = new Date(0).toISOString();

/** Years 1970..9999 format as fixed-width ISO strings; anything else goes through Date. */
const ISO_LIMIT = 253402300800000;
let lastDay = Number.NaN;
let lastDate = "";

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * Returns `new Date(ms).toISOString()` without creating a Date for the common range (the walk formats one
 * mtime per record; Date construction and formatting cost more than the stat in profiles). Days repeat
 * across a tree, so the date part of the last day is reused.
 * @param ms milliseconds since the epoch (fractions are truncated, as Date does)
 * @returns the ISO 8601 string, as Date#toISOString
 */
export function isoOf(ms: number): string {
  const t = Math.trunc(ms);
  if (!(t >= 0 && t < ISO_LIMIT)) return new Date(ms).toISOString();
  const day = Math.floor(t / 86400000);
  let rem = t - day * 86400000;
  if (day !== lastDay) {
    // Civil date from days since 1970-01-01 (proleptic Gregorian), after H. Hinnant's days_from_civil inverse.
    const z = day + 719468;
    const era = Math.floor(z / 146097);
    const doe = z - era * 146097;
    const yoe = Math.floor(
      (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
    );
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const m = mp < 10 ? mp + 3 : mp - 9;
    const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    lastDay = day;
    lastDate = `${y}-${pad2(m)}-${pad2(d)}T`;
  }
  const h = Math.floor(rem / 3600000);
  rem -= h * 3600000;
  const mi = Math.floor(rem / 60000);
  rem -= mi * 60000;
  const sec = Math.floor(rem / 1000);
  const milli = rem - sec * 1000;
  return `${lastDate}${pad2(h)}:${pad2(mi)}:${pad2(sec)}.${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

/**
 * The prototype of FileMatch records: empty but for a symbol-keyed serialiser that JSON.stringify, Object.keys,
 * spreading and equality never see. It lets the sinks write a record with a few string joins instead of
 * the generic JSON.stringify, which is several times slower on objects with getters.
 */
const FILE_MATCH_PROTO: object = Object.create(Object.prototype, {
  [RECORD_JSON]: {
    value(this: FileMatch, head = "{"): string {
      const link =
        this.link_target === undefined
          ? null
          : {
              target: this.link_target,
              exists: this.link_target_exists === true,
              endType: this.link_target_type ?? null,
              escapes: this.link_escapes === true,
              resolved: this.link_resolved ?? "",
            };
      return fileMatchText(
        head,
        this.path,
        this.relative_path,
        this.size,
        this.mtime,
        this.kinds,
        this.mode === undefined ? "" : `,"mode":"${this.mode}","uid":${this.uid},"gid":${this.gid}`,
        this.entry_type,
        link,
        this.encoding,
        this.eol,
      );
    },
  },
});

/** find with saved_as (#37): a file's encoding when saved_as names one, its line ends when it names those. */
interface SavedFields {
  readonly encoding?: string | undefined;
  readonly eol?: string | undefined;
}

/**
 * Adds the saved_as fields that are set, in the model's order.
 * @param rec the record being built
 * @param saved the fields
 */
function addSavedFields(rec: Record<string, unknown>, saved: SavedFields): void {
  if (saved.encoding !== undefined) rec.encoding = saved.encoding;
  if (saved.eol !== undefined) rec.eol = saved.eol;
}

/** A FileMatch's JSON text after `head` (`{`, or a JSONL line's `{"kind":"file",`), fields in the model's order. */
function fileMatchText(
  head: string,
  path: string,
  rel: string,
  size: number,
  mtime: string,
  kinds: readonly string[],
  owner: string,
  entryType: string,
  link: LinkInfo | null,
  encoding?: string,
  eol?: string,
): string {
  const enc = `${encoding === undefined ? "" : `,"encoding":"${encoding}"`}${eol === undefined ? "" : `,"eol":"${eol}"`}}`;
  const tail =
    link === null
      ? enc
      : `,"link_target":${jsonString(link.target)},"link_target_exists":${link.exists},"link_target_type":${link.endType === null ? "null" : `"${link.endType}"`},"link_escapes":${link.escapes},"link_resolved":${jsonString(link.resolved)}${enc}`;
  return `${head}"path":${jsonString(path)},"relative_path":${jsonString(rel)},"size":${size},"mtime":"${mtime}","kinds":${kinds.length === 0 ? "[]" : `["${kinds.join('","')}"]`}${owner},"entry_type":"${entryType}"${tail}`;
}

/**
 * Returns what an entry is itself, as records name it (an entry whose type could not be read counts as a file).
 * @param e the entry
 * @returns its entry_type
 */
export function entryTypeOf(e: Entry): EntryTypeName {
  return e.type === "unknown" ? "file" : e.type;
}

/**
 * Adds a symlink's facts (link_target, link_target_exists, link_target_type, link_escapes, link_resolved) to a record being built, for a symlink
 * entry whose link can be read.
 * @param rec the record
 * @param e its entry
 */
export function addLinkFields(rec: Record<string, unknown>, e: Entry): void {
  const link = linkOf(e);
  if (link === null) return;
  rec.link_target = link.target;
  rec.link_target_exists = link.exists;
  rec.link_target_type = link.endType;
  rec.link_escapes = link.escapes;
  rec.link_resolved = link.resolved;
}

/**
 * Returns the JSON text of an entry's FileMatch record after `head`, as its record's serialiser writes it, with
 * no record made (a sink writing walk entries: JSON and JSONL); when its path is not valid UTF-8, its wire
 * record instead (a lossy path and path_bytes, as the dispatcher gives it), for the sink's record route.
 * @param e the entry (its stats read, or read now)
 * @param head what comes before the fields
 * @returns the text, or the wire record
 */
export function fileMatchJsonOf(e: Entry, head: string): string | object {
  if (hasRawBytes(e.abs)) return wireRecord(fileMatchOf(e));
  const st = e.stats();
  return fileMatchText(
    head,
    e.abs,
    e.rel,
    st?.size ?? 0,
    st ? isoOf(st.mtimeMs) : EPOCH,
    kindsOf(e),
    st ? `,"mode":"${modeOf(st.mode)}","uid":${st.uid},"gid":${st.gid}` : "",
    entryTypeOf(e),
    linkOf(e),
  );
}

/**
 * Returns the permission bits of a mode as `stat -c %a` prints them: octal, setuid, setgid and sticky included,
 * the file type left out.
 * @param mode st_mode
 * @returns the octal text ("644", "4755")
 */
function modeOf(mode: number): string {
  return (mode & 0o7777).toString(8);
}

/** Characters JSON.stringify would escape in a string (surrogates included, to leave lone ones to it). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Returns JSON.stringify(s), skipping the generic encoder for the common string that needs no escape.
 * @param s a string
 * @returns its JSON text
 */
function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** A record whose entry's stats were already read (by a walk worker): plain data fields. */
class FileMatchData {
  readonly path: string;
  readonly relative_path: string;
  readonly size: number;
  readonly mtime: string;
  readonly kinds: FileMatch["kinds"];
  // Own fields in the model's order (undefined, so left out of JSON, when the stats cannot be read).
  readonly mode: string | undefined;
  readonly uid: number | undefined;
  readonly gid: number | undefined;
  readonly entry_type: EntryTypeName;
  declare readonly link_target?: string;
  declare readonly link_target_exists?: boolean;
  declare readonly link_target_type?: LinkEndType | null;
  declare readonly link_escapes?: boolean;
  declare readonly link_resolved?: string;
  declare readonly encoding?: string;
  declare readonly eol?: string;

  constructor(e: Entry, saved: SavedFields | undefined) {
    const st = e.stats();
    this.path = e.abs;
    this.relative_path = e.rel;
    this.size = st?.size ?? 0;
    this.mtime = st ? isoOf(st.mtimeMs) : EPOCH;
    this.kinds = kindsOf(e);
    this.mode = st ? modeOf(st.mode) : undefined;
    this.uid = st?.uid;
    this.gid = st?.gid;
    this.entry_type = entryTypeOf(e);
    addLinkFields(this as unknown as Record<string, unknown>, e);
    if (saved !== undefined) addSavedFields(this as unknown as Record<string, unknown>, saved);
  }
}

Object.defineProperty(FileMatchData.prototype, RECORD_JSON, {
  value: (FILE_MATCH_PROTO as Record<symbol, unknown>)[RECORD_JSON],
});

/**
 * Creates the FileMatch record of an entry. When the entry's stats were read already the record is plain
 * data. Otherwise `size`, `mtime`, `kinds`, `mode`, `uid` and `gid` are own enumerable getters that read
 * the entry's stats on first use (once; the entry caches them): JSON, JSONL, spreading and the library see a
 * plain record, while a consumer that prints only paths (the human find output) never pays for a stat. The
 * values are those at first access: sinks serialise right away; a library caller reading much later sees the
 * file as it is then (or size 0 and the epoch when it is gone).
 * @param e the entry
 * @param saved find with saved_as: the file's encoding and line ends, as asked (#37), the record's last fields
 *   but ignored_by
 * @returns the record (size 0 and the epoch when stats cannot be read)
 */
export function fileMatchOf(e: Entry, saved?: SavedFields): FileMatch {
  if (e.statted) return new FileMatchData(e, saved) as FileMatch;
  let mtime: string | undefined;
  let kinds: FileMatch["kinds"] | undefined;
  const rec = {
    __proto__: FILE_MATCH_PROTO,
    path: e.abs,
    relative_path: e.rel,
    get size(): number {
      return e.stats()?.size ?? 0;
    },
    get mtime(): string {
      if (mtime === undefined) {
        const st = e.stats();
        mtime = st ? isoOf(st.mtimeMs) : EPOCH;
      }
      return mtime;
    },
    get kinds(): FileMatch["kinds"] {
      kinds ??= kindsOf(e);
      return kinds;
    },
    // The owner and mode (#37): undefined, so left out of JSON, when the stats cannot be read.
    get mode(): string | undefined {
      const st = e.stats();
      return st ? modeOf(st.mode) : undefined;
    },
    get uid(): number | undefined {
      return e.stats()?.uid;
    },
    get gid(): number | undefined {
      return e.stats()?.gid;
    },
    entry_type: entryTypeOf(e),
  };
  addLinkFields(rec, e);
  if (saved !== undefined) addSavedFields(rec, saved);
  return rec as unknown as FileMatch;
}
