// The walk workers (docs/decisions/0009-parallel-walk.md) through a copy of the binary in another directory, so
// the worker entry must come from inside the binary: with RGLOB_WALK_SPLIT forcing them on a small tree, every
// walk-based command prints exactly what it prints walking in one thread (RGLOB_WALK_SPLIT=0), pages included.
// And every worker a module starts is an entrypoint of the build.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { WORKER_ENTRYPOINTS } from "../../scripts/build.ts";
import { BIN, ROOT, rglob, type TreeSpec, tempTree } from "../helpers.ts";

describe("walk workers in the binary", () => {
  let tree: { dir: string; cleanup: () => void };
  let binDir: string;
  let copy: string;
  beforeAll(() => {
    const spec: TreeSpec = { ".gitignore": "*.log\n/d03/\n", "d01/.gitignore": "!keep.log\nsub*/\n" };
    for (let d = 0; d < 12; d++) {
      for (let s = 0; s < 5; s++) {
        for (let f = 0; f < 40; f++) {
          const dd = `d${String(d).padStart(2, "0")}`;
          const name = f % 9 === 0 ? `keep.log` : f % 11 === 0 ? `.h${f}` : `f${f}.txt`;
          spec[`${dd}/sub${s}/${name}`] = "x".repeat((d * 7 + f) % 5);
        }
      }
    }
    tree = tempTree(spec);
    binDir = mkdtempSync(join(tmpdir(), "rglob-bin-"));
    copy = join(binDir, "rglob");
    copyFileSync(BIN, copy);
    Bun.spawnSync(["chmod", "+x", copy]);
  });
  afterAll(() => {
    tree.cleanup();
    rmSync(binDir, { recursive: true, force: true });
  });

  const commands: ReadonlyArray<readonly string[]> = [
    ["find"],
    ["find", "--jsonl", "--hidden"],
    ["find", "-t", "d", "--json"],
    ["find", "--min-size", "2", "--json", "--no-ignore"],
    ["find", "--jsonl", "--limit", "37"],
    ["tree", "--jsonl"],
    ["top", "-n", "15", "--json"],
    ["stats", "--json"],
    ["dupes", "--jsonl"],
  ];
  for (const args of commands) {
    test(`rglob ${args.join(" ")}: the same output with workers as without`, () => {
      const one = rglob(args, { cwd: tree.dir, bin: copy, env: { RGLOB_WALK_SPLIT: "0" } });
      const many = rglob(args, { cwd: tree.dir, bin: copy, env: { RGLOB_WALK_SPLIT: "7" } });
      expect(one.code).toBe(0);
      expect(one.stdout.length).toBeGreaterThan(100);
      expect({ code: many.code, stdout: many.stdout, stderr: many.stderr }).toEqual({
        code: one.code,
        stdout: one.stdout,
        stderr: one.stderr,
      });
    });
  }

  test("pages through a cursor are the same with workers", () => {
    const page = (split: string, cursor: string | null) => {
      const r = rglob(["find", "--json", "--limit", "50", ...(cursor ? ["--cursor", cursor] : [])], {
        cwd: tree.dir,
        bin: copy,
        env: { RGLOB_WALK_SPLIT: split },
      });
      return JSON.parse(r.stdout) as {
        results: Array<{ relative_path: string }>;
        next_cursor: string | null;
      };
    };
    const walkAll = (split: string) => {
      const paths: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 100; i++) {
        const p = page(split, cursor);
        paths.push(...p.results.map((r) => r.relative_path));
        cursor = p.next_cursor;
        if (cursor === null) break;
      }
      return paths;
    };
    const one = walkAll("0");
    expect(one.length).toBeGreaterThan(1000);
    expect(walkAll("5")).toEqual(one);
  });
});

test("every module that starts a worker names a file the build compiles in as an entrypoint", () => {
  const started: string[] = [];
  const visit = (dir: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) visit(p);
      else if (p.endsWith(".ts")) {
        const text = readFileSync(p, "utf8");
        for (const m of text.matchAll(/new URL\("\.\/([\w-]+)\.ts", import\.meta\.url\)/g)) {
          started.push(relative(ROOT, join(dir, `${m[1]}.ts`)));
        }
        // platform/workers.ts: startWorker("engine/walk-worker") (or startWorkerPort, workerUrl) names a path
        // under src/ (on the next line when the call is long).
        for (const m of text.matchAll(
          /\b(?:workerUrl|startWorker|startWorkerPort(?:<[^>]*>)?)\(\s*"([\w/-]+)"/g,
        ))
          started.push(`src/${m[1]}.ts`);
      }
    }
  };
  visit(join(ROOT, "src"));
  expect(started.length).toBeGreaterThanOrEqual(3);
  expect([...new Set(started)].sort()).toEqual([...WORKER_ENTRYPOINTS].sort());
});
