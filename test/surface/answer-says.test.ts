// #36: what an agent trial made extra calls for, said by the first answer or the first help read. grep names each
// file shown that is not in UTF-8 with its encoding, once (human: a note on stderr, the lines stay grep's
// `path:line:text`; MCP text: a line after the file's first record); the MCP skipped line names every binary file
// that fits and says how many more and what lists them; the help and the tool list say what `-t x`, `--saved-as
// crlf`/`mixed` and `top -D --max-depth` mean, each checked against what the binary does on a tree.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rglob, rglobJson, tempTree } from "../helpers.ts";
import { type McpSession, startMcp } from "./mcp-helpers.ts";

const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Zürich notes\r\n", "utf16le")]);
const spec: Record<string, string | Buffer | { symlink: string } | null> = {
  "enc/latin1.csv": Buffer.from("id;name\n1;Zürich\n", "latin1"),
  "enc/notes-utf16.txt": UTF16,
  "enc/utf8.txt": "Zürich here\nZürich again\n",
  "eol/all.txt": "a\r\nb\r\n",
  "eol/some.txt": "a\r\nb\n",
  "eol/none.txt": "a\nb\n",
  "x/owner": "#!/bin/sh\n",
  "x/group": "#!/bin/sh\n",
  "x/other": "#!/bin/sh\n",
  "x/plain": "text\n",
  "x/link": { symlink: "owner" },
  "sizes/a/deep/big.bin": Buffer.alloc(3000, 1),
  "sizes/a/small.txt": "1234567890",
  "sizes/b/mid.txt": Buffer.alloc(2000, 65),
};
for (let i = 0; i < 12; i++)
  spec[`many/f${String(i).padStart(2, "0")}.txt`] = Buffer.from("Zürich\n", "latin1");
for (let i = 0; i < 60; i++)
  spec[`bin/blob-with-a-long-name-${String(i).padStart(2, "0")}.bin`] = Buffer.from([0, 1, 2, 90]);
for (let i = 0; i < 4; i++) spec[`bin4/b${i}.bin`] = Buffer.from([0, 1, 2, 90]);
const t = tempTree(spec);
chmodSync(join(t.dir, "x/owner"), 0o744);
chmodSync(join(t.dir, "x/group"), 0o614);
chmodSync(join(t.dir, "x/other"), 0o641);
chmodSync(join(t.dir, "x/plain"), 0o644);

let mcp: McpSession | null = null;
beforeAll(async () => {
  mcp = await startMcp(["--root", t.dir], { cwd: t.dir });
});
afterAll(async () => {
  await mcp?.close();
  t.cleanup();
});

async function text(args: Record<string, unknown>): Promise<string> {
  if (mcp === null) throw new Error("no MCP session");
  const res = (await mcp.client.callTool({ name: "rglob", arguments: args })) as CallToolResult;
  return res.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

async function toolTexts(): Promise<Record<string, string>> {
  if (mcp === null) throw new Error("no MCP session");
  const { tools } = await mcp.client.listTools();
  const props = (tools.find((x) => x.name === "rglob")?.inputSchema.properties ?? {}) as Record<
    string,
    { description?: string }
  >;
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.description ?? ""]));
}

const ENC_NOTE =
  "rglob: note: 2 files shown are not saved as UTF-8 (searched decoded): enc/latin1.csv (windows-1252), enc/notes-utf16.txt (utf-16le+bom)";

