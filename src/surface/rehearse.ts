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
 * Rehearses literals found nowhere of a root, each a query made for it, one after the other; the first that
 * fails ends the rehearsal (whatever it met, the real calls meet and report again).
 * @param ask runs one grep of the pattern over the root as a client's call would (waiting for its turn and
 *   holding the background work back as a call does), its answer dropped
 */
export async function rehearseWarm(ask: (pattern: string) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM_REHEARSALS; i++) {
    const pattern = `rglob_rehearsal_${Date.now().toString(36)}_${i}_zq`;
    try {
      await ask(pattern);
    } catch {
      return;
    }
  }
}
