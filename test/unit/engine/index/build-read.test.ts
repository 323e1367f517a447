// The index build's reads (#36): files read in batches by build-read.ts (the build worker's work: open, stat,
// read, distinct trigram keys and their union per batch) and added by their keys give the same frozen index,
// byte for byte, as the same files' bytes added one by one, in one piece or spilled in segments at batch ends;
// files that are binary, UTF-16, not UTF-8, over the size cap, symlinks or gone are not indexed.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BuildReader, READ_FACTS, READ_INDEXED, READ_TRAP } from "../../../../src/engine/index/build-read.ts";
import { TrigramIndex } from "../../../../src/engine/index/trigrams.ts";
import { routes } from "../../../../src/platform/routes.ts";
import { prng, tempTree } from "../../../helpers.ts";

const FACTS = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };

describe("the index build's batches", () => {
  test.each([
    [1, 0],
    [2, 3000],
  ])(
    "keys read in batches give the index the bytes give, byte for byte (seed %i, segments of %i)",
    (seed, seg) => {
      const r = prng(seed);
      const spec: Record<string, string> = {};
      for (let f = 0; f < 300; f++) {
        const n = f % 50 === 7 ? 40_000 : Math.floor(r() * 400);
        let s = "";
        for (let i = 0; i < n; i++) s += String.fromCharCode(32 + Math.floor(r() * (f % 3 === 0 ? 90 : 20)));
        spec[`d${f % 7}/f${String(f).padStart(3, "0")}.txt`] = f === 11 ? `${s}\u212a` : s;
      }
      spec["bin.dat"] = "ab\u0000cd";
      spec["latin.txt"] = "x";
      const { dir, cleanup } = tempTree(spec);
      try {
        fs.writeFileSync(path.join(dir, "latin.txt"), Buffer.from([0x61, 0xe9, 0x62, 0x63]));
        fs.writeFileSync(path.join(dir, "utf16.txt"), Buffer.from([0xff, 0xfe, 0x61, 0x00]));
        fs.symlinkSync(path.join(dir, "d0"), path.join(dir, "link"));
        const paths = [...Object.keys(spec), "utf16.txt", "gone.txt", "link"]
          .sort()
          .map((p) => path.join(dir, p));
        const reader = new BuildReader({
          routes: routes(),
          confine: null,
          maxFileSize: 30_000,
          nulScan: 65536,
        });
        const whole = seg === 0 ? new TrigramIndex() : new TrigramIndex(true, seg);
        const batched = seg === 0 ? new TrigramIndex() : new TrigramIndex(true, seg);
        let indexed = 0;
        for (let b = 0; b < paths.length; b += 64) {
          const batch = paths.slice(b, b + 64);
          const read = reader.read(batch);
          let at = 0;
          batch.forEach((p, i) => {
            const n = read.counts[i] as number;
            at += n;
            if (((read.flags[i] as number) & READ_INDEXED) === 0) return;
            indexed++;
            const text = fs.readFileSync(p);
            whole.add(p, text, FACTS);
            if (whole.spillDue) whole.spill();
            const f = i * READ_FACTS;
            expect(read.facts[f + 4]).toBe(text.length);
            expect(((read.flags[i] as number) & READ_TRAP) !== 0).toBe(p.endsWith("f011.txt"));
            batched.addKeys(p, read.keys.subarray(at - n, at), FACTS, text.length, false);
          });
          batched.markWords(read.union);
          if (batched.spillDue) batched.spill();
        }
        // Not indexed: binary, UTF-16, not UTF-8, the two files over 30,000 bytes... (six of 40,000), gone, a symlink.
        expect(indexed).toBe(paths.length - 3 - 6 - 2);
        whole.freeze();
        batched.freeze();
        const a = whole.frozenParts();
        const b = batched.frozenParts();
        expect(b.keys.length).toBeGreaterThan(1000);
        expect(Buffer.from(b.keys.buffer).equals(Buffer.from(a.keys.buffer))).toBe(true);
        expect(Buffer.from(b.starts.buffer).equals(Buffer.from(a.starts.buffer))).toBe(true);
        expect(Buffer.from(b.data).equals(Buffer.from(a.data))).toBe(true);
        expect(b.textBytes).toBe(a.textBytes);
      } finally {
        cleanup();
      }
    },
  );
});
