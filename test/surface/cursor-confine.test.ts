// Cursors confined to the query (#34): a cursor is a token the client hands back, so it can be edited. Its order
// key is checked against the query's roots before anything is walked or opened (a key outside them is
// BAD_PREDICATE), and the file a grep page resumes in is opened only when the walk itself gives it: an edited
// cursor can move a page within the query's own walk order, nothing more. Through the compiled binary (CLI) and
// the official MCP SDK client over stdio.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

let dir: string;
let proj: string;

/** The cursor with its order key replaced (the fingerprint kept, so only the key is wrong). */
function forged(cursor: string, key: string): string {
  const c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...c, k: key })).toString("base64url");
}

/** A grep page's key: the file's walk key, the line and the match in it, the records given before. */
const lineKey = (walkKey: string) => `${walkKey}\u00000\u00000\u00001`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rglob-cursor-"));
  proj = join(dir, "proj");
  mkdirSync(join(proj, "sub"), { recursive: true });
  mkdirSync(join(dir, "outside"));
  for (const f of ["a.txt", "b.txt", "sub/c.txt", "sub/d.txt"])
    writeFileSync(join(proj, f), `needle in ${f}\n`);
  writeFileSync(join(proj, ".gitignore"), "secret.txt\n");
  writeFileSync(join(proj, "secret.txt"), "needle secret\n");
  writeFileSync(join(dir, "outside", "other.txt"), "needle outside\n");
  // FIFOs: opened for reading without O_NONBLOCK they would block forever.
  execFileSync("mkfifo", [join(dir, "outside", "pipe"), join(proj, "pipe")]);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function grepPage(args: readonly string[], cursor?: string) {
  return rglobJson<Record<string, unknown>>(
    ["grep", "needle", "--json", ...args, ...(cursor === undefined ? [] : ["--cursor", cursor])],
    { cwd: proj },
  );
}

describe("CLI: an edited cursor", () => {
  test.each([
    ["a path above the root", "0:../outside/pipe"],
    ["an absolute path", "0:/etc/hostname"],
    ["a root the query does not have", "7:a.txt"],
    ["a dot component", "0:sub/../../outside/other.txt"],
  ])("naming %s is refused with BAD_PREDICATE, nothing opened", (_what, key) => {
    const first = grepPage(["--limit", "1"]).json;
    const { json, run } = grepPage(["--limit", "5"], forged(first.next_cursor as string, lineKey(key)));
    expect(run.code).toBe(2);
    expect(json.ok).toBe(false);
    expect((json.error as { code: string }).code).toBe("BAD_PREDICATE");
  });

  test("naming an ignored file does not make grep read it", () => {
    const first = grepPage(["--limit", "1"]).json;
    const { json } = grepPage(["--limit", "5"], forged(first.next_cursor as string, lineKey("0:secret.txt")));
    const paths = (json.results as Array<{ relative_path: string }>).map((r) => r.relative_path);
    expect(paths).not.toContain("secret.txt");
    expect(paths).toEqual(["sub/c.txt", "sub/d.txt"]);
  });

  test("naming a FIFO inside the tree does not open it (the walk never gives it)", () => {
    const first = grepPage(["--limit", "1"]).json;
    const { json, run } = grepPage(["--limit", "5"], forged(first.next_cursor as string, lineKey("0:pipe")));
    expect(run.code).toBe(0);
    expect(json.errors).toEqual([]);
    expect((json.results as Array<{ relative_path: string }>).map((r) => r.relative_path)).toEqual([
      "sub/c.txt",
      "sub/d.txt",
    ]);
  });

  test("pages of a grep of a directory below the base resume where they stopped", () => {
    // The cursor's key is relative to the base; the walk resumes below the root it names.
    const whole = rglobJson<Record<string, unknown>>(["grep", "needle", "proj/sub", "--json"], {
      cwd: dir,
    }).json;
    const pages: unknown[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const args = ["grep", "needle", "proj/sub", "--json", "--limit", "1"];
      const { json } = rglobJson<Record<string, unknown>>(
        cursor === null ? args : [...args, "--cursor", cursor],
        {
          cwd: dir,
        },
      );
      pages.push(...(json.results as unknown[]));
      cursor = json.next_cursor as string | null;
      if (cursor === null) break;
    }
    expect(pages).toEqual(whole.results as unknown[]);
    expect(pages.length).toBe(2);
  });

  test("an unedited cursor still pages through every file, once each", () => {
    const all = rglob(["grep", "needle", "-l"], { cwd: proj }).stdout.trim().split("\n");
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const { json } = grepPage(["--limit", "1"], cursor);
      seen.push(...(json.results as Array<{ relative_path: string }>).map((r) => r.relative_path));
      cursor = (json.next_cursor as string | null) ?? undefined;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(all);
  });
});

describe("MCP: an edited cursor", () => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await startMcp(["--root", proj], { cwd: proj });
  });
  afterAll(async () => {
    await mcp.close();
  });
  const call = (args: Record<string, unknown>) =>
    mcp.client.callTool({ name: "grep_content", arguments: args }) as Promise<CallToolResult>;

  test("leading out of the server's root is BAD_PREDICATE, and the server answers the next call", async () => {
    const first = await call({ pattern: "needle", limit: 1 });
    const cursor = (first.structuredContent as Record<string, unknown>).next_cursor as string;
    for (const key of ["0:../outside/pipe", "0:../outside/other.txt", "3:a.txt"]) {
      const res = await call({ pattern: "needle", limit: 5, cursor: forged(cursor, lineKey(key)) });
      expect(res.isError).toBe(true);
      const env = JSON.parse((res.content as Array<{ text: string }>)[0]?.text ?? "");
      expect({ key, code: env.error.code }).toEqual({ key, code: "BAD_PREDICATE" });
    }
    const again = await call({ pattern: "needle", limit: 5, cursor });
    expect(again.isError).toBeFalsy();
    const paths = (
      (again.structuredContent as Record<string, unknown>).results as Array<{ relative_path: string }>
    ).map((r) => r.relative_path);
    expect(paths).toEqual(["b.txt", "sub/c.txt", "sub/d.txt"]);
  });
});
