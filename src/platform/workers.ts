/*! Platform: workers. Where a worker's entry file is, bundled or not, whether this runtime starts workers (Bun's;
 * under Node every pool works in the calling thread), and how one is started and talks to its parent
 * (the only `new Worker` of rglob). The one place that knows how scripts/build.ts and build-lib.ts store worker
 * entries. It never decides how many workers a pool starts. */
import type { Worker as NodeWorkerType } from "node:worker_threads";

/** Whether workers can be started here (Bun; the library under plain Node works in the calling thread). */
export const workersAvailable: boolean = typeof Bun !== "undefined";

/**
 * Returns the URL to start a worker entry from. Bundled (the binary, or dist/lib), the holding module sits at
 * the top and the entry is stored by its path under src/ with a .js extension (scripts/build.ts and build-lib.ts
 * list it as an entrypoint); from source it is the .ts file under src/.
 * @param entry the entry's path under src/, without extension (e.g. "engine/walk-worker")
 * @returns the URL as a string
 */
function workerUrl(entry: string): string {
  return !import.meta.url.endsWith(".ts")
    ? new URL(`./${entry}.js`, import.meta.url).href
    : new URL(`../${entry}.ts`, import.meta.url).href;
}

/**
 * Starts a Bun worker (a Web Worker) on an entry.
 * @param entry the entry's path under src/, without extension (e.g. "engine/walk-worker")
 * @returns the worker
 * @throws when the runtime cannot start it
 */
export function startWorker(entry: string): Worker {
  return new Worker(workerUrl(entry));
}

/** A worker as its pool drives it, under Bun (a Web Worker) or Node (worker_threads) alike. */
export interface WorkerPort<In> {
  post(msg: In): void;
  terminate(): void;
  /** Lets the process exit while the worker waits (ref: keeps it alive again). */
  unref(): void;
  ref(): void;
}

/**
 * Starts a worker on an entry under Bun (a Web Worker) or plain Node (worker_threads, loaded only there:
 * importing node:worker_threads costs Bun tens of milliseconds at startup).
 * @param entry the entry's path under src/, without extension
 * @param onMessage called with each message it sends
 * @param onError called with the message of an error it fails with
 * @returns its port
 * @throws when the runtime cannot start it
 */
export function startWorkerPort<In, Out>(
  entry: string,
  onMessage: (m: Out) => void,
  onError: (message: string) => void,
): WorkerPort<In> {
  const url = new URL(workerUrl(entry));
  if (typeof Bun !== "undefined") {
    const w = new Worker(url.href);
    w.addEventListener("message", (ev: MessageEvent<Out>) => onMessage(ev.data));
    w.addEventListener("error", (ev: ErrorEvent) => onError(ev.message));
    return {
      post: (m) => w.postMessage(m),
      terminate: () => w.terminate(),
      unref: () => w.unref(),
      ref: () => w.ref(),
    };
  }
  const mod = process.getBuiltinModule?.("node:worker_threads") as
    | { Worker: new (url: URL) => NodeWorkerType }
    | undefined;
  if (!mod) throw new Error("node:worker_threads is not available");
  const w = new mod.Worker(url);
  w.on("message", onMessage);
  w.on("error", (err: Error) => onError(err.message));
  return {
    post: (m) => w.postMessage(m),
    terminate: () => {
      void w.terminate();
    },
    unref: () => w.unref(),
    ref: () => w.ref(),
  };
}

/** How a worker entry answers its parent: a message and the buffers it hands over. */
type PostToParent<Out> = (msg: Out, transfer?: ArrayBuffer[]) => void;

/**
 * Has a worker entry take its parent's messages, under Bun (the Web Worker scope) or Node (worker_threads'
 * parentPort).
 * @param handle called with each message and the function that answers the parent
 */
export async function onParentMessage<In, Out>(
  handle: (msg: In, post: PostToParent<Out>) => void,
): Promise<void> {
  if (typeof Bun !== "undefined") {
    const scope = globalThis as unknown as {
      onmessage: ((ev: { data: In }) => void) | null;
      postMessage(msg: Out, transfer?: ArrayBuffer[]): void;
    };
    scope.onmessage = (ev) => handle(ev.data, (m, transfer) => scope.postMessage(m, transfer));
    return;
  }
  const { parentPort } = await import("node:worker_threads");
  const port = parentPort;
  if (port)
    port.on("message", (msg: In) => handle(msg, (m, transfer) => port.postMessage(m, transfer ?? [])));
}
