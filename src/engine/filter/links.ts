/*! Filter: symlinks by their state and by where their chain ends (`--link`), and entries by their hard link count
 * (`--links`, find's -links). The state words (broken, escaping, absolute, ok) are OR'd among themselves, and so are
 * the end words (file, dir: find's -xtype f and -xtype d); the two groups are AND'd, so `--link dir,escaping` keeps
 * the links to a directory outside the base. */
import { RglobError } from "../../contract/errors.ts";
import { platform } from "../../platform/platform.ts";
import { isAbsoluteLinkText, type LinkEndType, type LinkInfo } from "../links.ts";
import type { Entry } from "../walk-types.ts";

/** The end words of `links` and the --type letter each stands for. */
const END_WORDS: Readonly<Record<string, LinkEndType>> = { file: "f", dir: "d" };

/**
 * Compiles `links` into a test of a symlink's facts.
 * @param links the selector words
 * @returns whether a link (null: not a symlink) is kept
 */
export function compileLinkSelect(links: readonly string[]): (link: LinkInfo | null) => boolean {
  const broken = links.includes("broken");
  const escaping = links.includes("escaping");
  const absolute = links.includes("absolute");
  const ok = links.includes("ok");
  const anyState = broken || escaping || absolute || ok;
  const ends = links.flatMap((w) => (END_WORDS[w] === undefined ? [] : [END_WORDS[w]]));
  return (link) =>
    link !== null &&
    (!anyState ||
      (broken && !link.exists) ||
      (escaping && link.escapes) ||
      (absolute && isAbsoluteLinkText(link.target)) ||
      (ok && link.exists && !link.escapes)) &&
    (ends.length === 0 || (link.endType !== null && ends.includes(link.endType)));
}

/**
 * Compiles a link count as find's -links reads it: 'N' exactly N, '+N' more than N, '-N' fewer than N.
 * @param value the count
 * @returns a test of st_nlink
 * @throws RglobError BAD_PREDICATE when the value is not such a count
 */
export function compileNlink(value: string): (n: number) => boolean {
  const m = /^\s*([+-]?)(\d+)\s*$/.exec(value);
  if (!m) {
    throw new RglobError(
      "BAD_PREDICATE",
      `links: '${value}' is not a link count; write N (exactly N), +N (more than N) or -N (fewer than N), as find -links: '+1' is every file with another hard link`,
    );
  }
  const n = Number(m[2]);
  return m[1] === "+" ? (k) => k > n : m[1] === "-" ? (k) => k < n : (k) => k === n;
}

/**
 * Returns an entry's hard link count (st_nlink), of its target for a followed symlink, as find -L does; one more
 * stat, read only for the entries that reach this test.
 * @param e the entry
 * @returns the count, or null when the entry cannot be stat'ed
 */
export function nlinkOf(e: Entry): number | null {
  try {
    return (e.type === "symlink" && e.target !== "symlink" ? platform.stat(e.abs) : platform.lstat(e.abs))
      .nlink;
  } catch {
    return null;
  }
}
