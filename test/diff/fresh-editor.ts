/*! The second process of the freshness differential (test/diff/fresh-lib.ts): it changes a tree in one change
 * class at a time (test/diff/fresh-changes.ts) while `rglob mcp` serves it and a persisted index covers it.
 * Usage: bun fresh-editor.ts OUTER ROOT SEED. Lines on stdin:
 * - `edit CLASS N`: N seeded changes of the class;
 * - `run CLASS` … `stop`: changes of the class, one every few milliseconds, until `stop`;
 * - `hold CLASS`: what the class needs held before the tree is indexed and served (a mapping kept).
 * Each answers one line `done JSON` (what it did; `run`: "running", once its first change is made). Not a test file (no .test.ts). */
import { changer } from "./fresh-changes.ts";

const [outer, root, seedText] = process.argv.slice(2) as [string, string, string];
const { change, hold, rand } = changer(outer, root, Number(seedText));

const safely = (f: () => string): string => {
  try {
    return f();
  } catch (err) {
    return `error: ${err instanceof Error ? err.message : String(err)}`;
  }
};

let running: Promise<string[]> | null = null;
let stop = false;
const reply = (what: unknown) => process.stdout.write(`done ${JSON.stringify(what)}\n`);

let buffered = "";
for await (const chunk of Bun.stdin.stream()) {
  buffered += new TextDecoder().decode(chunk);
  for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const [cmd, cls = "", n = "1"] = line.split(" ");
    if (cmd === "edit") reply(Array.from({ length: Number(n) }, () => safely(() => change(cls))));
    else if (cmd === "hold") reply(safely(() => hold(cls)));
    else if (cmd === "run") {
      stop = false;
      running = (async () => {
        const did: string[] = [];
        while (!stop) {
          did.push(safely(() => change(cls)));
          await Bun.sleep(Math.floor(rand() * 15));
        }
        return did;
      })();
      reply("running");
    } else if (cmd === "stop") {
      stop = true;
      reply((await running) ?? []);
      running = null;
    }
  }
}
