// grep --only-ignored says what it did not search (#37): an agent asking "where does this code occur, ignored
// files included" re-ran with -uuu, --list-binary and --encoding utf-16le to rule binary and UTF-16 files out.
import { afterAll, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { grepAll } from "../../src/agent/index.ts";
import { rglob, tempTree } from "../helpers.ts";
import { startMcp } from "./mcp-helpers.ts";

const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("code E_DRIFT here\n", "utf16le")]);
const t = tempTree({
  ".gitignore": "logs/\n*.bin\n",
  "logs/app.log": "E_DRIFT seen\n",
  "logs/wide.txt": utf16,
  "blob.bin": Buffer.from("E_DRIFT\u0000\u0001"),
  "src/ok.txt": "nothing\n",
});
afterAll(() => t.cleanup());

test("the answer names the UTF-16 file it searched and the binary files it did not, with the flag", () => {
  const r = rglob(["grep", "-F", "E_DRIFT", "--only-ignored"], { cwd: t.dir });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("logs/app.log:1:E_DRIFT seen");
  expect(r.stdout).toContain("logs/wide.txt:1:code E_DRIFT here");
  expect(r.stderr).toContain(
    "rglob: not searched: 1 binary file (a NUL byte; -a/--text searches them, --list-binary names them); UTF-16 files with a byte order mark were searched",
  );
  // -a searches the binary file: no note then.
  const a = rglob(["grep", "-F", "E_DRIFT", "--only-ignored", "-a"], { cwd: t.dir });
  expect(a.stdout).toContain("blob.bin");
  expect(a.stderr).not.toContain("not searched");
});

// With the ignore rules off nothing can be ignored (#37): `grep -uuu --only-ignored` answered nothing, exit 1, which
// reads as "no ignored file holds it". It is a usage error on every surface, naming the fix.
test("--only-ignored with -u/--no-ignore is a usage error naming the fix: CLI, library and MCP", async () => {
  for (const args of [
    ["grep", "-uuu", "-F", "-l", "E_DRIFT", "--only-ignored"],
    ["grep", "--no-ignore", "-F", "E_DRIFT", "--only-ignored"],
    ["find", "-u", "--only-ignored"],
  ]) {
    const r = rglob(args, { cwd: t.dir });
    expect(`${args.join(" ")}: ${r.code}`).toBe(`${args.join(" ")}: 2`);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("BAD_PREDICATE");
    expect(r.stderr).toContain("nothing is ignored: drop -u/--no-ignore");
  }
  expect(rglob(["grep", "-uuu", "-F", "E_DRIFT", "--only-ignored"], { cwd: t.dir }).stderr).toContain(
    "-a/--text to search binary files",
  );
  // An extra ignore file still applies with --no-ignore: then the query answers.
  const extra = rglob(["find", "--no-ignore", "--ignore-file", ".gitignore", "--only-ignored"], {
    cwd: t.dir,
  });
  expect(extra.code).toBe(0);
  expect(extra.stdout).toContain("logs");
  // The library: a request failure is a result with the error (no results), as for any bad option.
  const lib = await grepAll({
    base: t.dir,
    pattern: "E_DRIFT",
    respect_gitignore: false,
    only_ignored: true,
  });
  expect(lib.results).toEqual([]);
  expect(lib.errors.map((e) => e.code)).toEqual(["BAD_PREDICATE"]);
  expect(lib.errors[0]?.message).toContain("nothing is ignored: drop -u/--no-ignore");
  const s = await startMcp(["--root", t.dir]);
  try {
    const res = (await s.client.callTool({
      name: "rglob",
      arguments: { op: "grep", pattern: "E_DRIFT", respect_gitignore: false, only_ignored: true },
    })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect((res.content as Array<{ text: string }>)[0]?.text).toContain(
      "nothing is ignored: drop -u/--no-ignore",
    );
  } finally {
    await s.close();
  }
});
