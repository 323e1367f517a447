/*! Search: one file, from path to hits. Opens it without blocking, reads its first block into a reused
 * buffer (a short one is the whole file; its stats are asked only for a full one, or first when max_file_size
 * is set: a regular file within the bound), sniffs binary, reads the rest in large reads (a file over
 * LARGE_FILE window by window through search-large.ts), runs the literal prefilter on raw bytes (candidate
 * lines decoded one by one, or the whole text when a regex's literal is dense) and matches with search-text.
 * Synchronous; it runs in a worker or in the calling thread and never writes output. */
import { basename } from "node:path";
import { type Confinement, type ListedFile, platform } from "../../platform/platform.ts";
import { type ByteBuffer, createByteBuffer, releaseByteBuffer } from "../bytes.ts";
import type { LineEvent } from "../events.ts";
import { type Language, languageOf, SHEBANG_MAX, scriptLanguage } from "../languages.ts";
import { regionCursor } from "../regions/regions.ts";
import { sniffUtf16, validUtf8 } from "./encoding.ts";
import { foldsToTrap, holdsFoldTrap } from "./fold-traps.ts";
import type { MatcherSpec } from "./matcher.ts";
import { drain, LARGE_FILE, searchLarge } from "./search-large.ts";
import {
  buildMatcher,
  bytesFinder,
  type CompiledMatcher,
  caselessFinder,
  foldCrlf,
  type HitChunk,
  isAsciiText,
  type LiteralFinder,
  type RegionKeep,
  searchBytes,
  searchText,
  type TextOptions,
} from "./search-text.ts";

/** Everything a searcher needs, as plain data (it crosses to workers by structured clone). */
export interface SearchSpec {
  readonly matcher: MatcherSpec;
  readonly text: TextOptions;
  /** Search binary files as text. */
  readonly binaryAsText: boolean;
  /**
   * rg's --binary (-uuu): search binary files too, each to its first match (the whole file when counting), and
   * give no line of one: its outcome says binary (`nul`).
   */
  readonly binaryMode: boolean;
  /** Leading bytes sniffed for a NUL (0 disables). */
  readonly sniffBytes: number;
  /**
   * A TextDecoder label; "auto" for each file's own (BOM, UTF-16 without one, valid UTF-8, else windows-1252);
   * null for UTF-8 with BOM detection and UTF-16 without a BOM sniffed (encoding.ts).
   */
  readonly encoding: string | null;
  /** Skip larger files (Infinity for none). */
  readonly maxFileSize: number;
  /** What each file opened must be (the walk plan's), or null. */
  readonly confine: Confinement | null;
  /**
   * grep's `in`: bit r set keeps the matches that start in region r (CODE 0, COMMENT 1, STRING 2, DOCSTRING 3,
   * engine/regions; REGION_TAG_BIT: each match says its region); 0 keeps every match. A file is then read and decoded whole (never by window, never by
   * the byte path), and lexed only when it has a match.
   */
  readonly regions: number;
  /**
   * grep's `also` (absent: none): the file conditions, each tested on the whole decoded file after the search; a
   * file that fails one is left out (FileOutcome.excluded). A file is then read whole, never by window.
   */
  readonly conditions?: FileConditions;
}

/** One condition of grep's `also`: the file is kept when the pattern matches in it (in its regions), or, with `not`, when it matches nowhere. */
interface FileCondition {
  readonly matcher: MatcherSpec;
  /** Region bits as SearchSpec.regions (no tag bit); 0: anywhere. */
  readonly regions: number;
  readonly not: boolean;
}

/** grep's `also`: the conditions, and which files they are tested on. */
export interface FileConditions {
  readonly list: readonly FileCondition[];
  /**
   * Whether every file searched is tested (the run lists files without a match: files_without_match, count with
   * include_zero); else only a file with a selected line (the others give nothing either way).
   */
  readonly everyFile: boolean;
}

/** Why a file was not searched. */
export type SkipReason = "binary" | "too_large" | "unreadable" | "unknown_language";

