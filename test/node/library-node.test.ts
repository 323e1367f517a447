// The built library (dist/lib) under plain Node, on the Node on PATH and on the oldest Node `engines` allows
// (from the npm registry, see node-runtimes.ts): a runaway regex stops at timeout_seconds (the search worker
// ships in dist/lib), and paging, top and dupes work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, skipWhen, tempTree } from "../helpers.ts";
import { oldestNode, registryNode } from "./node-runtimes.ts";

const LIB = join(ROOT, "dist", "lib", "agent", "index.js");
let tree: { dir: string; cleanup: () => void };
let script = "";

beforeAll(() => {
  if (!existsSync(LIB)) {
    const b = spawnSync(process.execPath, [join(ROOT, "scripts", "build-lib.ts")], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (b.status !== 0) throw new Error(`build-lib failed: ${b.stderr}`);
  }
  tree = tempTree({
    // 60 "a" then "!": nine nested stars backtrack about 10^10 times in V8 before they fail (a repeated group
    // such as ^(a+)+$ would run on the linear-time engine, ADR 0020).
    "runaway.txt": `${"a".repeat(60)}!\n`,
    "one.txt": "twin\n",
    "two.txt": "twin\n",
    "sub/three.txt": "three\n",
  });
  script = join(tree.dir, "..", `rglob-node-check-${process.pid}.mjs`);
  writeFileSync(
    script,
    `import { grepAll, searchAll, top, findDuplicates } from ${JSON.stringify(LIB)};
const base = process.argv[2];
const out = {};
const runaway = await grepAll({ base, pattern: "a*a*a*a*a*a*a*a*a*[b!]!", timeout_seconds: 2 });
out.runaway = { reason: runaway.truncated_reason, codes: runaway.errors.map((e) => e.code) };
const first = await searchAll({ base, limit: 1, types: ["f"] });
const second = await searchAll({ base, limit: 1, types: ["f"], cursor: first.next_cursor });
out.paging = [first.results[0]?.relative_path, second.results[0]?.relative_path, second.errors];
const largest = await top({ base });
out.top = { errors: largest.errors, n: largest.results.length };
const dupes = await findDuplicates({ base });
out.dupes = dupes.results.map((g) => g.paths.map((p) => p.split(/[\\\\/]/).pop()).sort());
console.log(JSON.stringify(out));
`,
  );
}, 60_000);

afterAll(() => {
  tree?.cleanup();
  if (script && existsSync(script)) Bun.file(script).delete();
});

function check(node: string): void {
  const r = spawnSync(node, [script, tree.dir], {
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, RGLOB_DEBUG: "1", NO_COLOR: "1" },
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.runaway).toEqual({ reason: "timeout", codes: ["TIMEOUT"] });
  expect(out.paging[0]).toBeString();
  expect(out.paging[1]).toBeString();
  expect(out.paging[1]).not.toBe(out.paging[0]);
  expect(out.paging[2]).toEqual([]);
  expect(out.top).toEqual({ errors: [], n: expect.any(Number) });
  expect(out.top.n).toBeGreaterThan(0);
  expect(out.dupes).toEqual([["one.txt", "two.txt"]]);
}

/** The oldest Node the package allows, fetched (once, cached) when the file is collected, or why it is not here. */
const oldest = registryNode(oldestNode());

describe("the library under plain Node", () => {
  test("on the node on PATH: a runaway regex stops at timeout_seconds; paging, top and dupes work", () => {
    const node = Bun.which("node");
    if (!node) throw new Error("node is not on PATH (CI has it: the suite needs it)");
    check(node);
  });

  skipWhen("why" in oldest && `no Node ${oldestNode()} from the npm registry: ${oldest.why}`)(
    `on the oldest Node engines allows (${oldestNode()}, from the npm registry): the same`,
    () => {
      const got = oldest as { bin: string };
      const v = spawnSync(got.bin, ["--version"], { encoding: "utf8" });
      expect(v.stdout.trim()).toBe(`v${oldestNode()}`);
      check(got.bin);
    },
    400_000,
  );
});
