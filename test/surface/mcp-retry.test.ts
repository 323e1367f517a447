// Answers that need no second call (#37), over stdio with the SDK's Client on the compiled binary: grep's totals
// say whether they count this page or the whole search, and an answer cut by max_output_bytes says the
// max_output_bytes with which one more call gets it whole, and that call does.
import { expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mcpOnTree } from "./mcp-helpers.ts";

// 40 files of 5 matching lines each.
const files: Record<string, string> = {};
for (let i = 0; i < 40; i++)
  files[`src/f${String(i).padStart(2, "0")}.txt`] = "TODO one\nTODO two\nTODO three\nTODO four\nTODO five\n";
// 10 files of one long line each: a record's text line is as long as its JSON.
for (let i = 0; i < 10; i++) files[`long/l${i}.txt`] = `TODO ${"x".repeat(1500)}\n`;
const t = mcpOnTree(files);

async function call(args: Record<string, unknown>) {
  const res = (await t.mcp.client.callTool({ name: "rglob", arguments: args })) as CallToolResult;
  const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
  return {
    text,
    sc: (res.structuredContent ?? {}) as Record<string, unknown>,
    bytes: JSON.stringify(res).length,
  };
}

test("grep's totals say 'this page' when the search stopped with the page, 'in all' when it counted on", async () => {
  const page = await call({ op: "grep", pattern: "TODO", paths: ["src"], limit: 7 });
  expect(page.sc.truncated).toBe(true);
  // The search stopped in the second file: its totals are those of the two files searched.
  expect(page.sc.total_matches).toBe(10);
  expect(page.text).toMatch(
    /^total_matches \(this page: the 2 files searched before it stopped; [^)]*\): 10$/m,
  );
  expect(page.text).toMatch(/^files_with_matches \(this page: /m);
  // count mode finishes counting past the page: its totals are the whole search's.
  const counted = await call({ op: "grep", pattern: "TODO", paths: ["src"], count: true, limit: 3 });
  expect(counted.sc.truncated).toBe(true);
  expect(counted.sc.total_matches).toBe(200);
  expect(counted.text).toMatch(/^total_matches \(in all, past this page\): 200$/m);
  // The next page's totals count from its cursor on.
  const next = await call({
    op: "grep",
    pattern: "TODO",
    paths: ["src"],
    count: true,
    limit: 3,
    cursor: counted.sc.next_cursor,
  });
  expect(next.text).toMatch(/^total_matches \(from the cursor on, to the end\): \d+$/m);
  // One whole page: no words added.
  const whole = await call({
    op: "grep",
    pattern: "TODO",
    paths: ["src"],
    limit: 500,
    max_output_bytes: 200_000,
  });
  expect(whole.sc.truncated).toBe(false);
  expect(whole.text).toMatch(/^total_matches: 200$/m);
});

test("records cut by max_output_bytes: the note names a max_output_bytes that holds the page, and it does", async () => {
  const cut = await call({ op: "find", paths: ["src"], limit: 40, max_output_bytes: 3000 });
  expect(cut.sc.truncated_reason).toBe("max_output_bytes");
  const m = /max_output_bytes=(\d+) should hold a page of 40 in one answer/.exec(cut.text);
  expect(m).not.toBeNull();
  const again = await call({ op: "find", paths: ["src"], limit: 40, max_output_bytes: Number(m?.[1]) });
  expect(again.sc.truncated).toBe(false);
  expect((again.sc.results as unknown[]).length).toBe(40);
  expect(again.text).not.toContain("text cut at max_output_bytes");
});

test("a text cut short says the max_output_bytes with which it lists every record, and it does", async () => {
  // Long lines make each record's text as long as its JSON: the structured result keeps the 10 records, the
  // text (what the rest of the response leaves) runs out.
  const args = { op: "grep", pattern: "TODO x", paths: ["long"], limit: 10 };
  const first = await call({ ...args, max_output_bytes: 7000 });
  expect(first.sc.truncated).toBe(false);
  expect((first.sc.results as unknown[]).length).toBe(10);
  const m =
    /more records in the structured result \(text cut at max_output_bytes; max_output_bytes=(\d+) lists them all here\)/.exec(
      first.text,
    );
  expect(m).not.toBeNull();
  const again = await call({ ...args, max_output_bytes: Number(m?.[1]) });
  expect(again.text).not.toContain("text cut at max_output_bytes");
  expect(again.text.match(/^long\/l\d\.txt:1:TODO x+$/gm)?.length).toBe(10);
  expect(again.bytes).toBeLessThanOrEqual(Number(m?.[1]));
});