/** The outcome of searching one file. */
export interface FileOutcome {
  /** Content bytes read. */
  bytes: number;
  skip: SkipReason | null;
  /** Error code and message when skipped or failed. */
  error: { code: string; message: string } | null;
  lines: number;
  matches: number;
  /** With `in`: matches left out because they start outside the regions asked for (absent: none). */
  dropped?: number;
  hits: LineEvent[];
  /** How it was decoded: utf-8, utf-16le, utf-16be, windows-1252 (auto) or the spec's label. */
  encoding: string;
  /** It began with a byte order mark (absent: it did not). */
  bom?: true;
  /** It was searched as UTF-8 but is not valid UTF-8 (absent: it is, or was not checked). */
  invalid?: true;
  /** Searched as a binary file (binaryMode): the offset of its first NUL byte. */
  nul?: number;
  /** A search worker's lines of the plain listing, packed (packed-lines.ts; absent: none). */
  packed?: Uint8Array;
  /** The language its `#!` line named, its name naming none (scriptLanguage; absent: none, or by its name). */
  language?: Language;
  /** Left out by a condition of `also`: nothing of it is given or counted (absent: kept, or no conditions). */
  excluded?: true;
}

/** A searcher: compiled matcher plus a read buffer reused across files. */
export interface Searcher {
  /** Searches a file: every hit in the outcome. */
  search(path: string): FileOutcome;
  /**
   * Searches a file, giving out the hits of a large file window by window (HitChunk) before its end: the
   * outcome then holds the hits after the last chunk, and the bytes read since it. Abandoning the generator
   * closes the file.
   */
  steps(path: string, listed?: ListedFile | null): Generator<HitChunk, FileOutcome>;
  /** Gives its read buffer back for the thread's next searcher; the searcher is not used afterwards. */
  release(): void;
}

const FIRST_BLOCK = 64 * 1024;
const BIG_READ = 16 * 1024 * 1024;

function fsError(err: unknown): { code: string; message: string } {
  const code = (err as { code?: string } | null)?.code;
  const detail = err instanceof Error ? err.message : String(err);
  if (code === "ECONFINE") return { code: "PERM", message: detail };
  if (code === "EACCES" || code === "EPERM") return { code: "PERM", message: `permission denied: ${detail}` };
  if (code === "ENOENT") return { code: "NOT_FOUND", message: `vanished: ${detail}` };
  return { code: "UNREADABLE", message: detail };
}

/**
 * Reads the stats of an open file: false (with the outcome filled in) when it is not a regular file or is over
 * max_file_size.
 */
function regularFile(fd: number, out: FileOutcome, maxFileSize: number): { readonly size: number } | false {
  const st = platform.fstat(fd);
  if (!st.isFile()) {
    out.skip = "unreadable";
    out.error = { code: "UNREADABLE", message: "not a regular file; not read" };
    return false;
  }
  if (st.size > maxFileSize) {
    out.skip = "too_large";
    out.error = { code: "TOO_LARGE", message: `${st.size} bytes is over max_file_size` };
    return false;
  }
  return st;
}

/** Candidates of the literal prefilter that make bytes "dense": this many within DENSE_SPAN bytes. */
const DENSE_COUNT = 32;
const DENSE_SPAN = 16 * 1024;

/** Whether a literal occurs DENSE_COUNT times within the first DENSE_SPAN bytes (once per 512 bytes or more). */
function dense(find: LiteralFinder, length: number): boolean {
  const span = Math.min(length, DENSE_SPAN);
  let at = -1;
  for (let n = 0; n < DENSE_COUNT; n++) {
    at = find(at + 1);
    if (at < 0 || at >= span) return false;
  }
  return true;
}

