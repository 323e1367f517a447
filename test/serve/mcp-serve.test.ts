/*! `rglob mcp` serves the CLI and the library in its roots: one warm state per tree, whichever surface asks. The
 * real MCP SDK client over stdio keeps a session open; CLI calls are processes of the compiled binary, and library
 * calls are the package's build (dist/lib) under Bun and under plain Node. A call is known to be served by the
 * server's count of calls (`rglob index --status --json`) and by grep's `source` in --json (a cold run has
 * none); its answer is compared with the same call run cold (RGLOB_SERVE=0). Who answers when two servers want
 * one tree (the first keeps it; a second takes over when the first has gone), `rglob serve --stop` on an MCP
 * server's socket, and the sockets closing with the session. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { socketName } from "../../src/surface/serve/where.ts";
import { BIN, ROOT } from "../helpers.ts";
import { comparable, type Info, type Out, serveSandbox } from "./sandbox.ts";

const { outer, cache, root, env, run, servers } = serveSandbox("rglob-mcp-serve-");
const LIB = join(ROOT, "dist", "lib", "agent", "index.js");

/** The server of the test's tree, if one runs. */
const ours = (): Info | undefined => servers().find((s) => s.root === root);

/** Calls the server of the tree answered so far. */
const calls = (): number => Number(ours()?.calls ?? -1);

/** An MCP session over stdio: the SDK's client on the compiled binary, with the server's stderr. */
interface Session {
  readonly client: Client;
  readonly pid: number;
  stderr(): string;
  close(): Promise<void>;
}

