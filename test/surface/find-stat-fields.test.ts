// The fields a user checks with stat(1) (#37): find's and top's records carry `mode` (octal, as `stat -c %a`),
// `uid` and `gid`, and `find --format` has {mode} {uid} {gid}; on a random tree of files, directories and
// symlinks with random modes (setuid, setgid and sticky bits among them), against stat(1), on the CLI (human and
// JSON), the library and MCP.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchAll } from "../../src/agent/index.ts";
import { prng, rglob, rglobJson } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rglob-stat-fields-"));
afterAll(() => {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});
const rnd = prng(3737);
for (let d = 0; d < 4; d++) {
  const sub = join(dir, `d${d}`);
  mkdirSync(sub);
  for (let i = 0; i < 12; i++) {
    const f = join(sub, `f${i}`);
    writeFileSync(f, "x".repeat(i));
    chmodSync(f, Math.floor(rnd() * 0o10000) | 0o400); // any bits, setuid/setgid/sticky included
  }
  symlinkSync(`f${d}`, join(sub, "link"));
  symlinkSync("../nowhere", join(sub, "dangling"));
  chmodSync(sub, d === 0 ? 0o1777 : d === 1 ? 0o2755 : 0o755);
}

/** stat(1)'s answer for every entry below the base: `rel mode uid gid`, sorted. */
function statLines(): string[] {
  const out = Bun.spawnSync(
    ["sh", "-c", "find . -mindepth 1 -printf '%P\\0' | xargs -0 stat -c '%n %a %u %g'"],
    {
      cwd: dir,
    },
  );
  expect(out.exitCode).toBe(0);
  return out.stdout.toString().split("\n").filter(Boolean).sort();
}

type Rec = { relative_path: string; mode?: string; uid?: number; gid?: number };
const asLines = (recs: readonly Rec[]) =>
  recs.map((r) => `${r.relative_path} ${r.mode} ${r.uid} ${r.gid}`).sort();

test("find --format {rel} {mode} {uid} {gid} is stat -c '%n %a %u %g'", () => {
  const expected = statLines();
  expect(expected.some((l) => / [4-7][0-7]{3} /.test(l))).toBe(true); // a setuid/setgid/sticky bit is met
  const r = rglob(["find", "--format", "{rel} {mode} {uid} {gid}"], { cwd: dir });
  expect(r.code).toBe(0);
  expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(expected);
});

test("records carry mode, uid and gid: find --json and --jsonl, top, the library and MCP", async () => {
  const expected = statLines();
  const json = rglobJson<{ results: Rec[] }>(["find", "--json"], { cwd: dir }).json.results;
  expect(asLines(json)).toEqual(expected);
  const lines = rglob(["find", "--jsonl"], { cwd: dir })
    .stdout.split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec & { kind: string })
    .filter((l) => l.kind === "file");
  expect(asLines(lines)).toEqual(expected);
  const top = rglobJson<{ results: Rec[] }>(["top", "--limit", "5", "--json"], { cwd: dir }).json.results;
  expect(top.length).toBe(5);
  for (const line of asLines(top)) expect(expected).toContain(line);
  const lib = await searchAll({ base: dir, strict_base: false });
  expect(asLines(lib.results as Rec[])).toEqual(expected);
  const s = await startMcp(["--root", dir]);
  try {
    const res = (await s.client.callTool({
      name: "rglob",
      arguments: { op: "find", limit: 1000 },
    })) as unknown as { structuredContent: { results: Rec[] } };
    expect(asLines(res.structuredContent.results)).toEqual(expected);
  } finally {
    await s.close();
  }
});