/** The length of a UTF-8 byte order mark at the start of the first `length` bytes (3), else 0. */
function utf8Bom(buf: Buffer, length: number): number {
  return length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

const WINDOWS_1252 = new TextDecoder("windows-1252");

/** Decodes UTF-16BE bytes. */
function utf16be(bytes: Uint8Array): string {
  return new TextDecoder("utf-16be").decode(bytes);
}

function hasAnyIgnoreCase(view: Buffer, re: RegExp): boolean {
  re.lastIndex = 0;
  return re.test(view.toString("latin1"));
}

/**
 * Creates a finder of the store's needle (ASCII, any case) in some of the store's bytes, with the SIMD kernel.
 * @param store the read buffer, its needle set
 * @param bytes a view of the store's bytes
 * @returns the finder, in offsets of `bytes`
 */
function caselessKernelFinder(store: ByteBuffer, bytes: Buffer): LiteralFinder {
  const base = bytes.byteOffset - store.bytes.byteOffset;
  const end = base + bytes.length;
  let found = -2;
  let since = 0;
  return (from) => {
    if (found !== -2 && from >= since && (found === -1 || found >= from)) return found;
    const at = store.findCaseless(base + from, end);
    found = at < 0 ? -1 : at - base;
    since = from;
    return found;
  };
}

/** The literal prefilter of a spec, decided once per searcher. */
interface Prefilter {
  /** The literals as UTF-8 bytes, when case matters. */
  readonly byteLits: Buffer[] | null;
  /** A regex finding any literal in any case, when case does not matter. */
  readonly ciLits: RegExp | null;
  /** One ASCII literal without case, found by the SIMD kernel over the read buffer. */
  readonly kernelCaseless: boolean;
  /** Whether bytes hold a character that Unicode case folding matches with an ASCII letter of a literal. */
  readonly trapped: (bytes: Buffer) => boolean;
  /** The byte path's literal finder over some bytes, or null (no byte path, or bytes to decode whole). */
  readonly finderFor: ((bytes: Buffer) => LiteralFinder | null) | null;
}

/**
 * Compiles the literal prefilter of a spec.
 * @param spec the search spec
 * @param store the read buffer (its needle is set for the SIMD kernel)
 * @returns the prefilter
 */
function prefilterOf(spec: SearchSpec, store: ByteBuffer): Prefilter {
  const lits = spec.matcher.literals;
  const byteLits = lits && !spec.matcher.literalsIgnoreCase ? lits.map((l) => Buffer.from(l, "utf8")) : null;
  const ciLits =
    lits && spec.matcher.literalsIgnoreCase
      ? new RegExp(lits.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi")
      : null;
  const byteMode =
    spec.regions === 0 &&
    (byteLits !== null || ciLits !== null) &&
    spec.text.before === 0 &&
    spec.text.after === 0 &&
    !spec.matcher.multiline &&
    !spec.matcher.invert;
  // One ASCII literal without case is found by the SIMD kernel over the read buffer itself: no latin1 string,
  // no regex over the whole file.
  const kernelCaseless = ciLits !== null && lits?.length === 1 && store.setNeedle(lits[0] as string);
  // Unicode case folding matches k with K (U+212A KELVIN SIGN) and s with ſ (U+017F LONG S): bytes holding
  // either are not prefiltered with ASCII case folding (they are decoded and matched by the regex).
  const folds = ciLits !== null && lits != null && foldsToTrap(spec.matcher.flags, lits);
  const trapped = (bytes: Buffer) => folds && holdsFoldTrap(bytes);
  // The byte path's literal finder over some bytes (no context, inversion or multiline), else null; it gives
  // null for bytes that must be decoded whole.
  const finderOf = (bytes: Buffer): LiteralFinder | null =>
    byteLits !== null
      ? bytesFinder(bytes, byteLits)
      : trapped(bytes)
        ? null
        : kernelCaseless
          ? caselessKernelFinder(store, bytes)
          : caselessFinder(bytes, ciLits as RegExp);
  // A regex (not an exact literal) whose literal is on most lines is faster decoded whole and matched in one
  // pass than line by line (ADR 0010); an exact literal is found faster on the bytes however often it occurs.
  // The probe's finder then serves the search (a finder answers queries in any order).
  const finderFor: ((bytes: Buffer) => LiteralFinder | null) | null = !byteMode
    ? null
    : spec.matcher.exact !== null
      ? finderOf
      : (bytes) => {
          const finder = finderOf(bytes);
          return finder === null || dense(finder, bytes.length) ? null : finder;
        };
  return { byteLits, ciLits, kernelCaseless, trapped, finderFor };
}

/**
 * Returns grep's `in` (or a condition's regions) for a file's text: the lexer of its language (`language`, its
 * `#!` line's, else its name's), run when its first match asks; undefined for 0 (every match kept).
 * @param regions the bits, as SearchSpec.regions
 * @returns the RegionKeep of a file's text
 */
function regionKeepFor(
  regions: number,
): (path: string, text: string, language?: Language) => RegionKeep | undefined {
  return (path, text, language) => {
    if (regions === 0) return undefined;
    const name = basename(path);
    const lexer = regionCursor((language ?? languageOf(name))?.name ?? null, name);
    // grep leaves a file without a lexer out before searching it (unknown_language); one named alone too.
    // No match is kept there: its text is never taken as all code.
    if (lexer === null) return { keep: 0, map: () => new Uint8Array(0) };
    // Lexed when the first match asks, and only as far as the matches go.
    let upTo: ((at: number) => Uint8Array) | null = null;
    return {
      keep: regions,
      map: (at) => {
        upTo ??= lexer(text);
        return upTo(at);
      },
    };
  };
}

/** What one thread's searcher holds: the spec compiled once, and the read buffer reused across files. */
interface SearcherState {
  readonly spec: SearchSpec;
  readonly matcher: CompiledMatcher;
  readonly store: ByteBuffer;
  readonly pre: Prefilter;
  /** The decoder of the spec's encoding, or null for UTF-8 with BOM detection. */
  readonly decoder: TextDecoder | null;
  readonly labelIsUtf8: boolean;
  readonly labelIsUtf16: boolean;
  /** encoding "auto": invalid UTF-8 is decoded as windows-1252. */
  readonly auto: boolean;
  /** The text options of a binary file searched by binaryMode: to its first match, never written directly. */
  readonly binaryText: TextOptions;
  readonly regionKeep: (path: string, text: string, language?: Language) => RegionKeep | undefined;
  /** The conditions of `also`, compiled (empty: none). */
  readonly conds: readonly CompiledCondition[];
}

/** A condition of `also`, compiled once per searcher. */
interface CompiledCondition {
  readonly matcher: CompiledMatcher;
  /** The literals as UTF-8 bytes when case matters (a file lacking all of them cannot match), else null. */
  readonly byteLits: Buffer[] | null;
  readonly regionKeep: (path: string, text: string, language?: Language) => RegionKeep | undefined;
  readonly not: boolean;
}

/** How a condition is searched: to its first match, no line built. */
const CONDITION_TEXT: TextOptions = {
  before: 0,
  after: 0,
  maxPerFile: 1,
  maxColumns: Number.POSITIVE_INFINITY,
  firstOnly: true,
  countOnly: true,
};

/**
 * Compiles the conditions of a spec.
 * @param spec the search spec
 * @returns the compiled conditions
 */
function conditionsOf(spec: SearchSpec): CompiledCondition[] {
  return (spec.conditions?.list ?? []).map((c) => ({
    matcher: buildMatcher(c.matcher),
    byteLits:
      c.matcher.literals !== null && !c.matcher.literalsIgnoreCase
        ? c.matcher.literals.map((l) => Buffer.from(l, "utf8"))
        : null,
    regionKeep: regionKeepFor(c.regions),
    not: c.not,
  }));
}

/** A buffer grown for one huge file is not kept past a file: memory stays bounded across files. */
const KEEP = 64 * 1024 * 1024;

/**
 * Creates a searcher for a spec (one per thread).
 * @param spec the search spec
 * @returns the searcher
 */
export function createSearcher(spec: SearchSpec): Searcher {
  const store = createByteBuffer(FIRST_BLOCK * 4);
  const auto = spec.encoding === "auto";
  const label = auto ? null : spec.encoding;
  const decoder =
    label === null ? null : new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]);
  const { direct: _direct, ...undirected } = spec.text;
  const st: SearcherState = {
    spec,
    matcher: buildMatcher(spec.matcher),
    store,
    pre: prefilterOf(spec, store),
    decoder,
    labelIsUtf8: decoder === null || decoder.encoding === "utf-8",
    labelIsUtf16: decoder?.encoding.startsWith("utf-16") === true,
    auto,
    binaryText: { ...undirected, firstOnly: !spec.text.countOnly },
    regionKeep: regionKeepFor(spec.regions),
    conds: conditionsOf(spec),
  };
  return {
    search(path: string): FileOutcome {
      return drain(this.steps(path));
    },
    release(): void {
      releaseByteBuffer(store);
    },
    steps: (path: string, listed: ListedFile | null = null) => searchFile(st, path, listed),
  };
}