describe("grep names the files it decoded, once each", () => {
  const LINES =
    "enc/latin1.csv:2:1;Zürich\nenc/notes-utf16.txt:1:Zürich notes\nenc/utf8.txt:1:Zürich here\nenc/utf8.txt:2:Zürich again\n";

  test.each([
    ["piped lines, searched in the calling thread", ["--threads", "0"]],
    ["piped lines, searched by two workers", ["--threads", "2"]],
  ])("%s: stdout is grep's lines, stderr one note with each encoding", (_name, extra) => {
    const run = rglob(["grep", "-F", "Zürich", "--encoding", "auto", "enc", ...extra], { cwd: t.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(LINES);
    expect(run.stderr.split("\n").filter((l) => l.includes("not saved as UTF-8"))).toEqual([ENC_NOTE]);
  });

  test.each([
    ["--heading", ["--heading"]],
    ["context", ["-C", "1"]],
    ["counts", ["-c"]],
    ["file list", ["-l"]],
  ])("%s: the same note", (_name, extra) => {
    const run = rglob(["grep", "-F", "Zürich", "--encoding", "auto", "enc", ...extra], { cwd: t.dir });
    expect(run.stderr.split("\n").filter((l) => l.includes("not saved as UTF-8"))).toEqual([ENC_NOTE]);
  });

  test("the default encoding names the UTF-16 file it decoded (Latin-1 is read as UTF-8 there)", () => {
    const run = rglob(["grep", "-F", "notes", "enc"], { cwd: t.dir });
    expect(run.stdout).toBe("enc/notes-utf16.txt:1:Zürich notes\n");
    expect(run.stderr).toContain(
      "rglob: note: 1 file shown is not saved as UTF-8 (searched decoded): enc/notes-utf16.txt (utf-16le+bom)",
    );
  });

  test("ten files are named, then how many more", () => {
    const run = rglob(["grep", "-F", "Zürich", "--encoding", "auto", "many"], { cwd: t.dir });
    const named = Array.from(
      { length: 10 },
      (_, i) => `many/f${String(i).padStart(2, "0")}.txt (windows-1252)`,
    );
    expect(run.stderr).toContain(
      `rglob: note: 12 files shown are not saved as UTF-8 (searched decoded): ${named.join(", ")} and 2 more (--json: each record's encoding)`,
    );
  });

  test("--json is unchanged: the records carry the encoding, no note; a label named decodes every file as asked", () => {
    const { json, run } = rglobJson<{ results: Array<{ relative_path: string; encoding: string }> }>(
      ["grep", "-F", "Zürich", "--encoding", "auto", "enc", "--json"],
      { cwd: t.dir },
    );
    expect(json.results.map((r) => `${r.relative_path} ${r.encoding}`)).toContain(
      "enc/latin1.csv windows-1252",
    );
    expect(run.stderr).not.toContain("not saved as UTF-8");
    const named = rglob(["grep", "-F", "Zürich", "--encoding", "latin1", "enc/latin1.csv", "enc/utf8.txt"], {
      cwd: t.dir,
    });
    expect(named.stderr).not.toContain("not saved as UTF-8");
  });

  test("MCP text: the encoding after the file's first record, once, for the files not in UTF-8 only", async () => {
    const got = await text({ op: "grep", pattern: "Zürich", encoding: "auto", paths: ["enc"], context: 1 });
    const lines = got.split("\n");
    const at = (s: string) => lines.indexOf(s);
    expect(lines[at("enc/latin1.csv:2:1;Zürich") + 1]).toBe(
      "  (file saved as windows-1252, searched decoded)",
    );
    expect(lines[at("enc/notes-utf16.txt:1:Zürich notes") + 1]).toBe(
      "  (file saved as utf-16le+bom, searched decoded)",
    );
    expect(lines.filter((l) => l.includes("searched decoded"))).toHaveLength(2);
  });
});

describe("the MCP skipped line names the binary files", () => {
  test("all of them when they fit, without a cut", async () => {
    const got = await text({
      op: "grep",
      pattern: "nowhere-to-be-found",
      paths: ["bin4"],
      list_binary: true,
    });
    expect(got).toContain(
      "binary 4 (binary file (NUL byte); use text to search it: bin4/b0.bin, bin4/b1.bin, bin4/b2.bin, bin4/b3.bin)",
    );
  });

  test("else as many as fit, how many more, and what lists them all (which does)", async () => {
    const got = await text({
      op: "grep",
      pattern: "nowhere-to-be-found",
      paths: ["bin"],
      list_binary: true,
      max_output_bytes: 8000,
    });
    const line = got.split("\n").find((l) => l.startsWith("skipped:")) ?? "";
    const m =
      /binary 60 \(binary file \(NUL byte\); use text to search it: ([^)]*) and (\d+) more; find with saved_as: \["binary"\] lists binary files\)/.exec(
        line,
      );
    expect(m).not.toBeNull();
    const named = (m?.[1] ?? "").split(", ");
    expect(named.length).toBeGreaterThan(3);
    expect(named.length + Number(m?.[2])).toBe(60);
    const listed = await text({ op: "find", paths: ["bin"], saved_as: ["binary"], limit: 100 });
    expect(listed).toContain("find: 60 records");
  });
});

describe("the help and the tool list say what the filters mean, as the binary does it", () => {
  test("-t x: a file with any execute bit (user, group or other); a symlink only when followed", async () => {
    expect(rglob(["find", "-h"], { env: { COLUMNS: "100" } }).stdout).toContain("x (any execute bit)");
    const full = rglob(["find", "--help"], { env: { COLUMNS: "100" } }).stdout.replace(/\s+/g, " ");
    expect(full).toContain("x: user, group or other, as --perm /111");
    expect(full).toContain("a symlink only when followed");
    expect((await toolTexts()).types).toContain("x (any execute bit)");
    expect(rglob(["find", "-t", "x", "--base", "x"], { cwd: t.dir }).stdout).toBe(
      "x/group\nx/other\nx/owner\n",
    );
    expect(rglob(["find", "-t", "x", "-L", "--base", "x"], { cwd: t.dir }).stdout).toBe(
      "x/group\nx/link -> owner\nx/other\nx/owner\n",
    );
  });

  test("--saved-as crlf is every line end CR LF, mixed some", async () => {
    expect((await toolTexts()).saved_as).toContain("line ends crlf (all), mixed (some), lf");
    const full = rglob(["find", "--help"], { env: { COLUMNS: "100" } }).stdout.replace(/\s+/g, " ");
    expect(full).toContain("crlf (every line end CR LF), mixed (CR LF and lone LF), lf, none (no LF)");
    expect(rglob(["find", "--saved-as", "crlf", "--base", "eol"], { cwd: t.dir }).stdout).toBe(
      "eol/all.txt: crlf\n",
    );
    expect(rglob(["find", "--saved-as", "mixed", "--base", "eol"], { cwd: t.dir }).stdout).toBe(
      "eol/some.txt: mixed\n",
    );
  });

  test("top -D --max-depth 1: the top-level directories, each with every file below it", async () => {
    expect((await toolTexts()).dirs).toBe(
      "Rank directories by all their files' size; max_depth bounds those listed (top)",
    );
    const short = rglob(["top", "-h"], { env: { COLUMNS: "100" } }).stdout;
    expect(short).toContain(
      "rglob top -D --max-depth 1\n      The largest top-level directories, each with every file below it",
    );
    const { json } = rglobJson<{ results: Array<{ relative_path: string; size: number }> }>(
      ["top", "-D", "--max-depth", "1", "--base", "sizes", "--json"],
      { cwd: t.dir },
    );
    expect(json.results.map((r) => `${r.relative_path} ${r.size}`)).toEqual(["a 3010", "b 2000"]);
  });
});
