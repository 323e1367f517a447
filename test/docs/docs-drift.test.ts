// Generated reference docs cannot drift: docs/ops/*.md, docs/ops/README.md and the README command block must
// equal what scripts/gen-docs.ts renders from the registry, and every operation the compiled binary reports
// has a page that names each of its flags (so a binary built from other sources is caught too).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prose, README_BEGIN, README_END, renderAll, staleFiles } from "../../scripts/gen-docs.ts";
import { ROOT, rglobJson } from "../helpers.ts";

describe("generated docs", () => {
  test("docs/ops and the README block are up to date with the registry (run `npm run gen`)", () => {
    expect(staleFiles()).toEqual([]);
  });

  test.each([...renderAll().keys()])("%s is exactly what the generator renders", (rel) => {
    expect(readFileSync(join(ROOT, rel), "utf8")).toBe(renderAll().get(rel) as string);
  });

  test("the README keeps its generated markers, once each", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme.split(README_BEGIN)).toHaveLength(2);
    expect(readme.split(README_END)).toHaveLength(2);
  });

  test("every operation of the binary has a page naming each of its flags and its MCP tool", () => {
    const { json: caps } = rglobJson<{ operations: string[] }>(["capabilities"]);
    expect(caps.operations.length).toBeGreaterThan(0);
    for (const op of caps.operations) {
      const page = readFileSync(join(ROOT, "docs", "ops", `${op}.md`), "utf8");
      const { json: manifest } = rglobJson<{ flags: Array<{ name: string }>; mcp_tool: string | null }>([
        "describe",
        op,
      ]);
      for (const flag of manifest.flags) expect(page).toContain(`\`${flag.name}\``);
      if (manifest.mcp_tool) expect(page).toContain(`\`${manifest.mcp_tool}\``);
    }
  });

  test.each([
    ["'*' does not cross '/'", "'\\*' does not cross '/'"],
    ["with '**' and <op>", "with '\\*\\*' and \\<op\\>"],
    ["`a*b` stays code", "`a*b` stays code"],
    ["max_count and _x_", "max_count and \\_x\\_"],
  ])("registry prose %p prints as written in Markdown", (text, md) => {
    expect(prose(text)).toBe(md);
  });
});
