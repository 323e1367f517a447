// count on a tree large enough for the counting pipeline's workers (by default started on machines with four or
// more hardware threads; forced here with --threads), through a copy of the binary in another directory (so the
// worker entry must come from inside the binary): every file counted once, records in walk order, errors where
// the walk met them, exact totals, and the same output with and without workers.
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, jsonl, rglob, tempTree } from "../helpers.ts";

describe("count on a large tree", () => {
  test("a 6,000-file tree: records in walk order, errors in place, exact totals, from a copied binary", () => {
    const spec: Record<string, string | Uint8Array> = {};
    let expected = 0;
    for (let d = 0; d < 30; d++) {
      for (let f = 0; f < 200; f++) {
        const n = (d * 200 + f) % 17;
        expected += n;
        spec[`d${String(d).padStart(2, "0")}/f${String(f).padStart(3, "0")}.ts`] =
          "// c\nconst x = 1;\n\n".repeat(n / 3) + "y();\n".repeat(n % 3);
      }
    }
    spec["d20/f100.ts"] = new Uint8Array([1, 0, 10]);
    // Scripts named by their #! line only, in batches that workers count too: the language comes back with them.
    for (let d = 21; d < 30; d++) spec[`d${d}/hook`] = "#!/usr/bin/env sh\n# why\nrun\n";
    expected += 9 * 3;
    const t = tempTree(spec);
    const dir = mkdtempSync(join(tmpdir(), "rglob-bin-"));
    try {
      const copy = join(dir, "rglob");
      copyFileSync(BIN, copy);
      Bun.spawnSync(["chmod", "+x", copy]);
      // --list-binary: the binary file's error record, in its place in walk order (it is counted alone otherwise).
      const r = rglob(["count", "--jsonl", "--list-binary", "--threads", "2"], { cwd: t.dir, bin: copy });
      expect(r.code).toBe(0);
      expect(
        rglob(["count", "--jsonl", "--list-binary", "--threads", "0"], { cwd: t.dir, bin: copy }).stdout,
      ).toBe(r.stdout);
      const out = jsonl(r.stdout);
      const files = out.filter((l) => l.kind === "file");
      const listed = jsonl(rglob(["find", "--type", "f", "--jsonl"], { cwd: t.dir, bin: copy }).stdout)
        .filter((l) => l.kind !== "summary")
        .map((l) => l.relative_path);
      expect(files.map((l) => l.relative_path)).toEqual(listed.filter((p) => p !== "d20/f100.ts"));
      const errorAt = out.findIndex((l) => l.kind === "error");
      expect(out[errorAt]).toMatchObject({ code: "BINARY" });
      expect(out[errorAt - 1]?.relative_path).toBe("d20/f099.ts");
      expect(out[errorAt + 1]?.relative_path).toBe("d20/f101.ts");
      const summary = out.at(-1) as { totals: { files: number; lines: number; binary_files: number } };
      const sum = files.reduce((s, l) => s + (l.lines as number), 0);
      expect(summary.totals).toMatchObject({ files: 6008, lines: sum, binary_files: 1 });
      const hooks = files.filter((l) => (l.relative_path as string).endsWith("/hook"));
      expect(hooks.map((l) => [l.language, l.code, l.comment])).toEqual(Array(9).fill(["Shell", 1, 2]));
      expect(sum).toBe(expected - ((20 * 200 + 100) % 17));
    } finally {
      t.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("counts in one process reuse their workers: each gets its own results", async () => {
  // count-pool.ts lends the workers of a finished count to the next one: a worker must answer its new pool only.
  const { count } = await import("../../src/agent/index.ts");
  const spec: Record<string, string> = {};
  for (let f = 0; f < 4600; f++)
    // The Python files open with a docstring: a worker's answer carries docstring lines too.
    spec[`d${f % 23}/f${f}.${f % 2 ? "py" : "ts"}`] =
      (f % 2 ? '"""Doc."""\n' : "") + "x = 1\n# c\n\n".repeat(1 + (f % 4));
  const t = tempTree(spec);
  try {
    const summary = (r: { totals?: unknown; results: unknown[] }) => JSON.stringify([r.totals, r.results]);
    const alone = await count({ base: t.dir, threads: 0, by: "ext" });
    expect(alone.totals.docstring).toBe(2300);
    const plain = await count({ base: t.dir, threads: 0, limit: 5 });
    for (let round = 0; round < 3; round++) {
      expect(summary(await count({ base: t.dir, threads: 2, by: "ext" }))).toBe(summary(alone));
      expect(summary(await count({ base: t.dir, threads: 2, limit: 5 }))).toBe(summary(plain));
    }
  } finally {
    t.cleanup();
  }
}, 60_000);
