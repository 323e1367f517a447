/*! Search worker entry: receives a search's spec, then batches of paths, and answers with the outcomes in
 * order, a few files per message; the hits of a large file go out window by window before its outcome ("part"
 * messages), and the worker waits while too many of them are not taken yet. A worker serves one search after
 * another in a process's life: when a search no longer wants its answers (it stopped early), the pool raises
 * a shared generation and the worker drops what is left of that search's jobs. Runs under Bun (Web Worker API)
 * and Node (worker_threads). It is terminated, not asked, when a deadline passes: a pathological regex cannot
 * hold the process. Never writes output: with `pack` it packs the lines of the plain listing (packed-lines.ts)
 * and gives them with each file's outcome, a megabyte at a time in the middle of a large file. */
import { setRoutes } from "../../platform/routes.ts";
import { onParentMessage } from "../../platform/workers.ts";
import type { LineEvent } from "../events.ts";
import { LinePacker } from "./packed-lines.ts";
import { encodeOutcomes, type FromWorker, MAX_HITS_OUT, type ToWorker, transferOf } from "./protocol.ts";
import { createSearcher, type FileOutcome, type Searcher } from "./search-file.ts";

const FLUSH_MS = 5;
/** Packed lines gathered before the outcomes holding them go out. */
const PACK_FLUSH = 1 << 16;

type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

let searcher: Searcher | null = null;
/** [hits given out and not taken, generation] (see ToWorker "init"). */
let shared: Int32Array | null = null;
/** With `pack`: the lines of the file being searched, and what to do when they fill PACK_SPILL bytes. */
let packer: LinePacker | null = null;
/** With `pack`: whether outcomes with lines may wait for more (no deadline: see ToWorker "init"). */
let batched = false;
let spill: (() => void) | null = null;

function handle(msg: ToWorker, post: Post): void {
  try {
    if (msg.type === "init") {
      setRoutes(msg.routes);
      packer = msg.pack !== null ? new LinePacker(() => spill?.()) : null;
      batched = msg.pack?.batched === true;
      searcher = createSearcher(
        packer === null ? msg.spec : { ...msg.spec, text: { ...msg.spec.text, direct: packer } },
      );
      shared = new Int32Array(msg.shared);
      return;
    }
    if (msg.type === "drain") {
      // Its read buffer is given back (the next search's searcher takes it: a new WebAssembly memory costs a full
      // garbage collection) and not held otherwise while the worker waits (the next search sends its own spec).
      searcher?.release();
      searcher = null;
      packer = null;
      post({ type: "drained", generation: msg.generation });
      return;
    }
    if (searcher === null || shared === null) throw new Error("search worker used before init");
    const s = searcher;
    const out = shared;
    const stale = () => Atomics.load(out, 1) !== msg.generation;
    // Outcomes are sent as soon as one holds a hit or an error (and every few ms otherwise), so what was found
    // before a file that never finishes is not lost when the worker is terminated; files without hits are
    // grouped to keep messages few.
    let start = 0;
    let pending: FileOutcome[] = [];
    let pendingPacked = 0;
    let last = performance.now();
    const flush = (next: number) => {
      if (pending.length === 0) return;
      const data = encodeOutcomes(pending);
      post({ type: "files", id: msg.id, start, data }, transferOf(data));
      start = next;
      pending = [];
      pendingPacked = 0;
    };
    /** Gives out hits (or packed lines) of file i before its outcome; waits while the pool holds too many. */
    const part = (i: number, bytes: number, hits: LineEvent[]) => {
      // The outcomes before this file go first: the pool sees every file's pieces in order.
      flush(i);
      const lines = packer?.count ?? 0;
      const packed = packer?.take() ?? null;
      const data = encodeOutcomes([
        {
          bytes,
          skip: null,
          error: null,
          lines,
          matches: 0,
          hits,
          encoding: "",
          ...(packed !== null ? { packed } : {}),
        },
      ]);
      Atomics.add(out, 0, hits.length + lines);
      post({ type: "part", id: msg.id, index: i, data }, transferOf(data));
      // Wait while the pool holds too many hits it has not taken (it notifies as it takes them, and when the
      // search stops).
      for (let held = Atomics.load(out, 0); held > MAX_HITS_OUT && !stale(); held = Atomics.load(out, 0)) {
        Atomics.wait(out, 0, held, 1000);
      }
    };
    for (let i = 0; i < msg.paths.length; i++) {
      // A search that stopped early wants nothing more: its remaining files are not searched.
      if (stale()) return;
      // Lines packed past PACK_SPILL in the middle of a file go out then (their bytes read are the outcome's).
      spill = () => part(i, 0, []);
      const steps = s.steps(msg.paths[i] as string);
      let r = steps.next();
      while (!r.done) {
        part(i, r.value.bytes, r.value.hits);
        if (stale()) {
          steps.return(undefined as unknown as FileOutcome); // closes the file
          return;
        }
        r = steps.next();
      }
      const o = r.value;
      const packed = packer?.take() ?? null;
      if (packed !== null) {
        o.packed = packed;
        pendingPacked += packed.length;
      }
      pending.push(o);
      const now = performance.now();
      // Batched packed lines wait for more (a message per file with a hit costs more than its lines): the
      // batch's end, PACK_FLUSH bytes or FLUSH_MS.
      if (
        (batched ? pendingPacked >= PACK_FLUSH : o.hits.length > 0 || o.lines > 0) ||
        o.error !== null ||
        now - last > FLUSH_MS ||
        i === msg.paths.length - 1
      ) {
        flush(i + 1);
        last = now;
      }
    }
  } catch (err) {
    post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  }
}

await onParentMessage<ToWorker, FromWorker>(handle);
