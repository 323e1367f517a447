/*! Filter: regular files by the encoding their head is saved in and by their line ends (`saved_as`, #37), named
 * as find's {encoding} and {eol} words and grep's `--encoding auto` name them (search/encoding.ts headEncoding,
 * ADR 0041; line ends: ADR 0048). The one place a file's head is read to name its encoding, and its whole text to
 * name its line ends: the predicate, explain, {encoding} and {eol} all call fileEncoding and fileEol. */
import { RglobError } from "../../contract/errors.ts";
import { type Confinement, platform } from "../../platform/platform.ts";
import { HEAD_BYTES, headEncoding } from "../search/encoding.ts";
import type { Entry } from "../walk-types.ts";

/** The names headEncoding gives, each with the names a `saved_as` value may use for it. */
const NAMES = [
  "utf-8",
  "utf-8+bom",
  "utf-16le",
  "utf-16le+bom",
  "utf-16be",
  "utf-16be+bom",
  "windows-1252",
  "binary",
] as const;

/** Other spellings of a name (lower case): Latin-1 is what WHATWG decodes as windows-1252. */
const ALIASES: Readonly<Record<string, string>> = {
  utf8: "utf-8",
  "latin-1": "windows-1252",
  latin1: "windows-1252",
  "iso-8859-1": "windows-1252",
  cp1252: "windows-1252",
  utf16: "utf-16",
  utf16le: "utf-16le",
  utf16be: "utf-16be",
};

/**
 * The encodings a `saved_as` value names: itself, and a name without `+bom` the files with a byte order mark
 * too (`utf-8` takes `utf-8+bom`); `utf-16` is either byte order.
 * @param value the value, without its '!'
 * @returns the names it takes
 * @throws RglobError BAD_PREDICATE for a name it does not know
 */
function namesOf(value: string): string[] {
  const low = value.trim().toLowerCase();
  const word = ALIASES[low] ?? low;
  const bom = word.endsWith("+bom");
  const stem = bom ? word.slice(0, -4) : word;
  const hits = NAMES.filter((n) => {
    const [enc, mark] = n.split("+") as [string, string | undefined];
    const sameStem = stem === "utf-16" ? enc.startsWith("utf-16") : enc === stem;
    return sameStem && (!bom || mark === "bom");
  });
  if (hits.length === 0) {
    const ascii = low === "ascii" || low === "us-ascii" ? " (ASCII text is utf-8)" : "";
    throw new RglobError(
      "BAD_PREDICATE",
      `saved_as: '${value}' is not an encoding rglob names${ascii}; the names are utf-8, utf-8+bom, utf-16, utf-16le, utf-16be (each +bom too), windows-1252 (latin-1) and binary, the line ends crlf, lf, mixed and none; a ! before one leaves it out`,
    );
  }
  return hits;
}

/** The line-end words (git ls-files --eol's): every line end CR LF, every one LF, both, no line end at all. */
const EOL_WORDS = ["crlf", "lf", "mixed", "none"] as const;

/** A compiled `saved_as`: a test of each dimension named (null: not named), and the values as given (explain). */
export interface SavedAs {
  /** The encoding test, or null when no value names an encoding. */
  readonly encoding: ((name: string) => boolean) | null;
  /** The line-end test (a text file's EOL_WORDS word), or null when no value names line ends. */
  readonly eol: ((word: string) => boolean) | null;
  readonly words: readonly string[];
}

/**
 * Compiles the values of one dimension: OR'd, a '!' value leaving its names out.
 * @param values the values, each with its '!'
 * @param namesOfValue the names a value (without '!') takes
 * @returns the test, or null when there is no value
 */
