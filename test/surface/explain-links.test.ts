// explain through symlinks (#37): a path reached through a directory link that is not followed gets one reason,
// the link with its text and where the path really is (real_path, and the real path's own verdict), never a
// false "unreadable: its directory cannot be listed: ENOTDIR"; a path that is a link says its text and where it
// leads. Checked against readlink and realpath on a tree built here, on the compiled binary, the library and the
// MCP SDK client, which must give the same records.
import { afterAll, describe, expect, test } from "bun:test";
import { linkSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { explain as explainLib } from "../../src/agent/index.ts";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const outside = mkdtempSync(join(tmpdir(), "rglob-explain-outside-"));
writeFileSync(join(outside, "cal.csv"), "outside the base\n");

const t = tempTree({
  "sql/marts/fct.sql": "select 1;\n",
  "app/sql": { symlink: "../sql" },
  // Chained directory links: chain1 -> chain2 -> sql.
  chain1: { symlink: "chain2" },
  chain2: { symlink: "sql" },
  "file-link.sql": { symlink: "sql/marts/fct.sql" },
  gone: { symlink: "nowhere" },
  "loop/a": { symlink: "b" },
  "loop/b": { symlink: "a" },
  "data/.gitignore": "processed/*\n",
  "data/processed/d1/features.parquet": "PAR1\n",
  "data/latest": { symlink: "processed/d1" },
  "data/calendars": { symlink: outside },
});
afterAll(() => {
  t.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

interface Reason {
  stage: string;
  detail: string;
  link?: string;
  link_target?: string;
}
interface Rec {
  relative_path: string;
  included: boolean;
  reasons: Reason[];
  real_path?: string;
  real_included?: boolean;
}

/** Where a path really is, as realpath(1) says: relative to the base inside it, absolute outside. */
function real(rel: string): string {
  const base = realpathSync(t.dir);
  const r = realpathSync(join(t.dir, rel));
  const inner = relative(base, r);
  return inner.startsWith("..") ? r : inner;
}

const THROUGH = ["app/sql/marts/fct.sql", "chain1/marts/fct.sql", "data/latest/features.parquet"];

describe("a path reached through a directory link that is not followed", () => {
  test.each(THROUGH)(
    "%s: one symlink reason with the link's text and the real path, no false unreadable",
    (p) => {
      const { json, run } = rglobJson<{ results: Rec[] }>(["explain", p, "--json"], { cwd: t.dir });
      expect(run.code).toBe(0);
      const rec = json.results[0] as Rec;
      expect(rec.included).toBe(false);
      expect(rec.reasons.map((r) => r.stage)).toEqual(["symlink"]);
      const link = p
        .split("/")
        .slice(0, p.startsWith("app/") || p.startsWith("data/") ? 2 : 1)
        .join("/");
      expect(rec.reasons[0]).toMatchObject({ link, link_target: readlinkSync(join(t.dir, link)) });
      expect(rec.real_path).toBe(real(p));
      expect(rec.reasons[0]?.detail).toContain(`${link} -> ${readlinkSync(join(t.dir, link))}`);
      expect(rec.reasons[0]?.detail).toContain(`its real path ${real(p)}`);
      // The real path's verdict is find's.
      const found = rglobJson<{ results: Array<{ relative_path: string }> }>(["find", "--json"], {
        cwd: t.dir,
      });
      expect(rec.real_included).toBe(found.json.results.some((r) => r.relative_path === real(p)));
    },
  );

  test("human output: the link, its text and the real path's verdict in the one reason", () => {
    const r = rglob(["explain", "app/sql/marts/fct.sql", "data/latest/features.parquet"], { cwd: t.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "app/sql/marts/fct.sql: not included",
        "  its directory 'app/sql' is the symlink app/sql -> ../sql, which is not followed (--follow follows it); its real path sql/marts/fct.sql is included",
        "data/latest/features.parquet: not included",
        "  its directory 'data/latest' is the symlink data/latest -> processed/d1, which is not followed (--follow follows it); its real path data/processed/d1/features.parquet is not included either: its directory 'data/processed/d1' is ignored by data/.gitignore:1: processed/*",
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe("");
  });

  test("a link that leads outside the base: its real path is absolute; under --strict-base -L one reason", () => {
    const { json } = rglobJson<{ results: Rec[] }>(["explain", "data/calendars/cal.csv", "--json"], {
      cwd: t.dir,
    });
    const rec = json.results[0] as Rec;
    expect(rec.reasons.map((r) => r.stage)).toEqual(["symlink"]);
    expect(rec.reasons[0]).toMatchObject({ link: "data/calendars", link_target: outside });
    expect(rec.real_path).toBe(realpathSync(join(outside, "cal.csv")));
    expect(rec.real_included).toBeUndefined();
    const strict = rglobJson<{ results: Rec[] }>(
      ["explain", "data/calendars/cal.csv", "-L", "--strict-base", "--json"],
      { cwd: t.dir },
    ).json.results[0] as Rec;
    // It was three: outside_base, "not followed; use --follow" (under --follow) and a false unreadable.
    expect(strict.reasons.map((r) => r.stage)).toEqual(["outside_base"]);
    expect(strict.reasons[0]).toMatchObject({ link: "data/calendars", link_target: outside });
  });

  test("with --follow the path is included and still says where it really is", () => {
    const { json } = rglobJson<{ results: Rec[] }>(["explain", ...THROUGH.slice(0, 2), "-L", "--json"], {
      cwd: t.dir,
    });
    expect(json.results.map((r) => [r.included, r.real_path, r.real_included])).toEqual([
      [true, "sql/marts/fct.sql", true],
      [true, "sql/marts/fct.sql", true],
    ]);
  });
});

describe("a path that is a link", () => {
  test.each([
    ["file-link.sql", true],
    ["chain1", true],
    ["gone", false],
    ["loop/a", false],
  ] as const)("%s: a note with its text and facts, as readlink says", (p, exists) => {
    const { json } = rglobJson<{ results: Rec[] }>(["explain", p, "--json"], { cwd: t.dir });
    const rec = json.results[0] as Rec;
    expect(rec.included).toBe(true);
    const note = rec.reasons.find((r) => r.link !== undefined);
    expect(note).toMatchObject({
      stage: "symlink",
      link: p,
      link_target: readlinkSync(join(t.dir, p)),
    });
    // realpath(1) where it exists; a broken link's real_path has no verdict (real_included absent).
    if (exists) expect([rec.real_path, rec.real_included]).toEqual([real(p), true]);
    else expect(rec.real_included).toBeUndefined();
    expect(note?.detail).toContain(exists ? "; listed as a link" : "broken");
    if (p === "loop/a") expect(note?.detail).toContain("broken: the links loop");
    if (p === "gone") expect(rec.real_path).toBe("nowhere");
  });

  test("a path below a broken link is explained: the walk does not enter the link (#37)", () => {
    const r = rglob(["explain", "gone/x"], { cwd: t.dir });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain("gone/x: not included");
    expect(r.stdout).toContain("its directory 'gone' is the symlink gone -> nowhere, which is not followed");
  });
});

describe("the same records on every surface", () => {
  const targets = [...THROUGH, "data/calendars/cal.csv", "file-link.sql", "gone"];
  test("CLI JSON, the library and the MCP tool (op explain, targets)", async () => {
    const cli = rglobJson<{ results: Rec[] }>(["explain", ...targets, "--json", "--strict-base"], {
      cwd: t.dir,
    }).json.results;
    expect(cli.length).toBe(targets.length);
    expect(cli.flatMap((r) => r.reasons).some((r) => r.stage === "unreadable")).toBe(false);
    const lib = await explainLib({ base: t.dir, targets });
    expect(lib.results).toEqual(cli as never);
    const s = await startMcp(["--root", t.dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", targets },
      })) as CallToolResult;
      expect((res.structuredContent as { results: Rec[] }).results).toEqual(cli);
      const text = (res.content[0] as { text: string }).text;
      expect(text).toContain("app/sql/marts/fct.sql: not included");
      expect(text).toContain("app/sql -> ../sql");
      expect(text).not.toContain("excluded");
      expect(text).not.toContain("ENOTDIR");
    } finally {
      await s.close();
    }
  });
});

describe("counts in MCP texts say 1 file, 2 files (#37)", () => {
  test("dupes: '2 paths, 1 file' for hard links, '2 files' for copies; the header '1 record'", async () => {
    const d = tempTree({ "a.txt": "same bytes\n", "b.txt": "same bytes\n", "h/one.txt": "linked\n" });
    linkSync(join(d.dir, "h/one.txt"), join(d.dir, "h/two.txt"));
    const s = await startMcp(["--root", d.dir]);
    try {
      const res = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "dupes", include_hard_links: true },
      })) as CallToolResult;
      const text = (res.content[0] as { text: string }).text;
      expect(text).toContain("2 files of 11 bytes");
      expect(text).toContain("2 paths, 1 file of 7 bytes");
      expect(text).not.toMatch(/\b1 files\b|\(\d+ files\)|record\(s\)/);
      const one = (await s.client.callTool({
        name: "rglob",
        arguments: { op: "explain", path: "a.txt" },
      })) as CallToolResult;
      expect((one.content[0] as { text: string }).text).toMatch(/^explain: 1 record, 1 entry explained/);
    } finally {
      await s.close();
      d.cleanup();
    }
  });
});