/**
 * Searches one file: opens it, reads it (a large one window by window, its hits given out as chunks), and
 * matches its text.
 * @param st the searcher
 * @param path the file
 * @param listed how the walk listed it (opened relative to its directory), or null
 * @yields the hits of a large file, window by window
 * @returns the outcome
 */
function* searchFile(
  st: SearcherState,
  path: string,
  listed: ListedFile | null,
): Generator<HitChunk, FileOutcome> {
  const { spec } = st;
  st.store.shrink(KEEP);
  const out: FileOutcome = {
    bytes: 0,
    skip: null,
    error: null,
    lines: 0,
    matches: 0,
    hits: [],
    encoding: "utf-8",
  };
  let fd: number;
  try {
    fd =
      listed === null ? platform.open(path, spec.confine) : platform.openListed(path, spec.confine, listed);
  } catch (err) {
    out.skip = "unreadable";
    out.error = fsError(err);
    return out;
  }
  let length: number;
  try {
    const read = readOpen(st, fd, path, out);
    if (read === null) return out;
    if (typeof read !== "number") {
      yield* searchLargeOpen(st, fd, read.length, out);
      return out;
    }
    length = read;
  } catch (err) {
    // A consumer that writes lines as they are found (human output) throws through the search when its reader
    // has gone (a closed stdout): that ends the run, as it does for a small file; it is not the file's error.
    if (err instanceof Error && err.name === "BrokenPipe") throw err;
    out.skip = "unreadable";
    out.error = fsError(err);
    return out;
  } finally {
    try {
      platform.close(fd);
    } catch {}
  }
  const text = matchWhole(st, path, length, out);
  if (st.conds.length > 0 && out.skip === null) applyConditions(st, path, length, out, text);
  return out;
}