function oneDimension(
  values: readonly string[],
  namesOfValue: (value: string) => readonly string[],
  others: string,
): ((name: string) => boolean) | null {
  if (values.length === 0) return null;
  const keep = new Set<string>();
  const drop = new Set<string>();
  let anyKeep = false;
  for (const w of values) {
    const neg = w.startsWith("!");
    for (const n of namesOfValue(neg ? w.slice(1) : w)) (neg ? drop : keep).add(n);
    if (!neg) anyKeep = true;
  }
  if (drop.size > 0) drop.add("binary");
  // A selection that can keep nothing is a mistake, never an empty answer (#37: a trial's `utf-8+bom,!utf-8`
  // meant "BOM files, or files not in UTF-8" and found nothing, silently).
  if (anyKeep && [...keep].every((n) => drop.has(n))) {
    const kept = values.filter((w) => !w.startsWith("!")).join(",");
    const left = values.filter((w) => w.startsWith("!")).join(",");
    throw new RglobError(
      "BAD_PREDICATE",
      `saved_as: '${left}' leaves out all that '${kept}' keeps, so nothing can be selected: a '!' value leaves its files out, it does not add the others; name them instead (${others})`,
    );
  }
  return (name) => (!anyKeep || keep.has(name)) && !drop.has(name);
}

/** Whether a value (with or without its '!') is a line-end word. */
function isEolWord(value: string): boolean {
  const w = value.replace(/^!/, "").trim().toLowerCase();
  return (EOL_WORDS as readonly string[]).includes(w);
}

/**
 * Compiles `saved_as`: comma lists split; the values of one dimension (encodings, line ends) OR'd, the two AND'd;
 * a '!' value leaves its names out and keeps text files only (a binary file is not text saved in another
 * encoding), as rg's '!' globs exclude. Line ends are a text file's only: a binary file has none to select by.
 * @param values the values
 * @returns the tests, or null when there is no value
 * @throws RglobError BAD_PREDICATE for a name it does not know
 */
export function compileSavedAs(values: readonly string[]): SavedAs | null {
  const words = values
    .flatMap((v) => v.split(","))
    .map((w) => w.trim())
    .filter((w) => w !== "");
  if (words.length === 0) return null;
  const eolWords = words.filter(isEolWord);
  const encodings = words.filter((w) => !isEolWord(w));
  if (
    eolWords.some((w) => !w.startsWith("!")) &&
    encodings.length > 0 &&
    encodings.every((w) => /^binary$/i.test(w))
  )
    throw new RglobError(
      "BAD_PREDICATE",
      `saved_as: a binary file has no line ends, so '${words.join(",")}' can select nothing: line-end words select text files`,
    );
  return {
    encoding: oneDimension(encodings, namesOf, "the text files not in UTF-8: utf-16,windows-1252"),
    eol: oneDimension(eolWords, (w) => [w.trim().toLowerCase()], "crlf, lf, mixed or none"),
    words,
  };
}

/**
 * Says whether `saved_as` keeps a walk entry: a regular file (or, following links, one a link leads to) whose
 * encoding and line ends its tests keep. Reads the head for the encoding, the whole file for the line ends.
 * @param s the compiled saved_as
 * @param e the entry
 * @param confine what an opened file must be
 * @returns whether it is kept
 * @throws the open or read failure (the caller reports it)
 */
export function savedAsKeeps(s: SavedAs, e: Entry, confine: Confinement | null): boolean {
  if (e.target !== "file") return false;
  const name = fileEncoding(e, confine);
  if (name === null) return false;
  if (s.encoding !== null && !s.encoding(name)) return false;
  if (s.eol === null) return true;
  const eol = fileEol(e, confine);
  return eol !== null && s.eol(eol);
}

/** A buffer for the heads read in this thread. */
let headBuf: Uint8Array | null = null;

/**
 * Names the encoding of an open regular file from its head (the first 64 KiB), as grep's `--encoding auto`
 * names it: what `saved_as`, explain and find's {encoding} say.
 * @param fd the open file
 * @returns the name, or null when what was opened is not a regular file
 */