async function startSession(): Promise<Session> {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", "--root", root],
    cwd: root,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1", ...env },
  });
  let text = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const client = new Client({ name: "rglob-tests", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return { client, pid: transport.pid as number, stderr: () => text, close: () => client.close() };
}

/** Polls (25 ms apart, up to `polls` times) until the condition holds; returns whether it did. */
function until(cond: () => boolean, polls = 1200): boolean {
  for (let i = 0; i < polls; i++) {
    if (cond()) return true;
    Bun.sleepSync(25);
  }
  return cond();
}

/** Asserts a call is served by the MCP server (its count grows) and answers as the cold run does. */
function sameAsCold(args: readonly string[], cwd = root): Out {
  const before = calls();
  const warm = run(args, cwd);
  expect({ args, calls: calls() }).toEqual({ args, calls: before + 1 });
  const cold = run(args, cwd, { RGLOB_SERVE: "0" });
  expect({ args, code: warm.code, stderr: warm.stderr }).toEqual({
    args,
    code: cold.code,
    stderr: cold.stderr,
  });
  expect(comparable(args, warm.stdout)).toBe(comparable(args, cold.stdout));
  if (comparable(args, warm.stdout) === warm.stdout.toString())
    expect(warm.stdout.equals(cold.stdout)).toBe(true);
  return warm;
}

let first: Session;

beforeAll(async () => {
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  writeFileSync(join(root, ".gitignore"), "*.log\n");
  writeFileSync(join(root, "src", "a.ts"), "const a = 1; // TODO: name it\nexport function alpha() {}\n");
  writeFileSync(join(root, "src", "b.py"), "# TODO fix\ndef beta():\n    return 'TODO'\n");
  writeFileSync(join(root, "src", "deep", "c.md"), "# Title\n\nsome TODO text\n");
  writeFileSync(join(root, "notes.txt"), "no marker here\n");
  writeFileSync(join(root, "debug.log"), "TODO in an ignored file\n");
  for (let i = 0; i < 30; i++) writeFileSync(join(root, "src", `f${i}.txt`), `filler ${i}\nplain words\n`);
  first = await startSession();
  // The socket is listed once the server listens; calls use the index once it is built (before: the walks, or
  // cold: the cold answer either way).
  expect(until(() => ours()?.state === "ready")).toBe(true);
  // The package's build must be this binary's (same version and build commit), else it is never served.
  const line = run(["--version"]).stdout.toString().trim();
  const commit = /\(([^)]+)\)$/.exec(line)?.[1] ?? "";
  const built =
    existsSync(LIB) &&
    readdirSync(join(ROOT, "dist", "lib")).some(
      (f) => f.endsWith(".js") && readFileSync(join(ROOT, "dist", "lib", f), "utf8").includes(`"${commit}"`),
    );
  if (!built) {
    const b = spawnSync(process.execPath, [join(ROOT, "scripts", "build-lib.ts")], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (b.status !== 0) throw new Error(`build-lib failed: ${b.stderr}`);
  }
}, 400_000);

afterAll(async () => {
  await first?.close();
  run(["serve", "--stop"]);
  rmSync(outer, { recursive: true, force: true });
});

describe("rglob mcp serves the CLI in its roots", () => {
  test("index --status lists it: the MCP server's pid, started by mcp, no idle exit", () => {
    const s = ours() as Info;
    expect(s.pid).toBe(first.pid);
    expect(s.started_by).toBe("mcp");
    expect(s.idle_seconds).toBeNull();
    expect(String(s.socket)).toBe(join(cache, "serve", `${socketName(root)}.sock`));
    expect(run(["index", "--status"]).stdout.toString()).toContain(
      `server        serving . by rglob mcp (pid ${first.pid}`,
    );
    expect(first.stderr()).toContain(`CLI calls in ${root} are answered by this server`);
  });

  test("CLI calls answer as cold runs: human, --json (with source), --jsonl, exit codes 0/1/2, notes", () => {
    const json = sameAsCold(["grep", "TODO", "--json"]);
    expect(JSON.parse(json.stdout.toString()).source).toBe("index");
    const cold = run(["grep", "TODO", "--json"], root, { RGLOB_SERVE: "0" });
    expect(JSON.parse(cold.stdout.toString()).source).toBeUndefined();
    for (const args of [
      ["grep", "TODO"],
      ["grep", "TODO", "--jsonl"],
      ["grep", "-c", "TODO"],
      ["grep", "nowhere-to-be-found"],
      ["grep", "("],
      ["grep", "-u", "TODO"],
      ["find", "*.ts"],
      ["count", "--json"],
      ["tree"],
    ])
      sameAsCold(args);
    expect(sameAsCold(["grep", "nowhere-to-be-found"]).code).toBe(1);
    expect(sameAsCold(["grep", "("]).code).toBe(2);
    // In a subdirectory, paths relative to it.
    sameAsCold(["grep", "TODO"], join(root, "src"));
  });

  test("one warm state: an edit is seen by the CLI and the MCP tools alike, and both count on the same server", async () => {
    const before = calls();
    const tool = (await first.client.callTool({
      name: "grep_content",
      arguments: { pattern: "FRESHWORD", base: root },
    })) as CallToolResult;
    expect((tool.structuredContent as { results: unknown[] }).results.length).toBe(0);
    writeFileSync(join(root, "src", "deep", "c.md"), "# Title\n\nsome TODO text\nFRESHWORD now\n");
    const served = sameAsCold(["grep", "FRESHWORD", "--json"]);
    expect(JSON.parse(served.stdout.toString()).results.length).toBe(1);
    const again = (await first.client.callTool({
      name: "grep_content",
      arguments: { pattern: "FRESHWORD", base: root },
    })) as CallToolResult;
    expect((again.structuredContent as { results: unknown[] }).results.length).toBe(1);
    expect(calls()).toBe(before + 1);
  });

  test("a call that names a tree outside the roots runs cold", () => {
    const other = join(outer, "other");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "x.txt"), "TODO outside\n");
    const before = calls();
    const out = run(["grep", "TODO", other, "--json"]);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout.toString()).source).toBeUndefined();
    expect(calls()).toBe(before);
  });
});

