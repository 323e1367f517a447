/*! Engine, warm index: the ignored-entries look remembered (#36). After a find or grep that found nothing, the
 * surface runs the query again with the ignore rules off, bounded by work (surface/ignored.ts): on a tree with an
 * ignored node_modules that look read 16 MiB at every call. A server records one such look (the files it read, in
 * walk order, and what it said), indexes the text of those files by trigrams between calls, and answers a later
 * look of the same input whose literal no file of them can hold with what the recorded one said: with no hit,
 * a look reads the same files and stops at the same place whatever its pattern. It never answers from a look
 * the tree may have changed under: any change of the tree's shape, an event naming one of its files, a suspect
 * of the watch (ADR 0032) among them, or a watch it cannot trust lets the look run as it does cold. */
import { statDescriptorBig } from "../../platform/files.ts";
import { platform } from "../../platform/platform.ts";
import type { RunContext, WarmGrep, WarmLook, WarmLookRecorder, WarmProvider } from "../run.ts";
import type { SearchSpec } from "../search/search-file.ts";
import type { Entry, WalkPlan } from "../walk-types.ts";
import { literalQueryOf } from "./provider.ts";
import { readIndexText, textBuffer } from "./text.ts";
import { TrigramIndex } from "./trigrams.ts";

/** Looks remembered per root (each at most the look's 16 MiB of text): the least recently used let go. */
const KEPT = 4;
/** The longest stretch of the build between two turns given to calls (ms). */
const SLICE_MS = 4;
/** Leading bytes of a file checked for a NUL before its text is indexed (as the index build does). */
const FIRST_BLOCK = 64 * 1024;

/** What the warm root offers the looks it remembers. */
interface LookHost {
  /** The generation of the tree's shape (bumped by every entry created, deleted or renamed, ignore file, root). */
  shape(): number;
  /** Whether the watch vouches for files unchanged but its suspects (the tree's own watch, whole, trusted). */
  trusted(): boolean;
  /** Tells the suspects of the watch: files open now, named by a close, held for writing or mapped. */
  suspects(): (abs: string, ino: number) => boolean;
  /** The cold walk of the tree, paced so that the watch's queue is read as it goes. */
  walk(plan: WalkPlan, ctx: RunContext, after: string | null): Iterator<Entry>;
  /** Waits for a turn between calls (the index of a recorded look is built there). */
  turn(): Promise<void>;
  /** Reads the watch's queue: each file read is two events, which must not overflow it. */
  drain(): void;
  /** After reads between calls: their events taken in, and the look at every process they ask for begun. */
  afterReads(): void;
}

/** A file a recorded look's walk gave: indexed when it is text, only watched when it is binary. */
interface LookFile {
  readonly abs: string;
  /** The search did not find it binary. */
  readonly text: boolean;
}

/** What the search found a file of the look: text it read, binary (its first block read), over the size cap. */
type Kind = "text" | "binary" | "large";

/**
 * A file of a look with other hard links: it can be written through another name with no event for this one,
 * so each answer reads what the search's outcome depends on and compares it with what was recorded.
 */
interface Linked {
  readonly abs: string;
  readonly size: number;
  readonly kind: Kind;
  /** Its text (a text file), its first block (binary: the block that decided it), nothing (over the size cap). */
  readonly bytes: Buffer;
}

/** One remembered look. */
interface Memo {
  readonly shape: number;
  /** The files it read, by path: an event naming one lets it go. */
  readonly files: ReadonlySet<string>;
  /** The files with one link and their inodes: a suspect among them lets the look run. */
  readonly single: readonly [string, number][];
  /** The files with other hard links, read again at each answer. */
  readonly linked: readonly Linked[];
  readonly confine: WalkPlan["confine"] | null;
  /** The trigram index of their text. */
  readonly index: TrigramIndex;
  /** What the look said. */
  readonly answer: unknown;
}

