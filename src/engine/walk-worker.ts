/*! Walk worker entry: compiles the plan it is sent once, then walks subtrees with a budget and answers each
 * with its compact result (walk-protocol.ts). Runs as a Bun Web Worker; walk-pool.ts walks in the calling
 * thread when none can start. Never reports, never writes output. */
import { setRoutes } from "../platform/routes.ts";
import { compileWalk } from "./plan.ts";
import type { WalkPlan } from "./walk.ts";
import { type FromWalker, IgnoreCache, type ToWalker, walkSubtree } from "./walk-protocol.ts";

declare const self: {
  onmessage: ((ev: MessageEvent<ToWalker>) => void) | null;
  postMessage(msg: FromWalker, transfer?: ArrayBuffer[]): void;
  close(): void;
};

let plan: WalkPlan | null = null;
let needStats = false;
const ignores = new IgnoreCache();

self.onmessage = (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === "init") {
      setRoutes(msg.routes);
      plan = compileWalk(msg.source.options, msg.source.plan).plan;
      needStats = msg.needStats;
      return;
    }
    if (msg.type === "close") {
      // After the tasks before it: every walk has ended and closed its directories.
      self.onmessage = null;
      self.close();
      return;
    }
    if (plan === null) throw new Error("walk worker used before init");
    const result = walkSubtree(plan, ignores.subtree(plan, msg.sub), msg.budget, needStats);
    const transfer = [
      result.kinds,
      result.gaps,
      result.depths,
      result.codes,
      result.stats,
      result.statState,
    ].map((a) => a.buffer as ArrayBuffer);
    self.postMessage({ type: "done", id: msg.id, result }, transfer);
  } catch (err) {
    self.postMessage({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  }
};
