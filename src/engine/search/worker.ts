/*! Search worker entry: receives a search's spec, then batches of paths, and answers with the outcomes in
 * order, a few files per message; the hits of a large file go out window by window before its outcome ("part"
 * messages), and the worker waits while too many of them are not taken yet. A worker serves one search after
 * another in a process's life: when a search no longer wants its answers (it stopped early), the pool raises
 * a shared generation and the worker drops what is left of that search's jobs. Runs under Bun (Web Worker API)
 * and Node (worker_threads). It is terminated, not asked, when a deadline passes: a pathological regex cannot
 * hold the process. Never writes output. */
import { setRoutes } from "../../platform/routes.ts";
import { onParentMessage } from "../../platform/workers.ts";
import { encodeOutcomes, type FromWorker, MAX_HITS_OUT, type ToWorker } from "./protocol.ts";
import { createSearcher, type FileOutcome, type Searcher } from "./search-file.ts";

const FLUSH_MS = 5;

type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

let searcher: Searcher | null = null;
/** [hits given out and not taken, generation] (see ToWorker "init"). */
let shared: Int32Array | null = null;

function handle(msg: ToWorker, post: Post): void {
  try {
    if (msg.type === "init") {
      setRoutes(msg.routes);
      searcher = createSearcher(msg.spec);
      shared = new Int32Array(msg.shared);
      return;
    }
    if (msg.type === "drain") {
      searcher = null; // its read buffer is not held while the worker waits (the next search sends its own spec)
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
    let last = performance.now();
    const flush = (next: number) => {
      if (pending.length === 0) return;
      const data = encodeOutcomes(pending);
      post({ type: "files", id: msg.id, start, data }, [data.nums.buffer as ArrayBuffer]);
      start = next;
      pending = [];
    };
    for (let i = 0; i < msg.paths.length; i++) {
      // A search that stopped early wants nothing more: its remaining files are not searched.
      if (stale()) return;
      const steps = s.steps(msg.paths[i] as string);
      let r = steps.next();
      while (!r.done) {
        // The outcomes before this file go first: the pool sees every file's pieces in order.
        flush(i);
        const { bytes, hits } = r.value;
        const data = encodeOutcomes([
          { bytes, skip: null, error: null, lines: 0, matches: 0, hits, encoding: "" },
        ]);
        Atomics.add(out, 0, hits.length);
        post({ type: "part", id: msg.id, index: i, data }, [data.nums.buffer as ArrayBuffer]);
        // Wait while the pool holds too many hits it has not taken (it notifies as it takes them, and when the
        // search stops).
        for (let held = Atomics.load(out, 0); held > MAX_HITS_OUT && !stale(); held = Atomics.load(out, 0)) {
          Atomics.wait(out, 0, held, 1000);
        }
        if (stale()) {
          steps.return(undefined as unknown as FileOutcome); // closes the file
          return;
        }
        r = steps.next();
      }
      const o = r.value;
      pending.push(o);
      const now = performance.now();
      if (
        o.hits.length > 0 ||
        o.error !== null ||
        o.lines > 0 ||
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
