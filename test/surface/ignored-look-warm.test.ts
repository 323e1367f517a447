// A warm server remembers the look among the ignored entries of an empty grep (#36: on a tree with an ignored
// node_modules it read 16 MiB at every call): a later look of the same query but its pattern, whose literal no file
// it read can hold, says what the first one said. Edits inside the ignored folder between two warm calls (a file
// changed in place, one written through a hard link from outside the tree, a file added) must give the cold CLI's
// note each time, over MCP and for a CLI call served by the same `rglob mcp`. The compiled binary, a real tree,
// the SDK client over stdio.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const outer = mkdtempSync(join(tmpdir(), "rglob-look-warm-"));
const root = join(outer, "proj");
const cache = join(outer, "cache");
const elsewhere = join(outer, "elsewhere");
mkdirSync(join(root, "deps", "pkg"), { recursive: true });
mkdirSync(elsewhere);
writeFileSync(join(root, ".gitignore"), "deps/\n");
writeFileSync(join(root, "main.js"), "const main = 1;\n");
for (let i = 0; i < 40; i++) writeFileSync(join(root, "deps", "pkg", `m${i}.js`), `module.exports = ${i};\n`);
writeFileSync(join(root, "deps", "bin.dat"), Buffer.from([0, 1, 2, 3]));
// A file of the ignored folder with a second name outside the tree: written there, no event reaches the tree.
writeFileSync(join(elsewhere, "linked.js"), "exports.linked = 1;\n");
linkSync(join(elsewhere, "linked.js"), join(root, "deps", "linked.js"));
afterAll(() => rmSync(outer, { recursive: true, force: true }));

const env = { RGLOB_CACHE_DIR: cache, RGLOB_SERVE: "1" };
/** The look's note in a text (the MCP text names the input key where the CLI names the flag). */
const noteOf = (text: string) =>
  (/among the ignored entries[^\n]*/.exec(text)?.[0] ?? "(none)").replace(
    "respect_gitignore: false",
    "--no-ignore",
  );
/** The cold CLI's note for a pattern. */
const coldNote = (pattern: string) =>
  noteOf(rglob(["grep", pattern], { cwd: root, env: { ...env, RGLOB_SERVE: "0" } }).stderr);

describe("the look among the ignored entries, remembered by a warm server", () => {
  test("over MCP and a served CLI call: the cold note after every edit inside the ignored folder", async () => {
    const s = await startMcp(["--root", root], { cwd: root, env });
    try {
      const looks = async () => {
        const res = await s.client.readResource({ uri: "rglob://capabilities" });
        const caps = JSON.parse((res.contents[0] as { text: string }).text) as {
          mcp: {
            warm?: Array<{ state: string; looks?: { remembered: number; kept: number; answered: number } }>;
          };
        };
        return caps.mcp.warm?.[0];
      };
      const until = async (ok: (w: Awaited<ReturnType<typeof looks>>) => boolean) => {
        for (let i = 0; i < 600 && !ok(await looks()); i++) await Bun.sleep(100);
        expect(ok(await looks())).toBe(true);
      };
      await until((w) => w?.state === "ready");
      const mcpNote = async (pattern: string) => {
        const res = (await s.client.callTool({
          name: "rglob",
          arguments: { op: "grep", pattern, max_file_size: "20M" },
        })) as CallToolResult;
        return noteOf((res.content[0] as { text: string }).text);
      };
      const cliNote = (pattern: string) => noteOf(rglob(["grep", pattern], { cwd: root, env }).stderr);
      const served = () =>
        (
          JSON.parse(rglob(["index", "--status", "--json"], { cwd: root, env }).stdout) as {
            results: Array<{ servers: Array<{ calls: number }> }>;
          }
        ).results[0]?.servers[0]?.calls ?? 0;

      for (const [surface, note] of [
        ["mcp", mcpNote],
        ["cli", async (p: string) => cliNote(p)],
      ] as const) {
        const callsBefore = served();
        // A literal found nowhere: the look is recorded, then remembered between calls. Its note is the cold one's,
        // for any literal found nowhere (a look that finds nothing reads the same files whatever its pattern).
        const nowhere = coldNote(`zzNowhere${surface}A`);
        const before = (await looks())?.looks?.kept ?? 0;
        expect(await note(`zzNowhere${surface}A`)).toBe(nowhere);
        await until((w) => (w?.looks?.kept ?? 0) > before);
        // Later literals found nowhere are answered from it once the files read since (a cold run's, the server's
        // own) are no suspects of the watch: the same note, counted as answered.
        const answeredOne = async (prefix: string) => {
          const answered = (await looks())?.looks?.answered ?? 0;
          for (let i = 0; i < 100 && ((await looks())?.looks?.answered ?? 0) === answered; i++) {
            expect(await note(`${prefix}${i}`)).toBe(nowhere);
            await Bun.sleep(100);
          }
          expect((await looks())?.looks?.answered).toBeGreaterThan(answered);
        };
        await answeredOne(`zzNowhere${surface}B`);

        // An ignored file changed in place: its new text is found.
        const marker = `zzEdited${surface}`;
        appendFileSync(join(root, "deps", "pkg", "m7.js"), `// ${marker}\n`);
        const edited = await note(marker);
        expect(edited).toContain("deps/pkg/m7.js:");
        expect(edited).toBe(coldNote(marker));

        // Remembered again (a look that found nothing, answering the next), then a file written through its link
        // outside the tree.
        const again = (await looks())?.looks?.kept ?? 0;
        expect(await note(`zzNowhere${surface}C`)).toBe(nowhere);
        await until((w) => (w?.looks?.kept ?? 0) > again);
        await answeredOne(`zzNowhere${surface}D`);
        const linked = `zzLinked${surface}`;
        appendFileSync(join(elsewhere, "linked.js"), `// ${linked}\n`);
        const viaLink = await note(linked);
        expect(viaLink).toContain("deps/linked.js:");
        expect(viaLink).toBe(coldNote(linked));

        // A file added in the ignored folder.
        const added = `zzAdded${surface}`;
        writeFileSync(join(root, "deps", "pkg", `new-${surface}.js`), `// ${added}\n`);
        const found = await note(added);
        expect(found).toContain(`deps/pkg/new-${surface}.js:`);
        expect(found).toBe(coldNote(added));
        if (surface === "cli") expect(served()).toBeGreaterThan(callsBefore);
      }
    } finally {
      await s.close();
    }
  }, 120_000);
});
