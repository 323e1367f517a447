/*! Contract: the names of the regions of source code that grep's `in` option keeps (engine/regions gives each
 * unit of a text one of them, in this order of codes). Data only. */

/** The region names, in the order of their codes (0 code, 1 comment, 2 string, 3 docstring: a string literal that
 * documents, docs/decisions/0042-docstrings.md). */
export const REGION_NAMES = ["code", "comment", "string", "docstring"] as const;

/** The values of grep's `in`: a region's name, or `all`, every region, each match saying the one it starts in (#37). */
export const IN_NAMES = [...REGION_NAMES, "all"] as const;

/** Which region a docstring joins where a question names regions or classes (count's lines, grep's `in`): comment
 * (cloc's convention, the default) or code (tokei's). */
export const DOCSTRING_CLASSES = ["comment", "code"] as const;

/** grep's `in` as bits: bit r keeps the matches that start in region r; this bit says that each match names its
 * region (`in` names several regions: a docstring joining `comment` does not make two). */
export const REGION_TAG_BIT = 1 << 7;

/** A region's name. */
export type RegionName = (typeof REGION_NAMES)[number];
