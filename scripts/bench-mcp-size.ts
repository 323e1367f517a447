/*! Benchmark (#37): the bytes an MCP host reads before and during the first questions: the whole tools/list
 * result (the target was 20 KB) with what each of its parts costs, the instructions, and a repository-wide grep_content answer over a generated tree holding binary
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
  const init = (await client.start()) as { result?: { instructions?: string } };
  const list = (await client.request("tools/list", {})).result as { tools: Array<Record<string, unknown>> };
  const size = (x: unknown) => Buffer.byteLength(JSON.stringify(x));
  const listBytes = size(list);
  console.log(`tools/list: ${listBytes} bytes (target 20480) for ${list.tools.length} tools`);
  // What each part costs: the list without it, and the part alone.
  type Prop = Record<string, unknown>;
  const props = (t: Record<string, unknown>) =>
    ((t.inputSchema as Prop | undefined)?.properties ?? {}) as Record<string, Prop>;
  const walking = list.tools.filter((t) => "base" in props(t));
  // The arguments every walking tool declares (the shared filter, ignore and budget arguments).
  const shared = Object.keys(props(walking[0] ?? {})).filter((k) => walking.every((t) => k in props(t)));
  const strip = (keep: (t: Record<string, unknown>) => Record<string, unknown>) =>
    listBytes - size({ tools: list.tools.map(keep) });
  const withoutOutput = strip(({ outputSchema: _o, ...t }) => t);
  const descriptions = (pick: (k: string) => boolean) =>
    strip((t) => ({
      ...t,
      inputSchema: {
        ...(t.inputSchema as Prop),
        properties: Object.fromEntries(
          Object.entries(props(t)).map(([k, p]) => {
            const { description: _d, ...rest } = p;
            return [k, pick(k) ? rest : p];
          }),
        ),
      },
    }));
  const toolTexts = strip((t) => ({ ...t, description: "" }));
  const sharedProps = strip((t) => ({
    ...t,
    inputSchema: {
      ...(t.inputSchema as Prop),
      properties: Object.fromEntries(Object.entries(props(t)).filter(([k]) => !shared.includes(k))),
    },
  }));
  console.log(
    `  output schemas ${withoutOutput} B; tool descriptions ${toolTexts} B; the ${shared.length} shared arguments ${sharedProps} B in all, of which their one-line descriptions ${descriptions((k) => shared.includes(k))} B; the tools' own argument descriptions ${descriptions((k) => !shared.includes(k))} B`,
  );
  console.log(
    `  what a host gives the model (no output schemas): ${listBytes - withoutOutput} B; initialize instructions ${Buffer.byteLength(init.result?.instructions ?? "")} B`,
  );
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
