// The 4-gram bitsets of large files through `rglob index` and `rglob grep` (#36, docs/decisions/0060-quad-
// bitsets-of-large-files.md), on a real temp tree and the compiled binary: a 200 KB file that holds every
// trigram of a literal but not the literal is not read (bytes_read), exactly or caseless; a large file that holds
// it is read and found; the answers are those of the cold grep (RGLOB_INDEX=0); once the file is rewritten to
// hold the literal, the index's stat check sends it to the search again and it is found.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rglobJson } from "../helpers.ts";

let dir: string;
let cache: string;
const LIT = "traverseFastNowhere";
// Every trigram of LIT, each on its own between bars: no 4-gram of it is in the file.
const pieces = [...Array(LIT.length - 2).keys()].map((i) => LIT.slice(i, i + 3)).join("|");
const filler = `${pieces}\n`.repeat(Math.ceil(200_000 / (pieces.length + 1)));

function grep(args: string[], index: boolean): Record<string, unknown> {
  const env: Record<string, string> = { RGLOB_CACHE_DIR: cache, ...(index ? {} : { RGLOB_INDEX: "0" }) };
  return rglobJson(["grep", "--json", ...args], { cwd: dir, env }).json;
}

const age = (p: string) => {
  const past = new Date(Date.now() - 3600_000);
  utimesSync(p, past, past);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-quads-"));
  cache = mkdtempSync(join(tmpdir(), "rglob-quads-cache-"));
  writeFileSync(join(dir, "bundle.js"), filler);
  writeFileSync(join(dir, "holder.js"), `${filler}${LIT}\n`);
  writeFileSync(join(dir, "small.txt"), "nothing here\n");
  for (const f of ["bundle.js", "holder.js", "small.txt"]) age(join(dir, f));
  const r = rglobJson<{ results: Array<Record<string, unknown>> }>(["index", "--json"], {
    cwd: dir,
    env: { RGLOB_CACHE_DIR: cache },
  }).json.results[0] as Record<string, unknown>;
  expect([r.state, r.files]).toEqual(["built", 3]);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

describe("large files ruled out by their 4-grams", () => {
  test.each([
    [[LIT], "exact"],
    [["-i", LIT.toUpperCase()], "caseless"],
    [["-F", "-e", LIT.slice(0, 7), "-e", "zzzz"], "two literals"],
  ])(
    "%p (%s): the file holding every trigram is not read; the answer is the cold one",
    (args) => {
      const cold = grep(args, false);
      const hot = grep(args, true);
      expect(hot.source).toBe("index");
      const bundle = statSync(join(dir, "bundle.js")).size;
      const holder = statSync(join(dir, "holder.js")).size;
      // Cold reads all three; the index, the holder only.
      expect(cold.bytes_read as number).toBeGreaterThanOrEqual(bundle + holder);
      expect(hot.bytes_read).toBe(holder);
      delete hot.source;
      hot.bytes_read = cold.bytes_read;
      expect(hot).toEqual(cold);
      expect(cold.files_with_matches).toBe(1);
    },
    60_000,
  );

  test("a file rewritten to hold the literal is found again (its stats differ from the index's)", () => {
    writeFileSync(join(dir, "bundle.js"), `${LIT}\n${filler}`);
    const cold = grep([LIT], false);
    const hot = grep([LIT], true);
    expect(cold.files_with_matches).toBe(2);
    delete hot.source;
    hot.bytes_read = cold.bytes_read;
    expect(hot).toEqual(cold);
  }, 60_000);
});
