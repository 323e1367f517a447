/*! Benchmark (#37, ADR 0037): the bytes an MCP host reads before and during the first questions: the whole
 * tools/list result (target: 20,480 bytes) with what each of its parts costs, the instructions, describe_tool's
 * answer for each op and topic (target: under 10 KB each), and a repository-wide grep answer over a generated tree
 * holding binary files (text and structuredContent apart), on the compiled binary. Prints; asserts nothing. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawMcpClient } from "./bench-mcp-client.ts";

const bin = process.env.RGLOB_BIN ?? join(import.meta.dir, "..", "dist", "rglob");
const dir = mkdtempSync(join(tmpdir(), "rglob-bench-size-"));
try {
  for (let d = 0; d < 10; d++) {
    mkdirSync(join(dir, `pkg${d}`, "src"), { recursive: true });
    for (let f = 0; f < 20; f++)
      writeFileSync(
        join(dir, `pkg${d}`, "src", `m${f}.ts`),
        `export const v${f} = ${f}; // TODO item ${f}\n`,
      );
    for (let b = 0; b < 4; b++)
      writeFileSync(join(dir, `pkg${d}`, `blob${b}.bin`), Buffer.from([0, 1, 2, 84, 79, 68, 79]));
  }
  const client = new RawMcpClient(bin, dir, "bench-mcp-size");
  const init = (await client.start()) as { result?: { instructions?: string } };
  const list = (await client.request("tools/list", {})).result as { tools: Array<Record<string, unknown>> };
  const size = (x: unknown) => Buffer.byteLength(JSON.stringify(x));
  const listBytes = size(list);
  console.log(`tools/list: ${listBytes} bytes (target 20480) for ${list.tools.length} tools`);
  // What each part costs: the list without it.
  type Prop = Record<string, unknown>;
  const one = list.tools.find((t) => t.name === "rglob") ?? list.tools[0] ?? {};
  const props = ((one.inputSchema as Prop | undefined)?.properties ?? {}) as Record<string, Prop>;
  const texts = Object.values(props).reduce((n, p) => n + size(p.description ?? ""), 0);
  console.log(
    `  rglob: description ${size(one.description)} B, input schema ${size(one.inputSchema)} B (${Object.keys(props).length} arguments, their one-line texts ${texts} B), output schema ${size(one.outputSchema)} B; describe_tool ${size(list.tools.find((t) => t.name === "describe_tool"))} B`,
  );
  console.log(
    `  what a host gives the model (no output schemas): ${size(list.tools.map(({ outputSchema: _o, ...t }) => t))} B; initialize instructions ${Buffer.byteLength(init.result?.instructions ?? "")} B`,
  );
  const ops = (props.op?.enum ?? []) as string[];
  const described: string[] = [];
  for (const name of [...ops, "walk", "result"]) {
    const answer = (await client.request("tools/call", { name: "describe_tool", arguments: { name } }))
      .result;
    described.push(`${name} ${size(answer)}`);
  }
  console.log(`describe_tool answers (bytes of the whole result): ${described.join(", ")}`);
  const res = (
    await client.request("tools/call", { name: "rglob", arguments: { op: "grep", pattern: "TODO" } })
  ).result as Record<string, unknown>;
  const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
  const sc = res.structuredContent as { results: unknown[]; errors: unknown[]; skipped: { binary: number } };
  console.log(
    `rglob {op: grep, pattern: TODO} over 200 text and 40 binary files: ${Buffer.byteLength(text)} bytes of text + ${Buffer.byteLength(JSON.stringify(sc))} bytes of structuredContent; ${sc.results.length} records, ${sc.errors.length} error records, skipped.binary ${sc.skipped.binary}`,
  );
  client.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
