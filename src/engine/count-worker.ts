/*! Count worker entry: receives batches of paths and answers each with the line counts of its files, packed
 * in one Float64Array (transferred). Runs as a Bun Web Worker; count-pool.ts falls back to the calling thread
 * when none can start. Never walks and never writes output. */
import { setRoutes } from "../platform/routes.ts";
import { type BatchReply, type BatchRequest, countBatch } from "./count-pool.ts";

declare const self: {
  onmessage: ((ev: MessageEvent<BatchRequest>) => void) | null;
  postMessage(msg: BatchReply, transfer?: ArrayBuffer[]): void;
};

self.onmessage = (ev) => {
  if (ev.data.routes !== undefined) setRoutes(ev.data.routes);
  const reply = countBatch(ev.data);
  self.postMessage(reply, [reply.counts.buffer as ArrayBuffer]);
};
