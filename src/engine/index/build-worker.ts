/*! Engine, warm index: the build worker. It reads the batches of files the warm server's index build walks to
 * (open, stat, read, distinct trigram keys: build-read.ts) on the other core, in the order sent, and hands each
 * answer back; the build adds the keys to its index in that order. It never touches an index. */
import { onParentMessage } from "../../platform/workers.ts";
import { type BuildRead, buildWorkerHandler, type ToBuildWorker } from "./build-read.ts";

void onParentMessage<ToBuildWorker, BuildRead>((m, post) => handle(m, post));

let handler: ((m: ToBuildWorker) => void) | null = null;

/** Takes one message: the first makes the handler that answers through `post`. */
function handle(m: ToBuildWorker, post: (r: BuildRead, transfer?: ArrayBuffer[]) => void): void {
  handler ??= buildWorkerHandler((r, transfer) => post(r, transfer));
  handler(m);
}
