// A replay of a few entries of a remembered walk (#36, replayPicked) against the replay of every step (replay,
// the other entries left out): on seeded random recordings of tens of thousands of steps (entries, entries
// counted, skip counts of several reasons, progress and error calls), the same entries in the same order, the
// same total_files_searched, skip ledger and errors (in order), also when the run stops part way (a stop asked for
// at the same steps: here when the counts reach a bound, as a limit or a deadline would end it).
import { describe, expect, test } from "bun:test";
import { emptySkipped, type Skipped } from "../../../../src/contract/result.ts";
import {
  type Payload,
  type RecordedWalk,
  replay,
  replayPicked,
} from "../../../../src/engine/index/recorded-walk.ts";
import type { RunContext } from "../../../../src/engine/run.ts";
import type { Entry, WalkPlan } from "../../../../src/engine/walk.ts";
import {
  STEP_CALL as CALL,
  STEP_COUNTED as COUNTED,
  STEP_ENTRY as ENTRY,
  STEP_SKIPPED as SKIPPED,
} from "../../../../src/engine/walk-columns.ts";
import { prng } from "../../../helpers.ts";

const REASONS: (keyof Skipped)[] = ["ignored", "hidden", "excluded", "too_deep", "vcs"];

function recording(seed: number, steps: number): RecordedWalk {
  const r = prng(seed);
  const ops: number[] = [];
  const args: number[] = [];
  const payloads: Payload[] = [];
  let entries = 0;
  for (let s = 0; s < steps; s++) {
    const x = r();
    if (x < 0.45) {
      ops.push(ENTRY);
      args.push(entries++);
    } else if (x < 0.75) {
      ops.push(COUNTED);
      args.push(1 + Math.floor(r() * 5));
    } else if (x < 0.9) {
      const d: Partial<Skipped> = {};
      for (const k of REASONS) if (r() < 0.3) d[k] = 1 + Math.floor(r() * 3);
      ops.push(SKIPPED);
      args.push(payloads.length);
      payloads.push({ d });
    } else {
      ops.push(CALL);
      args.push(payloads.length);
      payloads.push(
        r() < 0.8
          ? { m: "progress", a: [s] }
          : { m: "error", a: [{ code: "UNREADABLE", message: `step ${s}`, path: `/t/e${s}` }] },
      );
    }
  }
  const abs = (i: number) => `/t/${i}`;
  return {
    ops: Uint8Array.from(ops),
    args: Int32Array.from(args),
    payloads,
    entries,
    entry: (i) => ({ abs: abs(i) }) as Entry,
    absOf: abs,
  };
}

interface Seen {
  readonly given: string[];
  readonly errors: string[];
  searched: number;
  readonly skipped: Skipped;
  progress: number;
}

/** A run context that records what it hears, stopping once `stop` says so of what it has heard. */
function context(stop: (s: Seen) => boolean): { ctx: RunContext; seen: Seen } {
  const seen: Seen = { given: [], errors: [], searched: 0, skipped: emptySkipped(), progress: -1 };
  const ctx = {
    signal: new AbortController().signal,
    resumeAfter: null,
    error: (e: { message: string }) => void seen.errors.push(e.message),
    searched: (n = 1) => {
      seen.searched += n;
    },
    read() {},
    shouldStop: () => stop(seen),
    stop() {},
    summary() {},
    progress: (n: number) => {
      // Progress only grows, whichever of its calls are made.
      expect(n).toBeGreaterThan(seen.progress);
      seen.progress = n;
    },
    batch: 512,
    skipped: seen.skipped,
  } as unknown as RunContext;
  return { ctx, seen };
}

const PLAN = { follow: false } as WalkPlan;

describe("replayPicked", () => {
  test.each([1, 2, 3, 4])("gives what a replay of every step gives (seed %i)", (seed) => {
    const rec = recording(seed, 40_000);
    const r = prng(seed + 100);
    for (let round = 0; round < 24; round++) {
      // From none to every entry given, in runs and alone.
      const share = [0, 0.0005, 0.01, 0.2, 1][round % 5] as number;
      const pick = Int32Array.from(
        Array.from({ length: rec.entries }, (_, i) => i).filter(() => r() < share),
      );
      const picked = new Set(pick);
      const bound = Math.floor(r() * 30_000);
      const stops: ((s: Seen) => boolean)[] = [
        () => false,
        (s) => s.searched >= bound,
        (s) => s.skipped.ignored >= bound / 20,
        (s) => s.errors.length >= 1 + (bound % 40),
        (s) => s.given.length >= 1 + (bound % 7),
      ];
      for (const stop of stops) {
        const a = context(stop);
        for (const e of replay(rec, PLAN, a.ctx, (i) => !picked.has(i))) a.seen.given.push(e.abs);
        const b = context(stop);
        for (const e of replayPicked(rec, PLAN, b.ctx, pick)) b.seen.given.push(e.abs);
        expect(b.seen.given).toEqual(a.seen.given);
        expect(b.seen.errors).toEqual(a.seen.errors);
        expect(b.seen.searched).toBe(a.seen.searched);
        expect(b.seen.skipped).toEqual(a.seen.skipped);
      }
    }
  });
});
