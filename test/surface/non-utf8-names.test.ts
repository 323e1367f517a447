// Issue #21 item 13: names that are not valid UTF-8 are found and searched, as rg and fd find them. Records give
// `path`/`relative_path` lossy (U+FFFD) and `path_bytes` (base64 of the absolute path's raw bytes); human output
// writes the raw bytes (escaped as \xNN on a terminal). Linux only: other file systems may refuse such names.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BIN, jsonl, rglob, rglobJson, skipWhen, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const b = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

const t = tempTree({ "ok.txt": "needle\n", "same.txt": "twin\n" });
let supported = true;
try {
  writeFileSync(b(`${t.dir}/a`, [0xff], "b.txt"), "one needle\n");
  mkdirSync(b(`${t.dir}/d`, [0xfe]));
  writeFileSync(b(`${t.dir}/d`, [0xfe], "/in", [0xc3], ".txt"), "needle\nneedle\n");
  writeFileSync(b(`${t.dir}/twin`, [0xe9], ".txt"), "twin\n");
} catch {
  supported = false;
}
if (!supported || process.platform !== "linux")
  console.warn("SKIPPED: this file system refuses names that are not valid UTF-8 (non-UTF-8 name tests)");
const run = supported && process.platform === "linux" ? describe : describe.skip;
/** fd, for the comparison of human output (skipped without it). */
const fdBin = Bun.which("fdfind") ?? Bun.which("fd");
/** Whether script(1) gives a command a pseudo-terminal here. */
const scriptWorks = (() => {
  try {
    return Bun.spawnSync(["script", "-qec", "true", "/dev/null"]).exitCode === 0;
  } catch {
    return false;
  }
})();
afterAll(() => t.cleanup());

/** Raw stdout bytes of the binary. */
function raw(args: string[], env: Record<string, string> = {}): Buffer {
  const r = Bun.spawnSync([BIN, ...args], { cwd: t.dir, env: { ...process.env, NO_COLOR: "1", ...env } });
  return Buffer.from(r.stdout);
}
/** Splits output on newlines into raw names, sorted by bytes. */
function names(out: Buffer): string[] {
  const list: string[] = [];
  let at = 0;
  for (let i = out.indexOf(10); i >= 0; i = out.indexOf(10, at)) {
    list.push(out.subarray(at, i).toString("hex"));
    at = i + 1;
  }
  return list.sort();
}
const hex = (...parts: Array<string | number[]>) => b(...parts).toString("hex");
const BAD_FILE = hex("a", [0xff], "b.txt");
const BAD_DIR = hex("d", [0xfe]);
const BAD_IN = hex("d", [0xfe], "/in", [0xc3], ".txt");
const BAD_TWIN = hex("twin", [0xe9], ".txt");

interface Rec {
  path: string;
  path_bytes?: string;
  relative_path: string;
  paths?: string[];
  paths_bytes?: Array<string | null>;
}
const bytesOf = (r: Rec): string => Buffer.from(r.path_bytes as string, "base64").toString("hex");