/**
 * Tests the conditions of `also` on a file searched whole (its bytes still in the store), when its outcome
 * depends on them; a file that fails one is left out: excluded, nothing of it given or counted.
 */
function applyConditions(
  st: SearcherState,
  path: string,
  length: number,
  out: FileOutcome,
  searched: string | null,
): void {
  if (st.spec.conditions?.everyFile !== true && out.lines === 0) return;
  if (conditionsHold(st, path, length, out, searched)) return;
  out.excluded = true;
  out.lines = 0;
  out.matches = 0;
  out.hits = [];
  delete out.dropped;
}

/**
 * Tells whether a file meets every condition of `also`: each pattern matches in it (in its regions), or with
 * `not`, nowhere. The text is the one the search decoded (`searched`), else decoded once as the search would
 * have, and only when a condition's literal is in the bytes (or cannot be looked for there).
 */
function conditionsHold(
  st: SearcherState,
  path: string,
  length: number,
  out: FileOutcome,
  searched: string | null,
): boolean {
  const view = st.store.bytes.subarray(0, length);
  const rawUtf8 = out.encoding === "utf-8" && st.labelIsUtf8;
  let text = searched;
  for (const c of st.conds) {
    let found = false;
    if (!rawUtf8 || c.byteLits === null || c.byteLits.some((l) => view.indexOf(l) >= 0)) {
      text ??= decodedText(st, view, out);
      found =
        searchText(
          text,
          c.matcher,
          CONDITION_TEXT,
          undefined,
          undefined,
          c.regionKeep(path, text, out.language),
        ).lines > 0;
    }
    if (found === c.not) return false;
  }
  return true;
}

/**
 * Decodes a file searched whole as its search did (the outcome says how), its NUL bytes ending lines when it is
 * binary, CR LF read as LF.
 */
function decodedText(st: SearcherState, view: Buffer, out: FileOutcome): string {
  let text: string;
  if (st.decoder !== null && !st.labelIsUtf8) text = st.decoder.decode(view);
  else if (out.encoding === "utf-16le") text = view.toString("utf16le", out.bom ? 2 : 0);
  else if (out.encoding === "utf-16be") text = utf16be(view.subarray(out.bom ? 2 : 0));
  else if (out.encoding === "windows-1252") text = WINDOWS_1252.decode(view);
  else text = view.toString("utf8", utf8Bom(view, view.length));
  if (out.nul !== undefined) text = text.replaceAll("\0", "\n");
  return foldCrlf(text);
}

/**
 * Reads an open file into the store: its first block (deciding binary), then the rest unless it is a large file
 * to search by window.
 * @param st the searcher
 * @param fd the open file
 * @param out its outcome (bytes read, a skip)
 * @returns the bytes in the store; `{ length }` (bytes of the first block) for a large file to search by
 * window; null when it is skipped (the outcome says why)
 */
