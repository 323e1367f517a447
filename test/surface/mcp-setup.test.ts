// Every host snippet in docs/agents/mcp-setup.md works on first paste: each JSON and TOML block (and each
// `claude mcp add` line) is parsed, its command and arguments are started as the host would start them (in the
// working directory the host uses, offering the roots the host sends), with the placeholders replaced by a temp
// directory, and the MCP SDK client lists the tools (those `capabilities` names) and finds a file in that
// directory. The server also declares the `logging` capability and accepts logging/setLevel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN, ROOT, rglobJson, tempTree } from "../helpers.ts";

/** How each host starts a stdio server: its working directory ("project" or "/") and whether it sends roots. */
const HOSTS: Record<string, { cwd: "project" | "/"; roots: boolean }> = {
  "Claude Code": { cwd: "project", roots: false },
  Cursor: { cwd: "/", roots: true },
  "VS Code": { cwd: "project", roots: true },
  "Codex CLI": { cwd: "/", roots: false },
  "Gemini CLI": { cwd: "project", roots: true },
  "Claude Desktop": { cwd: "/", roots: false },
};

/** The variable Cursor and VS Code replace with the project directory. */
const WORKSPACE_FOLDER = "$" + "{workspaceFolder}";

interface Snippet {
  readonly host: string;
  readonly lang: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** The server entry of a parsed config, in any of the hosts' shapes. */
function serverOf(config: Record<string, unknown>): { command: string; args?: string[]; type?: string } {
  const tables = [config.mcpServers, config.servers, config.mcp_servers] as Array<
    Record<string, { command: string; args?: string[]; type?: string }> | undefined
  >;
  const entry = tables.find((t) => t?.rglob)?.rglob;
  if (!entry) throw new Error(`no rglob server in ${JSON.stringify(config)}`);
  return entry;
}

function snippets(): Snippet[] {
  const doc = readFileSync(`${ROOT}/docs/agents/mcp-setup.md`, "utf8");
  const section = doc.slice(doc.indexOf("## Setting it up in a host"), doc.indexOf("## Any other client"));
  const out: Snippet[] = [];
  let host = "";
  const re = /^### (.+)$|^```(json|toml|sh)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(section); m; m = re.exec(section)) {
    if (m[1]) {
      host = m[1].trim();
      continue;
    }
    const lang = m[2] as string;
    const body = m[3] as string;
    if (lang === "sh") {
      for (const line of body.split("\n").filter((l) => l.startsWith("claude mcp add "))) {
        const words = line.split(/\s+/);
        const rest = words.slice(words.indexOf("--") + 1);
        out.push({ host, lang, command: rest[0] as string, args: rest.slice(1) });
      }
      continue;
    }
    const config = (lang === "json" ? JSON.parse(body) : Bun.TOML.parse(body)) as Record<string, unknown>;
    const server = serverOf(config);
    if (lang === "json" && config.servers) expect(server.type).toBe("stdio"); // VS Code's format
    out.push({ host, lang, command: server.command, args: server.args ?? [] });
  }
  return out;
}

let tree: { dir: string; cleanup: () => void };
let tools: string[] = [];

beforeAll(() => {
  tree = tempTree({ "marker-7c1.txt": "served\n", "src/a.ts": "export {};\n" });
  tools = (rglobJson(["capabilities"]).json as { mcp: { tools: string[] } }).mcp.tools;
});

afterAll(() => tree?.cleanup());

describe("docs/agents/mcp-setup.md", () => {
  const all = snippets();

  test("has a tested snippet for each of the six hosts, and a committable one for Claude Code", () => {
    expect([...new Set(all.map((s) => s.host))].sort()).toEqual(Object.keys(HOSTS).sort());
    expect(all.filter((s) => s.lang === "toml").length).toBe(1);
    const committable = all.find((s) => s.host === "Claude Code" && s.lang === "json");
    expect(committable?.args.some((a) => a.startsWith("/"))).toBe(false);
  });

  test.each(all.map((s, i) => [`${s.host} (${s.lang} #${i})`, s] as const))(
    "%s starts and serves the project",
    async (_name, s) => {
      const how = HOSTS[s.host];
      if (!how) throw new Error(`no host model for '${s.host}'`);
      const command = s.command === "rglob" || s.command === "/path/to/rglob" ? BIN : s.command;
      expect(command).toBe(BIN);
      const args = s.args.map((a) => (a === "/path/to/project" || a === WORKSPACE_FOLDER ? tree.dir : a));
      expect(args.some((a) => a.includes("$" + "{") || a.includes("/path/to/"))).toBe(false);
      const transport = new StdioClientTransport({
        command,
        args,
        cwd: how.cwd === "/" ? "/" : tree.dir,
        stderr: "pipe",
        env: { ...(process.env as Record<string, string>), NO_COLOR: "1" },
      });
      const client = new Client(
        { name: `as-${s.host}`, version: "1.0.0" },
        { capabilities: how.roots ? { roots: { listChanged: true } } : {} },
      );
      if (how.roots) {
        client.setRequestHandler(ListRootsRequestSchema, async () => ({
          roots: [{ uri: pathToFileURL(tree.dir).href, name: "project" }],
        }));
      }
      await client.connect(transport);
      try {
        const listed = (await client.listTools()).tools.map((t) => t.name);
        expect(listed).toEqual(tools);
        expect(client.getServerCapabilities()?.logging).toBeDefined();
        await client.setLoggingLevel("info");
        const found = await client.callTool({ name: "find_files", arguments: { patterns: ["marker-*"] } });
        expect(found.isError ?? false).toBe(false);
        const records = (found.structuredContent as { results: Array<{ path: string }> }).results;
        expect(records.map((r) => r.path)).toEqual([`${realpathSync(tree.dir)}/marker-7c1.txt`]);
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});
