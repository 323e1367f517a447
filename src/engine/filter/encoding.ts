/*! Filter: regular files by the encoding their head is saved in (`saved_as`, #37), named as find's {encoding}
 * word and grep's `--encoding auto` name it (search/encoding.ts headEncoding, ADR 0041). The one place a file's
 * head is read to name its encoding: the predicate, explain and {encoding} all call fileEncoding. */
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
      `saved_as: '${value}' is not an encoding rglob names${ascii}; the names are utf-8, utf-8+bom, utf-16, utf-16le, utf-16be (each +bom too), windows-1252 (latin-1) and binary, '!' before one to leave it out`,
    );
  }
  return hits;
}

/** A compiled `saved_as`: a test of an encoding name, and the values as given (for explain). */
interface SavedAs {
  readonly test: (name: string) => boolean;
  readonly words: readonly string[];
}

/**
 * Compiles `saved_as`: the values OR'd, comma lists split; a '!' value leaves its encodings out and keeps text
 * files only (a binary file is not text saved in another encoding), as rg's '!' globs exclude.
 * @param values the values
 * @returns the test, or null when there is none
 * @throws RglobError BAD_PREDICATE for a name it does not know
 */
export function compileSavedAs(values: readonly string[]): SavedAs | null {
  const words = values.flatMap((v) => v.split(",")).filter((w) => w.trim() !== "");
  if (words.length === 0) return null;
  const keep = new Set<string>();
  const drop = new Set<string>();
  let anyKeep = false;
  for (const w of words) {
    const neg = w.trim().startsWith("!");
    for (const n of namesOf(neg ? w.trim().slice(1) : w)) (neg ? drop : keep).add(n);
    if (!neg) anyKeep = true;
  }
  if (drop.size > 0) drop.add("binary");
  return {
    test: (name) => (!anyKeep || keep.has(name)) && !drop.has(name),
    words,
  };
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
