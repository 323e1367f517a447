/*! The warm servers' rehearsal (#36): once a root's index answers as it will from then on (a build made ready, a
 * loaded index checked once watched), a few literals found nowhere are asked of it through the server's own path,
 * so that the first query a client makes does not run for the first time the index's lookup, the selection of the
 * remembered walk, the replay, the look among the ignored entries (whose files a server then remembers) and the
 * answer's text. `rglob mcp` asks through its tool call, `rglob serve` through the CLI it runs for its clients;
 * the answers are dropped. It never changes an answer: the freshness model decides each real one as before. */

/**
 * How many warm queries are rehearsed: the engine compiles a function better each time it runs, and on the 277k
 * tree (load 12) the three took 88, 31 and 25 ms in the server, the first real query then 7 ms; after one
 * rehearsal the first real query took 26-51 ms.
 */
const WARM_REHEARSALS = 3;

/**
 * The literal of the first page rehearsed before the literals found nowhere (most code holds it): the found
 * query's path (the index's candidates replayed, files read whole or by window, lines made records, the page cut
 * by look-ahead with its cursor) runs once before a client's. Without it the first page of `traverseFast` on a
 * tree of three babel copies took 44-48 ms of the server's CPU, the next one 19-20; after a rehearsed page, 23-33.
 */
const FOUND_REHEARSAL = "return";

/**
 * Rehearses a first page of a literal most code holds (FOUND_REHEARSAL), then literals found nowhere, each a
 * query made for it, one after the other; the first that fails ends the rehearsal (whatever it met, the real
 * calls meet and report again).
 * @param ask runs one grep of the pattern over the root as a client's call would (waiting for its turn and
 *   holding the background work back as a call does), its answer dropped; `page`: bounded to a first page (the
 *   CLI's calls are unbounded unless asked; an MCP call is bounded by its tool's defaults)
 */
export async function rehearseWarm(ask: (pattern: string, page: boolean) => Promise<unknown>): Promise<void> {
  try {
    await ask(FOUND_REHEARSAL, true);
  } catch {
    return;
  }
  for (let i = 0; i < WARM_REHEARSALS; i++) {
    const pattern = `rglob_rehearsal_${Date.now().toString(36)}_${i}_zq`;
    try {
      await ask(pattern, false);
    } catch {
      return;
    }
  }
}
