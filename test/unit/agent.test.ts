// The library `rglob/agent` in-process (Bun): typed functions that never raise for operational failures,
// streaming that stops the walk when the loop is left, cancellation, paging, strict base by default, and the
// introspection functions. Parity with the CLI and MCP is in test/surface/parity.test.ts.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import * as agent from "../../src/agent/index.ts";
import {
  AGENT_API_VERSION,
  allSchemas,
  capabilities,
  type FileMatch,
  runAll,
  schemaFor,
  search,
  searchAll,
} from "../../src/agent/index.ts";
import { SCHEMAS } from "../../src/generated/schemas.ts";
import { OPERATIONS } from "../../src/ops/registry.ts";
import { FIXTURE, rglobJson, tempTree } from "../helpers.ts";

/** The library functions each operation gets (DESIGN.md, issue #6). */
const LIBRARY_FUNCTIONS: Readonly<Record<string, readonly string[]>> = {
  find: ["search", "searchAll"],
  grep: ["grep", "grepAll"],
  count: ["count"],
  dupes: ["findDuplicates"],
  tree: ["tree"],
  top: ["top"],
  stats: ["stats"],
  explain: ["explain"],
};

function bigTree(dirs: number, files: number) {
  const t = tempTree({});
  for (let d = 0; d < dirs; d++) {
    const sub = join(t.dir, `d${String(d).padStart(3, "0")}`);
    mkdirSync(sub);
    for (let f = 0; f < files; f++) writeFileSync(join(sub, `f${f}.txt`), "");
  }
  return t;
}

describe("typed functions", () => {
  test("every registered operation with a library function has it exported", () => {
    const exported = agent as unknown as Record<string, unknown>;
    const gaps: string[] = [];
    for (const op of OPERATIONS) {
      for (const n of LIBRARY_FUNCTIONS[op.id] ?? [])
        if (typeof exported[n] !== "function") gaps.push(`${op.id}: ${n}`);
    }
    expect(gaps).toEqual([]);
    // Every operation with an MCP tool has a typed function (lcount/tsize are CLI aliases of count).
    const typed = new Set(Object.keys(LIBRARY_FUNCTIONS));
    expect(OPERATIONS.filter((o) => o.mcpTool !== null && !typed.has(o.id)).map((o) => o.id)).toEqual([]);
  });

  test("searchAll equals the CLI's --json result (strict base is the library default)", async () => {
    const lib = await searchAll({ base: FIXTURE, hidden: true });
    expect(lib as unknown).toEqual(
      rglobJson(["find", "--json", "--hidden", "--strict-base", "--base", FIXTURE]).json,
    );
  });

  test("search yields the records of searchAll, then result holds the rest of the result", async () => {
    const records: FileMatch[] = [];
    const stream = search({ base: FIXTURE, types: ["f"] });
    for await (const f of stream) records.push(f);
    const { results, ...meta } = await searchAll({ base: FIXTURE, types: ["f"] });
    expect(records).toEqual(results);
    expect(await stream.result).toEqual(meta);
  });

  test.each([
    ["an unknown option", { base: FIXTURE, no_such: 1 }, "BAD_PREDICATE", "unknown option 'no_such'"],
    ["a wrong type", { base: FIXTURE, limit: "ten" }, "BAD_PREDICATE", "limit"],
    ["a bad size", { base: FIXTURE, min_size: "nope" }, "BAD_PREDICATE", "not a size"],
    ["a bad glob", { base: FIXTURE, patterns: ["[unclosed"] }, "BAD_PREDICATE", "glob"],
    ["a missing base", { base: join(FIXTURE, "nope") }, "NOT_FOUND", "base directory"],
    ["a cursor from nowhere", { base: FIXTURE, cursor: "garbage" }, "BAD_PREDICATE", "cursor"],
  ])("%s is a result with the error, never a throw", async (_name, options, code, message) => {
    const all = await searchAll(options as never);
    expect(all.results).toEqual([]);
    expect(all.errors).toHaveLength(1);
    expect(all.errors[0]?.code).toBe(code as never);
    expect(all.errors[0]?.message).toContain(message);
    const stream = search(options as never);
    const seen: unknown[] = [];
    for await (const f of stream) seen.push(f);
    expect(seen).toEqual([]);
    expect((await stream.result).errors[0]?.code).toBe(code as never);
  });

  test("runAll runs any operation by id; an unknown id is a BAD_PREDICATE result", async () => {
    expect(await runAll("find", { base: FIXTURE })).toEqual(await searchAll({ base: FIXTURE }));
    const bad = await runAll("no_such_op", {});
    expect((bad.errors as Array<{ code: string }>)[0]?.code).toBe("BAD_PREDICATE");
  });
});