function readOpen(
  st: SearcherState,
  fd: number,
  path: string,
  out: FileOutcome,
): number | { length: number } | null {
  const { spec, store } = st;
  let buf = store.bytes;
  // The walk gives regular files only, so most files are read without asking their stats (in Bun an
  // fstat cost about what the read of a small file does). They are asked for before reading when
  // max_file_size is set, and when the first block fills up: for the size of a large file, and because
  // something that is not a regular file any more (a device put in its place) may never end.
  let stats = spec.maxFileSize === Number.POSITIVE_INFINITY ? null : regularFile(fd, out, spec.maxFileSize);
  if (stats === false) return null;
  // The first block decides binary before the rest is read; then large reads to the end.
  let length = platform.read(fd, buf, FIRST_BLOCK, null);
  out.bytes = length;
  if (!scriptOf(st, path, buf, length, out)) return null;
  const bom16 = length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
  if (!spec.binaryAsText && !bom16 && !st.labelIsUtf16 && spec.sniffBytes > 0) {
    const sniffed = Math.min(length, spec.sniffBytes);
    const nul = buf.subarray(0, sniffed).indexOf(0);
    if (nul >= 0) {
      // UTF-16 text without a byte order mark has a NUL in every ASCII character: sniffed strictly (encoding.ts),
      // it is text, decoded by its byte order (ADR 0041).
      const order =
        st.decoder === null ? sniffUtf16(buf, sniffed, sniffed === length && length < FIRST_BLOCK) : null;
      if (order !== null) out.encoding = order;
      else if (spec.binaryMode) out.nul = nul;
      else {
        out.skip = "binary";
        out.error = { code: "BINARY", message: "binary file (NUL byte); use text to search it" };
        return null;
      }
    }
  }
  if (length < FIRST_BLOCK) return length;
  if (stats === null) {
    stats = regularFile(fd, out, spec.maxFileSize);
    if (stats === false) return null;
  }
  // A large file is searched window by window, in bounded memory (UTF-8 only: its first block says whether it
  // is valid UTF-8; with encoding auto, one that is not is read whole and decoded as windows-1252).
  if (
    stats.size > LARGE_FILE &&
    st.labelIsUtf8 &&
    !bom16 &&
    out.encoding === "utf-8" &&
    !spec.matcher.multiline &&
    spec.regions === 0 &&
    spec.conditions === undefined
  ) {
    if (st.decoder !== null || out.nul !== undefined || validUtf8(buf, length, false)) return { length };
    if (!st.auto) {
      out.invalid = true;
      return { length };
    }
  }
  if (buf.length < stats.size + 1) buf = store.grow(stats.size + 1 + (stats.size >> 3), length);
  while (true) {
    // The file grew while being read.
    if (length === buf.length) buf = store.grow(buf.length * 2, length);
    const n = platform.read(fd, buf.subarray(length), Math.min(BIG_READ, buf.length - length), null);
    if (n <= 0) break;
    length += n;
  }
  out.bytes = length;
  return length;
}

/**
 * Gives a file whose name names no language the language of its `#!` line (scriptLanguage: count's rule), for
 * `in`'s lexer and `--by language`; with `in`, one that gets none with a lexer is left out (unknown_language),
 * as a file whose name names one without a lexer is before it is opened. Only a file starting with `#!` (or
 * any, with `in`) has its name looked up.
 * @param st the searcher
 * @param path the file
 * @param buf its first bytes
 * @param length how many
 * @param out its outcome (language, skip)
 * @returns false when it is left out
 */
function scriptOf(st: SearcherState, path: string, buf: Buffer, length: number, out: FileOutcome): boolean {
  const at = utf8Bom(buf, length);
  const hashBang = length >= at + 2 && buf[at] === 0x23 && buf[at + 1] === 0x21;
  const regions = st.spec.regions !== 0;
  if (!hashBang && !regions) return true;
  const name = basename(path);
  if (languageOf(name) !== null) return true;
  const lang = hashBang ? scriptLanguage(buf.subarray(0, Math.min(length, at + SHEBANG_MAX))) : null;
  if (lang !== null) out.language = lang;
  if (regions && (lang === null || regionCursor(lang.name, name) === null)) {
    out.skip = "unknown_language";
    return false;
  }
  return true;
}

/**
 * Searches a large file window by window from its first block in the store, filling in the outcome.
 * @yields the hits of each window, with the bytes read since the previous chunk (the first block's counted with
 * the first)
 */
function* searchLargeOpen(
  st: SearcherState,
  fd: number,
  length: number,
  out: FileOutcome,
): Generator<HitChunk, void> {
  const buf = st.store.bytes;
  const bom = utf8Bom(buf, length);
  if (bom) {
    buf.copyWithin(0, bom, length);
    out.bom = true;
  }
  const binary = out.nul !== undefined;
  const large = searchLarge(
    fd,
    st.store,
    length - bom,
    st.matcher,
    binary ? st.binaryText : st.spec.text,
    binary ? null : st.pre.finderFor,
  );
  // The first block's bytes are counted with the first chunk (or the outcome).
  let unreported = length;
  let r = large.next();
  while (!r.done) {
    yield { bytes: unreported + r.value.bytes, hits: r.value.hits };
    unreported = 0;
    r = large.next();
  }
  out.bytes = unreported + r.value.bytes;
  out.lines = r.value.lines;
  out.matches = r.value.matches;
  out.hits = r.value.hits;
}

