/*! Human output: paths coloured by LS_COLORS, as fd and ls colour them (find, tree and top). The parent part is
 * in the directory colour, the name in its kind's (directory, link, broken link, executable, fifo, socket,
 * device) or else its suffix's (`*.md`). Without LS_COLORS, fd's default colours of those kinds. Reads nothing
 * but a symlink's target (whether it exists), and only when LS_COLORS gives broken links a colour. */
import { statPath } from "../../../platform/files.ts";
import { fsPath } from "../../../platform/names.ts";

/** Colours (SGR parameters, e.g. `01;34`) by LS_COLORS key: two-letter kinds and `*suffix` patterns. */
export interface LsColors {
  /** By kind key: di ln or ex pi so bd cd fi. */
  readonly kinds: ReadonlyMap<string, string>;
  /** Suffix patterns (`.md`, `~`), lower case, with their colours, longest first. */
  readonly suffixes: ReadonlyArray<readonly [string, string]>;
}

/**
 * fd 8.6's colours of entry kinds when LS_COLORS is unset (its built-in theme, molokai in 256 colours).
 * Extensions are coloured only when LS_COLORS names them.
 */
const FD_DEFAULT_LS_COLORS =
  "di=0;38;5;81:ln=0;38;5;203:or=0;38;5;16;48;5;203:ex=1;38;5;203:pi=0;38;5;16;48;5;81:so=0;38;5;16;48;5;203:bd=0;38;5;81;48;5;236:cd=0;38;5;203;48;5;236:fi=0";

/** A colour that paints nothing (`0`, `00`, empty). */
const PLAIN = /^0*$/;

/**
 * Parses an LS_COLORS value (`di=01;34:ln=01;36:*.md=33`). Keys it does not use and malformed entries are
 * skipped; a colour that is not SGR parameters (digits and `;`) is skipped, so no other escape reaches output.
 * @param text the value
 * @returns the colours
 */
function parseLsColors(text: string): LsColors {
  const kinds = new Map<string, string>();
  const suffixes = new Map<string, string>();
  for (const entry of text.split(":")) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    if (!/^[0-9;]*$/.test(value)) continue;
    if (key.startsWith("*") && key.length > 1) suffixes.set(key.slice(1).toLowerCase(), value);
    else if (/^[a-z]{2}$/.test(key)) kinds.set(key, value);
  }
  return { kinds, suffixes: [...suffixes].sort((a, b) => b[0].length - a[0].length) };
}

/**
 * The colours to use: LS_COLORS when it is set and not empty, else fd's defaults.
 * @param lsColors LS_COLORS as set and not empty (the Host's, through the Style), or null
 * @returns the colours
 */
export function lsColorsFrom(lsColors: string | null): LsColors {
  return parseLsColors(lsColors ? lsColors : FD_DEFAULT_LS_COLORS);
}

const wrap = (code: string | undefined, text: string): string =>
  code === undefined || PLAIN.test(code) || text === "" ? text : `\u001b[${code}m${text}\u001b[0m`;

/** Whether a symlink's target is missing (a broken link). */
function broken(abs: string): boolean {
  try {
    statPath(fsPath(abs));
    return false;
  } catch {
    return true;
  }
}

/**
 * Returns the colour of an entry's name, as ls chooses it: by kind first (an executable file by `ex`), a regular
 * file without one by its suffix, else `fi`.
 * @param ls the colours
 * @param kinds the entry's kind letters (f d l x p s b c)
 * @param name its name
 * @param abs its absolute path (to tell a broken link)
 * @returns the SGR parameters, or undefined for none
 */
function nameColor(ls: LsColors, kinds: readonly string[], name: string, abs: string): string | undefined {
  const k = ls.kinds;
  if (kinds.includes("d")) return k.get("di");
  if (kinds.includes("l")) return k.has("or") && broken(abs) ? k.get("or") : k.get("ln");
  if (kinds.includes("p")) return k.get("pi");
  if (kinds.includes("s")) return k.get("so");
  if (kinds.includes("b")) return k.get("bd");
  if (kinds.includes("c")) return k.get("cd");
  if (kinds.includes("x") && k.has("ex")) return k.get("ex");
  const lower = name.toLowerCase();
  for (const [suffix, code] of ls.suffixes) if (lower.endsWith(suffix) && lower !== suffix) return code;
  return k.get("fi");
}

/**
 * Colours a path as shown: its parent part (up to the last `/`, which it keeps) in the directory colour, its name
 * in the name's colour, as fd does.
 * @param ls the colours
 * @param shown the path as printed (already relative or escaped)
 * @param kinds the entry's kind letters
 * @param abs its absolute path
 * @returns the text with its escapes
 */
export function colorPath(ls: LsColors, shown: string, kinds: readonly string[], abs: string): string {
  const slash = shown.lastIndexOf("/", shown.length - 2);
  const parent = slash >= 0 ? shown.slice(0, slash + 1) : "";
  const name = shown.slice(parent.length);
  return wrap(ls.kinds.get("di"), parent) + wrap(nameColor(ls, kinds, name, abs), name);
}
