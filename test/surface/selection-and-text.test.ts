// Rules agents re-checked by hand (#37): that different selection flags are AND'd and a repeated one ORs its values
// (count -e php -e rb -g Gemfile found nothing, and no help said why), said where they read first (grep and count
// --help, find's, the MCP server's instructions); and how count classes a last line without a newline, said in the
// text MCP agents read (describe_tool count) as count --help says it.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rglob } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

describe("selection flags: AND between flags, OR within one, said where agents read", () => {
  test("grep, count and find --help say it; the rule holds on a real tree", () => {
    for (const op of ["grep", "count"]) {
      const help = rglob([op, "--help"]).stdout.replace(/\s+/g, " ");
      expect(help).toContain("AND'd with each other while a repeated flag ORs its values");
      expect(help).toContain("-e php -g Gemfile keeps nothing; -g '*.php' -g Gemfile keeps either");
    }
    expect(rglob(["find", "--help"]).stdout.replace(/\s+/g, " ")).toContain(
      "different ones AND'd, one's values OR'd",
    );
    const dir = mkdtempSync(join(tmpdir(), "rglob-and-or-"));
    try {
      for (const f of ["a.php", "b.rb", "Gemfile", "Rakefile"]) writeFileSync(join(dir, f), "x\n");
      const files = (args: string[]) =>
        rglob(["find", "--base", dir, "--format", "{rel}", ...args])
          .stdout.split("\n")
          .filter(Boolean)
          .sort();
      expect(files(["-e", "php", "-e", "rb"])).toEqual(["a.php", "b.rb"]);
      expect(files(["-e", "php", "-e", "rb", "-g", "Gemfile", "-g", "Rakefile"])).toEqual([]);
      expect(files(["-g", "*.php", "-g", "*.rb", "-g", "Gemfile", "-g", "Rakefile"])).toEqual([
        "Gemfile",
        "Rakefile",
        "a.php",
        "b.rb",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("MCP: the server's instructions say it; describe_tool count says how a last line without newline counts", async () => {
    const s = await startMcp();
    try {
      const instructions = s.client.getInstructions() ?? "";
      expect(instructions).toContain("Selection arguments are AND'd, the values of one OR'd");
      const count = (await s.client.callTool({
        name: "describe_tool",
        arguments: { name: "count" },
      })) as unknown as {
        content: Array<{ text: string }>;
      };
      expect(count.content[0]?.text).toContain(
        "plus a last line without a newline, classed as any other line",
      );
    } finally {
      await s.close();
    }
    expect(rglob(["count", "--help"]).stdout.replace(/\s+/g, " ")).toContain(
      "plus a last line without a newline, classed as any other line",
    );
  });
});
