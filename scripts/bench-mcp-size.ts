/*! Benchmark (#37): the bytes an MCP host reads before and during the first questions: the whole tools/list
 * result (its limit is 20 KB) and a repository-wide grep_content answer over a generated tree holding binary
 * files (text and structuredContent apart), on the compiled binary. Prints; asserts nothing. */
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
  await client.start();
  const list = (await client.request("tools/list", {})).result as { tools: unknown[] };
  const listBytes = Buffer.byteLength(JSON.stringify(list));
  console.log(`tools/list: ${listBytes} bytes (limit 20480) for ${list.tools.length} tools`);
  const res = (await client.request("tools/call", { name: "grep_content", arguments: { pattern: "TODO" } }))
    .result as Record<string, unknown>;
  const text = (res.content as Array<{ text: string }>)[0]?.text ?? "";
  const sc = res.structuredContent as { results: unknown[]; errors: unknown[]; skipped: { binary: number } };
  console.log(
    `grep_content TODO over 200 text and 40 binary files: ${Buffer.byteLength(text)} bytes of text + ${Buffer.byteLength(JSON.stringify(sc))} bytes of structuredContent; ${sc.results.length} records, ${sc.errors.length} error records, skipped.binary ${sc.skipped.binary}`,
  );
  client.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