/**
 * Decodes and matches a file read whole (its `length` bytes in the store), filling in the outcome: the literal
 * prefilter first on raw bytes, then the byte path (candidate lines decoded one by one) or the whole text.
 * @returns the whole text it searched (decoded, CR LF read as LF, a binary file's NUL bytes as newlines), or null
 *   when it decoded no whole text
 */
function matchWhole(st: SearcherState, path: string, length: number, out: FileOutcome): string | null {
  const { spec, store, pre, matcher } = st;
  const view = store.bytes.subarray(0, length);
  // The default and auto: a byte order mark decides, then the UTF-16 sniff (readOpen), then UTF-8.
  const sniffs = st.decoder === null;
  const binary = out.nul !== undefined;
  const opts = binary ? st.binaryText : spec.text;
  let text: string;
  let asciiLines: ((from: number, to: number) => number) | undefined;
  if (sniffs && out.encoding !== "utf-8") {
    text = out.encoding === "utf-16le" ? view.toString("utf16le") : utf16be(view);
  } else if (sniffs && length >= 2 && view[0] === 0xff && view[1] === 0xfe) {
    out.encoding = "utf-16le";
    out.bom = true;
    text = view.toString("utf16le", 2);
  } else if (sniffs && length >= 2 && view[0] === 0xfe && view[1] === 0xff) {
    out.encoding = "utf-16be";
    out.bom = true;
    text = utf16be(view.subarray(2));
  } else if (st.labelIsUtf8) {
    const bom = utf8Bom(view, length);
    if (bom) out.bom = true;
    // Valid UTF-8 or not: named in the summary, or (auto) decoded as windows-1252, never prefiltered by the
    // pattern's UTF-8 bytes then.
    const latin = sniffs && !binary && !validUtf8(view, length, true);
    if (latin && st.auto) {
      out.encoding = "windows-1252";
      text = WINDOWS_1252.decode(view);
    } else {
      if (latin) out.invalid = true;
      const body = bom ? view.subarray(bom) : view;
      // Prefilter on raw bytes: most files hold none of the literals; they are neither decoded nor given a
      // finder.
      if (pre.byteLits !== null && !pre.byteLits.some((l) => view.indexOf(l) >= 0)) return null;
      const finder = pre.finderFor === null || binary ? null : pre.finderFor(body);
      if (finder !== null) {
        // Only the lines holding a literal are decoded, and lines are numbered only up to a hit.
        const newlines = (from: number, to: number) => store.newlines(from + bom, to + bom);
        const r = searchBytes(body, finder, matcher, spec.text, newlines);
        out.lines = r.lines;
        out.matches = r.matches;
        out.hits = r.hits;
        return null;
      }
      if (pre.byteLits === null && pre.ciLits !== null && !pre.trapped(view)) {
        if (pre.kernelCaseless ? store.findCaseless(bom, length) < 0 : !hasAnyIgnoreCase(view, pre.ciLits))
          return null;
      }
      text = view.toString("utf8", bom);
      // ASCII without CRLF: the text's offsets are the bytes' (from bom), so the kernel numbers its lines.
      if (isAsciiText(text, length - bom) && !text.includes("\r\n"))
        asciiLines = (from, to) => store.newlines(from + bom, to + bom);
    }
  } else {
    out.encoding = (st.decoder as TextDecoder).encoding;
    text = (st.decoder as TextDecoder).decode(view);
  }
  // A binary file's NUL bytes end lines, as in rg --binary (its counts are rg's).
  if (binary) text = text.replaceAll("\0", "\n");
  const folded = asciiLines === undefined ? foldCrlf(text) : text;
  const r = searchText(
    folded,
    matcher,
    opts,
    undefined,
    asciiLines,
    st.regionKeep(path, folded, out.language),
  );
  out.lines = r.lines;
  out.matches = r.matches;
  if (r.dropped) out.dropped = r.dropped;
  out.hits = r.hits;
  return folded;
}
