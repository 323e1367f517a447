// The swapper of race.test.ts: alternates each named entry of a tree between its real self and a symlink to a
// path outside, by rename, a fixed number of rounds (or until killed). Run by bun or node:
//   swap-loop.ts DIR ROUNDS NAME=TARGET...
import { renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const [dir, roundsArg, ...pairs] = process.argv.slice(2);
if (dir === undefined || roundsArg === undefined)
  throw new Error("usage: swap-loop.ts DIR ROUNDS NAME=TARGET...");
const targets = pairs.map((p) => {
  const eq = p.indexOf("=");
  const name = p.slice(0, eq);
  const link = join(dir, `${name}.swap-link`);
  symlinkSync(p.slice(eq + 1), link);
  return { real: join(dir, name), keep: join(dir, `${name}.swap-real`), link };
});
const rounds = Number(roundsArg);
for (let i = 0; i < rounds; i++) {
  for (const t of targets) {
    try {
      // real → aside, link → in place; then back.
      renameSync(t.real, t.keep);
      renameSync(t.link, t.real);
      renameSync(t.real, t.link);
      renameSync(t.keep, t.real);
    } catch {}
  }
}
