/*! Engine, warm index: the index build's work per file (open without following a symlink, stat, read, the
 * distinct trigram keys), a batch of listed files at a time, on the build worker (build-worker.ts) beside the
 * thread that walks, so the build uses both cores; in the calling thread where no worker runs. It adds nothing
 * to an index: the caller adds each file's keys (TrigramIndex.addKeys) in the walk's order. */

import { statDescriptorBig } from "../../platform/files.ts";
import { type Confinement, platform } from "../../platform/platform.ts";
import { type Routes, routes, setRoutes } from "../../platform/routes.ts";
import { STAT_WORDS, wordsOfStats } from "../../platform/stat-words.ts";
import { startWorkerPort, type WorkerPort, workersAvailable } from "../../platform/workers.ts";
import { holdsFoldTrap } from "../search/fold-traps.ts";
import { quadBitsOf } from "./quads.ts";
import { readIndexText, textBuffer } from "./text.ts";
import { distinctKeys, KEY_WORDS } from "./trigrams.ts";

/** What every batch of one build shares: sent once to the worker. */
interface BuildSettings {
  readonly routes: Routes;
  readonly confine: Confinement | null;
  /** Files larger than this are not indexed. */
  readonly maxFileSize: number;
  /** How many leading bytes are checked for a NUL byte (binary: not indexed). */
  readonly nulScan: number;
}

/** Per file of a batch (flags): it was indexed, it has another hard link, its text holds a fold trap. */
export const READ_INDEXED = 1;
export const READ_LINKED = 2;
export const READ_TRAP = 4;
/** Numbers per file in BuildRead.facts: size, mtimeMs, ctimeMs, ino, the bytes of its text. */
export const READ_FACTS = 5;

/** What a batch's files gave, by their place in the batch. */
export interface BuildRead {
  readonly flags: Uint8Array<ArrayBuffer>;
  readonly facts: Float64Array<ArrayBuffer>;
  /** The stat words of the descriptor read (STAT_WORDS a file). */
  readonly words: Uint32Array<ArrayBuffer>;
  /** How many keys each file has in `keys`. */
  readonly counts: Uint32Array<ArrayBuffer>;
  /** The distinct trigram keys of each indexed file, file after file. */
  readonly keys: Uint32Array<ArrayBuffer>;
  /** The union of the indexed files' keys, as words of the key bitset: pairs of a word's number and its bits. */
  readonly union: Uint32Array<ArrayBuffer>;
  /** Per file: its 4-gram bitset (quads.ts: a large file's), or null. */
  readonly quads: (Uint8Array<ArrayBuffer> | null)[];
}

/** Reads batches of files for the build: a read buffer, a key bitset and a key buffer reused (2 MiB or more). */
export class BuildReader {
  private buf: Buffer = Buffer.alloc(64 * 1024);
  private readonly seen = new Uint32Array(KEY_WORDS);
  private keys = new Uint32Array(1 << 18);
  /** The union of a batch's keys (a bitset over them) and the words of it set so far. */
  private readonly union = new Uint32Array(KEY_WORDS);
  private touched = new Uint32Array(1 << 16);

  constructor(private readonly settings: BuildSettings) {}

  /**
   * Reads the files of a batch: one that cannot be opened (a symlink, gone, outside the confinement), is not a
   * regular file, is over the size cap, changed size while read, is binary (a NUL in the first block), UTF-16 or
   * not UTF-8 is not indexed.
   * @param paths the files' absolute paths
   * @returns what each gave
   */
  read(paths: readonly string[]): BuildRead {
    const n = paths.length;
    const flags = new Uint8Array(n);
    const facts = new Float64Array(n * READ_FACTS);
    const words = new Uint32Array(n * STAT_WORDS);
    const counts = new Uint32Array(n);
    const quads: (Uint8Array<ArrayBuffer> | null)[] = new Array(n).fill(null);
    let used = 0;
    for (let i = 0; i < n; i++)
      used += this.readOne(paths[i] as string, i, { flags, facts, words, counts, quads }, used);
    const keys = this.keys.slice(0, used);
    return { flags, facts, words, counts, keys, union: this.unionOf(keys), quads };
  }

  /** The union of keys as pairs of a word's number and its bits (the bitset left clear). */
  private unionOf(keys: Uint32Array): Uint32Array<ArrayBuffer> {
    const union = this.union;
    let t = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as number;
      const w = k >>> 5;
      const u = union[w] as number;
      if (u === 0) {
        if (t === this.touched.length) {
          const more = new Uint32Array(t * 2);
          more.set(this.touched);
          this.touched = more;
        }
        this.touched[t++] = w;
      }
      union[w] = u | (1 << (k & 31));
    }
    const out = new Uint32Array(2 * t);
    for (let j = 0; j < t; j++) {
      const w = this.touched[j] as number;
      out[2 * j] = w;
      out[2 * j + 1] = union[w] as number;
      union[w] = 0;
    }
    return out;
  }

  /** Reads one file into place i of the batch's arrays and its keys from `at`; returns how many keys. */
  private readOne(abs: string, i: number, out: Omit<BuildRead, "keys" | "union">, at: number): number {
    const s = this.settings;
    let fd: number;
    try {
      fd = platform.open(abs, s.confine);
    } catch {
      return 0;
    }
    try {
      const big = statDescriptorBig(fd);
      if (!big.isFile() || big.size > BigInt(s.maxFileSize)) return 0;
      const size = Number(big.size);
      this.buf = textBuffer(this.buf, size);
      const view = readIndexText(fd, size, this.buf, s.nulScan);
      if (view === null) return 0;
      wordsOfStats(big, out.words, i * STAT_WORDS);
      const f = i * READ_FACTS;
      out.facts[f] = size;
      out.facts[f + 1] = Number(big.mtimeNs) / 1e6;
      out.facts[f + 2] = Number(big.ctimeNs) / 1e6;
      out.facts[f + 3] = Number(big.ino);
      out.facts[f + 4] = view.length;
      if (at + view.length > this.keys.length) {
        const more = new Uint32Array(Math.max(at + view.length, this.keys.length * 2));
        more.set(this.keys.subarray(0, at));
        this.keys = more;
      }
      const got = distinctKeys(view, this.seen, this.keys, at);
      out.counts[i] = got;
      out.quads[i] = quadBitsOf(view);
      out.flags[i] =
        READ_INDEXED | (big.nlink > 1n ? READ_LINKED : 0) | (holdsFoldTrap(view) ? READ_TRAP : 0);
      return got;
    } catch {
      return 0;
    } finally {
      try {
        platform.close(fd);
      } catch {}
    }
  }
}