const skipWhy = run === describe ? "" : " (skipped: names not valid UTF-8 refused here)";
run(`names that are not valid UTF-8${skipWhy}`, () => {
  test("find lists the file and the directory, and walks into it; path_bytes decodes to the exact bytes", () => {
    const { json, run: r } = rglobJson<{ results: Rec[]; errors: unknown[] }>(["find", "--json"], {
      cwd: t.dir,
    });
    expect(r.code).toBe(0);
    expect(json.errors).toEqual([]);
    const withBytes = json.results.filter((x) => x.path_bytes !== undefined);
    expect(withBytes.map(bytesOf).sort()).toEqual(
      [BAD_FILE, BAD_DIR, BAD_IN, BAD_TWIN].map((h) => Buffer.from(`${t.dir}/`).toString("hex") + h).sort(),
    );
    for (const x of withBytes) {
      expect(x.path).toBe(Buffer.from(x.path_bytes as string, "base64").toString("utf8"));
      expect(x.path.endsWith(x.relative_path)).toBe(true);
    }
    // A valid name has no path_bytes.
    expect(json.results.find((x) => x.relative_path === "ok.txt")?.path_bytes).toBeUndefined();
  });

  test("human output writes the raw bytes, as fd and rg do; the same set of files as theirs", () => {
    const ours = names(raw(["find", "-t", "f"]));
    expect(ours).toEqual([BAD_FILE, BAD_IN, BAD_TWIN, hex("ok.txt"), hex("same.txt")].sort());
    const rg = Bun.spawnSync(["rg", "--files"], { cwd: t.dir });
    expect(names(Buffer.from(rg.stdout))).toEqual(ours);
    // grep: the same files as rg -l, the raw bytes before the colon.
    expect(names(raw(["grep", "-l", "needle"]))).toEqual(
      names(Buffer.from(Bun.spawnSync(["rg", "-l", "needle"], { cwd: t.dir }).stdout)),
    );
    expect(raw(["grep", "needle", "--no-heading"]).includes(b("a", [0xff], "b.txt:1:one needle\n"))).toBe(
      true,
    );
  });

  skipWhen(fdBin === null && "fd is not installed")("human output: the same set of files as fd's", () => {
    const fd = Bun.spawnSync([fdBin as string, "-t", "f", "-u"], { cwd: t.dir });
    expect(names(Buffer.from(fd.stdout))).toEqual(names(raw(["find", "-t", "f"])));
  });

  test("outside the current directory the absolute path's raw bytes are written", () => {
    const r = Bun.spawnSync([BIN, "find", "-t", "f", "--base", t.dir], {
      cwd: import.meta.dir,
      env: { ...process.env, NO_COLOR: "1" },
    });
    const out = Buffer.from(r.stdout);
    expect(out.includes(b(`${t.dir}/a`, [0xff], "b.txt\n"))).toBe(true);
    expect(out.includes(b(`${t.dir}/d`, [0xfe], "/in", [0xc3], ".txt\n"))).toBe(true);
  });

  skipWhen(!scriptWorks && "script(1) is not usable here")(
    "on a terminal the bad bytes are escaped as \\xNN",
    () => {
      // No colour: the escapes are the point here (a terminal colours directories otherwise).
      const r = Bun.spawnSync(["script", "-qec", `${BIN} find -t f`, "/dev/null"], {
        cwd: t.dir,
        env: { ...process.env, NO_COLOR: "1" },
      });
      expect(r.exitCode).toBe(0);
      const out = Buffer.from(r.stdout).toString("latin1");
      expect(out).toContain("a\\xffb.txt");
      expect(out).toContain("d\\xfe/in\\xc3.txt");
    },
  );

  test("grep finds the matches inside, JSONL carries path_bytes on match and context records", () => {
    const r = rglob(["grep", "needle", "--jsonl", "-A", "1"], { cwd: t.dir });
    expect(r.code).toBe(0);
    const recs = jsonl(r.stdout) as unknown as Array<Rec & { kind: string }>;
    const matches = recs.filter((x) => x.kind === "match");
    expect(matches.length).toBe(4);
    const inBad = matches.filter((x) => x.path_bytes !== undefined).map(bytesOf);
    expect(inBad).toContain(Buffer.from(`${t.dir}/`).toString("hex") + BAD_FILE);
    expect(inBad.filter((h) => h.endsWith(BAD_IN)).length).toBe(2);
    const summary = recs.at(-1) as unknown as { errors: unknown[] };
    expect(summary.errors).toEqual([]);
  });

  test("count counts it, dupes groups it with paths_bytes", () => {
    const c = rglobJson<{ results: Rec[] }>(["count", "--json"], { cwd: t.dir }).json;
    const bad = c.results.filter((x) => x.path_bytes !== undefined).map(bytesOf);
    expect(bad.map((h) => h.slice(-BAD_IN.length))).toContain(BAD_IN);
    expect(bad.length).toBe(3);
    const d = rglobJson<{ results: Rec[] }>(["dupes", "--json"], { cwd: t.dir }).json;
    const twin = d.results.find((g) => (g.paths ?? []).some((p) => p.endsWith("same.txt")));
    expect(
      twin?.paths_bytes?.map((x) => (x === null ? null : Buffer.from(x, "base64").toString("hex"))),
    ).toEqual([null, Buffer.from(`${t.dir}/`).toString("hex") + BAD_TWIN]);
  });

  test("explain includes it and no longer says 'not valid UTF-8'; a bad name given as an operand is found", () => {
    // The name goes through sh so that the argument is the raw bytes.
    const sh = Bun.spawnSync(["sh", "-c", `${BIN} explain "$(printf 'd\\376/in\\303.txt')"`], { cwd: t.dir });
    const out = Buffer.from(sh.stdout).toString("utf8");
    expect(sh.exitCode).toBe(0);
    expect(out).toContain("included");
    expect(out).not.toContain("UTF-8");
    const g = Bun.spawnSync(["sh", "-c", `${BIN} grep -c needle "$(printf 'd\\376')"`], { cwd: t.dir });
    expect(Buffer.from(g.stdout).equals(b("d", [0xfe], "/in", [0xc3], ".txt:2\n"))).toBe(true);
  });

  test("the descriptor route and the path route, with and without walk workers, give the same bytes", () => {
    const base = raw(["find", "--json"]);
    expect(raw(["find", "--json"], { RGLOB_DIR_FD: "0" }).equals(base)).toBe(true);
    const spl = JSON.parse(raw(["find", "--json"], { RGLOB_WALK_SPLIT: "3" }).toString()) as {
      results: Rec[];
    };
    expect(spl.results.map((x) => x.path_bytes ?? x.path)).toEqual(
      (JSON.parse(base.toString()) as { results: Rec[] }).results.map((x) => x.path_bytes ?? x.path),
    );
  });

  test("paging with cursors goes through the bad names without a gap or a repeat", () => {
    const all = rglobJson<{ results: Rec[] }>(["find", "--json"], { cwd: t.dir }).json.results.map(
      (x) => x.path_bytes ?? x.path,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page: { results: Rec[]; next_cursor: string | null } = rglobJson<{
        results: Rec[];
        next_cursor: string | null;
      }>(["find", "--json", "--limit", "2", ...(cursor ? ["--cursor", cursor] : [])], { cwd: t.dir }).json;
      seen.push(...page.results.map((x) => x.path_bytes ?? x.path));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(all);
  });

  test("MCP: the record carries path_bytes, in structuredContent and in the text", async () => {
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "one needle", base: t.dir },
      })) as CallToolResult;
      expect(res.isError).toBeFalsy();
      const sc = res.structuredContent as { results: Rec[] };
      expect(sc.results.length).toBe(1);
      expect(bytesOf(sc.results[0] as Rec)).toBe(Buffer.from(`${t.dir}/`).toString("hex") + BAD_FILE);
      const text = res.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      expect(text).toContain((sc.results[0] as Rec).path_bytes as string);
      // The warm server answers as a cold search: a bad name created after its first answer is found.
      writeFileSync(b(`${t.dir}/late`, [0xff], ".txt"), "late needle\n");
      const late = (await s.client.callTool({
        name: "grep_content",
        arguments: { pattern: "late needle", base: t.dir },
      })) as CallToolResult;
      const lr = (late.structuredContent as { results: Rec[] }).results;
      expect(lr.map(bytesOf)).toEqual([
        Buffer.from(`${t.dir}/`).toString("hex") + hex("late", [0xff], ".txt"),
      ]);
    } finally {
      await s.close();
    }
  });
});
