// The words of the freshness differential's trees (test/diff/fresh-lib.ts) and of its editor's changes: the
// index differentials' words, and words no file holds before a change (zeta42, quartz), which the queries ask for.
import { WORDS } from "./index-corpus.ts";

/** What the editor writes: the tree's words and the new ones. */
export const FRESH_WORDS: readonly string[] = [...WORDS, "zeta42", "quartz", "caf\u00e9", "quartz zeta42"];
