/*! Engine, witness: while a walk is recorded to be replayed later (the persisted index), the stats of everything
 * its answer depends on, taken before each is read: every directory it lists, every ignore, config and `.git`
 * file it reads or looks for (above the roots too; of a `.git` entry only its kind). A listing changes a directory's mtime and ctime, an edit a
 * file's, and a file that appears where one was looked for exists; so while every witnessed path stats the
 * same, the walk would list the same names and read the same rules, and its recording can stand for it. Off
 * (one null test per directory) unless a recording is under way. docs/decisions/0028-warm-index.md. */
import {
  type PathsChecker,
  STAT_OK,
  STAT_WORDS,
  type StatOutcome,
  statBytesInto,
  statInto,
  statKindInto,
} from "../platform/stat-words.ts";

/** One path the walk depended on: how it was stat'ed (a symlink followed or not) and what that gave. */
export interface Witnessed {
  readonly path: string;
  readonly follow: boolean;
  /** Only its kind counts (witnessKind); the first word holds it. */
  readonly kindOnly: boolean;
  readonly outcome: StatOutcome;
  /** Size, mtime, ctime and inode as words (stat-words.ts), when the outcome is STAT_OK. */
  readonly words: Uint32Array;
}

let active: Map<string, Witnessed> | null = null;

/** Whether a recording is under way (what is read now must be witnessed, not taken from a memo). */
export function recording(): boolean {
  return active !== null;
}

/**
 * Notes a path the walk is about to list, read or look for (nothing when no recording is under way).
 * @param abs the path
 * @param follow whether a final symlink is followed
 */
export function witness(abs: string, follow: boolean): void {
  if (active === null) return;
  const key = (follow ? "1" : "0") + abs;
  if (active.has(key)) return;
  const words = new Uint32Array(STAT_WORDS);
  active.set(key, { path: abs, follow, kindOnly: false, outcome: statInto()(abs, follow, words, 0), words });
}

/**
 * Notes a path whose kind alone the walk depends on (a `.git` entry: a directory, a file or neither), not its
 * stats: git writes inside its directory on every commit and status, and that changes nothing the walk reads.
 * @param abs the path (a final symlink followed)
 */
export function witnessKind(abs: string): void {
  if (active === null) return;
  const key = `k${abs}`;
  if (active.has(key)) return;
  const words = new Uint32Array(STAT_WORDS);
  const outcome = statKindInto(abs, words);
  active.set(key, { path: abs, follow: true, kindOnly: true, outcome, words });
}

/**
 * A witnessed path's flags as a recording keeps them: bit 0 whether it was followed, bits 1-2 what its stat
 * gave (stat-words.ts), bit 3 whether only its kind counts (the first word).
 * @param w the witnessed path
 * @returns the flags
 */
export function witnessFlags(w: Witnessed): number {
  return (w.follow ? 1 : 0) | (w.outcome << 1) | (w.kindOnly ? 8 : 0);
}

const NO_PREFIX = new Uint8Array(0);
const scratch = new Uint32Array(STAT_WORDS);

/**
 * Tells whether a witnessed path, given as the bytes of a recording, still stats as it did.
 * @param checker a checker of the absolute paths in `bytes` (pathsChecker)
 * @param bytes where the path lies (UTF-8)
 * @param from where it starts
 * @param to where it ends
 * @param flags its flags (witnessFlags)
 * @param seen the words it had
 * @param at the first of them
 * @returns whether nothing changed
 */
export function stillWitnessed(
  checker: PathsChecker,
  bytes: Buffer,
  from: number,
  to: number,
  flags: number,
  seen: Uint32Array,
  at: number,
): boolean {
  const follow = (flags & 1) === 1;
  const outcome = (flags >> 1) & 3;
  if ((flags & 8) !== 0)
    return (
      statKindInto(bytes.toString("utf8", from, to), scratch) === outcome &&
      (outcome !== STAT_OK || scratch[0] === seen[at])
    );
  return outcome === STAT_OK
    ? checker.same(from, to, follow, seen, at)
    : statBytesInto()(NO_PREFIX, bytes, from, to, follow, scratch, 0) === outcome;
}

const own = new Uint32Array(STAT_WORDS);

/**
 * Tells whether a witnessed path stats as it did (its kind alone for a `.git` entry).
 * @param w the path as witnessed
 * @returns whether nothing changed
 */
export function stillSo(w: Witnessed): boolean {
  const got = w.kindOnly ? statKindInto(w.path, own) : statInto()(w.path, w.follow, own, 0);
  if (got !== w.outcome) return false;
  if (got !== STAT_OK) return true;
  if (w.kindOnly) return own[0] === w.words[0];
  for (let i = 0; i < STAT_WORDS; i++) if (own[i] !== w.words[i]) return false;
  return true;
}

/**
 * Runs one step of a walk with the witness on, adding what it witnesses to `into` (a recording made a slice at a
 * time: the warm server's, between turns of the event loop; `rglob index`'s, between full collections).
 * @param into the paths witnessed so far, by key (kept across the steps)
 * @param fn the step
 * @returns its value
 */
export function witnessingInto<T>(into: Map<string, Witnessed>, fn: () => T): T {
  const outer = active;
  active = into;
  try {
    return fn();
  } finally {
    active = outer;
  }
}