export function encodingOfOpen(fd: number): string | null {
  const st = platform.fstat(fd);
  if (!st.isFile()) return null;
  headBuf ??= new Uint8Array(HEAD_BYTES);
  let length = 0;
  while (length < HEAD_BYTES) {
    const n = platform.read(fd, headBuf.subarray(length), HEAD_BYTES - length, null);
    if (n <= 0) break;
    length += n;
  }
  return headEncoding(headBuf, length, length < HEAD_BYTES || length >= st.size);
}

/**
 * Names the encoding of a walk entry that is a regular file (or, following links, leads to one), opened as the
 * walk opens files (what was opened is checked); read once per entry.
 * @param e the entry
 * @param confine what the opened file must be
 * @returns the name; null for an entry that is not a regular file
 * @throws the open or read failure (the caller reports it)
 */
export function fileEncoding(e: Entry, confine: Confinement | null): string | null {
  if (e.encoding !== undefined) return e.encoding;
  if (e.target !== "file") return null;
  const fd = platform.openListed(e.abs, confine, e);
  try {
    e.encoding = encodingOfOpen(fd);
  } finally {
    platform.close(fd);
  }
  return e.encoding;
}

/** The bytes read at a time to name a file's line ends. */
const EOL_CHUNK = 64 * 1024;

/** A buffer for the texts read in this thread to name their line ends. */
let eolBuf: Uint8Array | null = null;

/**
 * Names the line ends of an open text file from its whole text, in git ls-files --eol's words: `crlf` (every line
 * end is CR LF), `lf` (every one a lone LF), `mixed` (both), `none` (no LF at all). A line ends at LF, as grep's
 * lines do: a CR not before an LF ends no line (git calls such a file binary). UTF-16 is read as 16-bit units in
 * its byte order, other encodings as bytes (an LF byte is an LF there). Reading stops once both kinds are seen.
 * @param fd the open file
 * @param encoding its encoding (fileEncoding's name)
 * @returns the word
 */
export function eolOfOpen(fd: number, encoding: string): string {
  eolBuf ??= new Uint8Array(EOL_CHUNK);
  const buf = eolBuf;
  const wide = encoding.startsWith("utf-16");
  const be = encoding.startsWith("utf-16be");
  let crlf = false;
  let lf = false;
  let prevCr = false;
  let pos = 0;
  for (;;) {
    const n = platform.read(fd, buf, EOL_CHUNK, pos);
    if (n <= 0) break;
    pos += n;
    if (wide) {
      // Units in the byte order; a chunk's length is even but for a file's odd last byte, which is no unit.
      for (let i = 0; i + 1 < n; i += 2) {
        const unit = be
          ? ((buf[i] as number) << 8) | (buf[i + 1] as number)
          : ((buf[i + 1] as number) << 8) | (buf[i] as number);
        if (unit === 10) {
          if (prevCr) crlf = true;
          else lf = true;
        }
        prevCr = unit === 13;
      }
    } else {
      const bytes = buf.subarray(0, n);
      for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) {
        const cr = i === 0 ? prevCr : bytes[i - 1] === 13;
        if (cr) crlf = true;
        else lf = true;
        if (crlf && lf) break;
      }
      prevCr = buf[n - 1] === 13;
    }
    if (crlf && lf) break;
  }
  return crlf ? (lf ? "mixed" : "crlf") : lf ? "lf" : "none";
}

/**
 * Names the line ends of a walk entry that is a text file (a regular file, or a followed link to one, whose head is
 * not binary), read whole as the walk opens files; read once per entry.
 * @param e the entry
 * @param confine what the opened file must be
 * @returns the EOL_WORDS word; null for a binary file or an entry that is not a regular file
 * @throws the open or read failure (the caller reports it)
 */
export function fileEol(e: Entry, confine: Confinement | null): string | null {
  if (e.eol !== undefined) return e.eol;
  const encoding = fileEncoding(e, confine);
  if (encoding === null || encoding === "binary") {
    e.eol = null;
    return null;
  }
  const fd = platform.openListed(e.abs, confine, e);
  try {
    e.eol = eolOfOpen(fd, encoding);
  } finally {
    platform.close(fd);
  }
  return e.eol;
}