/** What a recorded look hands to the build of its index. */
interface Recorded {
  readonly shape: number;
  readonly changes: number;
  readonly files: readonly LookFile[];
  readonly confine: WalkPlan["confine"] | null;
  readonly maxFileSize: number;
  readonly answer: unknown;
}

/**
 * Reads what a search's outcome on a file depends on: its text, or its first block when binary, or nothing when
 * over the size cap; null when it cannot be read whole.
 * @param fd the open file
 * @param size its size (the descriptor's)
 * @param kind what the search found it
 * @returns a copy of the bytes, or null
 */
function outcomeBytes(fd: number, size: number, kind: Kind): Buffer | null {
  if (kind === "large") return Buffer.alloc(0);
  const want = kind === "text" ? size : Math.min(size, FIRST_BLOCK);
  const buf = Buffer.alloc(want + 1);
  let n = 0;
  while (n < buf.length) {
    const r = platform.read(fd, n === 0 ? buf : buf.subarray(n), buf.length - n, n);
    if (r <= 0) break;
    n += r;
  }
  if (kind === "text" ? n !== size : n < want) return null;
  return buf.subarray(0, want);
}

/** The looks a warm root remembers (one per input of the look, but for its pattern). */
export class LookMemos implements WarmLook {
  private readonly memos = new Map<string, Memo>();
  /** The keys whose index is being built (one build a key). */
  private readonly building = new Set<string>();
  /** Bumped by every event of the tree and by clear(): a recording or a build across one is not kept. */
  private changes = 0;

  /** Looks kept so far, and looks answered from one (capabilities' `looks`). */
  kept = 0;
  answered = 0;

  constructor(private readonly host: LookHost) {}

  /** How many looks are remembered now. */
  get size(): number {
    return this.memos.size;
  }

  /** Forgets every look (the watch lost events, the root started again). */
  clear(): void {
    this.changes++;
    this.memos.clear();
  }

  /**
   * Hears a change of the tree: a look that read the file lets go.
   * @param abs the entry's absolute path
   */
  changed(abs: string): void {
    this.changes++;
    for (const [key, m] of this.memos) if (m.files.has(abs)) this.memos.delete(key);
  }

  answer(key: string, spec: SearchSpec): unknown {
    const m = this.memos.get(key);
    const q = m === undefined ? null : literalQueryOf(spec);
    if (m === undefined || q === null) return null;
    if (m.shape !== this.host.shape() || !this.host.trusted()) {
      this.memos.delete(key);
      return null;
    }
    const ids = m.index.candidateIds(q);
    if (ids === null || ids.length > 0) return null;
    const suspect = this.host.suspects();
    for (const [abs, ino] of m.single) if (suspect(abs, ino)) return null;
    for (const l of m.linked) if (!this.same(l, m.confine)) return null;
    // Most recently used last.
    this.memos.delete(key);
    this.memos.set(key, m);
    this.answered++;
    return m.answer;
  }

  /** Whether a file with other links still holds what the look read (its size and the bytes it depends on). */
  private same(l: Linked, confine: WalkPlan["confine"] | null): boolean {
    let fd: number;
    try {
      fd = platform.open(l.abs, confine, true);
    } catch {
      return false;
    }
    try {
      const size = Number(statDescriptorBig(fd).size);
      if (size !== l.size) return false;
      return outcomeBytes(fd, size, l.kind)?.equals(l.bytes) === true;
    } catch {
      return false;
    } finally {
      try {
        platform.close(fd);
      } catch {}
    }
  }