describe("streaming stops the walk", () => {
  test("leaving the loop early stops the walk: the result says cancelled and few entries were examined", async () => {
    const { dir, cleanup } = bigTree(50, 200);
    try {
      const stream = search({ base: dir });
      let n = 0;
      for await (const _f of stream) if (++n === 3) break;
      const meta = await stream.result;
      expect(meta.truncated).toBe(true);
      expect(meta.truncated_reason).toBe("cancelled");
      expect(meta.total_files_searched).toBeLessThan(1000);
      const whole = await searchAll({ base: dir, hidden: true });
      expect(whole.total_files_searched).toBe(50 * 200); // files only: the 50 directories are not counted
    } finally {
      cleanup();
    }
    // Writing and walking 10,000 files took 2-8 s on a loaded 2-core machine: past bun's 5 s default, which is a
    // guard against a hang here, not a speed bound.
  }, 60_000);

  test("a consumer that stops pulling holds the walk back (bounded queue)", async () => {
    const { dir, cleanup } = bigTree(20, 200);
    try {
      const stream = search({ base: dir });
      const it = stream[Symbol.asyncIterator]();
      await it.next();
      // Let the walk run as far as it can while nobody pulls: it stops at the queue's bound (64 records).
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      await it.return?.();
      const meta = await stream.result;
      expect(meta.truncated_reason).toBe("cancelled");
      expect(meta.total_files_searched).toBeLessThan(100);
    } finally {
      cleanup();
    }
  }, 60_000);

  test("an aborted signal ends the call with truncated_reason cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const all = await searchAll({ base: FIXTURE }, { signal: controller.signal });
    expect(all.truncated_reason).toBe("cancelled");
    const stream = search({ base: FIXTURE }, { signal: controller.signal });
    for await (const _ of stream) {
    }
    expect((await stream.result).truncated_reason).toBe("cancelled");
  });

  // Regression: a request stopped before its operation started (a deadline already past, a signal already
  // aborted) returned the metadata without the operation's own fields (explain's `included`, grep's totals), which
  // an MCP client's output-schema check refused.
  test.each(OPERATIONS.map((o) => [o.id, o] as const))(
    "%s: stopped before it starts, the result still has every field of its output model",
    async (_id, op) => {
      const controller = new AbortController();
      controller.abort();
      const input: Record<string, unknown> = { base: FIXTURE };
      if (op.id === "grep") input.pattern = "TODO";
      if (op.id === "explain") input.path = "src/main.py";
      if (op.id === "lcount" || op.id === "tsize") input.patterns = ["*.py"];
      const result = await runAll(op.id, input, { signal: controller.signal });
      // explain looks at one path and answers in full; every other operation examines nothing.
      if (op.id === "explain") expect(result.included).toBe(true);
      else expect([result.truncated_reason, result.total_files_searched]).toEqual(["cancelled", 0]);
      const parsed = v.safeParse((await op.models()).output, result);
      expect(parsed.issues?.map((i) => `${i.path?.map((p) => p.key).join(".")}: ${i.message}`) ?? []).toEqual(
        [],
      );
    },
  );

  test("paging with next_cursor through search visits every record once", async () => {
    const whole = await searchAll({ base: FIXTURE, hidden: true });
    const seen: FileMatch[] = [];
    let cursor: string | null = null;
    do {
      const stream = search({ base: FIXTURE, hidden: true, limit: 3, ...(cursor ? { cursor } : {}) });
      for await (const f of stream) seen.push(f);
      cursor = (await stream.result).next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(whole.results);
  });
});

describe("defaults and introspection", () => {
  test("strict_base is on by default: a followed link out of the base is a link record, not followed", async () => {
    const outside = tempTree({ "secret.txt": "x" });
    const { dir, cleanup } = tempTree({ "a.txt": "", out: { symlink: outside.dir } });
    try {
      const strict = await searchAll({ base: dir, follow_symlinks: true });
      const loose = await searchAll({ base: dir, follow_symlinks: true, strict_base: false });
      const rels = (r: { results: readonly FileMatch[] }) => r.results.map((f) => f.relative_path);
      expect(rels(strict)).not.toContain("out/secret.txt");
      // #37: the link itself is a result that says it leaves the base (no PERM error record).
      expect(strict.errors.map((e) => e.code)).not.toContain("PERM");
      expect(strict.results.find((f) => f.relative_path === "out")).toMatchObject({
        entry_type: "symlink",
        link_escapes: true,
      });
      expect(rels(loose)).toContain("out/secret.txt");
    } finally {
      cleanup();
      outside.cleanup();
    }
  });

  test("schemaFor, allSchemas, capabilities and AGENT_API_VERSION", () => {
    expect(AGENT_API_VERSION).toBe("1.4");
    expect(schemaFor("find.input")).toEqual(SCHEMAS["find.input"] as Record<string, unknown>);
    expect(schemaFor("nope")).toBeUndefined();
    expect(allSchemas()).toEqual(SCHEMAS);
    const caps = capabilities();
    expect(caps.operations).toEqual(OPERATIONS.map((o) => o.id));
    expect(caps.platform.runtime).toStartWith("bun ");
    expect(caps.mcp.tools).toEqual(["rglob", "describe_tool"]);
  });
});