describe("the library served", () => {
  /** A script that calls the library in its working directory and prints what it got. */
  function libScript(): string {
    const file = join(outer, "lib-check.mjs");
    writeFileSync(
      file,
      `import { grepAll, searchAll, count } from ${JSON.stringify(LIB)};
const g = await grepAll({ pattern: "TODO" });
const f = await searchAll({ patterns: ["*.ts", "*.md"] });
const c = await count({});
const bad = await grepAll({ pattern: "(" });
console.log(JSON.stringify({ g, f, c, bad }));
`,
    );
    return file;
  }
  const call = (runtime: string, extra: Record<string, string> = {}) => {
    const r = spawnSync(runtime, [libScript()], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, ...env, ...extra },
      timeout: 120_000,
    });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    return JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
  };
  /** The result without what says where it came from (source) and how much it read. */
  const records = (all: Record<string, Record<string, unknown>>) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(all)) {
      const { source: _s, bytes_read: _b, ...rest } = v;
      out[k] = rest;
    }
    return out;
  };

  for (const [name, runtime] of [
    ["Bun", process.execPath],
    ["Node", "node"],
  ] as const) {
    test(`under ${name}: answered by the server (on by default), records identical to cold; RGLOB_SERVE=0 runs it here`, () => {
      const before = calls();
      const served = call(runtime);
      // grep, find, count, and the bad regex (validated by the server's run): four calls.
      expect(calls()).toBe(before + 4);
      expect(served.g?.source).toBe("index");
      const cold = call(runtime, { RGLOB_SERVE: "0" });
      expect(calls()).toBe(before + 4);
      expect(cold.g?.source).toBeUndefined();
      expect(records(served)).toEqual(records(cold));
      expect((served.g?.results as unknown[] | undefined)?.length).toBe(4);
      expect((served.bad?.errors as Array<{ code: string }> | undefined)?.[0]?.code).toBe("REGEX");
    });
  }
});

describe("two servers for one tree", () => {
  let second: Session;

  test("the first keeps the tree: rglob serve reports it, a second rglob mcp does not take its socket", async () => {
    const detached = run(["serve", "--detach", "--json"]);
    expect(detached.code).toBe(0);
    const rec = JSON.parse(detached.stdout.toString()).results[0] as Info;
    expect({ pid: rec.pid, by: rec.started_by }).toEqual({ pid: first.pid, by: "mcp" });
    const fg = run(["serve"]);
    expect(fg.code).toBe(2);
    expect(fg.stderr).toContain(`a server already keeps ${root} warm (pid ${first.pid})`);
    second = await startSession();
    // Its tools answer; the CLI stays with the first.
    const tool = (await second.client.callTool({
      name: "grep_content",
      arguments: { pattern: "TODO", base: root },
    })) as CallToolResult;
    expect((tool.structuredContent as { results: unknown[] }).results.length).toBe(4);
    // The second server says so once its try for the socket is over, which may come after its first answer.
    const said = `not serving CLI calls in ${root}: a server already keeps ${root} warm (pid ${first.pid})`;
    for (let i = 0; i < 1200 && !second.stderr().includes(said); i++) await Bun.sleep(25);
    expect(second.stderr()).toContain(said);
    expect(
      servers()
        .filter((s) => s.root === root)
        .map((s) => s.pid),
    ).toEqual([first.pid]);
    sameAsCold(["grep", "TODO"]);
  });

  test("when the first session ends, its socket goes and the second takes over", async () => {
    await first.close();
    expect(until(() => ours()?.pid === second.pid)).toBe(true);
    expect(until(() => ours()?.state === "ready")).toBe(true);
    const json = sameAsCold(["grep", "TODO", "--json"]);
    expect(JSON.parse(json.stdout.toString()).source).toBe("index");
  });

  test("rglob serve --stop stops the MCP server's socket: CLI calls run cold, the MCP tools go on", async () => {
    const stopped = run(["serve", "--stop", "--json"]);
    expect(stopped.code).toBe(0);
    const rec = JSON.parse(stopped.stdout.toString()).results[0] as Info;
    expect({ pid: rec.pid, by: rec.started_by, state: rec.state }).toEqual({
      pid: second.pid,
      by: "mcp",
      state: "stopped",
    });
    expect(ours()).toBeUndefined();
    const out = run(["grep", "TODO", "--json"]);
    expect(JSON.parse(out.stdout.toString()).source).toBeUndefined();
    const tool = (await second.client.callTool({
      name: "grep_content",
      arguments: { pattern: "TODO", base: root },
    })) as CallToolResult;
    expect((tool.structuredContent as { results: unknown[] }).results.length).toBe(4);
    expect(second.stderr()).toContain(`stopped serving CLI calls in ${root} (rglob serve --stop)`);
  });

  test("the sockets close with the MCP session", async () => {
    const third = await startSession();
    expect(until(() => ours()?.pid === third.pid)).toBe(true);
    const sock = join(cache, "serve", `${socketName(root)}.sock`);
    expect(existsSync(sock)).toBe(true);
    await third.close();
    await second.close();
    expect(until(() => !existsSync(sock))).toBe(true);
    expect(ours()).toBeUndefined();
  });
});