  recorder(key: string): WarmLookRecorder {
    const shape = this.host.shape();
    const changes = this.changes;
    // Every file the walk gave (the one a bound stopped at and any taken ahead included), and which of them the
    // search found binary.
    const given: string[] = [];
    const binary = new Set<string>();
    let confine: WalkPlan["confine"] | null = null;
    let maxFileSize = Number.POSITIVE_INFINITY;
    let walked = false;
    const record = function* (entries: Iterator<Entry>): Generator<Entry> {
      try {
        for (let r = entries.next(); r.done !== true; r = entries.next()) {
          if (r.value.type === "file") given.push(r.value.abs);
          yield r.value;
        }
      } finally {
        entries.return?.();
      }
    };
    const provider: WarmProvider = {
      grep: (plan: WalkPlan, spec: SearchSpec): WarmGrep => {
        confine = plan.confine;
        maxFileSize = spec.maxFileSize;
        return {
          source: null,
          walk: (p, ctx, after) => {
            walked = after === null;
            return record(this.host.walk(p, ctx, after));
          },
          ruledOut: () => false,
          sizeOf: () => null,
          read: (e, isBinary) => {
            if (isBinary) binary.add(e.abs);
          },
        };
      },
      walker: () => null,
    };
    return {
      provider,
      keep: (answer: unknown) => {
        if (!walked || shape !== this.host.shape() || changes !== this.changes) return;
        if (this.building.has(key)) return;
        const files = given.map((abs) => ({ abs, text: !binary.has(abs) }));
        this.building.add(key);
        void this.build(key, { shape, changes, files, confine, maxFileSize, answer }).finally(() =>
          this.building.delete(key),
        );
      },
    };
  }

  /** Indexes a recorded look's text between calls, and keeps it when nothing changed meanwhile. */
  private async build(key: string, r: Recorded): Promise<void> {
    await this.host.turn();
    if (r.shape !== this.host.shape() || r.changes !== this.changes) return;
    const index = new TrigramIndex();
    const single: [string, number][] = [];
    const linked: Linked[] = [];
    let buf: Buffer = Buffer.alloc(0);
    let slice = performance.now();
    for (const [n, f] of r.files.entries()) {
      // A slice at a time between calls, the watch's queue read as the reads fill it.
      if ((n & 63) === 63) {
        this.host.drain();
        if (performance.now() - slice > SLICE_MS) {
          await this.host.turn();
          if (r.shape !== this.host.shape() || r.changes !== this.changes) return;
          slice = performance.now();
        }
      }
      let fd: number;
      try {
        fd = platform.open(f.abs, r.confine, true);
      } catch {
        return;
      }
      try {
        const big = statDescriptorBig(fd);
        if (!big.isFile()) return;
        const size = Number(big.size);
        // Binary, or over the size cap (skipped unread): the search reads none of its text.
        const kind: Kind = size > r.maxFileSize ? "large" : f.text ? "text" : "binary";
        if (big.nlink > 1n) {
          const bytes = outcomeBytes(fd, size, kind);
          if (bytes === null) return;
          linked.push({ abs: f.abs, size, kind, bytes });
        } else single.push([f.abs, Number(big.ino)]);
        if (kind !== "text") continue;
        buf = textBuffer(buf, size);
        // Only plain UTF-8 text is indexed as it is searched; another file of the look keeps it unremembered.
        const view = readIndexText(fd, size, buf, FIRST_BLOCK);
        if (view === null) return;
        index.add(f.abs, view, {
          size,
          mtimeMs: Number(big.mtimeNs) / 1e6,
          ctimeMs: Number(big.ctimeNs) / 1e6,
          ino: Number(big.ino),
        });
      } catch {
        return;
      } finally {
        try {
          platform.close(fd);
        } catch {}
      }
    }
    index.freeze();
    // The build's reads named its files (closes): the look at every process they ask for begins now, between calls.
    this.host.afterReads();
    if (r.shape !== this.host.shape() || r.changes !== this.changes) return;
    this.memos.delete(key);
    this.memos.set(key, {
      shape: r.shape,
      files: new Set(r.files.map((f) => f.abs)),
      single,
      linked,
      confine: r.confine,
      index,
      answer: r.answer,
    });
    this.kept++;
    while (this.memos.size > KEPT) this.memos.delete(this.memos.keys().next().value as string);
  }
}