/** A message to the build worker: its settings (first), or a batch of paths to read. */
export type ToBuildWorker = { readonly settings: BuildSettings } | { readonly paths: readonly string[] };

/** Files the index build (warm/build.ts) hands a build worker at a time; fewer in the whole tree are read in its thread. */
export const BUILD_BATCH = 256;
/** Build workers: with the walking thread, three threads on two cores (the build's share of a loaded machine). */
const WORKERS = 2;
/** Batches in flight to each worker before the build waits for the oldest. */
const IN_FLIGHT = 2;

/** A build worker and the answers it sent that the build has not taken yet. */
interface BuildWorker {
  readonly port: WorkerPort<ToBuildWorker>;
  readonly answered: BuildRead[];
}

/**
 * The build's batches, read in order by the build workers, each batch by the next worker in turn (or, where none
 * runs or one failed, in the calling thread when the answer is asked for): send() hands one on, next() gives the
 * oldest one's answer.
 */
export class BuildReads {
  private readonly workers: BuildWorker[] = [];
  private readonly sent: { readonly paths: readonly string[]; readonly by: BuildWorker | null }[] = [];
  private sentCount = 0;
  private wake: (() => void) | null = null;
  private failed = false;
  private local: BuildReader | null = null;
  /** Whether the workers were asked to start (the first whole batch). */
  private started = false;

  /**
   * @param settings what every batch shares (the walk's confinement, the size cap, the NUL scan)
   */
  constructor(private readonly settings: Omit<BuildSettings, "routes">) {}

  /**
   * Starts the workers, at the first whole batch: a tree of fewer files than a batch is read in the walking thread
   * (the workers' start, two runtimes' worth of threads and descriptors, would cost more than its reads; a server
   * whose roots change builds such trees one after another).
   */
  private start(): void {
    this.started = true;
    if (!workersAvailable) return;
    try {
      for (let i = 0; i < WORKERS; i++) {
        const answered: BuildRead[] = [];
        const port = startWorkerPort<ToBuildWorker, BuildRead>(
          "engine/index/build-worker",
          (m) => {
            answered.push(m);
            this.wake?.();
          },
          () => {
            this.failed = true;
            this.wake?.();
          },
        );
        this.workers.push({ port, answered });
        port.post({ settings: { ...this.settings, routes: routes() } });
      }
    } catch {}
  }

  /** Whether the build should take an answer before it sends more (the workers have enough to do). */
  get full(): boolean {
    return this.sent.length >= IN_FLIGHT * Math.max(1, this.workers.length);
  }

  /** Batches sent and not taken yet. */
  get pending(): number {
    return this.sent.length;
  }

  /** Hands a batch on (read at once by a worker; by next() without one). */
  send(paths: readonly string[]): void {
    if (!this.started && paths.length >= BUILD_BATCH) this.start();
    const n = this.workers.length;
    const by = n === 0 || this.failed ? null : (this.workers[this.sentCount++ % n] as BuildWorker);
    this.sent.push({ paths, by });
    by?.port.post({ paths });
  }

  /**
   * The oldest batch's answer, with its paths (waited for while its worker reads it; read here when a worker
   * failed or none runs). Only when pending > 0.
   */
  async next(): Promise<{ readonly paths: readonly string[]; readonly read: BuildRead }> {
    const { paths, by } = this.sent[0] as {
      readonly paths: readonly string[];
      readonly by: BuildWorker | null;
    };
    while (by !== null && !this.failed && by.answered.length === 0) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
    this.sent.shift();
    const done = by?.answered.shift();
    if (done !== undefined) return { paths, read: done };
    this.local ??= new BuildReader({ ...this.settings, routes: routes() });
    return { paths, read: this.local.read(paths) };
  }

  /** Stops the workers. */
  close(): void {
    for (const w of this.workers) w.port.terminate();
    this.workers.length = 0;
  }
}

/**
 * The worker's side: takes its settings, then answers each batch of paths with what they gave (its buffers
 * handed over, not copied).
 * @param post answers the parent
 * @returns the message handler
 */
export function buildWorkerHandler(
  post: (m: BuildRead, transfer: ArrayBuffer[]) => void,
): (m: ToBuildWorker) => void {
  let reader: BuildReader | null = null;
  return (m) => {
    if ("settings" in m) {
      setRoutes(m.settings.routes);
      reader = new BuildReader(m.settings);
      return;
    }
    if (reader === null) return;
    const r = reader.read(m.paths);
    const bufs = [
      r.flags.buffer,
      r.facts.buffer,
      r.words.buffer,
      r.counts.buffer,
      r.keys.buffer,
      r.union.buffer,
    ];
    for (const q of r.quads) if (q !== null) bufs.push(q.buffer);
    post(r, bufs);
  };
}
