/*! Search worker entry: receives the search spec once, then batches of paths, and answers with one
 * message per file, in order. Runs under Bun (Web Worker API) and Node (worker_threads). It is terminated,
 * not asked, when a deadline passes: a pathological regex cannot hold the process. Never writes output. */
import type { FromWorker, ToWorker } from "./protocol.ts";
import { createSearcher, type Searcher } from "./search-file.ts";

type Post = (msg: FromWorker) => void;

let searcher: Searcher | null = null;

function handle(msg: ToWorker, post: Post): void {
  try {
    if (msg.type === "init") {
      searcher = createSearcher(msg.spec);
      return;
    }
    if (searcher === null) throw new Error("search worker used before init");
    const s = searcher;
    // One message per file: what was found before a stuck file is not lost when the worker is terminated.
    for (let i = 0; i < msg.paths.length; i++) {
      post({ type: "file", id: msg.id, index: i, outcome: s.search(msg.paths[i] as string) });
    }
  } catch (err) {
    post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  }
}

interface WebWorkerScope {
  onmessage: ((ev: { data: ToWorker }) => void) | null;
  postMessage(msg: FromWorker): void;
}

if (typeof Bun !== "undefined") {
  const scope = globalThis as unknown as WebWorkerScope;
  scope.onmessage = (ev) => handle(ev.data, (m) => scope.postMessage(m));
} else {
  const { parentPort } = await import("node:worker_threads");
  const port = parentPort;
  if (port) port.on("message", (msg: ToWorker) => handle(msg, (m) => port.postMessage(m)));
}
