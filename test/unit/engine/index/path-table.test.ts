// A loaded index's ids by path from the paths section's bytes (#36, docs/decisions/0055-loaded-paths-looked-up-in-place.md)
// answer every lookup as the map of every path made from the same section did: seeded random trees of names
// (multi-byte UTF-8, names that are prefixes of others, `a.b` beside `a/`), absolute paths that are not the
// index's (outside the root, the root's own prefix, a directory, a trailing slash, another case, a lone
// surrogate), files persisted as changed, files marked changed by path and by id afterwards, and lookups made
// while the table is only partly filled (a restart fills it a slice at a time).
import { describe, expect, test } from "bun:test";
import { PathTable } from "../../../../src/engine/index/path-table.ts";
import { pathStarts } from "../../../../src/engine/index/paths-section.ts";
import { TrigramIndex } from "../../../../src/engine/index/trigrams.ts";
import { prng } from "../../../helpers.ts";

const ROOT = "/srv/tree";
const NAMES = ["a", "a.b", "b", "é", "日本", "a b", "z-9", "A", "ab", "\u{1F600}x", "\uFFFD"];

/** Seeded relative paths (distinct), with a file at the root's own path (""), as a tree of depth up to 4. */
function relPaths(seed: number, n: number): string[] {
  const r = prng(seed);
  const out = new Set<string>([""]);
  while (out.size < n) {
    const depth = 1 + Math.floor(r() * 4);
    const parts: string[] = [];
    for (let d = 0; d < depth; d++) parts.push(NAMES[Math.floor(r() * NAMES.length)] as string);
    out.add(parts.join("/"));
  }
  return [...out];
}

/** Two loaded indexes of the same files: one looking paths up in the section's bytes, one by the map. */
function loaded(rels: readonly string[], dead: ReadonlySet<number>) {
  const section = Buffer.from(rels.join("\0"));
  const starts = pathStarts(section, rels.length) as Int32Array;
  const abs = () => rels.map((p) => (p === "" ? ROOT : `${ROOT}/${p}`));
  const make = (table: PathTable | null) => {
    const b = new TrigramIndex();
    for (let id = 0; id < rels.length; id++)
      b.add(`/x/${id}`, Buffer.from("abc"), { size: 3, mtimeMs: 0, ctimeMs: 0, ino: id });
    b.freeze();
    const parts = b.frozenParts();
    const flags = parts.flags.slice(0, rels.length);
    for (const id of dead) flags[id] = (flags[id] as number) | 1;
    const sizes = new Float64Array(rels.length).fill(3);
    return TrigramIndex.fromParts(abs, { ...parts, flags }, sizes, section.length, table);
  };
  return { inPlace: make(new PathTable(section, starts, ROOT, "/")), byMap: make(null), abs: abs() };
}

/** A seeded tree of n paths, `deadCount` draws of them persisted as changed, loaded both ways; `r` goes on drawing. */
function seeded(seed: number, n: number, deadCount: number, salt: number) {
  const rels = relPaths(seed, n);
  const r = prng(seed + salt);
  const dead = new Set<number>();
  for (let i = 0; i < deadCount; i++) dead.add(Math.floor(r() * rels.length));
  return { rels, r, dead, ...loaded(rels, dead) };
}

/** Absolute paths to ask: every file's, and ones that are none of them. */
function asked(abs: readonly string[], seed: number): string[] {
  const r = prng(seed + 100);
  const out = [...abs, "/srv", "/srv/tre", "/srv/treex/a", `${ROOT}/`, `${ROOT}/a/`, `${ROOT}/nope`, "", "/"];
  out.push(`${ROOT}/\uD800`, `${ROOT}/a/\uDC00b`, `${ROOT}/A/B`, `${ROOT}//a`);
  for (let i = 0; i < 200; i++) {
    const p = abs[Math.floor(r() * abs.length)] as string;
    out.push(p.toUpperCase(), `${p}/x`, p.slice(0, Math.floor(r() * p.length)));
  }
  return out;
}

