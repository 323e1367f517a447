/*! Human output helpers: display paths (relative to the current directory when under it), escaping of
 * control characters on a terminal, and colour (on a TTY, or forced by CLICOLOR_FORCE or FORCE_COLOR; never
 * with NO_COLOR). */
import * as path from "node:path";
import type { Host } from "../../../config.ts";
import { leavesDir } from "../../../engine/plan.ts";
import { relativePath } from "../../../platform/names.ts";
import { isTerminal } from "../output.ts";

/** How human output is styled. */
export interface Style {
  readonly color: boolean;
  /** Escape control characters in names (on a TTY). */
  readonly escape: boolean;
  readonly cwd: string;
  /** LS_COLORS as set and not empty (the Host's), or null: fd's colours of paths (when color is on). */
  readonly lsColors: string | null;
}

/**
 * Returns whether colour is written on an output when --color does not say (docs/decisions/0030-cli-edges.md),
 * in this order: NO_COLOR set and not empty turns it off (no-color.org); CLICOLOR_FORCE set and not `0`, or
 * FORCE_COLOR set and not empty, `0` or `false`, turns it on, terminal or not (bixense.com/clicolors,
 * force-color.org); CLICOLOR=0 turns it off; else a terminal whose TERM is not dumb has colour.
 * @param fd 1 (stdout) or 2 (stderr)
 * @param host what the environment says (its colour variables)
 * @returns true when colour may be written
 */
export function colorByDefault(fd: 1 | 2, host: Host): boolean {
  const env = host.colorVars;
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if ((env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== "0") || (force && force !== "0" && force !== "false"))
    return true;
  if (env.CLICOLOR === "0") return false;
  return isTerminal(fd) && env.TERM !== "dumb";
}

/**
 * Decides the style from the --color value and the environment.
 * @param when auto, always or never
 * @param host what the environment says (colour variables, LS_COLORS)
 * @returns the style
 */
export function styleFor(when: string | boolean | undefined, host: Host): Style {
  const mode = typeof when === "string" ? when : "auto";
  const color = mode === "always" || (mode === "auto" && colorByDefault(1, host));
  return { color, escape: isTerminal(1), cwd: process.cwd(), lsColors: host.lsColors };
}

/** Control characters, and the bytes of a name that are not valid UTF-8 (held as U+DC80 + byte, platform/names.ts). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\udc80-\udcff]/gu;

/** The current directory displayPath last saw, and it with a trailing separator (one string for every path). */
let prefixOf = "";
let prefix = "/";

/**
 * Returns the path to show a person.
 * @param abs an absolute path
 * @param style the style
 * @param normalized the caller knows the path is normalised (no `.` or `..` component, no doubled or trailing
 * separator), as every path the walk builds is
 * @returns relative to cwd when under it, else absolute; control characters escaped on a TTY
 */
export function displayPath(abs: string, style: Style, normalized = false): string {
  // Below the current directory a normalised path is shown as its tail: path.relative, which normalises both
  // paths, costs more than a small file's search when every file is shown.
  if (style.cwd !== prefixOf) {
    prefixOf = style.cwd;
    prefix = style.cwd.endsWith("/") ? style.cwd : `${style.cwd}/`;
  }
  const tail =
    path.sep === "/" &&
    abs.startsWith(prefix) &&
    (normalized || (!abs.includes("/.", prefix.length - 1) && !abs.endsWith("/") && !abs.includes("//")));
  let shown: string;
  if (tail) shown = abs.length === prefix.length ? "." : abs.slice(prefix.length);
  else {
    // Outside the current directory (`..`, `../x`, another drive) the absolute path is clearer.
    const rel = relativePath(style.cwd, abs);
    shown = rel === "" ? "." : leavesDir(rel) ? abs : rel;
  }
  return style.escape ? escapeControls(shown) : shown;
}

/**
 * Escapes control characters, and bytes that are not valid UTF-8, as \xNN (and \n, \t as such).
 * @param text the text
 * @returns the escaped text
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) =>
    c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\x${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, "0")}`,
  );
}

/** ANSI colour helpers that do nothing when colour is off. */
export function paint(style: Style) {
  const wrap = (code: string) => (s: string) => (style.color ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { path: wrap("35"), line: wrap("32"), match: wrap("1;31"), dim: wrap("2"), dir: wrap("1;34") };
}

/**
 * A count with its noun: "1 file", "2 files".
 * @param n the count
 * @param one the noun for one
 * @param many the noun for other counts (default: one + "s")
 * @returns the text
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A breakdown table (count --by, grep --by): the key column, as wide as its longest key and at least 8, then a
 * number column of 10 per name, right-aligned.
 * @param by the key's name (the head of its column)
 * @param columns the names of the number columns
 * @param rows each key with its numbers, in column order
 * @returns the head line and the rows' lines, each ending in a newline
 */
export function breakdownTable(
  by: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly [string, readonly number[]]>,
): { head: string; body: string } {
  const keyWidth = Math.max(8, ...rows.map(([key]) => key.length));
  const head = `${by.padEnd(keyWidth)}${columns.map((c) => c.padStart(10)).join("")}\n`;
  const body = rows
    .map(([key, values]) => `${key.padEnd(keyWidth)}${values.map((n) => String(n).padStart(10)).join("")}\n`)
    .join("");
  return { head, body };
}
