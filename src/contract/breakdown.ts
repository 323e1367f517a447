/*! Breakdown keys (count --by, grep --by): how a file is grouped in a summary's `breakdown`. */

/** The keys a breakdown groups files by. */
export const BY_KEYS = ["ext", "language", "dir", "file"] as const;

/** One of BY_KEYS. */
export type ByKey = (typeof BY_KEYS)[number];

/** What `by` means, for the input models' descriptions. */
export const BY_TEXT =
  "ext (lowercase extension), language (by name, else #!), dir (the first directory under the base, '.' for files directly in it) or file (one row per file, its path relative to the base)";

/** What a breakdown row's key is, for the output models' descriptions (breakdownKey in engine/languages.ts). */
export const KEY_TEXT =
  "The extension ('(none)' without one), language ('(unknown)'), first directory ('.') or file (its path relative to the base).";