describe("PathTable", () => {
  test.each([1, 2, 3])("finds each file's id as the map of every path does (seed %i)", (seed) => {
    const { rels, r, dead, inPlace, byMap, abs } = seeded(seed, 3000, 150, 7);
    const ask = asked(abs, seed);
    // Half of the table filled, as a restart leaves it between two slices: the first lookup fills the rest.
    expect(inPlace.mapPathsSome(rels.length >> 1)).toBe(false);
    const want = ask.map((p) => byMap.idOfPath(p));
    expect(ask.map((p) => inPlace.idOfPath(p))).toEqual(want);
    expect(inPlace.mapPathsSome(1)).toBe(true);
    // Every file is found, but those persisted as changed.
    expect(want.slice(0, abs.length).filter((id) => id >= 0).length).toBe(rels.length - dead.size);
    // Marked changed afterwards, by path and by id: each lookup gives the last live id of that path, as a map of
    // the live paths would (what the map gave when the ids were marked before it was made), and each file is
    // counted changed once.
    for (let i = 0; i < 100; i++) {
      inPlace.invalidate(abs[Math.floor(r() * abs.length)] as string);
      inPlace.invalidateId(Math.floor(r() * rels.length));
    }
    const reference = (p: string) => abs.findLastIndex((a, id) => a === p && inPlace.isLive(id));
    expect(ask.map((p) => inPlace.idOfPath(p))).toEqual(ask.map(reference));
    expect(inPlace.dead).toBe(abs.filter((_, id) => !inPlace.isLive(id)).length - dead.size);
    // A directory renamed: the map is made (every path is needed), and lookups go on giving the same ids.
    inPlace.invalidateBelow(`${ROOT}/a`);
    const paths = inPlace.pathsById();
    expect(paths.filter((p) => p !== null).length).toBe(abs.filter((_, id) => inPlace.isLive(id)).length);
    expect(ask.map((p) => inPlace.idOfPath(p))).toEqual(ask.map(reference));
    expect(ask.filter((p) => p.startsWith(`${ROOT}/a/`)).map((p) => inPlace.idOfPath(p))).toEqual(
      ask.filter((p) => p.startsWith(`${ROOT}/a/`)).map(() => -1),
    );
  });

  test.each([1, 2, 3])("forgets the files below a renamed directory as the map does (seed %i)", (seed) => {
    const { rels, r, dead, inPlace, byMap, abs } = seeded(seed, 2000, 50, 11);
    // Directories of the tree, names that prefix others (`a` beside `a.b`), a file, the root, above it, elsewhere.
    const dirs = [
      "/srv",
      ROOT,
      `${ROOT}/a`,
      `${ROOT}/a.b`,
      `${ROOT}/日本`,
      `${ROOT}/nope`,
      "/srv/tre",
      "/else",
    ];
    for (let i = 0; i < 6; i++) {
      const p = abs[1 + Math.floor(r() * (abs.length - 1))] as string;
      dirs.push(p, p.slice(0, p.lastIndexOf("/")));
    }
    for (const dir of dirs) {
      const one = loaded(rels, dead);
      one.inPlace.invalidateBelow(dir);
      one.byMap.invalidateBelow(dir);
      // A query applies what is pending: in the bytes for one, through the map of every path for the other.
      one.inPlace.candidates({ literals: ["abc"], traps: false });
      one.byMap.candidates({ literals: ["abc"], traps: false });
      const lives = (x: TrigramIndex) => abs.map((_, id) => x.isLive(id));
      expect(lives(one.inPlace)).toEqual(lives(one.byMap));
      expect(one.inPlace.dead).toBe(one.byMap.dead);
    }
    // The root: every file below it, the files persisted as changed counted once.
    inPlace.invalidateBelow(ROOT);
    byMap.invalidateBelow(ROOT);
    inPlace.candidates({ literals: ["abc"], traps: false });
    byMap.candidates({ literals: ["abc"], traps: false });
    expect(asked(abs, seed).map((p) => inPlace.idOfPath(p))).toEqual(
      asked(abs, seed).map((p) => byMap.idOfPath(p)),
    );
    expect(inPlace.dead).toBe(rels.length - 1 - [...dead].filter((id) => id !== 0).length);
  });

  test("a path written twice is the last live one's, as in the map", () => {
    const rels = ["a", "b", "a", "c", "a"];
    const { inPlace, byMap, abs } = loaded(rels, new Set([4]));
    expect(inPlace.idOfPath(`${ROOT}/a`)).toBe(2);
    expect(asked(abs, 1).map((p) => inPlace.idOfPath(p))).toEqual(
      asked(abs, 1).map((p) => byMap.idOfPath(p)),
    );
  });
});
