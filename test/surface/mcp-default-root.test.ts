// `rglob mcp` without --root, started by a host that sends no roots, serves the working directory, but not when
// that is the file system's root or the home directory (#39): hosts start servers there, and serving it would
// expose every file. Each call is then refused with how to serve it (`--root /` names it explicitly). Driven by
// the official MCP SDK client over stdio. SIGINT and SIGTERM end the server cleanly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BIN, tempTree } from "../helpers.ts";

let tree: { dir: string; cleanup: () => void };
let home = "";

beforeAll(() => {
  tree = tempTree({ "marker-39.txt": "served\n", "src/a.ts": "export {};\n" });
  home = realpathSync(mkdtempSync(join(tmpdir(), "rglob-home-")));
});
afterAll(() => {
  tree?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A client that offers no roots (as Claude Desktop and Codex CLI), starting the server as given. */
async function connect(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", ...args],
    cwd,
    stderr: "pipe",
    // No warm index: a served / would be indexed in the background.
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1", RGLOB_WARM: "0", ...env },
  });
  const client = new Client({ name: "no-roots", version: "1" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

async function findMarker(client: Client, base: string): Promise<CallToolResult> {
  return (await client.callTool({
    name: "find_files",
    arguments: { base, patterns: ["marker-*"] },
  })) as CallToolResult;
}

function refusal(res: CallToolResult): string {
  expect(res.isError).toBe(true);
  expect(res.structuredContent).toBeUndefined();
  const err = JSON.parse((res.content as Array<{ text: string }>)[0]?.text ?? "").error;
  expect(err.code).toBe("PERM");
  return err.message as string;
}

describe("no --root and no client roots", () => {
  test("started in / : every call is refused, saying --root / serves it", async () => {
    const client = await connect([], "/");
    try {
      const message = refusal(await findMarker(client, tree.dir));
      expect(message).toContain("the working directory / is the file system's root");
      expect(message).toContain("--root / serves it");
      expect(message).toContain("--root DIR");
    } finally {
      await client.close();
    }
  });

  test("started in $HOME: refused, saying --root HOME serves it", async () => {
    const client = await connect([], home, { HOME: home });
    try {
      const message = refusal(await findMarker(client, home));
      expect(message).toContain(`the working directory ${home} is the home directory`);
      expect(message).toContain(`--root ${home} serves it`);
    } finally {
      await client.close();
    }
  });

  test("started in a project: the project is served", async () => {
    const client = await connect([], tree.dir, { HOME: home });
    try {
      const res = await findMarker(client, tree.dir);
      expect(res.isError ?? false).toBe(false);
      const paths = (res.structuredContent as { results: Array<{ relative_path: string }> }).results;
      expect(paths.map((r) => r.relative_path)).toEqual(["marker-39.txt"]);
    } finally {
      await client.close();
    }
  });

  test("started in a directory that was deleted: refused, saying so", async () => {
    const gone = mkdtempSync(join(tmpdir(), "rglob-gone-"));
    const transport = new StdioClientTransport({
      command: "sh",
      args: ["-c", `cd "$0" && rmdir "$0" && exec "$1" mcp`, gone, BIN],
      stderr: "pipe",
      env: { ...(process.env as Record<string, string>), RGLOB_WARM: "0" },
    });
    const client = new Client({ name: "no-roots", version: "1" }, { capabilities: {} });
    await client.connect(transport);
    try {
      expect(refusal(await findMarker(client, tree.dir))).toContain("the working directory no longer exists");
    } finally {
      await client.close();
      try {
        rmdirSync(gone);
      } catch {}
    }
  });
});

describe("a root named explicitly is served", () => {
  test("--root / in /", async () => {
    const client = await connect(["--root", "/"], "/");
    try {
      const res = await findMarker(client, tree.dir);
      expect(res.isError ?? false).toBe(false);
      expect((res.structuredContent as { results: unknown[] }).results.length).toBe(1);
    } finally {
      await client.close();
    }
  });

  test("--root HOME in $HOME", async () => {
    mkdirSync(join(home, "p"), { recursive: true });
    const client = await connect(["--root", home], home, { HOME: home });
    try {
      const res = await findMarker(client, home);
      expect(res.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe("signals end the server cleanly", () => {
  test.each(["SIGINT", "SIGTERM"] as const)("%s: exit 0, nothing on stdout but protocol", async (signal) => {
    const proc = Bun.spawn([BIN, "mcp", "--root", tree.dir], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, RGLOB_WARM: "0" },
    });
    // Once it says it serves, it has its handlers.
    const reader = proc.stderr.getReader();
    let err = "";
    while (!err.includes("serving")) {
      const r = await reader.read();
      if (r.done) break;
      err += new TextDecoder().decode(r.value);
    }
    proc.kill(signal);
    expect(await proc.exited).toBe(0);
    expect(proc.signalCode).toBeNull();
    expect(await new Response(proc.stdout).text()).toBe("");
  });
});
