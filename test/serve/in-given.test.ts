/*! A warm grep with `in` is given its candidates and the files it cannot lex by their name (it counts those as
 * skipped.unknown_language or reads their #! line), not every file of the tree: its cost follows the
 * candidates. Its answer stays the cold one (test/serve/in-shebang.test.ts serves the CLI the same tree). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglobJson } from "../helpers.ts";
import { type McpSession, startMcp } from "../surface/mcp-helpers.ts";
import { SCRIPTS } from "../surface/shebang-scripts.ts";

/** TypeScript files beside the scripts: their names name a language with a lexer. */
const LEXED = 40;
/** The scripts whose name names no language with a lexer: all but bin/tool.js (JavaScript). */
const UNLEXED = Object.keys(SCRIPTS).length - 1;
const ALL = Object.keys(SCRIPTS).length + LEXED;

const root = realpathSync(mkdtempSync(join(tmpdir(), "rglob-in-given-")));
let mcp: McpSession;

interface Warm {
  state: string;
  watching: boolean;
  checks?: { given: number };
}

async function warm(): Promise<Warm> {
  const res = await mcp.client.readResource({ uri: "rglob://capabilities" });
  return (JSON.parse((res.contents[0] as { text: string }).text) as { mcp: { warm: Warm[] } }).mcp
    .warm[0] as Warm;
}

beforeAll(async () => {
  for (const [rel, content] of Object.entries(SCRIPTS)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  mkdirSync(join(root, "src"));
  for (let i = 0; i < LEXED; i++)
    writeFileSync(join(root, "src", `m${i}.ts`), `// TODO m${i}\nexport const m = ${i};\n`);
  mcp = await startMcp(["--root", root], { cwd: root });
  const ready = async () => {
    const w = await warm();
    return w.state === "ready" && w.watching;
  };
  for (let i = 0; i < 2400 && !(await ready()); i++) await Bun.sleep(50);
  expect(await ready()).toBe(true);
}, 300_000);

afterAll(async () => {
  await mcp.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * Asks the warm server a grep.
 * @returns its answer, and how many files the run was given (capabilities' checks.given)
 */
async function served(
  args: Record<string, unknown>,
): Promise<{ answer: Record<string, unknown>; given: number }> {
  const res = (await mcp.client.callTool({
    name: "grep_content",
    arguments: { base: root, ...args },
  })) as CallToolResult;
  return {
    answer: { ...(res.structuredContent as Record<string, unknown>) },
    given: (await warm()).checks?.given ?? -1,
  };
}

test("grep with in is given its candidates and the files it cannot lex by name, with the cold answer", async () => {
  // The served calls first, in this order: a file a call reads (the cold CLI's too) is a suspect for the next
  // call (read, so given) until the server has looked at who holds it open.
  const calls: Array<[Record<string, unknown>, string[], number]> = [
    // Without `in`: given only the file the index does not hold (bin/blob, binary).
    [{ pattern: "nowhere_at_all" }, ["nowhere_at_all"], 1],
    // Ruled out everywhere: given only the files whose name names no language with a lexer.
    [{ pattern: "nowhere_at_all", in: ["comment"] }, ["nowhere_at_all", "--in", "comment"], UNLEXED],
    // In every file: every file is a candidate.
    [{ pattern: "TODO", in: ["comment"] }, ["TODO", "--in", "comment"], ALL],
  ];
  const answers = [];
  for (const [args, argv, want] of calls) {
    const { answer, given } = await served(args);
    expect({ argv, given, source: answer.source }).toEqual({ argv, given: want, source: "index" });
    answers.push(answer);
  }
  for (const [k, [, argv]] of calls.entries()) {
    const { json: cold } = rglobJson(["grep", "--json", ...argv], { cwd: root });
    const answer = answers[k] as Record<string, unknown>;
    delete answer.source;
    answer.bytes_read = cold.bytes_read;
    expect({ argv, answer }).toEqual({ argv, answer: cold });
  }
}, 120_000);
