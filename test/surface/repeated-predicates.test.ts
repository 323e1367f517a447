// A predicate flag given twice never drops the first test without a word (#37). --perm repeated ANDs its modes,
// as GNU find's repeated -perm (compared with find on files of random modes, on the CLI and on MCP as a list);
// every other predicate that holds one value (sizes, times, owner, depths) refuses a second, different value
// with a usage error that names the flag, on every operation that walks. The table covers every such flag the
// registry declares: a new single-valued predicate fails here until it is given a row.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { prng, rglob } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rglob-repeat-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rnd = prng(3737);
const day = 86_400;
const now = Math.floor(Date.now() / 1000);
mkdirSync(join(dir, "sub", "deep"), { recursive: true });
for (let i = 0; i < 60; i++) {
  const f = join(dir, i % 3 === 0 ? "sub" : i % 3 === 1 ? "sub/deep" : ".", `f${i}`);
  writeFileSync(f, "x".repeat(Math.floor(rnd() * 3000)));
  chmodSync(f, [0o644, 0o755, 0o600, 0o700, 0o664, 0o444][i % 6] as number);
  const t = now - Math.floor(rnd() * 20) * day;
  utimesSync(f, t, t);
}
const hasFind = Bun.spawnSync(["find", "--version"]).exitCode === 0;
const uid = process.getuid?.() ?? 0;
const gid = process.getgid?.() ?? 0;

const lines = (s: string) =>
  s
    .split("\n")
    .filter((l) => l !== "")
    .sort();
const ours = (args: readonly string[]) =>
  rglob(["find", "-t", "f", ...args, "--format", "{rel}"], { cwd: dir });
const gnu = (args: readonly string[]) =>
  lines(
    Bun.spawnSync(["find", ".", "-type", "f", ...args, "-printf", "%P\\n"], { cwd: dir }).stdout.toString(),
  );

/** Repeated --perm: AND'd, as find's repeated -perm. */
const COMBINED: ReadonlyArray<{ args: string[]; find: string[] }> = [
  { args: ["--perm", "!644", "--perm", "!755"], find: ["!", "-perm", "644", "!", "-perm", "755"] },
  { args: ["--perm", "/111", "--perm", "-u+w"], find: ["-perm", "/111", "-perm", "-u+w"] },
  {
    args: ["--perm", "/100", "--perm", "!/022", "--perm", "-400"],
    find: ["-perm", "/100", "!", "-perm", "/022", "-perm", "-400"],
  },
  // The same value twice is one test, for every flag that holds one value.
  { args: ["--uid", String(uid), "--uid", String(uid)], find: ["-uid", String(uid)] },
  { args: ["--max-depth", "2", "-d", "2"], find: ["-maxdepth", "2"] },
];

/** Every single-valued predicate, given twice with two values: refused (exit 2, the flag named). */
const REFUSED: ReadonlyArray<{ key: string; args: string[]; says: string }> = [
  {
    key: "min_size",
    args: ["--min-size", "1k", "--min-size", "2k"],
    says: "--min-size given twice ('1k', then '2k')",
  },
  { key: "max_size", args: ["--max-size", "2k", "--max-size", "1k"], says: "--max-size given twice" },
  {
    key: "newer_than",
    args: ["--newer-than", "3d", "--changed-within", "1w"],
    says: "--changed-within given twice ('3d', then '1w')",
  },
  {
    key: "older_than",
    args: ["--changed-before", "3d", "--older-than", "1w"],
    says: "--older-than given twice",
  },
  {
    key: "newer_than_file",
    args: ["--newer-than-file", "f0", "--newer-than-file", "f1"],
    says: "--newer-than-file given twice",
  },
  { key: "uid", args: ["--uid", String(uid), "--uid", String(uid + 1)], says: "--uid given twice" },
  { key: "gid", args: ["--gid", String(gid), "--gid", String(gid + 1)], says: "--gid given twice" },
  {
    key: "max_depth",
    args: ["-d", "1", "--max-depth", "3"],
    says: "--max-depth given twice ('1', then '3')",
  },
  { key: "min_depth", args: ["--min-depth", "1", "--min-depth", "2"], says: "--min-depth given twice" },
];

describe("a predicate flag given twice is never silently dropped (#37)", () => {
  test.if(hasFind).each(COMBINED.map((c) => [c.args.join(" "), c] as const))(
    "find %s: the tests AND'd, as GNU find's (skipped without GNU find)",
    (_, c) => {
      const r = ours(c.args);
      expect(r.code === 0 || r.code === 1).toBe(true);
      const want = gnu(c.find);
      expect(lines(r.stdout)).toEqual(want);
      // Modes that AND keep fewer than the last alone: the first is not dropped.
      if (c.args[0] === "--perm")
        expect(want.length).toBeLessThan(lines(ours(c.args.slice(-2)).stdout).length);
    },
  );

  test.each(REFUSED.map((c) => [c.args.join(" "), c] as const))(
    "%s: refused on find, grep and count, the flag named",
    (_, c) => {
      for (const op of [["find"], ["grep", "x"], ["count"]]) {
        const r = rglob([...op, ...c.args], { cwd: dir });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(c.says);
        expect(r.stdout).toBe("");
      }
    },
  );

  test("the table covers every single-valued predicate flag of find, grep and count", () => {
    // The walk's selection flags that take one value; the rest (limit, context, encoding…) are not predicates:
    // a later value replaces an earlier one there, as in rg.
    const predicates = new Set([
      "min_size",
      "max_size",
      "newer_than",
      "older_than",
      "newer_than_file",
      "uid",
      "gid",
      "max_depth",
      "min_depth",
      "perm",
    ]);
    for (const op of ["find", "grep", "count"]) {
      const d = JSON.parse(rglob(["describe", op, "--json"]).stdout) as {
        flags: Array<{ input_key?: string; key?: string; type: string }>;
      };
      const keys = d.flags
        .map((f) => f.input_key ?? f.key)
        .filter((k) => k !== undefined && predicates.has(k));
      expect(keys.sort()).toEqual([...predicates].sort());
    }
    expect(REFUSED.map((c) => c.key).sort()).toEqual([...predicates].filter((k) => k !== "perm").sort());
  });

  test("MCP takes perm as a list, AND'd; a string is one mode", async () => {
    const cli = lines(ours(["--perm", "!644", "--perm", "!755"]).stdout);
    const s = await startMcp(["--root", dir]);
    try {
      const call = async (perm: string | string[]) => {
        const res = (await s.client.callTool({
          name: "rglob",
          arguments: { op: "find", types: ["f"], perm, limit: 1000 },
        })) as CallToolResult;
        const recs = (res.structuredContent as { results: Array<{ relative_path: string }> }).results;
        return recs.map((x) => x.relative_path).sort();
      };
      expect(await call(["!644", "!755"])).toEqual(cli);
      expect(await call("!644")).toEqual(lines(ours(["--perm", "!644"]).stdout));
    } finally {
      await s.close();
    }
    // explain names the mode that rejects the path, each of several.
    const ex = rglob(["explain", "f2", "--perm", "/111", "--perm", "!600", "--json"], { cwd: dir });
    const reasons = (
      JSON.parse(ex.stdout) as { results: Array<{ reasons: Array<{ detail: string }> }> }
    ).results[0]?.reasons.map((x) => x.detail);
    expect(reasons?.join("\n")).toContain("does not satisfy --perm !600");
  });
});
