/*! Search worker entry: receives the search spec once, then batches of paths, and answers with the
 * outcomes in order, a few files per message. Runs under Bun (Web Worker API) and Node (worker_threads). It is terminated,
 * not asked, when a deadline passes: a pathological regex cannot hold the process. Never writes output. */
import { encodeOutcomes, type FromWorker, type ToWorker } from "./protocol.ts";
import { createSearcher, type FileOutcome, type Searcher } from "./search-file.ts";

const FLUSH_MS = 5;

type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

let searcher: Searcher | null = null;

function handle(msg: ToWorker, post: Post): void {
  try {
    if (msg.type === "init") {
      searcher = createSearcher(msg.spec);
      return;
    }
    if (searcher === null) throw new Error("search worker used before init");
    const s = searcher;
    // Outcomes are sent as soon as one holds a hit or an error (and every few ms otherwise), so what was found
    // before a file that never finishes is not lost when the worker is terminated; files without hits are
    // grouped to keep messages few.
    let start = 0;
    let pending: FileOutcome[] = [];
    let last = performance.now();
    for (let i = 0; i < msg.paths.length; i++) {
      const o = s.search(msg.paths[i] as string);
      pending.push(o);
      const now = performance.now();
      if (
        o.hits.length > 0 ||
        o.error !== null ||
        o.lines > 0 ||
        now - last > FLUSH_MS ||
        i === msg.paths.length - 1
      ) {
        const data = encodeOutcomes(pending);
        post({ type: "files", id: msg.id, start, data }, [data.nums.buffer as ArrayBuffer]);
        start = i + 1;
        pending = [];
        last = now;
      }
    }
  } catch (err) {
    post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  }
}

interface WebWorkerScope {
  onmessage: ((ev: { data: ToWorker }) => void) | null;
  postMessage(msg: FromWorker, transfer?: ArrayBuffer[]): void;
}

if (typeof Bun !== "undefined") {
  const scope = globalThis as unknown as WebWorkerScope;
  scope.onmessage = (ev) => handle(ev.data, (m, transfer) => scope.postMessage(m, transfer));
} else {
  const { parentPort } = await import("node:worker_threads");
  const port = parentPort;
  if (port)
    port.on("message", (msg: ToWorker) => handle(msg, (m, transfer) => port.postMessage(m, transfer ?? [])));
}
